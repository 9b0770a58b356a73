"""The fill-in study's gate metrics (stereoprobe/gate/values.py), from RUN_DIR/sentiment/.

- ``negative_share``, ``positive_share``: the share of the counted (negative or positive)
  words, 0-1 (Table 4 in percent), all categories together (``category = "all"``, the
  default), per category (table4.csv) or per group (``group``: groups.csv; a group fixes
  its category), over all probes or one ``format`` (question, statement).

Every share's interval is Jeffreys' at the cell's effective size (``stats.share_interval``).
Against a baseline, ``differences`` runs fill-in's compare (one labeller for both runs,
paired by probe) in memory: run minus baseline, with the compare's t interval, its degrees
of freedom (groups minus strata; a group's cells: its category's pooled ones) and p.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from stereoprobe.gate.values import MetricSpec, Value, number, scope

_SCOPES = {"category": "all", "group": "all", "format": "all"}
SPECS = {
    f"{s}_share": MetricSpec(f"{s}_share", f"share of {s} words among the negative and positive ones", _SCOPES,
                             paired=True, narrows={"group": "category"})
    for s in ("negative", "positive")
}
_PREFIX = {"all": "", "question": "question_", "statement": "statement_"}


def _rows(table: Any, group: bool) -> list[Value]:
    out = []
    for r in table.to_dict("records"):
        where = {"category": r["category"], "group": r["group"] if group else "all"}
        for fmt, prefix in _PREFIX.items():
            for s in ("negative", "positive"):
                col = f"{prefix}{s}"
                out.append(Value(f"{s}_share", scope(**where, format=fmt), number(r[col]) / 100,
                                 number(r[f"{col}_ci_low"]) / 100, number(r[f"{col}_ci_high"]) / 100,
                                 int(r["n_probes"]), method="jeffreys"))
    return out


def values(run_dir: str | Path) -> list[Value]:
    from stereoprobe.studies.base import read_scores

    t = read_scores(Path(run_dir), "sentiment", ["table4", "groups"])
    return _rows(t["table4"], group=False) + _rows(t["groups"], group=True)


def differences(baseline: str | Path, run: str | Path, n_boot: int = 2000, seed: int = 2023) -> list[Value]:
    """Run minus baseline (fill-in's compare gives baseline minus run, in points)."""
    from stereoprobe.studies.fillin.compare import compare

    d = compare([baseline, run], write_missing_sentiment=False).differences
    out = []
    for r in d.to_dict("records"):
        cell = scope(category="all" if r["level"] == "all" else r["category"],
                     group=r["group"] if r["level"] == "group" else "all", format=r["format"])
        diff, low, high = -number(r["difference"]) / 100, -number(r["ci_high"]) / 100, -number(r["ci_low"]) / 100
        t = {"method": "t", "df": number(r["df"])}
        out.append(Value("negative_share", cell, diff, low, high, int(r["probes"]), number(r["p"]), **t))
        out.append(Value("positive_share", cell, -diff, -high, -low, int(r["probes"]), number(r["p"]), **t))
    return out
