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
texts of all the runs compared), and compare has no paired difference: no regression rule.
"""

from __future__ import annotations

from pathlib import Path

from stereoprobe.gate.values import MetricSpec, Value, number, scope

SPECS = {
    "label_difference": MetricSpec("label_difference", "mean label score of female minus male names",
                                   {"label": None}, bounds=(-1.0, 1.0)),
    "nmi": MetricSpec("nmi", "NMI(gender, top label) over the texts (001 eq. 1-2)"),
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
