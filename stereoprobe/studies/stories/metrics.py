"""The stories study's gate metrics (stereoprobe/gate/values.py), from RUN_DIR/stories/.

- ``female_share``: the share of female names among the stories whose protagonist has a
  female or male name, per profession (``profession``: Jeffreys interval over its
  stories, professions.csv) or over the run (the default, ``"all"``: cluster bootstrap
  over professions, summary.csv);
- ``unknown_share``: the stories whose name is not in the name table (reported by 000,
  never dropped), ``no_name_share``: the stories with no name read (summary.csv);
- ``nmi``: NMI(profession, gender) over the stories with a gendered name, bias-corrected,
  with its interval (summary.csv's ``nmi_corrected``).

All shares 0-1 (the tables hold percent). Against a baseline that asked the same
professions and prompts, ``differences`` gives run minus baseline for every metric
(generation/paired.py): the shares over the run by a paired cluster bootstrap over
professions (t, professions - 1 df), a profession's share by MOVER from the two runs'
Jeffreys intervals, the NMI from the two runs' bootstraps together (normal).
"""

from __future__ import annotations

from pathlib import Path

from stereoprobe.gate.values import MetricSpec, Value

SPECS = {
    "female_share": MetricSpec("female_share", "share of female names among the stories with a female or male name",
                               {"profession": "all"}, paired=True),
    "unknown_share": MetricSpec("unknown_share", "share of the stories read whose name is not in the name table",
                                paired=True),
    "no_name_share": MetricSpec("no_name_share", "share of the stories read with no protagonist's name", paired=True),
    "nmi": MetricSpec("nmi", "NMI(profession, gender) over the stories with a gendered name, bias-corrected",
                      paired=True),
}


def values(run_dir: str | Path) -> list[Value]:
    from stereoprobe.generation.metrics import PERCENT, group_values, summary_values
    from stereoprobe.studies.base import read_scores

    t = read_scores(run_dir, "stories", ["summary", "professions"])
    overall = summary_values(t["summary"], {"female_share": ("female_of_gendered", PERCENT)}, profession="all")
    rest = summary_values(t["summary"], {"unknown_share": ("unknown_share", PERCENT),
                                         "no_name_share": ("no_name_share", PERCENT), "nmi": ("nmi_corrected", 1.0)})
    professions = t["professions"].assign(gendered=t["professions"].female + t["professions"].male)
    return overall + rest + group_values(professions, "female_share", "profession", "female_of_gendered", "gendered")


def differences(baseline: str | Path, run: str | Path, n_boot: int = 2000, seed: int = 2023) -> list[Value]:
    """Run minus baseline for every metric (module docstring), from both runs' tables."""
    from stereoprobe.generation.metrics import paired_values
    from stereoprobe.studies.stories.score import nmi_of, shares

    metrics = {"female_share": ("female_of_gendered", {"profession": "all"}), "unknown_share": ("unknown_share", {}),
               "no_name_share": ("no_name_share", {})}
    return paired_values(baseline, run, "stories", shares, nmi_of, metrics, group=("female_share", "profession"),
                         n_boot=n_boot, seed=seed)
