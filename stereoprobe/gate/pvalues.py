"""One-sided p-values from a value's 95% interval, with the interval's own tails (docs/gate.md).

The gate judges by intervals, and to say how often a release is blocked by chance across
many checks it needs each check's p-value as well. A study's tables hold estimates and 95%
intervals; each :class:`~stereoprobe.gate.values.Value` says how its interval was made
(``method``, ``df``), and the p-value is that interval family inverted. So one check alone
gets p < 0.025 exactly when its interval lies wholly beyond the threshold (the verdict the
interval gives), and further out the tails are the interval's own:

- ``t`` (``df``; inf: a normal interval): the interval is ``c +/- t(df) se``: ``c`` its
  midpoint, ``se`` its half-width / t(df). An interval clipped at the metric's range (a
  share's at 0) keeps the estimate as its centre and the unclipped half as its half-width.
  ``above(x) = T_df.sf((c - x) / se)``.
- ``atanh``: the same on Fisher's z = atanh r, where the jackknife's interval is symmetric
  around its own (bias-corrected) centre, ``df`` its n - 1.
- ``jeffreys``: the 2.5% and 97.5% quantiles of beta(k + 1/2, n - k + 1/2), ``k = estimate
  n`` at an effective size ``n`` (Korn and Graubard's, which already holds the interval's t
  correction): ``n`` is solved so that the quantile on the threshold's side is the
  interval's limit, and the p-value is that beta's probability on the good side of the
  threshold (``above(x) = I_x(k + 1/2, n - k + 1/2)``). A limit at 0 (or 1), Jeffreys' rule
  for 0 of n, never shows a share above 0 (below 1): p = 1 there.
- ``percentile`` (bootstrap quantiles, possibly skewed) and ``sides`` (an interval built
  side by side: MOVER's difference of two independent estimates, each side the parts'
  distances to that side's limits in quadrature; a score interval): a normal on each side
  of the estimate, its sd the distance to that side's limit / 1.96.

``above(v, x)``: the p-value of "the truth is at or below x" (small when the interval lies
above x); ``below(v, x)``: of "at or above x". NaN where the value has no interval.
``no_difference(v)``: the two-sided p-value of "the truth is 0", the same reading of the
interval (a difference's p where its study gives none of its own).
"""

from __future__ import annotations

import math

from stereoprobe.gate.values import Value

LEVEL = 0.95
_TAIL = (1 - LEVEL) / 2


def above(v: Value, x: float) -> float:
    """p of "the truth is at or below ``x``": 0.025 at ``x = v.low``, smaller below it."""
    return _tail(v, x, up=True)


def below(v: Value, x: float) -> float:
    """p of "the truth is at or above ``x``": 0.025 at ``x = v.high``, smaller above it."""
    return _tail(v, x, up=False)


def with_p(v: Value) -> Value:
    """A run-minus-baseline ``v`` with ``p``: its :func:`no_difference` (for a study whose
    difference has no p-value of its own)."""
    from dataclasses import replace

    return replace(v, p=no_difference(v))


def no_difference(v: Value) -> float:
    """Two-sided p of "the truth is 0": twice the smaller one-sided p (at most 1), NaN without
    an interval; an interval that is one point (0 to 0: two identical runs) gives 1 there."""
    p = 2 * min(above(v, 0.0), below(v, 0.0))
    return min(1.0, p) if p == p else math.nan


def _tail(v: Value, x: float, up: bool) -> float:
    from scipy import special

    est, lo, hi = float(v.estimate), float(v.low), float(v.high)
    if any(map(math.isnan, (est, lo, hi, x))):
        return math.nan
    if v.method == "jeffreys":
        p = _jeffreys(est, lo if up else hi, x, up)
        if p is not None:
            return p
    if v.method in ("t", "atanh"):
        q = float(special.stdtrit(v.df, 1 - _TAIL))  # t(df)'s 97.5% quantile
        if v.method == "atanh":
            z = lambda r: math.atanh(min(max(r, -1 + 1e-12), 1 - 1e-12))  # noqa: E731
            lo, hi, x = z(lo), z(hi), z(x)
            return _sf((lo + hi) / 2, (hi - lo) / (2 * q), x, up, v.df)
        a, b = est - lo, hi - est
        if abs(a - b) <= 1e-9 * max(1.0, abs(a) + abs(b)):
            return _sf((lo + hi) / 2, (hi - lo) / (2 * q), x, up, v.df)
        return _sf(est, max(a, b) / q, x, up, v.df)  # clipped at the range: the unclipped half
    z = float(special.ndtri(1 - _TAIL))  # percentile (and a Jeffreys interval that cannot be solved)
    side = (est - lo) if up else (hi - est)
    if side > 0:
        return _sf(est, side / z, x, up, math.inf)
    return _sf((lo + hi) / 2, (hi - lo) / (2 * z), x, up, math.inf)


def _sf(centre: float, se: float, x: float, up: bool, df: float) -> float:
    """T_df's probability beyond the centre's distance from ``x`` on the tested side."""
    from scipy import special

    d = (centre - x) if up else (x - centre)
    if not se > 0:
        return 0.0 if d > 0 else 1.0
    return float(special.stdtr(df, -d / se))  # t(df)'s upper tail at d / se


def _jeffreys(est: float, limit: float, x: float, up: bool) -> float | None:
    """The Jeffreys family's p (module docstring), or None where no effective size gives ``limit``.

    The effective size is found by bisection on log n (40 halvings of a bracket 64-fold wide:
    n to 1e-11 relative), not scipy.optimize: importing it costs a gate about 0.5 CPU-seconds,
    as much as the rest of the gate."""
    from scipy import special

    if (up and limit <= 0.0) or (not up and limit >= 1.0):
        return 1.0 if (x >= 0.0 if up else x <= 1.0) else 0.0
    if not 0.0 <= est <= 1.0 or (up and limit >= est) or (not up and limit <= est):
        return None
    tail = _TAIL if up else 1 - _TAIL

    def gap(log_n: float) -> float:  # the limit at size n minus the interval's; rises with n for ``up``
        n = math.exp(log_n)
        return float(special.betaincinv(est * n + 0.5, (1 - est) * n + 0.5, tail)) - limit  # beta's quantile

    guess = max(est * (1 - est), 1e-6) * (1.96 / abs(est - limit)) ** 2  # the normal approximation's size
    for lo_n, hi_n in ((math.log(guess / 8), math.log(guess * 8)), (math.log(1e-6), math.log(1e12))):
        g_lo, g_hi = gap(lo_n), gap(hi_n)
        if g_lo * g_hi <= 0:
            break
    else:
        return None
    for _ in range(60 if hi_n - lo_n > 5 else 40):
        mid = (lo_n + hi_n) / 2
        g_mid = gap(mid)
        if (g_mid <= 0) == (g_lo <= 0):
            lo_n, g_lo = mid, g_mid
        else:
            hi_n = mid
    n = math.exp((lo_n + hi_n) / 2)
    a, b = est * n + 0.5, (1 - est) * n + 0.5
    x = min(max(x, 0.0), 1.0)
    return float(special.betainc(a, b, x) if up else special.betainc(b, a, 1 - x))  # beta's cdf, sf
