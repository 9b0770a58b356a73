"""Intervals for every share of a table, and each group against the rest of its category.

Rows are probes (a probe's samples summed): ``probe_rows`` makes them from the units.
Two kinds of cell, two estimands (docs/statistics.md):

- **cells over groups** (a category, a template, a format of a category, ``all``):
  "these templates, groups like these": the groups are the clusters (within fixed
  category strata for ``all``), the templates are fixed (``over_groups``). With
  ``wording="random"`` the templates are drawn too (two-way clustering,
  :func:`stereoprobe.stats.variance.crossed_variance`); a template's own cell always
  keeps its template.
- **a group's own cells** (all probes, questions, statements): "this group at these
  templates": the variance is the category's pooled dispersion (one reply's words agree
  more than chance, by as much in every group of a category) times the binomial variance
  of the group's fitted rates (``within_groups``; :mod:`stereoprobe.stats.dispersion`);
  with ``wording="random"`` the dispersion is fitted without template effects, so the
  template differences count as noise (with the templates' few degrees of freedom).

A cell with fewer than ``MIN_PROBES`` probes with counted words is "too few probes":
no interval.
"""

from __future__ import annotations

from typing import Any

from stereoprobe.stats.intervals import betabinomial_pvalue, share_interval

MIN_PROBES = 3  # probes with counted words a cell needs for an interval (docs/statistics.md)
FORMAT_SELECTIONS = {"": None, "question_": "question", "statement_": "statement"}
VS_LABELS = ("more negative", "less negative", "not distinguishable", "too few probes")
WORDINGS = ("fixed", "random")
SHARE_METHOD = "jeffreys"  # the beta interval at the effective sample size: Jeffreys, not Clopper-Pearson (docs)


def probe_rows(units: Any) -> Any:
    """One row per probe: category, group, probe_id, template, format, neg, pos, polar, group_key, cat_code."""
    import pandas as pd

    keys = ["category", "group", "probe_id", "template", "format"]
    rows = units.groupby(keys, sort=True, observed=True)[["neg", "pos", "polar"]].sum().reset_index()
    rows["group_key"] = rows["category"].astype(str) + "\x1f" + rows["group"].astype(str)
    rows["cat_code"] = pd.Categorical(rows["category"].astype(str)).codes.astype("int64")
    return rows


