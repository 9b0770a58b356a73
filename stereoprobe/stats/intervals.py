"""Intervals and p-values from cluster-bootstrap replicates (docs/statistics.md).

A share gets a Korn-Graubard interval (``share_interval``): the Clopper-Pearson (beta)
interval at the effective sample size ``p(1-p) / var_boot``, shrunk by
``(z / t(df))^2`` for the few clusters, capped at the number of counted words; a cell
whose bootstrap variance is 0 (every probe all-negative or all-positive) falls back to
its number of clusters, the most cautious design effect. Simulation (docs/statistics.md)
shows it keeps coverage at or above nominal for 6-probe groups, also near 0% and 100%
where symmetric intervals collapse.

A difference of shares gets a t-based interval: ``estimate +/- t(df, (1+level)/2) * se * sqrt(G/(G-1))`` where
``se`` is the standard deviation of the bootstrap replicates, ``G`` the number of
top-level clusters resampled (per stratum: ``df = G - strata``). Why not the percentile
interval: with the few clusters stereoprobe has (6 probes per group) the bootstrap
distribution is about ``(G-1)/G`` as wide as the sampling distribution and normal
quantiles are too small; percentile and BCa intervals undercover badly there (the
coverage simulation in tests/test_stats_intervals.py and docs/statistics.md). The t
quantile with ``G - 1`` degrees of freedom and the ``G/(G-1)`` variance correction are
the small-sample fixes of the classical one-sample t interval, which the share of
equal-sized clusters is close to. Shares are clipped to [0, 100].
"""

from __future__ import annotations

from typing import Any


def bootstrap_se(replicates: Any, n_clusters: Any, n_strata: Any = 1) -> Any:
    """Standard error from replicates (axis 0), corrected by sqrt(G / (G - strata)).

    NaN where fewer than two clusters per stratum (no variance to estimate) or where a
    replicate is NaN (an empty resample).
    """
    import numpy as np

    reps = np.asarray(replicates, dtype=np.float64)
    g = np.asarray(n_clusters, dtype=np.float64)
    h = np.asarray(n_strata, dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        sd = np.std(reps, axis=0, ddof=1)
        return np.where(g - h >= 1, sd * np.sqrt(g / np.maximum(g - h, 1)), np.nan)


def t_interval(
    estimate: Any, replicates: Any, n_clusters: Any, n_strata: Any = 1, level: float = 0.95,
    bounds: tuple[float, float] | None = (0.0, 100.0),
) -> tuple[Any, Any]:
    """(low, high) of the t-based bootstrap interval; NaN where it cannot be formed.

    ``estimate``: the full-sample value(s); ``replicates``: shape (B, ...) matching it;
    ``n_clusters`` / ``n_strata``: per estimate (broadcast). ``bounds`` clips the result
    (None: no clipping, e.g. for a difference of shares use (-100, 100)).
    """
    import numpy as np
    from scipy import stats

    est = np.asarray(estimate, dtype=np.float64)
    se = bootstrap_se(replicates, n_clusters, n_strata)
    df = np.maximum(np.asarray(n_clusters, dtype=np.float64) - np.asarray(n_strata, dtype=np.float64), 1)
    half = stats.t.ppf(0.5 + level / 2, df) * se
    low, high = est - half, est + half
    if bounds is not None:
        low, high = np.clip(low, *bounds), np.clip(high, *bounds)
    return low, high


def t_pvalue(
    difference: Any, replicates: Any, n_clusters: Any, n_strata: Any = 1, null: float = 0.0
) -> Any:
    """Two-sided p-value of ``difference == null`` from the bootstrap standard error and t(G - strata).

    A zero standard error gives p = 1 when the difference equals the null, else 0.
    """
    import numpy as np
    from scipy import stats

    d = np.asarray(difference, dtype=np.float64) - null
    se = bootstrap_se(replicates, n_clusters, n_strata)
    df = np.maximum(np.asarray(n_clusters, dtype=np.float64) - np.asarray(n_strata, dtype=np.float64), 1)
    with np.errstate(invalid="ignore", divide="ignore"):
        t = np.abs(d) / se
        p = 2 * stats.t.sf(t, df)
    p = np.where(se == 0, np.where(d == 0, 1.0, 0.0), p)
    return np.where(np.isnan(se) | np.isnan(d), np.nan, p)


def share_interval(
    share: Any, replicates: Any, n_clusters: Any, n_words: Any, n_strata: Any = 1, level: float = 0.95
) -> tuple[Any, Any]:
    """(low, high) in percent: Korn-Graubard interval of a share (percent) from its replicates.

    ``share``: estimate(s) in percent; ``replicates``: (B, ...) in percent; ``n_clusters``:
    top-level clusters resampled; ``n_words``: counted (positive + negative) words, the
    cap of the effective sample size; ``n_strata``: fixed strata (df = clusters - strata).
    NaN where the share is NaN or there are fewer than two clusters per stratum.
    """
    import numpy as np
    from scipy import stats

    p = np.asarray(share, dtype=np.float64) / 100
    reps = np.asarray(replicates, dtype=np.float64) / 100
    g = np.asarray(n_clusters, dtype=np.float64)
    df = g - np.asarray(n_strata, dtype=np.float64)
    alpha = 1 - level
    import warnings

    with np.errstate(invalid="ignore", divide="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # an all-NaN cell: no variance, no interval
        var = np.nanvar(reps, axis=0, ddof=1)
        neff = np.where((var > 0) & (p > 0) & (p < 1), p * (1 - p) / var, g)
        neff = np.minimum(neff, np.asarray(n_words, dtype=np.float64))
        neff = neff * (stats.norm.ppf(1 - alpha / 2) / stats.t.ppf(1 - alpha / 2, np.maximum(df, 1))) ** 2
        x = p * neff
        low = np.where(x > 0, stats.beta.ppf(alpha / 2, x, neff - x + 1), 0.0)
        high = np.where(x < neff, stats.beta.ppf(1 - alpha / 2, x + 1, neff - x), 1.0)
    bad = np.isnan(p) | (df < 1) | ~(neff > 0)
    return np.where(bad, np.nan, 100 * low), np.where(bad, np.nan, 100 * high)
