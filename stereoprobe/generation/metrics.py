"""What the generation studies hand the release gate (stereoprobe/gate/values.py), read
from the tables their score step wrote: ``summary.csv`` rows (one statistic each, with
its interval) and a per-group share with its interval.

Shares are 0-1 for the gate (the tables hold percent). NMI is given as the
bias-corrected estimate (``nmi_corrected``) with the interval ``nmi_test`` computes for
it (generation/stats.py): the plug-in NMI of a few texts per group is biased upwards,
and the interval is centred on the corrected value (the plug-in row has none).

Each value says how its interval was made (:func:`interval_of`), so the gate reads its
p-values with the interval's own tails: a summary share's cluster bootstrap is a t
interval on groups - 1 degrees of freedom, the corrected NMI's a normal one, Spearman's
the jackknife on atanh r (n - 1), a group's share Jeffreys'.
"""

from __future__ import annotations

from typing import Any, Mapping

from stereoprobe.gate.values import Value, number, scope

PERCENT = 100.0  # a table's percent -> the gate's 0-1


def _count(x: object) -> int | None:
    n = number(x)
    return int(n) if n == n else None


def interval_of(row: Mapping[str, Any]) -> dict[str, Any]:
    """How ``generation.stats`` made a summary row's interval (``Value.method`` and ``df``):
    ``nmi_corrected`` a normal interval (``nmi_test``), ``spearman_bls`` the jackknife on
    atanh r with n - 1 df (``stats.correlation``), a share (``share_row``) the t-based cluster
    bootstrap with groups - 1 df."""
    if row["statistic"] == "nmi_corrected":
        return {"method": "t", "df": float("inf")}
    if row["statistic"] == "spearman_bls":
        return {"method": "atanh", "df": number(row["n"]) - 1}
    return {"method": "t", "df": number(row["groups"]) - 1}


def summary_values(summary: Any, metrics: Mapping[str, tuple[str, float]], **keys: object) -> list[Value]:
    """One Value per ``metric -> (summary statistic, divisor)`` found in ``summary``;
    ``keys``: the metric's scope (e.g. ``profession="all"``)."""
    rows = summary.set_index("statistic") if len(summary) else None
    out = []
    for metric, (statistic, divisor) in metrics.items():
        if rows is None or statistic not in rows.index:
            continue
        r = rows.loc[statistic]
        out.append(Value(metric, scope(**keys), number(r["value"]) / divisor, number(r["low"]) / divisor,
                         number(r["high"]) / divisor, _count(r["n"]), **interval_of({**r, "statistic": statistic})))
    return out


def group_values(table: Any, metric: str, key: str, column: str, n_column: str) -> list[Value]:
    """One Value per row of a per-group table: ``column`` (percent) with its Jeffreys interval
    ``column_low`` to ``column_high``, scoped by ``key`` (the group's column)."""
    return [Value(metric, scope(**{key: r[key]}), number(r[column]) / PERCENT, number(r[f"{column}_low"]) / PERCENT,
                  number(r[f"{column}_high"]) / PERCENT, _count(r[n_column]), method="jeffreys")
            for r in table.to_dict("records")]