def _distinct(codes: Any, labels: Any, mask: Any, n_keys: int) -> Any:
    """Per key, the number of distinct ``labels`` among rows where ``mask`` (and the code is >= 0)."""
    import numpy as np
    import pandas as pd

    codes = np.asarray(codes, dtype=np.int64)
    lab = pd.factorize(np.asarray(labels))[0].astype(np.int64)
    keep = np.asarray(mask, bool) & (codes >= 0)
    pairs = np.unique(codes[keep] * (lab.max(initial=0) + 1) + lab[keep])
    return np.bincount(pairs // (lab.max(initial=0) + 1), minlength=n_keys)


def _put(out: Any, prefix: str, low: Any, high: Any) -> None:
    out[f"{prefix}negative_ci_low"], out[f"{prefix}negative_ci_high"] = low, high
    out[f"{prefix}positive_ci_low"], out[f"{prefix}positive_ci_high"] = 100 - high, 100 - low


def over_groups(rows: Any, codes: Any, n_keys: int, level: float, wording: str = "fixed", strata: str | None = None,
                phi: Any = 1.0) -> Any:
    """Interval columns (one row per key) for cells over groups; ``codes``: each row's cell.

    ``strata``: a rows column of fixed strata (``cat_code`` for ``all``); ``phi``: per row,
    the dispersion of its category (the design effect used where a cell's variance is 0).
    Columns: the six ``*_ci_low``/``*_ci_high``, ``n_probes``, ``too_few_probes``.
    """
    import numpy as np
    import pandas as pd

    from stereoprobe.stats.variance import cell_scores, cluster_variance, crossed_variance

    out = pd.DataFrame(index=range(n_keys))
    fmt = rows["format"].to_numpy()
    neg, polar = rows["neg"].to_numpy(np.float64), rows["polar"].to_numpy(np.float64)
    counted = polar > 0
    group = rows["group_key"].to_numpy()
    st = rows[strata].to_numpy() if strata else None
    phi_row = np.broadcast_to(np.asarray(phi, np.float64), len(rows))
    for prefix, sel in FORMAT_SELECTIONS.items():
        mask = np.ones(len(rows), bool) if sel is None else fmt == sel
        cells = np.where(mask, np.asarray(codes), -1)
        est, z, words = cell_scores(neg, polar, cells, n_keys)
        var, g, h = cluster_variance(z, cells, n_keys, group, st, counted)
        df = (g - h).astype(np.float64)
        if wording == "random":  # templates are clusters too, within formats, shared by the categories they serve
            var, df = crossed_variance(z, cells, n_keys, group, rows["template"].to_numpy(), st, fmt, counted)
        with np.errstate(invalid="ignore", divide="ignore"):
            deff = np.bincount(np.where(cells >= 0, cells, 0), np.where(cells >= 0, phi_row * polar, 0), n_keys) / words
        low, high = share_interval(100 * est, None, g, words, h, level, variance=1e4 * var, df=df, deff_floor=deff,
                                   method=SHARE_METHOD)
        probes = _distinct(cells, rows["probe_id"].to_numpy(), counted, n_keys)
        few = probes < MIN_PROBES
        _put(out, prefix, np.where(few, np.nan, low), np.where(few, np.nan, high))
        if sel is None:
            out["n_probes"] = probes
    out["too_few_probes"] = out["n_probes"] < MIN_PROBES
    return out


def within_groups(rows: Any, disp: Any, codes: Any, n_keys: int, level: float) -> Any:
    """Interval columns (one row per group) for a group's own cells from the pooled dispersion ``disp``.

    ``disp``: :class:`stereoprobe.stats.dispersion.Dispersion` of the rows (blocks =
    ``cat_code``); a cell's variance is ``phi * sum(polar mu (1 - mu)) / words^2``, its
    degrees of freedom those of ``phi``; where it is 0 (a group at 0% or 100%),
    ``n_eff = words / phi``.
    """
    import numpy as np
    import pandas as pd

    out = pd.DataFrame(index=range(n_keys))
    fmt = rows["format"].to_numpy()
    neg, polar = rows["neg"].to_numpy(np.float64), rows["polar"].to_numpy(np.float64)
    cat = rows["cat_code"].to_numpy()
    phi, df = np.asarray(disp.phi)[cat], np.asarray(disp.df)[cat]
    mu = np.asarray(disp.mu)
    for prefix, sel in FORMAT_SELECTIONS.items():
        mask = (np.ones(len(rows), bool) if sel is None else fmt == sel) & (polar > 0)
        c = np.where(mask, np.asarray(codes), 0)
        words = np.bincount(c, np.where(mask, polar, 0), n_keys)
        negs = np.bincount(c, np.where(mask, neg, 0), n_keys)
        with np.errstate(invalid="ignore", divide="ignore"):
            est = 100 * negs / np.where(words > 0, words, np.nan)
            var = np.bincount(c, np.where(mask, phi * polar * mu * (1 - mu), 0), n_keys) / words**2
            cell_phi = np.bincount(c, np.where(mask, phi * polar, 0), n_keys) / words
            cell_df = np.bincount(c, np.where(mask, df * polar, 0), n_keys) / words
        probes = np.bincount(c, mask.astype(np.float64), n_keys).astype(np.int64)
        low, high = share_interval(est, None, probes, words, 1, level, variance=1e4 * var, df=cell_df,
                                   deff_floor=cell_phi, method=SHARE_METHOD)
        few = probes < MIN_PROBES
        _put(out, prefix, np.where(few, np.nan, low), np.where(few, np.nan, high))
        if sel is None:
            out["n_probes"] = probes
    out["too_few_probes"] = out["n_probes"] < MIN_PROBES
    return out


def vs_category(rows: Any, disp: Any, group_codes: Any, n_groups: int, group_category: Any, level: float) -> Any:
    """Each group's negative share minus the rest of its category's, tested per group.

    Groups are fixed. Under the null the group's probes have the category's rate at each
    template (pooled over its groups), so a group at 0% is tested like any other. Words of
    one reply agree as the category's dispersion says: a probe of ``m`` words is
    beta-binomial with intra-reply correlation ``(phi - 1) / (m_mean - 1)`` (``phi`` at
    least 1, and raised by the share of the variance of the difference that the rest of
    the category adds), and the p-value compares the group's negative words with the exact
    convolution of its probes' distributions (``betabinomial_pvalue``): the heavy tails of
    agreeing words are kept, which a normal or binomial approximation would lose at low
    rates. Returns a DataFrame (one row per group): ``vs_category`` (one of VS_LABELS at q
    < 1 - level), ``vs_category_q`` (BH within the category), ``vs_category_difference``
    (points), ``vs_category_p``.
    """
    import numpy as np
    import pandas as pd

    from stereoprobe.stats.fdr import bh

    counted = rows["polar"].to_numpy() > 0
    rows = rows[counted]
    neg, polar = rows["neg"].to_numpy(np.float64), rows["polar"].to_numpy(np.float64)
    cat = rows["cat_code"].to_numpy()
    n_cat = int(np.max(group_category)) + 1 if len(group_category) else 0
    gc = np.asarray(group_codes)[counted]
    gcat = np.asarray(group_category)
    phi = np.maximum(np.asarray(disp.phi)[cat], 1.0)  # at least binomial, as the intervals' n_eff <= words
    mu = np.asarray(disp.mu)[counted]
    tkey = pd.factorize(rows["category"].astype(str) + "\x1f" + rows["template"].astype(str))[0]
    n_t = int(tkey.max()) + 1 if len(tkey) else 0
    with np.errstate(invalid="ignore", divide="ignore"):
        rho = np.nan_to_num(np.bincount(tkey, neg, n_t) / np.bincount(tkey, polar, n_t))[tkey]
    g_neg, g_pol = np.bincount(gc, neg, n_groups), np.bincount(gc, polar, n_groups)
    c_neg, c_pol = np.bincount(cat, neg, n_cat)[gcat], np.bincount(cat, polar, n_cat)[gcat]
    own = phi * polar * mu * (1 - mu)
    g_null = np.bincount(gc, phi * polar * rho * (1 - rho), n_groups)
    rest_var = np.bincount(cat, own, n_cat)[gcat] - np.bincount(gc, own, n_groups)
    r_neg, r_pol = c_neg - g_neg, c_pol - g_pol
    mean_words = np.bincount(cat, polar, n_cat) / np.maximum(np.bincount(cat, minlength=n_cat), 1)
    with np.errstate(invalid="ignore", divide="ignore"):
        diff = 100 * (g_neg / g_pol - r_neg / r_pol)
        # the rest's own variance, carried by the group's probes: phi_eff = phi * (1 + rest part / group part)
        grow = np.where(g_null > 0, 1 + (rest_var / r_pol**2) / (g_null / g_pol**2), 1.0)
        phi_eff = phi * grow[gc]
        icc = np.where(mean_words[cat] > 1, (phi_eff - 1) / (mean_words[cat] - 1), 0.0)
    p = betabinomial_pvalue(g_neg, polar.astype(np.int64), rho, icc, gc)
    p = np.where(diff == 0, 1.0, p)
    probes = np.bincount(gc, minlength=n_groups)
    rest_probes = np.bincount(cat, minlength=n_cat)[gcat] - probes
    few = (probes < MIN_PROBES) | (rest_probes < MIN_PROBES) | np.isnan(p)
    p = np.where(few, np.nan, p)
    q = np.full(n_groups, np.nan)
    for c in np.unique(gcat):
        q[gcat == c] = bh(p[gcat == c])
    alpha = 1 - level
    label = np.where(few, VS_LABELS[3], np.where(q < alpha, np.where(diff > 0, VS_LABELS[0], VS_LABELS[1]), VS_LABELS[2]))
    return pd.DataFrame({"vs_category": label, "vs_category_q": q, "vs_category_difference": diff, "vs_category_p": p})
