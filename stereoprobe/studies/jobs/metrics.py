"""The jobs study's gate metrics (stereoprobe/gate/values.py), from RUN_DIR/jobs/.

- ``spearman``, ``pearson``: the correlation of P(female) with the job's share of women
  (correlations.csv), per prompt set (``prompts``: 1, 2, 3, 4, 2-4, stories; default 2-4),
  prefix (default 0) and setting (default without dialogue);
- ``spearman_gap``: implicit (prompts 2-4) minus explicit (prompt 1) Spearman, and
  ``separation_gap``: the same for the separation (mean P(female) of women- minus
  men-dominated jobs), per prefix and setting (gap.csv);
- ``p_female``, ``p_male``, ``p_diverse``: the mean probability over the women- or
  men-dominated jobs (``group``, required), per prompt set, prefix and setting (groups.csv).

Probabilities are shares (0-1; the tables hold percent). The intervals: the correlations'
jackknife on atanh r (t, jobs - 1 df), the Spearman gap's percentile bootstrap, the
separation gap's t over jobs (jobs - 2 df: two groups), the group means' Jeffreys interval
at the effective size. Against a baseline, ``differences`` runs the study's compare
(paired per job) in memory: run minus baseline for ``p_female``, ``p_male`` and
``p_diverse`` (group women, men or all; prompts 1 or 2-4), t over jobs with its df.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from stereoprobe.gate.values import MetricSpec, Value, number, scope

_CELL = {"prompts": "2-4", "prefix": "0", "setting": "without dialogue"}
_GENDERS = ("male", "female", "diverse")
SPECS = {
    "spearman": MetricSpec("spearman", "Spearman of P(female) with the share of women in the job", _CELL,
                           bounds=(-1.0, 1.0)),
    "pearson": MetricSpec("pearson", "Pearson of P(female) with the share of women in the job", _CELL,
                          bounds=(-1.0, 1.0)),
    "spearman_gap": MetricSpec("spearman_gap", "implicit (prompts 2-4) minus explicit (prompt 1) Spearman",
                               {"prefix": "0", "setting": "without dialogue"}, bounds=(-2.0, 2.0)),
    "separation_gap": MetricSpec("separation_gap", "implicit minus explicit separation (mean P(female) of women- "
                                 "minus men-dominated jobs)", {"prefix": "0", "setting": "without dialogue"},
                                 bounds=(-2.0, 2.0)),
    **{f"p_{g}": MetricSpec(f"p_{g}", f"mean P({g}) over the group's jobs", {"group": None, **_CELL}, paired=True)
       for g in _GENDERS},
}


def values(run_dir: str | Path) -> list[Value]:
    from stereoprobe.studies.base import read_scores

    t = read_scores(run_dir, "jobs", ["groups", "correlations", "gap"], dtype={"prompts": str})
    out = []
    for r in t["correlations"].to_dict("records"):
        out.append(Value(r["method"], scope(prompts=r["prompts"], prefix=int(r["debias"]), setting=r["setting"]),
                         number(r["r"]), number(r["low"]), number(r["high"]), int(r["n"]), method="atanh",
                         df=int(r["n"]) - 1))
    for r in t["gap"].to_dict("records"):
        cell = scope(prefix=int(r["debias"]), setting=r["setting"])
        out.append(Value("spearman_gap", cell, number(r["spearman_difference"]), number(r["spearman_difference_low"]),
                         number(r["spearman_difference_high"]), int(r["jobs"]), method="percentile"))
        out.append(Value("separation_gap", cell, number(r["separation_difference"]) / 100,
                         number(r["separation_difference_low"]) / 100, number(r["separation_difference_high"]) / 100,
                         int(r["jobs"]), method="t", df=int(r["jobs"]) - 2))
    for r in t["groups"].to_dict("records"):
        cell = scope(group=r["group"], prompts=r["prompts"], prefix=int(r["debias"]), setting=r["setting"])
        for g in _GENDERS:
            out.append(Value(f"p_{g}", cell, number(r[g]) / 100, number(r[f"{g}_ci_low"]) / 100,
                             number(r[f"{g}_ci_high"]) / 100, int(r["jobs"]), method="jeffreys"))
    return out


def differences(baseline: str | Path, run: str | Path, n_boot: int = 2000, seed: int = 2023) -> list[Value]:
    """Run minus baseline, per job, from the study's compare (B = the run)."""
    from stereoprobe.studies.jobs.compare import compare_runs

    d: Any = compare_runs([baseline, run], n_boot=n_boot, seed=seed).differences
    return [Value(f"p_{r['gender']}", scope(group=r["group"], prompts=r["prompts"], prefix=int(r["debias"]),
                                            setting=r["setting"]),
                  number(r["difference"]) / 100, number(r["ci_low"]) / 100, number(r["ci_high"]) / 100, int(r["jobs"]),
                  number(r["p"]), method="t", df=number(r["df"]))
            for r in d.to_dict("records") if not isinstance(r["debias"], str)]
