"""Synthetic jobs with the real design's structure, for the correlation tests (and bench/).

The 40 jobs' shares of women (BLS) fall in two clusters, 1-16% (men-dominated) and
83-98% (women-dominated), 20 each. :func:`draw` gives one run: each job's share drawn
uniformly within its cluster, and the model's P(female) ``logistic(slope * logit(share) +
job effect)`` with a job effect of sd ``noise`` on the logit. :func:`truth` is the
correlation of the population this samples (20 + 20 jobs like these), by a large draw.
"""

from __future__ import annotations

import numpy as np

SLOPE, NOISE = 0.5, 0.6


def draw(rng: np.random.Generator, n_per_side: int = 20, slope: float = SLOPE, noise: float = NOISE,
         size: int | None = None):
    """(shares %, P(female)) of ``n_per_side`` men- then women-dominated jobs; ``size`` runs at once."""
    shape = (n_per_side,) if size is None else (size, n_per_side)
    share = np.concatenate([rng.uniform(1, 16, shape), rng.uniform(83, 98, shape)], axis=-1)
    logit = np.log(share / (100 - share))
    p = 1 / (1 + np.exp(-(slope * logit + rng.normal(0, noise, share.shape))))
    return share, p


def truth(method: str, slope: float = SLOPE, noise: float = NOISE) -> float:
    """The correlation of jobs like these (a draw of 2 x 400,000 jobs)."""
    from scipy import stats

    share, p = draw(np.random.default_rng(0), 400_000, slope, noise)
    if method == "pearson":
        return float(np.corrcoef(share, p)[0, 1])
    return float(stats.spearmanr(share, p).statistic)
