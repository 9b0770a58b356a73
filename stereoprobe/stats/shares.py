"""Intervals for every share of a table, and each group against the rest of its category.

A table is a set of cells (``key_codes``: the cell of each unit row). For each share
column (negative and positive, overall and per format) the replicates are
``W @ negative / W @ (negative + positive)`` over the cell's rows, and the interval is
``share_interval`` (Korn-Graubard) with the cell's number of top-level clusters.
A cell with fewer than ``MIN_PROBES`` probes with counted words is "too few probes":
no interval.
"""

from __future__ import annotations

from typing import Any

from stereoprobe.stats.intervals import share_interval, t_pvalue

MIN_PROBES = 3  # probes with counted words a cell needs for an interval (docs/statistics.md)
FORMAT_SELECTIONS = {"": None, "question_": "question", "statement_": "statement"}
VS_LABELS = ("more negative", "less negative", "not distinguishable", "too few probes")


def keyed_sums(weights: Any, codes: Any, n_keys: int, values: Any) -> Any:
    """(B x n_keys): per replicate, the weighted sum of ``values`` over the rows of each key."""
    import numpy as np
    from scipy import sparse

    n = len(codes)
    s = sparse.csr_matrix((np.asarray(values, dtype=np.float64), (np.asarray(codes), np.arange(n))), shape=(n_keys, n))
    return np.asarray(s @ weights.T).T


def _distinct(codes: Any, labels: Any, mask: Any, n_keys: int) -> Any:
    """Per key, the number of distinct ``labels`` among rows where ``mask``."""
    import numpy as np
    import pandas as pd

    df = pd.DataFrame({"k": np.asarray(codes)[mask], "l": np.asarray(labels)[mask]})
    return df.groupby("k")["l"].nunique().reindex(range(n_keys), fill_value=0).to_numpy()


def interval_columns(
    weights: Any, units: Any, codes: Any, n_keys: int, cluster: str, strata: str | None, level: float
) -> Any:
    """DataFrame (one row per key): ``X_ci_low, X_ci_high`` for the six share columns,
    ``n_probes`` (probes with counted words) and ``too_few_probes``.

    ``cluster``: the units column whose values are the top-level clusters of the plan
    that made ``weights`` (``group`` or ``probe_id``); ``strata``: its strata column or None.
    """
    import numpy as np
    import pandas as pd

    out = pd.DataFrame(index=range(n_keys))
    fmt = units["format"].to_numpy()
    for prefix, sel in FORMAT_SELECTIONS.items():
        mask = np.ones(len(units), bool) if sel is None else fmt == sel
        neg = np.where(mask, units["neg"].to_numpy(), 0)
        polar = np.where(mask, units["polar"].to_numpy(), 0)
        counted = mask & (polar > 0)
        tot_neg = np.bincount(codes, neg, minlength=n_keys)
        tot_pol = np.bincount(codes, polar, minlength=n_keys)
        with np.errstate(invalid="ignore", divide="ignore"):
            est = 100 * tot_neg / np.where(tot_pol > 0, tot_pol, np.nan)
            reps = 100 * keyed_sums(weights, codes, n_keys, neg) / keyed_sums(weights, codes, n_keys, polar)
        g = _distinct(codes, units[cluster], counted, n_keys)
        h = _distinct(codes, units[strata], counted, n_keys) if strata else np.ones(n_keys)
        probes = _distinct(codes, units["probe_id"], counted, n_keys)
        low, high = share_interval(est, reps, g, tot_pol, np.maximum(h, 1), level)
        few = probes < MIN_PROBES
        low, high = np.where(few, np.nan, low), np.where(few, np.nan, high)
        out[f"{prefix}negative_ci_low"], out[f"{prefix}negative_ci_high"] = low, high
        out[f"{prefix}positive_ci_low"], out[f"{prefix}positive_ci_high"] = 100 - high, 100 - low
        if sel is None:
            out["n_probes"] = probes
    out["too_few_probes"] = out["n_probes"] < MIN_PROBES
    return out


def vs_category(weights: Any, units: Any, group_codes: Any, n_groups: int, group_category: Any, level: float) -> Any:
    """Each group's negative share minus the rest of its category's, tested per group.

    ``weights``: a plan that resamples probes within each group (groups fixed);
    ``group_category``: category code of each group. Returns a DataFrame (one row per
    group): ``vs_category_difference`` (points), ``vs_category_p``, ``vs_category_q``
    (BH within the category) and ``vs_category`` (one of VS_LABELS at q < 1 - level).
    """
    import numpy as np
    import pandas as pd

    from stereoprobe.stats.fdr import bh

    neg, polar = units["neg"].to_numpy(), units["polar"].to_numpy()
    gneg = keyed_sums(weights, group_codes, n_groups, neg)
    gpol = keyed_sums(weights, group_codes, n_groups, polar)
    cat = np.asarray(group_category)
    onehot = np.eye(cat.max() + 1)[cat]  # groups x categories
    cneg, cpol = (gneg @ onehot)[:, cat], (gpol @ onehot)[:, cat]  # each group's category total
    tneg, tpol = np.bincount(group_codes, neg, n_groups), np.bincount(group_codes, polar, n_groups)
    ctneg, ctpol = (tneg @ onehot)[cat], (tpol @ onehot)[cat]
    with np.errstate(invalid="ignore", divide="ignore"):
        diff = 100 * (tneg / tpol - (ctneg - tneg) / (ctpol - tpol))
        reps = 100 * (gneg / gpol - (cneg - gneg) / (cpol - gpol))
    probes = _distinct(group_codes, units["probe_id"], polar > 0, n_groups)
    rest_probes = (probes @ onehot)[cat] - probes
    p = t_pvalue(diff, reps, probes)
    few = (probes < MIN_PROBES) | (rest_probes < MIN_PROBES) | np.isnan(p)
    p = np.where(few, np.nan, p)
    q = np.full(n_groups, np.nan)
    for c in np.unique(cat):
        q[cat == c] = bh(p[cat == c])
    alpha = 1 - level
    label = np.where(few, VS_LABELS[3], np.where(q < alpha, np.where(diff > 0, VS_LABELS[0], VS_LABELS[1]), VS_LABELS[2]))
    return pd.DataFrame({"vs_category": label, "vs_category_q": q, "vs_category_difference": diff, "vs_category_p": p})
