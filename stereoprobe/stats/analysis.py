"""Every statistic of one scoring, in one call: what ``sentiment.score`` runs.

``check_options`` validates ``--ci``, ``--bootstrap``, ``--seed``; ``add_statistics``
takes the word occurrences, the records and the three share tables and returns them
with interval columns, plus the format test, criteria and robustness tables.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable

from stereoprobe.errors import DataError

METHOD = ("two-stage cluster bootstrap (categories: groups then probes; groups: probes; all: stratified by "
          "category; samples within probes when there are several); shares: Korn-Graubard beta interval; "
          "differences: t interval with clusters - strata degrees of freedom")  # fmt: skip


@dataclass(frozen=True)
class StatsOptions:
    """How the statistics are computed: interval level, bootstrap replicates, seed."""

    level: float = 0.95
    n_boot: int = 2000
    seed: int = 0


def check_options(level: float, n_boot: int, seed: int) -> StatsOptions:
    """A StatsOptions, or a one-line DataError that says what to pass."""
    if not 0.5 <= level < 1:
        raise DataError(f"--ci {level}: give the interval level as a fraction between 0.5 and 1, e.g. 0.95.")
    if n_boot < 100:
        raise DataError(f"--bootstrap {n_boot}: use at least 100 replicates (default 2000).")
    if n_boot > 100_000:
        raise DataError(f"--bootstrap {n_boot}: at most 100,000 replicates (default 2000).")
    if seed < 0:
        raise DataError(f"--seed {seed}: give a non-negative integer.")
    return StatsOptions(float(level), int(n_boot), int(seed))


@dataclass(frozen=True)
class Statistics:
    """The tables with intervals and the new tables of one scoring."""

    table4: Any
    groups: Any
    templates: Any
    format_test: Any
    criteria: Any
    robustness: Any
    meta: dict[str, Any]


def _codes(units: Any, keys: list[str]) -> tuple[Any, Any]:
    import pandas as pd

    codes, uniques = pd.factorize(pd.MultiIndex.from_frame(units[keys].astype(str)), sort=True)
    return codes, uniques.to_frame(index=False, name=keys)


def _attach(table: Any, intervals: Any, keys: list[str]) -> Any:
    out = table.merge(intervals, on=keys, how="left")
    out["too_few_probes"] = out["too_few_probes"].fillna(True).astype(bool)
    out["n_probes"] = out["n_probes"].fillna(0).astype("int64")
    return out


def add_statistics(occ: Any, records: Iterable[Any], table4: Any, groups: Any, templates: Any,
                   options: StatsOptions) -> Statistics:
    """Intervals on every share, group tests, format test, criteria, robustness.

    BLAS runs on one thread here: the matrices are small, and on a busy machine
    OpenBLAS's threads wait for each other (a 690 x 122 QR took 70x longer).
    """
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=1, user_api="blas"):
        return _add_statistics(occ, records, table4, groups, templates, options)


def _add_statistics(occ: Any, records: Iterable[Any], table4: Any, groups: Any, templates: Any,
                    options: StatsOptions) -> Statistics:
    import numpy as np
    import pandas as pd

    from stereoprobe.stats import criteria as crit
    from stereoprobe.stats import robustness as rob
    from stereoprobe.stats.format_test import PERMUTATIONS, format_test
    from stereoprobe.stats.resample import cluster_weights
    from stereoprobe.stats.shares import MIN_PROBES, interval_columns, vs_category
    from stereoprobe.stats.units import STATUS_COLUMNS, probe_status, unit_table

    units = unit_table(occ)
    units["group_key"] = units["category"].astype(str) + "\x1f" + units["group"].astype(str)
    with_samples = int(units.groupby("probe_id")["sample"].nunique().max()) > 1
    inner = [units["probe_id"], units["sample"]] if with_samples else [units["probe_id"]]
    b, lvl = options.n_boot, options.level
    w_cat = cluster_weights([units["group_key"], *inner], b, np.random.default_rng([options.seed, 1]),
                            strata=units["category"]).astype(np.float64)
    w_grp = cluster_weights(inner, b, np.random.default_rng([options.seed, 2]),
                            strata=units["group_key"]).astype(np.float64)

    ccode, cats = _codes(units, ["category"])
    t4 = interval_columns(w_cat, units, ccode, len(cats), "group_key", None, lvl)
    t4_all = interval_columns(w_cat, units, np.zeros(len(units), int), 1, "group_key", "category", lvl)
    t4 = pd.concat([pd.concat([cats, t4], axis=1), t4_all.assign(category="all")], ignore_index=True)

    tcode, tkeys = _codes(units, ["category", "template", "format"])
    tt = pd.concat([tkeys, interval_columns(w_cat, units, tcode, len(tkeys), "group_key", None, lvl)], axis=1)

    gcode, gkeys = _codes(units, ["category", "group"])
    gt = pd.concat([gkeys, interval_columns(w_grp, units, gcode, len(gkeys), "probe_id", None, lvl)], axis=1)
    gcat = pd.Categorical(gkeys["category"]).codes
    gt = pd.concat([gt, vs_category(w_grp, units, gcode, len(gkeys), gcat, lvl)], axis=1)
    del w_grp

    str_keys = {c: str for c in ("category", "group", "template", "format")}
    groups_out = _attach(groups.astype({k: v for k, v in str_keys.items() if k in groups}), gt, ["category", "group"])
    status = probe_status(records).astype({"category": str, "group": str})
    groups_out = groups_out.merge(status, on=["category", "group"], how="left")
    groups_out[STATUS_COLUMNS] = groups_out[STATUS_COLUMNS].fillna(0).astype("int64")
    groups_out["vs_category"] = groups_out["vs_category"].fillna("too few probes")
    templates_out = _attach(templates.astype({k: v for k, v in str_keys.items() if k in templates}), tt,
                            ["category", "template", "format"])
    table4_out = _attach(table4.astype({"category": str}), t4, ["category"])

    ft = format_test(w_cat, units, lvl, options.seed)
    del w_cat
    cr = crit.criteria(units, options.seed)
    rb = rob.robustness(templates_out, units, occ, b, options.seed, lvl)
    meta = {"method": METHOD, "bootstrap": b, "level": lvl, "seed": options.seed, "min_probes": MIN_PROBES,
            "format_test_permutations": PERMUTATIONS, "nmi_permutations": crit.PERMUTATIONS, "samples_resampled": with_samples}
    return Statistics(table4_out, groups_out, templates_out, ft, cr, rb, meta)
