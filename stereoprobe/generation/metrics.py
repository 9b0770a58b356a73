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

Against a baseline that asked the same probes, :func:`paired_values` gives the anecdotes'
and story names' run-minus-baseline differences (generation/paired.py: the shares over the
run by a paired cluster bootstrap over professions, a profession's share by MOVER, the
corrected NMI by the two runs' bootstraps together), read from both runs' tables.
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


def _texts(run_dir: Any, study: str) -> dict[str, Any]:
    """A scored run's texts.csv (every text, its status, group and label, the probe's attrs) and
    meta.json, and its groups table (``professions.csv``)."""
    from stereoprobe.studies.base import read_scores

    return read_scores(run_dir, study, ["texts", "professions"],
                       dtype={"group": str, "label": str, "status": str, "variant": str, "dominated_by": str})


def _same_groups(a: Any, b: Any, baseline: Any, run: Any) -> None:
    from stereoprobe.errors import DataError

    ga, gb = set(a["texts"].group), set(b["texts"].group)
    if ga != gb:
        only = sorted(ga ^ gb)
        raise DataError(f"{run} and {baseline} asked different professions ({', '.join(only[:3])}"
                        f"{' ...' if len(only) > 3 else ''} in one only); a paired difference needs the same probes: "
                        "collect both from one catalog.")


def _value(metric: str, keys: Mapping[str, object], d: Any, divisor: float) -> Value:
    from stereoprobe.gate.pvalues import with_p

    return with_p(Value(metric, scope(**keys), d.estimate / divisor, d.low / divisor, d.high / divisor, d.n,
                        method=d.method, df=d.df))


def paired_values(baseline: Any, run: Any, study: str, shares: Any, nmi: Any, metrics: Mapping[str, tuple[str, dict]],
                  group: tuple[str, str] | None = None, ceiling: str | None = None, n_boot: int = 2000,
                  seed: int = 2023) -> list[Value]:
    """Run minus baseline (generation/paired.py) for an anecdotes or stories run, read from the
    tables both runs' score step wrote (texts.csv, professions.csv, meta.json):

    - ``metrics``: gate metric -> (the summary statistic it is, its scope), for each share
      over the run that ``shares(texts)`` defines (the study's score.py);
    - ``nmi``: the study's ``nmi_of(texts, n_boot, seed, level)``, run with each run's own
      scoring settings (meta.json), so each side is the corrected NMI of its summary.csv;
      ``ceiling``: the gate metric of that NMI as a share of its ceiling, if the study has it;
    - ``group``: (gate metric, scope key) of the per-profession share, from professions.csv.
    """
    from stereoprobe.generation.paired import group_differences, nmi_difference, share_difference

    a, b = _texts(baseline, study), _texts(run, study)
    _same_groups(a, b, baseline, run)
    sa, sb = shares(a["texts"]), shares(b["texts"])
    out = []
    for metric, (statistic, keys) in metrics.items():
        (va, on_a), (vb, on_b) = sa[statistic], sb[statistic]
        d = share_difference(on_a.group, va, on_b.group, vb, n_boot, seed)
        out.append(_value(metric, keys, d, PERCENT))
    tests = []
    for t in (a, b):
        stats = t["meta"].get("statistics", {})
        tests.append(nmi(t["texts"], int(stats.get("bootstrap", 2000)), int(stats.get("seed", 0)),
                         float(stats.get("level", 0.95))))
    d = nmi_difference(*tests)
    out.append(_value("nmi", {}, d, 1.0))
    if ceiling is not None:  # each NMI as a share of its own ceiling (the run's professions), then the same
        from dataclasses import replace

        from stereoprobe.stats.criteria import nmi_ceiling

        scaled = [replace(t, centre=t.centre / nmi_ceiling(t.groups), sd=t.sd / nmi_ceiling(t.groups)) for t in tests]
        out.append(_value(ceiling, {}, nmi_difference(*scaled), 1.0))
    if group is not None:
        metric, key = group
        for name, g in group_differences(a["professions"], b["professions"], "profession", "female_of_gendered"):
            out.append(_value(metric, {key: name}, g, PERCENT))
    return out
