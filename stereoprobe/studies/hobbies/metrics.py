"""The hobbies study's gate metrics (stereoprobe/gate/values.py), from RUN_DIR/hobbies/.

- ``label_difference``: per label (``label``, required: Technology, Science, Sport, Art,
  Literature, Volunteer work, a user's label, or ``"*"``) the mean score of texts about
  female names minus that of male names, each name's mean first, with Welch's interval
  over the names and its degrees of freedom (labels.csv; a score is 0-1, so the
  difference is -1 to 1);
- ``nmi``: NMI(gender, top label) over the texts with its percentile interval from
  resampling names within each gender (meta.json; 0 when the top label does not depend
  on the gender).

The cross-run Word2Vec d of ``stereoprobe compare`` is not a run's metric (it needs the
texts of all the runs compared). Against a baseline over the same names, ``differences``
gives run minus baseline for both metrics (stats.py), over the names both runs scored:
``label_difference`` by Welch's test of female vs male names on each name's run-minus-baseline
mean (t, Welch's df), ``nmi`` by resampling names within each gender, the same for both
runs (percentile).
"""

from __future__ import annotations

from pathlib import Path

from stereoprobe.gate.values import MetricSpec, Value, number, scope

SPECS = {
    "label_difference": MetricSpec("label_difference", "mean label score of female minus male names",
                                   {"label": None}, bounds=(-1.0, 1.0), paired=True),
    "nmi": MetricSpec("nmi", "NMI(gender, top label) over the texts (001 eq. 1-2)", paired=True),
}


def values(run_dir: str | Path) -> list[Value]:
    from stereoprobe.generation.metrics import PERCENT
    from stereoprobe.studies.base import read_scores

    t = read_scores(run_dir, "hobbies", ["labels"])
    out = [Value("label_difference", scope(label=r["label"]), number(r["difference"]) / PERCENT,
                 number(r["diff_low"]) / PERCENT, number(r["diff_high"]) / PERCENT,
                 int(r["female_names"] + r["male_names"]), method="t", df=_welch_df(r.get("df")))
           for r in t["labels"].to_dict("records")]
    n = t["meta"]["nmi"]
    return out + [Value("nmi", (), number(n["nmi"]), number(n["low"]), number(n["high"]), int(n["names"]),
                        method="percentile")]


def _welch_df(df: object) -> float:
    """Welch's degrees of freedom from labels.csv (a table written before the column: normal)."""
    d = number(df)
    return d if d == d else float("inf")


def differences(baseline: str | Path, run: str | Path, n_boot: int = 2000, seed: int = 2023) -> list[Value]:
    """Run minus baseline for both metrics (module docstring), from both runs' texts.csv."""
    from stereoprobe.errors import DataError
    from stereoprobe.gate.pvalues import with_p
    from stereoprobe.generation.metrics import PERCENT
    from stereoprobe.studies.base import read_scores
    from stereoprobe.studies.hobbies.stats import paired_label_differences, paired_nmi

    t = [read_scores(r, "hobbies", ["texts"], dtype={"name": str, "gender": str, "status": str, "top": str})
         for r in (baseline, run)]
    labels = list(t[1]["meta"]["labels"])
    if list(t[0]["meta"]["labels"]) != labels or set(t[0]["texts"].name) != set(t[1]["texts"].name):
        raise DataError(f"{run} and {baseline} asked other names or scored other labels; a paired difference needs the "
                        "same probes: collect both from one names file, with the same labels.")
    ok = [x["texts"][x["texts"]["status"] == "ok"] for x in t]
    out = [with_p(Value("label_difference", scope(label=r["label"]), number(r["difference"]) / PERCENT,
                        number(r["low"]) / PERCENT, number(r["high"]) / PERCENT, int(r["names"]), method="t",
                        df=_welch_df(r["df"])))
           for r in paired_label_differences(*ok, labels).to_dict("records")]
    n = paired_nmi(*ok, n_boot=n_boot, seed=seed)
    return out + [with_p(Value("nmi", (), n["difference"], n["low"], n["high"], n["names"], method="percentile"))]
