"""Intervals and p-values of shares and differences (docs/statistics.md).

A share gets the **Korn-Graubard** interval (``share_interval``; Korn & Graubard 1998,
*Survey Methodology* 24: 193-201), as R's ``survey::svyciprop(method = "beta")``
computes it: the Clopper-Pearson (beta) interval at the effective sample size
``n_eff = p (1 - p) / var``, times ``(t(n-1) / t(df))^2`` for the few clusters (never
above 1). ``n_eff`` is at most the counted words divided by the design effect the
caller knows (``deff_floor``, at least 1; 1 by default: at most the counted words), in
every cell; where the variance says nothing (``var = 0``, or the share is 0% or 100%) it
is that bound. So intervals are monotone in the count, also when the design effect
exceeds 1, and never collapse to a point. tests/test_stats_intervals.py
checks the edge cases by hand and the formula against svyciprop's.

A difference gets a t interval ``estimate +/- t(df) * se``; ``t_pvalue`` is the matching
two-sided p-value. ``se`` comes either from bootstrap replicates (their standard
deviation times ``sqrt(G / (G - strata))``, the small-sample correction of the
bootstrap variance, with ``df = G - strata``) or from the caller (``se=``, ``df=``). A
zero standard error with a non-zero difference has no p-value unless the caller gives a
floor (``se_floor``): never p = 0.

``betabinomial_pvalue`` tests a total count against the convolution of its parts'
beta-binomial distributions (the group against its category).

``mover`` is the difference of two *independent* estimates with the interval recovered from
their own intervals (MOVER: Zou & Donner 2008; Newcombe's method 10 when the parts' are
Wilson intervals): each side of the difference's interval adds the two parts' distances to
the limits on that side in quadrature, so a share's interval at 0 (Jeffreys' for 0 of n)
keeps its asymmetry and a difference of two such shares still has an interval.

The t and beta quantiles are read from ``scipy.special`` (``stdtrit``, ``stdtr``,
``betaincinv``), the functions ``scipy.stats.t`` and ``scipy.stats.beta`` call: the same
numbers (tests/test_stats_intervals.py compares them), without importing ``scipy.stats``
(about half a second of every ``stereoprobe sentiment``; docs/benchmarks.md).
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


def _se_df(replicates: Any, n_clusters: Any, n_strata: Any, se: Any, df: Any) -> tuple[Any, Any]:
    import numpy as np

    g = np.asarray(n_clusters, dtype=np.float64)
    h = np.asarray(n_strata, dtype=np.float64)
    if se is None:
        se = bootstrap_se(replicates, g, h)
    se = np.asarray(se, dtype=np.float64)
    if df is None:
        df = np.where(g - h >= 1, g - h, np.nan)
    return se, np.asarray(df, dtype=np.float64)


def t_interval(
    estimate: Any, replicates: Any, n_clusters: Any, n_strata: Any = 1, level: float = 0.95,
    bounds: tuple[float, float] | None = (0.0, 100.0), *, se: Any = None, df: Any = None,
) -> tuple[Any, Any]:
    """(low, high) of ``estimate +/- t(df) * se``; NaN where it cannot be formed.

    ``replicates`` (B, ...) give ``se`` and ``df = n_clusters - n_strata`` unless ``se``
    and ``df`` are given (then ``replicates`` may be None). ``bounds`` clips the result
    (None: no clipping; for a difference of shares use (-100, 100)).
    """
    import numpy as np
    from scipy import special

    est = np.asarray(estimate, dtype=np.float64)
    se, df = _se_df(replicates, n_clusters, n_strata, se, df)
    with np.errstate(invalid="ignore"):
        half = special.stdtrit(np.where(df >= 1, df, np.nan), 0.5 + level / 2) * se
    low, high = est - half, est + half
    if bounds is not None:
        low, high = np.clip(low, *bounds), np.clip(high, *bounds)
    return low, high


def t_pvalue(
    difference: Any, replicates: Any, n_clusters: Any, n_strata: Any = 1, null: float = 0.0, *,
    se: Any = None, df: Any = None, se_floor: Any = None,
) -> Any:
    """Two-sided p-value of ``difference == null`` with t(df); never 0.

    ``se``/``df`` as in :func:`t_interval`. Where ``se`` is 0: p = 1 if the difference
    equals the null, else the p-value at ``se_floor`` (NaN without a floor: a difference
    with no variance at all cannot be tested).
    """
    import numpy as np
    from scipy import special

    d = np.asarray(difference, dtype=np.float64) - null
    se, df = _se_df(replicates, n_clusters, n_strata, se, df)
    if se_floor is not None:
        se = np.where(se > 0, se, np.asarray(se_floor, dtype=np.float64))
    with np.errstate(invalid="ignore", divide="ignore"):
        t = np.abs(d) / se
        p = 2 * special.stdtr(np.where(df >= 1, df, np.nan), -t)
    p = np.where(se > 0, p, np.where(d == 0, 1.0, np.nan))
    p = np.where(np.isnan(se) | np.isnan(d), np.nan, p)
    return np.where(np.isnan(p), np.nan, np.maximum(p, np.finfo(np.float64).tiny))


def betabinomial_pvalue(x: Any, trials: Any, rates: Any, icc: Any, unit: Any) -> Any:
    """Two-sided p-value of each unit's total count under independent beta-binomial parts.

    Rows are the parts (e.g. a group's probes): ``trials`` (whole numbers), the null
    ``rates`` and the intra-part correlation ``icc`` (0: binomial); ``unit``: integer
    code 0..U-1 of each row's unit, ``x``: each unit's observed total. The null
    distribution of a unit's total is the exact convolution of its parts' beta-binomial
    distributions (``part_pmfs``), so the heavy tails of words that agree within a reply
    are kept. ``p = min(1, 2 * min(P(X <= x), P(X >= x)))``, never 0.
    """
    import numpy as np

    trials = np.asarray(trials, dtype=np.int64)
    rates = np.clip(np.asarray(rates, dtype=np.float64), 1e-9, 1 - 1e-9)
    icc = np.clip(np.broadcast_to(np.asarray(icc, dtype=np.float64), trials.shape), 0.0, 0.999)
    unit = np.asarray(unit, dtype=np.int64)
    x = np.asarray(x, dtype=np.float64)
    k = np.arange(trials.max(initial=0) + 1)[None, :]
    pmf = part_pmfs(k, trials, rates, icc)
    out = np.full(len(x), np.nan)
    order = np.argsort(unit, kind="stable")
    bounds = np.searchsorted(unit[order], np.arange(len(x) + 1))
    for u in range(len(x)):
        dist = np.ones(1)
        for r in order[bounds[u]:bounds[u + 1]]:
            dist = np.convolve(dist, pmf[r, : trials[r] + 1])
        xi = int(round(x[u])) if x[u] == x[u] else -1
        if not 0 <= xi < len(dist):
            continue
        low, high = dist[: xi + 1].sum(), dist[xi:].sum()
        out[u] = min(1.0, 2 * min(low, high))
    return np.where(np.isnan(out), np.nan, np.maximum(out, np.finfo(np.float64).tiny))


def part_pmfs(k: Any, trials: Any, rates: Any, icc: Any) -> Any:
    """(parts, len(k)) array: each part's P(k of ``trials``), beta-binomial with mean
    ``rates`` and intra-part correlation ``icc`` (``a = rate (1 / icc - 1)``, ``b = (1 -
    rate) (1 / icc - 1)``) where ``icc > 0``, binomial where it is 0; 0 outside 0..trials.

    The numbers of ``scipy.stats.betabinom.pmf`` and ``scipy.stats.binom.pmf`` (the first's
    log-pmf through ``betaln``, the second's Boost function), read from ``scipy.special``
    so that ``scipy.stats`` is not imported; tests/test_stats_intervals.py checks they
    are equal.

    >>> [round(float(v), 4) for v in part_pmfs([0, 1, 2], [2], [0.5], [0.0])[0]]
    [0.25, 0.5, 0.25]
    >>> [round(float(v), 4) for v in part_pmfs([0, 1, 2, 3], [2], [0.5], [1 / 3])[0]]  # a = b = 1: uniform
    [0.3333, 0.3333, 0.3333, 0.0]
    """
    import numpy as np
    from scipy import special
    from scipy.special import _ufuncs

    k = np.asarray(k, dtype=np.float64).reshape(1, -1)
    trials = np.asarray(trials, dtype=np.float64)[:, None]
    rates = np.asarray(rates, dtype=np.float64)[:, None]
    icc = np.broadcast_to(np.asarray(icc, dtype=np.float64), trials.shape[:1])
    inside = (k >= 0) & (k <= trials)
    out = np.zeros(np.broadcast_shapes(k.shape, trials.shape))
    bb, bi = icc > 0, ~(icc > 0)
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        n, kk = trials[bb], np.broadcast_to(k, out.shape)[bb]
        scale = 1 / icc[bb, None] - 1
        a, b = rates[bb] * scale, (1 - rates[bb]) * scale
        log = -np.log(n + 1) - special.betaln(n - kk + 1, kk + 1) + special.betaln(kk + a, n - kk + b) - special.betaln(a, b)
        out[bb] = np.where(inside[bb], np.nan_to_num(np.clip(np.exp(log), 0, 1)), 0.0)
        binom = getattr(_ufuncs, "_binom_pmf", None)  # scipy.stats.binom's own; private, so checked
        if binom is None:  # pragma: no cover - a scipy without it
            from scipy.stats import binom as dist
            binom = lambda x, n, p: dist.pmf(x, n, p)  # noqa: E731
        kb = np.broadcast_to(k, out.shape)[bi]
        out[bi] = np.where(inside[bi], np.clip(binom(kb, trials[bi], rates[bi]), 0, 1), 0.0)
    return out


def share_interval(
    share: Any, replicates: Any, n_clusters: Any, n_words: Any, n_strata: Any = 1, level: float = 0.95, *,
    variance: Any = None, df: Any = None, deff_floor: Any = 1.0, method: str = "beta",
) -> tuple[Any, Any]:
    """(low, high) in percent: Korn-Graubard interval of a share (percent).

    The variance of the share (percent squared) is ``variance`` if given, else that of
    the bootstrap ``replicates`` (percent) times ``G / (G - strata)``; ``df`` defaults to
    ``n_clusters - n_strata``. ``n_words``: counted words, the cap of ``n_eff`` and the
    ``n`` of ``t(n - 1)``. ``deff_floor``: the smallest design effect believed (at least 1):
    ``n_eff = min(p (1 - p) / var, n_words / deff_floor)``, and ``n_words / deff_floor`` where
    the variance says nothing (0, or a share of 0% or 100%).
    NaN where the share is NaN or ``df < 1``.
    """
    import warnings

    import numpy as np
    from scipy import special

    p = np.asarray(share, dtype=np.float64) / 100
    g = np.asarray(n_clusters, dtype=np.float64)
    h = np.asarray(n_strata, dtype=np.float64)
    n = np.asarray(n_words, dtype=np.float64)
    if df is None:
        df = g - h
    df = np.asarray(df, dtype=np.float64)
    alpha = 1 - level
    with np.errstate(invalid="ignore", divide="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # an all-NaN cell: no variance, no interval
        if variance is None:
            reps = np.asarray(replicates, dtype=np.float64) / 100
            var = np.nanvar(reps, axis=0, ddof=1) * g / np.maximum(g - h, 1)
        else:
            var = np.asarray(variance, dtype=np.float64) / 1e4
        informative = (var > 0) & (p > 0) & (p < 1)
        floor_n = n / np.maximum(deff_floor, 1.0)  # the design effect is never below the caller's (nor 1)
        neff = np.where(informative, np.minimum(p * (1 - p) / np.where(informative, var, 1), floor_n), floor_n)
        ratio = special.stdtrit(np.maximum(n - 1, 1), 1 - alpha / 2) / special.stdtrit(np.maximum(df, 1), 1 - alpha / 2)
        neff = neff * np.minimum(ratio, 1.0) ** 2
        x = p * neff
        a, b = (0.5, 0.5) if method == "jeffreys" else (0.0, 1.0)
        low = np.where(x > 0, special.betaincinv(x + a, neff - x + b, alpha / 2), 0.0)
        high = np.where(x < neff, special.betaincinv(x + b, neff - x + a, 1 - alpha / 2), 1.0)
    bad = np.isnan(p) | ~(df >= 1) | ~(neff > 0)
    return np.where(bad, np.nan, 100 * low), np.where(bad, np.nan, 100 * high)


def mover(estimate_a: Any, low_a: Any, high_a: Any, estimate_b: Any, low_b: Any, high_b: Any,
          ) -> tuple[Any, Any, Any]:
    """(b - a, low, high): the difference of two independent estimates with the MOVER interval
    from their own intervals (module docstring). NaN where either interval is missing.

    By hand: 0.5 - 0.2 = 0.3; low 0.3 - sqrt(0.12^2 + 0.12^2) = 0.1303 (b's lower distance,
    a's upper), high 0.3 + sqrt(0.12^2 + 0.10^2) = 0.4562:

    >>> [round(float(x), 4) for x in mover(0.2, 0.1, 0.32, 0.5, 0.38, 0.62)]
    [0.3, 0.1303, 0.4562]
    """
    import numpy as np

    a, la, ha, b, lb, hb = (np.asarray(x, dtype=np.float64) for x in (estimate_a, low_a, high_a, estimate_b, low_b,
                                                                      high_b))
    d = b - a
    low = d - np.sqrt((b - lb) ** 2 + (ha - a) ** 2)
    high = d + np.sqrt((hb - b) ** 2 + (a - la) ** 2)
    return d, low, high
