"""Design-based variances of shares and their differences, by linearization (docs/statistics.md).

A share is a ratio ``R = sum(neg) / sum(polar)`` over the rows (probes) of a cell. Its
linearized score per row is ``z_i = (neg_i - R * polar_i) / sum(polar)``: ``R - truth`` is
to first order the sum of the scores. The with-replacement variance of a sum of scores
over clusters drawn within fixed strata is

    sum over strata h of  n_h / (n_h - 1) * sum over clusters k in h of (Z_k - mean_h Z)^2

with ``Z_k`` the scores summed over cluster ``k`` and ``n_h`` the clusters of stratum ``h``
that have counted words in the cell. This is the variance a cluster bootstrap of those
clusters estimates (the bootstrap's is ``(n_h - 1) / n_h`` of it), computed exactly,
without replicates (Wolter 2007, *Introduction to Variance Estimation*, ch. 6).

``crossed_variance`` treats the wordings as a sample too (``--wording random``): the sum
of the one-way variances over groups and over templates (conservative by the probe-level
part, which Cameron, Gelbach & Miller 2011, *J. Business & Economic Statistics* 29:
238-249, subtract), with Satterthwaite degrees of freedom.

Every function takes plain arrays (one entry per row) and integer cell codes (``-1``: the
row is in no cell), so other studies can use them.
"""

from __future__ import annotations

from typing import Any


def cell_scores(neg: Any, polar: Any, cells: Any, n_cells: int) -> tuple[Any, Any, Any]:
    """(estimate per cell, linearized score per row, counted words per cell) of ``sum neg / sum polar``.

    Rows with ``cells == -1`` get score 0. An empty cell's estimate is NaN.
    """
    import numpy as np

    neg, polar = np.asarray(neg, np.float64), np.asarray(polar, np.float64)
    cells = np.asarray(cells, np.int64)
    inside = cells >= 0
    c = np.where(inside, cells, 0)
    num = np.bincount(c, np.where(inside, neg, 0.0), minlength=n_cells)
    den = np.bincount(c, np.where(inside, polar, 0.0), minlength=n_cells)
    with np.errstate(invalid="ignore", divide="ignore"):
        est = np.where(den > 0, num / np.where(den > 0, den, 1.0), np.nan)
        z = np.where(inside & (den[c] > 0), (neg - np.nan_to_num(est[c]) * polar) / np.where(den[c] > 0, den[c], 1.0), 0.0)
    return est, z, den


def cluster_variance(z: Any, cells: Any, n_cells: int, clusters: Any, strata: Any = None,
                     counted: Any = None) -> tuple[Any, Any, Any]:
    """(variance, clusters, strata) per cell of the summed scores ``z``, clusters drawn within strata.

    ``clusters`` / ``strata``: labels or integer codes per row (strata None: one stratum).
    ``counted``: rows that make their cluster count (default: every row in a cell); a
    stratum with one counted cluster contributes nothing (no variance to estimate) and is
    not counted, so a cell's degrees of freedom are ``clusters - strata``.
    """
    import numpy as np
    import pandas as pd

    z = np.asarray(z, np.float64)
    cells = np.asarray(cells, np.int64)
    k = pd.factorize(np.asarray(clusters))[0].astype(np.int64)
    h = np.zeros(len(z), np.int64) if strata is None else pd.factorize(np.asarray(strata))[0].astype(np.int64)
    keep = cells >= 0
    if counted is not None:
        keep &= np.asarray(counted, bool)
    var = np.zeros(n_cells)
    n_k = np.zeros(n_cells, np.int64)
    n_h = np.zeros(n_cells, np.int64)
    if not keep.any():
        return var, n_k, n_h
    # one entry per (cell, stratum, cluster): Z summed over the cluster's rows
    key_ck, first = np.unique(np.column_stack([cells[keep], h[keep], k[keep]]), axis=0, return_inverse=True)
    zk = np.bincount(first.ravel(), z[keep], minlength=len(key_ck))
    cs, sh = np.unique(key_ck[:, :2], axis=0, return_inverse=True)
    sh = sh.ravel()
    m = np.bincount(sh, minlength=len(cs)).astype(np.float64)
    mean = np.bincount(sh, zk, minlength=len(cs)) / m
    ss = np.bincount(sh, (zk - mean[sh]) ** 2, minlength=len(cs))
    with np.errstate(invalid="ignore", divide="ignore"):
        part = np.where(m > 1, m / (m - 1) * ss, 0.0)
    var = np.bincount(cs[:, 0], part, minlength=n_cells)
    n_k = np.bincount(cs[:, 0], np.where(m > 1, m, 0), minlength=n_cells).astype(np.int64)
    n_h = np.bincount(cs[:, 0], (m > 1).astype(np.float64), minlength=n_cells).astype(np.int64)
    return var, n_k, n_h


def satterthwaite(parts: list[Any], dfs: list[Any]) -> Any:
    """Welch-Satterthwaite degrees of freedom of a sum of independent variance parts."""
    import numpy as np

    total = sum(np.asarray(p, np.float64) for p in parts)
    denom = sum(np.asarray(p, np.float64) ** 2 / np.maximum(np.asarray(d, np.float64), 1) for p, d in zip(parts, dfs))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(denom > 0, total**2 / np.where(denom > 0, denom, 1.0), np.inf)


def crossed_variance(z: Any, cells: Any, n_cells: int, groups: Any, templates: Any, group_strata: Any = None,
                     template_strata: Any = None, counted: Any = None) -> tuple[Any, Any]:
    """(variance, degrees of freedom) per cell with groups and templates both drawn (two-way clustering).

    ``V = V_groups + V_templates``: each one-way part counts the probe-level noise once, so
    the sum counts it twice, a small upward bias (about ``V_probes``) kept on purpose:
    subtracting ``V_probes`` (Cameron, Gelbach & Miller 2011) is unbiased but, with the six
    templates of a category, undercovered in simulation (0.89 for category cells where
    templates differ, vs 0.96 for the sum; docs/statistics.md). Degrees of freedom by
    Satterthwaite from the group part (``G - H``) and the template part (``T - H_T``).
    """
    import numpy as np

    g_lab = np.asarray(groups).astype(str)
    t_lab = np.asarray(templates).astype(str)
    gs = np.zeros(len(g_lab), dtype=object) if group_strata is None else np.asarray(group_strata).astype(str)
    ts = np.zeros(len(t_lab), dtype=object) if template_strata is None else np.asarray(template_strata).astype(str)
    v_g, k_g, h_g = cluster_variance(z, cells, n_cells, g_lab, gs, counted)
    v_t, k_t, h_t = cluster_variance(z, cells, n_cells, t_lab, ts, counted)
    var = v_g + v_t
    df = satterthwaite([v_g, v_t], [k_g - h_g, k_t - h_t])
    return var, df
