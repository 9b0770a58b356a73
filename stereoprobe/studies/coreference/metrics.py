"""The coreference study's gate metrics (stereoprobe/gate/values.py), from RUN_DIR/coreference/.

- ``incorrect``, ``inconsistent``, ``binary_inconsistent``: Table 3's rates (table3.csv), per
  scene (``scene``, default the ``Overall`` row) and prefix (``prefix``, default 0: none);
- ``fnr``, ``fpr``, ``ppv``, ``npv``: Sterlie et al.'s rates per pronoun (criteria.csv);
- ``winobias_gap``: accuracy on pro- minus anti-stereotypical prompts per pronoun (winobias.csv).

Every value is a share (0-1; the tables hold percent) with the interval the score step
wrote: the rates' Jeffreys interval at the crossed design's effective size, the WinoBias
gap's t interval with its degrees of freedom (``gap_df``). Against a baseline,
``differences`` runs the study's compare (paired by prompt, profession pairs resampled) in
memory: run minus baseline, with its t interval, degrees of freedom and p.

These are the metrics of a run of Marin & Eger's scenes (``variant`` ``marin-eger``). A run
of Sterlie et al.'s own prompts (``--templates sterlie``, variant ``sterlie``) has metrics
of its own, ``sterlie_error``, ``sterlie_fnr`` ... ``sterlie_gap`` (sterlie_metrics.py);
``values`` and ``differences`` read each run by its kind (``variant``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from stereoprobe.gate.values import MetricSpec, Value, number, scope
from stereoprobe.studies.coreference.sterlie_metrics import SPECS as STERLIE_SPECS

_RATES = {"incorrect": "answers that name the wrong profession (or neither)",
          "inconsistent": "triples (he, she, they) not answered alike",
          "binary_inconsistent": "he/she pairs not answered alike"}
_CRITERIA = {"fnr": "false negative rate", "fpr": "false positive rate", "ppv": "positive predictive value",
             "npv": "negative predictive value"}
_SCENES = "marin-eger"
#: the two kinds of coreference run, in words (the gate's messages)
VARIANTS = {_SCENES: "Marin & Eger's scenes", "sterlie": "Sterlie et al.'s prompts (--templates sterlie)"}
SPECS = {
    **{m: MetricSpec(m, f"share of {d} (Table 3)", {"scene": "Overall", "prefix": "0"}, paired=True, variant=_SCENES)
       for m, d in _RATES.items()},
    **{m: MetricSpec(m, f"Sterlie et al.'s {d} per pronoun", {"pronoun": None, "prefix": "0"}, paired=True,
                     variant=_SCENES) for m, d in _CRITERIA.items()},
    "winobias_gap": MetricSpec("winobias_gap", "accuracy on pro- minus anti-stereotypical prompts, per pronoun",
                               {"pronoun": None, "prefix": "0"}, bounds=(-1.0, 1.0), paired=True, variant=_SCENES),
    **STERLIE_SPECS,
}


def variant(run_dir: str | Path) -> str:
    """The run's kind: ``sterlie`` (Sterlie et al.'s prompts) or ``marin-eger`` (Marin & Eger's scenes)."""
    from stereoprobe.studies.coreference.sterlie_metrics import VARIANT, is_sterlie

    return VARIANT if is_sterlie(run_dir) else _SCENES


def values(run_dir: str | Path) -> list[Value]:
    from stereoprobe.studies.base import read_scores

    if variant(run_dir) != _SCENES:
        from stereoprobe.studies.coreference import sterlie_metrics

        return sterlie_metrics.values(run_dir)

    t = read_scores(run_dir, "coreference", ["table3", "criteria", "winobias"], dtype={"template": str})
    out = []
    for r in t["table3"].to_dict("records"):
        for m in _RATES:
            out.append(Value(m, scope(scene=r["template"], prefix=int(r["debias"])), number(r[f"{m}_pct"]) / 100,
                             number(r[f"{m}_low"]) / 100, number(r[f"{m}_high"]) / 100, int(r[f"{m}_n"]),
                             method="jeffreys"))
    for r in t["criteria"].to_dict("records"):
        for m in _CRITERIA:
            out.append(Value(m, scope(pronoun=r["pronoun"], prefix=int(r["debias"])), number(r[f"{m}_pct"]) / 100,
                             number(r[f"{m}_low"]) / 100, number(r[f"{m}_high"]) / 100, method="jeffreys"))
    for r in t["winobias"].to_dict("records"):
        out.append(Value("winobias_gap", scope(pronoun=r["pronoun"], prefix=int(r["debias"])), number(r["gap"]) / 100,
                         number(r["gap_low"]) / 100, number(r["gap_high"]) / 100, int(r["anti_n"]),
                         **_t(r.get("gap_df"))))
    return out


def differences(baseline: str | Path, run: str | Path, n_boot: int = 2000, seed: int = 2023) -> list[Value]:
    """Run minus baseline for every paired metric, from the study's compare (B = the run); two
    sterlie runs: sterlie_metrics.differences."""
    from stereoprobe.errors import DataError
    from stereoprobe.studies.coreference.compare import compare_runs

    kinds = {variant(baseline), variant(run)}
    if len(kinds) > 1:
        raise DataError(f"{run} and {baseline} asked different coreference prompts (one Marin & Eger's scenes, one "
                        "Sterlie et al.'s); compare a run with one of its own kind.")
    if kinds != {_SCENES}:
        from stereoprobe.studies.coreference import sterlie_metrics

        return sterlie_metrics.differences(baseline, run)

    d: Any = compare_runs([baseline, run], n_boot=n_boot, seed=seed).differences
    out = []
    for r in d.to_dict("records"):
        if r["measure"] not in SPECS or isinstance(r["debias"], str):
            continue
        keys = ({"scene": r["template"]} if r["measure"] in _RATES else {"pronoun": r["pronoun"]})
        if r["measure"] == "incorrect" and r["pronoun"] != "all":
            continue
        out.append(Value(r["measure"], scope(**keys, prefix=int(r["debias"])), number(r["difference"]) / 100,
                         number(r["low"]) / 100, number(r["high"]) / 100, int(r["n"]), number(r["p"]),
                         **_t(r["df"])))
    return out


def _t(df: object) -> dict[str, Any]:
    """A t interval's method and df; a table written before ``gap_df`` existed: normal (df = inf)."""
    d = number(df)
    return {"method": "t", "df": d if d == d else float("inf")}
