"""The gate metrics of a ``--templates sterlie`` run (metrics.py hands them to the gate), from
the tables sterlie_score.py wrote (RUN_DIR/coreference/), 001's rates over every sample:

- ``sterlie_error``: the error rate (a reply naming the wrong job, or none, is wrong) per
  prompt and pronoun (``template``: 4.3 ... 4.8 or a multiple-choice group; table6.csv), over
  all of a pronoun's prompts (``template = "all"``, the default; separation.csv) and of each
  baseline question (``template`` "4.3 baseline" ..., ``pronoun = "none"``; table3.csv);
- ``sterlie_fnr``, ``sterlie_fpr``, ``sterlie_ppv``, ``sterlie_npv``: Sterlie et al.'s rates per
  pronoun (he, she: separation.csv, 001's Tables 4-5 or 1-2);
- ``sterlie_gap``: she minus he per rate (``rate``: error, fnr, fpr, ppv, npv; gaps.csv).

The rates' intervals are the tables' Jeffreys intervals at the stratified bootstrap's
effective size (samples resampled within their prompt and pronoun); the gaps' are MOVER's
from the two pronouns' intervals (``sides``). One sample per prompt (logprob mode) gives no
interval, and then no verdict.

**Against a baseline** (``differences``): two sterlie runs of the same prompts are two
independent sets of samples of the same prompts, each rate's interval resampling only its
own samples within each prompt; so the run-minus-baseline difference of a rate (or of a
gap) gets the MOVER interval of the two runs' own intervals (``stats.mover``), as the gap
does of the two pronouns'. This is the estimand of the runs' own intervals (these prompts,
sampled again), not other wordings. The four-fifths ratios (four_fifths.csv) are not gate
metrics: a ratio lower / higher is not smooth where the two rates are equal (its truth
there is 1, the edge of its range), and a score interval of a ratio of two shares fails at
the 0 and 1 that Sterlie rates often are (statsmodels 0.15 gives 50 of 50 against 50 of 50 a
complex lower limit); the gap of each rate carries the same comparison with a valid
interval, and the page keeps the ratios' permutation test.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from stereoprobe.gate.values import MetricSpec, Value, number, scope

VARIANT = "sterlie"
_RATES = {"fnr": "false negative rate", "fpr": "false positive rate", "ppv": "positive predictive value",
          "npv": "negative predictive value"}
SPECS = {
    "sterlie_error": MetricSpec("sterlie_error", "share of wrong answers (wrong job or none) to Sterlie et al.'s "
                                "prompts, per pronoun, over all its prompts or per prompt",
                                {"template": "all", "pronoun": None}, paired=True, variant=VARIANT),
    **{f"sterlie_{m}": MetricSpec(f"sterlie_{m}", f"Sterlie et al.'s {d} over their own prompts, per pronoun",
                                  {"pronoun": None}, paired=True, variant=VARIANT) for m, d in _RATES.items()},
    "sterlie_gap": MetricSpec("sterlie_gap", "she minus he of a rate (error, fnr, fpr, ppv, npv) over Sterlie et "
                              "al.'s prompts", {"rate": None}, bounds=(-1.0, 1.0), paired=True, variant=VARIANT),
}
TABLES = ["table6", "table3", "separation", "gaps"]


def _share(metric: str, keys: dict[str, Any], r: dict[str, Any], col: str, n: Any = None) -> Value:
    return Value(metric, scope(**keys), number(r[f"{col}_pct"]) / 100, number(r[f"{col}_low"]) / 100,
                 number(r[f"{col}_high"]) / 100, None if n is None else int(n), method="jeffreys")


def values(run_dir: str | Path) -> list[Value]:
    """Every metric of a scored sterlie run (module docstring)."""
    from stereoprobe.studies.base import read_scores

    t = read_scores(run_dir, "coreference", TABLES, dtype={"template": str})
    out = []
    for r in t["separation"].to_dict("records"):
        out.append(_share("sterlie_error", {"template": "all", "pronoun": r["pronoun"]}, r, "error", r["error_n"]))
    for r in t["table6"].to_dict("records"):
        out.append(_share("sterlie_error", {"template": r["template"], "pronoun": r["pronoun"]}, r, "error", r["n"]))
    for r in t["table3"].to_dict("records"):
        out.append(_share("sterlie_error", {"template": r["template"], "pronoun": "none"}, r, "error", r["n"]))
    for m in _RATES:
        out += [_share(f"sterlie_{m}", {"pronoun": r["pronoun"]}, r, m) for r in t["separation"].to_dict("records")]
    for r in t["gaps"].to_dict("records"):
        out.append(Value("sterlie_gap", scope(rate=r["rate"]), number(r["gap"]) / 100, number(r["gap_low"]) / 100,
                         number(r["gap_high"]) / 100, method="sides"))
    return out


def differences(baseline: str | Path, run: str | Path) -> list[Value]:
    """Run minus baseline for every metric, each with the MOVER interval of the two runs' own
    intervals (module docstring); the two runs must have asked the same prompts."""
    from stereoprobe.errors import DataError
    from stereoprobe.gate.pvalues import with_p
    from stereoprobe.stats.intervals import mover

    a, b = ({(v.metric, v.scope): v for v in values(r)} for r in (baseline, run))
    if set(a) != set(b):
        raise DataError(f"{run} and {baseline} asked different Sterlie prompts or experiments; a paired difference "
                        "needs the same prompts: collect both with the same --templates sterlie options.")
    out = []
    for key, vb in b.items():
        va = a[key]
        d, low, high = mover(va.estimate, va.low, va.high, vb.estimate, vb.low, vb.high)
        out.append(with_p(Value(vb.metric, vb.scope, float(d), float(low), float(high), vb.n, method="sides")))
    return out


def is_sterlie(run_dir: str | Path) -> bool:
    """Whether a coreference run asked Sterlie et al.'s prompts (its manifest's template family)."""
    from stereoprobe.manifest import read_manifest

    m = read_manifest(Path(run_dir))
    return bool(m is not None and m.catalog and m.catalog.template_family.startswith("sterlie"))
