"""Multiple-test adjustment: Benjamini-Hochberg's false-discovery control (statsmodels'
``fdr_bh``) and Holm's step-down for a small family of tests.

Holm is written out here, not taken from statsmodels: its ``multipletests(method="holm")``
runs a full ``gc.collect()`` on every call (statsmodels 0.14-0.15), which cost 70 ms or
more per call inside a test session and made a 200-run simulation spend most of its time
collecting garbage. tests/test_stats_core.py checks both by hand and Holm against statsmodels."""

from __future__ import annotations

from typing import Any


def bh(pvalues: Any) -> Any:
    """BH q-values (adjusted p-values) of ``pvalues``; NaN entries stay NaN and are not counted."""
    import numpy as np
    from statsmodels.stats.multitest import multipletests

    p = np.asarray(pvalues, dtype=np.float64)
    q = np.full(p.shape, np.nan)
    ok = ~np.isnan(p)
    if ok.any():
        q[ok] = multipletests(p[ok], method="fdr_bh")[1]
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
