"""Benjamini-Hochberg false-discovery control (statsmodels' ``fdr_bh``)."""

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
