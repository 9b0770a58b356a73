"""Correlation of two paired samples with a confidence interval and a p-value.

``correlation(x, y, method, level)``: Pearson's r with the Fisher z interval
(atanh(r) +/- z / sqrt(n - 3)), or Spearman's rho with the Fisher z interval and Bonett
& Wright's (2000) standard error sqrt((1 + rho^2 / 2) / (n - 3)), which keeps the
interval's coverage near nominal for rank correlations where 1 / sqrt(n - 3) is too
narrow. p-values are scipy's (``pearsonr``, ``spearmanr``: t distribution with n - 2
degrees of freedom). Pairs with a NaN are left out. tests/test_jobs_stats.py checks the
coverage on bivariate normal data with a known correlation, from below and above.

``correlation_difference(x1, y1, x2, y2, ...)``: the difference of two correlations
measured on the same units (e.g. the explicit and the implicit prompt over the same
jobs), with a percentile interval from resampling the units (pairs kept together).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

METHODS = ("spearman", "pearson")


@dataclass(frozen=True)
class Correlation:
    method: str
    r: float
    low: float
    high: float
    p: float
    n: int


def _clean(x: Any, y: Any) -> tuple[Any, Any]:
    import numpy as np

    x, y = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
    ok = ~(np.isnan(x) | np.isnan(y))
    return x[ok], y[ok]


def correlation(x: Any, y: Any, method: str = "spearman", level: float = 0.95) -> Correlation:
    """r, its interval and p-value (NaN where it cannot be formed: fewer than 4 pairs, or a constant)."""
    import math

    import numpy as np
    from scipy import stats

    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}")
    x, y = _clean(x, y)
    n = len(x)
    nan = Correlation(method, math.nan, math.nan, math.nan, math.nan, n)
    if n < 4 or np.ptp(x) == 0 or np.ptp(y) == 0:
        return nan
    if method == "pearson":
        result = stats.pearsonr(x, y)
        se = 1 / math.sqrt(n - 3)
    else:
        result = stats.spearmanr(x, y)
    r, p = float(result.statistic), float(result.pvalue)
    if method == "spearman":
        se = math.sqrt((1 + r * r / 2) / (n - 3))
    z = stats.norm.ppf(0.5 + level / 2)
    centre = math.atanh(max(min(r, 1 - 1e-12), -1 + 1e-12))
    return Correlation(method, r, math.tanh(centre - z * se), math.tanh(centre + z * se), p, n)


def correlation_difference(x1: Any, y1: Any, x2: Any, y2: Any, method: str = "spearman", level: float = 0.95,
                           n_boot: int = 2000, seed: int = 0) -> tuple[float, float, float]:
    """(r1 - r2, low, high): two correlations over the same units, the units resampled together."""
    import numpy as np
    from scipy import stats

    arrays = [np.asarray(a, dtype=np.float64) for a in (x1, y1, x2, y2)]
    ok = ~np.any([np.isnan(a) for a in arrays], axis=0)
    x1, y1, x2, y2 = (a[ok] for a in arrays)
    n = len(x1)
    if n < 4:
        return (float("nan"),) * 3

    def r(a: Any, b: Any) -> Any:
        if method == "spearman":
            a, b = stats.rankdata(a, axis=-1), stats.rankdata(b, axis=-1)
        a = a - a.mean(axis=-1, keepdims=True)
        b = b - b.mean(axis=-1, keepdims=True)
        with np.errstate(invalid="ignore", divide="ignore"):
            return (a * b).sum(-1) / np.sqrt((a * a).sum(-1) * (b * b).sum(-1))

    estimate = float(r(x1, y1) - r(x2, y2))
    idx = np.random.default_rng(seed).integers(0, n, size=(n_boot, n))
    reps = r(x1[idx], y1[idx]) - r(x2[idx], y2[idx])
    reps = reps[~np.isnan(reps)]
    low, high = np.quantile(reps, [0.5 - level / 2, 0.5 + level / 2]) if len(reps) else (np.nan, np.nan)
    return estimate, float(low), float(high)
