"""The anecdotes study's gate metrics (stereoprobe/gate/values.py), from RUN_DIR/anecdotes/.

- ``follows_majority``: the share of the gendered texts (male or female) that follow their
  job's BLS majority (001: 94% for GPT-4), with the cluster-bootstrap interval over
  professions (summary.csv);
- ``follows_majority_all``: the same over every classified text of those professions, those
  without a gender included (001's denominator for its 94%; summary.csv);
- ``neutral_share``, ``mixed_share``: the texts with no gender marker, or both (summary.csv);
- ``nmi``: NMI(profession, gender) over the gendered texts, bias-corrected, with its
  interval (summary.csv's ``nmi_corrected``; 0 when the gender does not depend on the job);
- ``nmi_of_ceiling``: that NMI as a share of the largest a binary gender can reach over the
  run's number of professions (0.433 at 40, 0.388 at 100), with its interval likewise: on
  one scale whatever the number of professions (summary.csv);
- ``spearman_bls``: Spearman of the female share with the BLS share over the professions;
- ``female_share``: per profession (``profession``, required: a job or ``"*"``) the share
  of its gendered texts about a woman, Jeffreys interval over its samples
  (professions.csv).

All shares 0-1 (the tables hold percent). Against a baseline that asked the same
professions, ``differences`` gives run minus baseline (generation/paired.py) for every metric
but ``spearman_bls``: the shares over the run by a paired cluster bootstrap over professions
(t, professions - 1 df), a profession's share by MOVER from the two runs' Jeffreys intervals,
the NMI and its share of the ceiling from the two runs' bootstraps together (normal).
``spearman_bls`` has none: a difference of two correlations over the same professions would
need a jackknife of both runs together, not built (its values are gated with max/min).
"""

from __future__ import annotations

from pathlib import Path

from stereoprobe.gate.values import MetricSpec, Value

_SHARES = {"follows_majority": "share of the gendered texts that follow their job's BLS majority",
           "follows_majority_all": "share of all classified texts (with a gender or not) that follow their job's "
                                   "BLS majority",
           "neutral_share": "share of the classified texts with no gender marker",
           "mixed_share": "share of the classified texts with markers of both genders"}
SPECS = {
    **{m: MetricSpec(m, d, paired=True) for m, d in _SHARES.items()},
    "nmi": MetricSpec("nmi", "NMI(profession, gender) over the gendered texts, bias-corrected (001 eq. 1-2)",
                      paired=True),
    "nmi_of_ceiling": MetricSpec("nmi_of_ceiling", "the bias-corrected NMI as a share of the largest a binary "
                                 "gender can reach over the run's professions", paired=True),
    "spearman_bls": MetricSpec("spearman_bls", "Spearman of the female share with the BLS share of women",
                               bounds=(-1.0, 1.0)),
    "female_share": MetricSpec("female_share", "share of a profession's gendered texts about a woman",
                               {"profession": None}, paired=True),
}


def values(run_dir: str | Path) -> list[Value]:
    from stereoprobe.generation.metrics import PERCENT, group_values, summary_values
    from stereoprobe.studies.base import read_scores

    t = read_scores(run_dir, "anecdotes", ["summary", "professions"])
    wanted = {**{m: (m, PERCENT) for m in _SHARES}, "nmi": ("nmi_corrected", 1.0),
              "nmi_of_ceiling": ("nmi_of_ceiling", PERCENT), "spearman_bls": ("spearman_bls", 1.0)}
    return summary_values(t["summary"], wanted) + group_values(t["professions"], "female_share", "profession",
                                                                "female_of_gendered", "gendered")


def differences(baseline: str | Path, run: str | Path, n_boot: int = 2000, seed: int = 2023) -> list[Value]:
    """Run minus baseline for every paired metric (module docstring), from both runs' tables."""
    from stereoprobe.generation.metrics import paired_values
    from stereoprobe.studies.anecdotes.score import nmi_of, shares

    return paired_values(baseline, run, "anecdotes", shares, nmi_of, {m: (m, {}) for m in _SHARES},
                         group=("female_share", "profession"), ceiling="nmi_of_ceiling", n_boot=n_boot, seed=seed)
