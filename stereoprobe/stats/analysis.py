"""Every statistic of one scoring, in one call: what ``sentiment.score`` runs.

``check_options`` validates ``--ci``, ``--bootstrap``, ``--seed``, ``--wording``; ``add_statistics``
takes the word occurrences, the records and the three share tables and returns them
with interval columns, plus the format test, criteria and robustness tables.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Iterable

from stereoprobe.errors import DataError

ESTIMANDS = {
    "fixed": "these templates: shares over groups generalise to groups like these, asked with these templates "
             "(groups resampled, templates fixed); a group's own shares are that group at these templates",
    "random": "templates as a sample of wordings: shares over groups and templates generalise to groups and "
              "wordings like these (groups and templates both resampled); a group's own share generalises to "
              "wordings like these (its template differences count as noise); a template's own share stays at "
              "that template",
}
METHOD = ("linearized (Taylor) design-based variances: cells over groups cluster on groups (categories as strata "
          "for all; with --wording random also on templates within formats, the sum of the two one-way variances, "
          "Satterthwaite df); a group's own cells use the category's pooled quasi-binomial dispersion (logit model "
          "group + template; group only with --wording random); shares: Jeffreys interval at the Korn-Graubard "
          "effective sample size; differences: t interval and test from the same variance; group vs category: "
          "exact beta-binomial convolution under the category's template rates; NMI and four-fifths: permutations "
          "within category x template")  # fmt: skip


@dataclass(frozen=True)
class StatsOptions:
    """How the statistics are computed: interval level, bootstrap replicates, seed, wording (estimand)."""

    level: float = 0.95
    n_boot: int = 2000
    seed: int = 0
    wording: str = "fixed"


def check_options(level: float, n_boot: int, seed: int, wording: str = "fixed") -> StatsOptions:
    """A StatsOptions, or a one-line DataError that says what to pass."""
    if not 0.5 <= level < 1:
        raise DataError(f"--ci {level}: give the interval level as a fraction between 0.5 and 1, e.g. 0.95.")
    if n_boot < 100:
        raise DataError(f"--bootstrap {n_boot}: use at least 100 replicates (default 2000).")
    if n_boot > 100_000:
        raise DataError(f"--bootstrap {n_boot}: at most 100,000 replicates (default 2000).")
    if seed < 0:
        raise DataError(f"--seed {seed}: give a non-negative integer.")
    if wording not in ESTIMANDS:
        raise DataError(f"--wording {wording}: give fixed (these templates, the default) or random (templates as a sample).")
    return StatsOptions(float(level), int(n_boot), int(seed), wording)


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


def _codes(rows: Any, keys: list[str]) -> tuple[Any, Any]:
    import pandas as pd

    codes, uniques = pd.factorize(pd.MultiIndex.from_frame(rows[keys].astype(str)), sort=True)
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


def share_tables(rows: Any, level: float, wording: str = "fixed") -> dict[str, Any]:
    """Interval columns of every share table from probe rows: ``table4``, ``templates``, ``groups``.

    Also ``dispersion`` (:class:`stereoprobe.stats.dispersion.Dispersion`, these
    templates) and ``phi`` per row. What ``add_statistics`` and the simulations run.
    A group's test against its category compares the same templates on both sides, so it
    uses the these-templates dispersion whatever the wording.
    """
    import numpy as np
    import pandas as pd

    from stereoprobe.stats.dispersion import dispersion
    from stereoprobe.stats.shares import over_groups, vs_category, within_groups
    from stereoprobe.stats.variance import satterthwaite

    disp = dispersion(rows["neg"], rows["polar"], rows["group_key"], rows["cat_code"], rows["template"])
    phi = np.asarray(disp.phi)[rows["cat_code"].to_numpy()]
    own = disp
    if wording == "random":  # a group's own share over wordings: the template effects are part of its variance
        own = dispersion(rows["neg"], rows["polar"], rows["group_key"], rows["cat_code"])
        n_t = rows.groupby("cat_code")["template"].nunique().reindex(range(len(own.phi))).to_numpy()
        # the part the templates add rests on their few effects, shared by every group: Satterthwaite df
        extra = np.maximum(np.asarray(own.phi) - np.asarray(disp.phi), 0)
        df = satterthwaite([disp.phi, extra], [disp.df, np.maximum(n_t - 1, 1)])
        own = type(own)(phi=own.phi, df=np.minimum(own.df, df), mu=own.mu)
    ccode, cats = _codes(rows, ["category"])
    t4 = over_groups(rows, ccode, len(cats), level, wording, phi=phi)
    t4_all = over_groups(rows, np.zeros(len(rows), int), 1, level, wording, strata="cat_code", phi=phi)
    t4 = pd.concat([pd.concat([cats, t4], axis=1), t4_all.assign(category="all")], ignore_index=True)
    tcode, tkeys = _codes(rows, ["category", "template", "format"])
    tt = pd.concat([tkeys, over_groups(rows, tcode, len(tkeys), level, "fixed", phi=phi)], axis=1)
    gcode, gkeys = _codes(rows, ["category", "group"])
    gt = pd.concat([gkeys, within_groups(rows, own, gcode, len(gkeys), level)], axis=1)
    gcat = pd.Categorical(gkeys["category"]).codes
    gt = pd.concat([gt, vs_category(rows, disp, gcode, len(gkeys), gcat, level)], axis=1)
    return {"table4": t4, "templates": tt, "groups": gt, "dispersion": disp, "phi": phi, "categories": cats}


def _add_statistics(occ: Any, records: Iterable[Any], table4: Any, groups: Any, templates: Any,
                    options: StatsOptions) -> Statistics:
    from stereoprobe.stats import criteria as crit
    from stereoprobe.stats import robustness as rob
    from stereoprobe.stats.format_test import format_test
    from stereoprobe.stats.shares import MIN_PROBES, probe_rows
    from stereoprobe.stats.units import STATUS_COLUMNS, probe_status, unit_table

    units = unit_table(occ)
    rows = probe_rows(units)
    lvl = options.level
    # The permutation criteria spend their time in numpy's loops, which let go of the GIL:
    # run beside the tables (the same numbers; docs/benchmarks.md)
    with ThreadPoolExecutor(1) as pool:
        pending = pool.submit(crit.criteria, rows, options.seed)
        st = share_tables(rows, lvl, options.wording)

        str_keys = {c: str for c in ("category", "group", "template", "format")}
        groups_out = _attach(groups.astype({k: v for k, v in str_keys.items() if k in groups}), st["groups"],
                             ["category", "group"])
        status = probe_status(records).astype({"category": str, "group": str})
        groups_out = groups_out.merge(status, on=["category", "group"], how="left")
        groups_out[STATUS_COLUMNS] = groups_out[STATUS_COLUMNS].fillna(0).astype("int64")
        groups_out["vs_category"] = groups_out["vs_category"].fillna("too few probes")
        templates_out = _attach(templates.astype({k: v for k, v in str_keys.items() if k in templates}), st["templates"],
                                ["category", "template", "format"])
        table4_out = _attach(table4.astype({"category": str}), st["table4"], ["category"])

        ft = format_test(rows, lvl, options.wording, st["phi"])
        rb = rob.robustness(templates_out, rows, occ, options.n_boot, options.seed, lvl)
        cr = pending.result()
    disp = st["dispersion"]
    meta = {
        "wording": options.wording, "estimand": ESTIMANDS[options.wording], "method": METHOD,
        "level": lvl, "seed": options.seed, "min_probes": MIN_PROBES, "bootstrap": options.n_boot,
        "bootstrap_used_for": "rank_stability intervals", "nmi_permutations": crit.PERMUTATIONS,
        "permutation_strata": "category x template",
        "dispersion": {str(c): {"phi": round(float(p), 4), "df": float(d)} for c, p, d in
                       zip(st["categories"]["category"], disp.phi, disp.df)},
        "units": "probes (a probe's samples summed)",
    }
    return Statistics(table4_out, groups_out, templates_out, ft, cr, rb, meta)
