"""Multiple-test adjustment: Benjamini-Hochberg's false-discovery control (statsmodels'
``fdr_bh``) and Holm's step-down for a small family of tests.

Both are written out here, as statsmodels' ``multipletests`` computes them, not called from
it: its ``method="holm"`` runs a full ``gc.collect()`` on every call (statsmodels 0.14-0.15),
which cost 70 ms or more per call inside a test session and made a 200-run simulation spend
most of its time collecting garbage; and importing ``statsmodels.stats.multitest`` takes about
a second (it imports ``scipy.stats``), a third of ``stereoprobe sentiment`` (docs/benchmarks.md).
tests/test_stats_core.py checks both by hand and against statsmodels."""

from __future__ import annotations

from typing import Any


def bh(pvalues: Any) -> Any:
    """BH q-values (adjusted p-values) of ``pvalues``: the i-th smallest of m divided by
    i / m, made monotone by a running minimum from the largest, at most 1 (statsmodels'
    ``fdr_bh``, step by step). NaN entries stay NaN and are not counted.

    >>> bh([0.01, 0.04, 0.03, float("nan")]).round(6).tolist()
    [0.03, 0.04, 0.04, nan]
    """
    import numpy as np

    p = np.asarray(pvalues, dtype=np.float64)
    q = np.full(p.shape, np.nan)
    ok = np.flatnonzero(~np.isnan(p))
    order = ok[np.argsort(p[ok])]
    m = len(order)
    if m:
        raw = p[order] / (np.arange(1, m + 1) / m)
        q[order] = np.minimum(np.minimum.accumulate(raw[::-1])[::-1], 1.0)
    return q


def holm(pvalues: Any) -> Any:
    """Holm-adjusted p-values of ``pvalues``: the i-th smallest of m times (m - i), made
    monotone by a running maximum, at most 1. NaN entries stay NaN and are not counted."""
    import numpy as np

    p = np.asarray(pvalues, dtype=np.float64)
    out = np.full(p.shape, np.nan)
    ok = np.flatnonzero(~np.isnan(p))
    order = ok[np.argsort(p[ok], kind="stable")]
    m = len(order)
    out[order] = np.minimum(np.maximum.accumulate(p[order] * (m - np.arange(m))), 1.0)
    return out
