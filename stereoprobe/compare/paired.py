"""Paired differences between two runs, with the statistics package's bootstrap and tests.

For a pair (A, B) the rows are the probes both runs answered, sorted by category, group
and probe id. One resampling plan of :func:`stereoprobe.stats.cluster_weights` is drawn
per pair and level and applied to both runs' counts, so every replicate holds the same
groups and probes for A and B (paired):

- ``all`` and ``category`` cells: groups resampled within each category (categories are
  fixed strata), then probes within each drawn group;
- ``group`` cells: probes resampled within the group, the question and statement probes
  separately (the design fixes how many of each a group has).

A cell's share in a replicate is ``W @ negative / W @ (negative + positive)`` over its
rows (:func:`stereoprobe.stats.replicate_ratio`; for the many group cells the same sum is
taken block by block, which is that product without its zero entries). The difference
``negative_a - negative_b`` (points) gets the package's t-based interval and two-sided
p-value (:func:`~stereoprobe.stats.t_interval`, :func:`~stereoprobe.stats.t_pvalue`),
q is Benjamini-Hochberg (:func:`~stereoprobe.stats.bh`) within each pair and level.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from stereoprobe.records import FORMATS

LEVELS = ("all", "category", "group")
DIFFERENCE_COLUMNS = [
    "run_a", "run_b", "level", "category", "group", "format", "negative_a", "negative_b", "difference",
    "ci_low", "ci_high", "p", "q", "verdict", "probes", "clusters", "too_few_probes",
]
VERDICTS = ("a more negative", "b more negative", "not distinguishable")
SHARE_COLUMNS = ["run", "level", "category", "group", "format", "negative", "ci_low", "ci_high", "probes", "too_few_probes"]


@dataclass(frozen=True)
class Settings:
    """The statistics of one comparison (recorded in meta.json)."""

    n_boot: int = 2000
    level: float = 0.95
    alpha: float = 0.05  # q below this is a finding
    seed: int = 2023

    def meta(self) -> dict[str, Any]:
        return {
            "method": "paired two-stage cluster bootstrap (stereoprobe.stats), t-based interval and p-value, "
                      "Benjamini-Hochberg within each pair and level",
            "B": self.n_boot, "level": self.level, "alpha": self.alpha, "seed": self.seed,
        }


def aligned(a: Any, b: Any) -> Any:
    """The probes both runs have, one row each: identity, then ``neg_a, pol_a, neg_b, pol_b``.

    The format is run A's, or B's when A is a baseline (``search-engine``).
    """
    cols = ["probe_id", "category", "group", "format", "n_negative", "n_positive"]
    m = a[cols].merge(b[cols], on="probe_id", suffixes=("_a", "_b"))
    fmt = m["format_a"].where(m["format_a"].isin(FORMATS), m["format_b"])
    out = m[["probe_id"]].assign(
        category=m["category_a"], group=m["group_a"], format=fmt,
        neg_a=m["n_negative_a"], pol_a=m["n_negative_a"] + m["n_positive_a"],
        neg_b=m["n_negative_b"], pol_b=m["n_negative_b"] + m["n_positive_b"],
    )
    return out.sort_values(["category", "group", "probe_id"], ignore_index=True)


def _cells(rows: Any, level: str) -> list[tuple[str, str, str, Any]]:
    """(category, group, format, boolean row mask) of every cell of a level."""
    import numpy as np

    keys = {"all": [], "category": ["category"], "group": ["category", "group"]}[level]
    groups = [((), np.ones(len(rows), bool))] if not keys else [
        (k if isinstance(k, tuple) else (k,), rows.index.isin(idx))
        for k, idx in rows.groupby(keys if len(keys) > 1 else keys[0], sort=True).groups.items()
    ]
    out = []
    for key, mask in groups:
        cat = key[0] if key else "all"
        grp = key[1] if len(key) > 1 else ""
        out.append((cat, grp, "all", mask))
        for fmt in FORMATS:
            fmask = mask & (rows["format"] == fmt).to_numpy()
            if fmask.any():
                out.append((cat, grp, fmt, fmask))
    return out


def _plan(rows: Any, level: str, settings: Settings, seed: int) -> Any:
    from stereoprobe import stats

    if level == "group":
        strata = (rows["group"] + "\t" + rows["format"]).to_numpy()
        return stats.cluster_weights([rows["probe_id"].to_numpy()], settings.n_boot, seed=seed, strata=strata)
    return stats.cluster_weights(
        [rows["group"].to_numpy(), rows["probe_id"].to_numpy()], settings.n_boot, seed=seed,
        strata=rows["category"].to_numpy(),
    )


def _clusters(rows: Any, masks: list[Any], level: str) -> Any:
    """(G, H) per cell: resampled clusters and fixed strata, for the t degrees of freedom."""
    import numpy as np
    import pandas as pd

    fmt = pd.factorize(rows["format"])[0]
    grp = pd.factorize(rows["category"] + "\t" + rows["group"])[0]
    cat = pd.factorize(rows["category"])[0]
    out = []
    for m in masks:
        if level == "group":  # probes within the group, question and statement as strata
            out.append((int(m.sum()), np.unique(fmt[m]).size))
        elif level == "category":
            out.append((np.unique(grp[m]).size, 1))
        else:
            out.append((np.unique(grp[m]).size, np.unique(cat[m]).size))
    return np.array(out, dtype=np.int64).reshape(-1, 2)


def _ratio(w: Any, num: Any, den: Any, masks: list[Any]) -> tuple[Any, Any]:
    """Full-sample and replicate shares (percent) of each cell: (k,), (B, k)."""
    import numpy as np
    from scipy import sparse

    from stereoprobe import stats

    x = sparse.csc_matrix(np.column_stack(masks).astype(np.float64)) if masks else None
    n_num = x.T @ num
    n_den = x.T @ den
    with np.errstate(invalid="ignore", divide="ignore"):
        est = np.where(n_den > 0, 100.0 * n_num / np.where(n_den > 0, n_den, 1), np.nan)
    if len(masks) <= 8:  # a few cells: the package's dense W @ values
        xd = x.toarray()
        reps = 100.0 * stats.replicate_ratio(w, xd * num[:, None], xd * den[:, None])
    else:  # many cells (groups): the same sums through a sparse indicator matrix
        wf = np.asarray(w, dtype=np.float64)
        rn = (x.multiply(num[:, None]).T @ wf.T).T
        rd = (x.multiply(den[:, None]).T @ wf.T).T
        with np.errstate(invalid="ignore", divide="ignore"):
            reps = np.where(rd > 0, 100.0 * rn / np.where(rd > 0, rd, 1), np.nan)
    return est, reps


def pair_differences(name_a: str, name_b: str, rows: Any, settings: Settings, seed: int) -> Any:
    """differences.csv rows of one pair of aligned runs (see the module docstring)."""
    import numpy as np
    import pandas as pd

    from stereoprobe import stats

    out = []
    plans: dict[bool, Any] = {}
    for level in LEVELS:
        cells = _cells(rows, level)
        by_group = level == "group"
        if by_group not in plans:  # all and category share one plan
            plans[by_group] = _plan(rows, level, settings, seed)
        w = plans[by_group]
        masks = [c[3] for c in cells]
        est_a, rep_a = _ratio(w, rows["neg_a"].to_numpy(float), rows["pol_a"].to_numpy(float), masks)
        est_b, rep_b = _ratio(w, rows["neg_b"].to_numpy(float), rows["pol_b"].to_numpy(float), masks)
        gh = _clusters(rows, masks, level)
        diff = est_a - est_b
        reps = rep_a - rep_b
        low, high = stats.t_interval(diff, reps, gh[:, 0], gh[:, 1], level=settings.level, bounds=(-100.0, 100.0))
        p = stats.t_pvalue(diff, reps, gh[:, 0], gh[:, 1])
        q = stats.bh(p)
        too_few = np.isnan(p) | np.isnan(diff)
        verdict = np.where(
            ~too_few & (q < settings.alpha) & (diff > 0), VERDICTS[0],
            np.where(~too_few & (q < settings.alpha) & (diff < 0), VERDICTS[1], VERDICTS[2]),
        )
        for i, (cat, grp, fmt, mask) in enumerate(cells):
            out.append((name_a, name_b, level, cat, grp, fmt, est_a[i], est_b[i], diff[i], low[i], high[i],
                        p[i], q[i], verdict[i], int(mask.sum()), int(gh[i, 0]), bool(too_few[i])))
    return pd.DataFrame(out, columns=DIFFERENCE_COLUMNS)


def run_shares(name: str, probes: Any, settings: Settings, seed: int) -> Any:
    """One run's shares with intervals per level and cell (for the dot-and-interval plot)."""
    import numpy as np
    import pandas as pd

    from stereoprobe import stats

    rows = probes.assign(neg_a=probes["n_negative"], pol_a=probes["n_negative"] + probes["n_positive"])
    rows = rows.sort_values(["category", "group", "probe_id"], ignore_index=True)
    out = []
    w = _plan(rows, "category", settings, seed)
    for level in ("all", "category"):
        cells = _cells(rows, level)
        masks = [c[3] for c in cells]
        est, reps = _ratio(w, rows["neg_a"].to_numpy(float), rows["pol_a"].to_numpy(float), masks)
        gh = _clusters(rows, masks, level)
        low, high = stats.t_interval(est, reps, gh[:, 0], gh[:, 1], level=settings.level)
        for i, (cat, grp, fmt, mask) in enumerate(cells):
            out.append((name, level, cat, grp, fmt, est[i], low[i], high[i], int(mask.sum()), bool(np.isnan(low[i]))))
    return pd.DataFrame(out, columns=SHARE_COLUMNS)
