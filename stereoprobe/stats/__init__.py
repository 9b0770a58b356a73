"""Statistics for stereoprobe: cluster bootstrap, intervals, tests, criteria, robustness.

See docs/statistics.md for the reasoning. Nothing heavy is imported here; each function
imports numpy/scipy/statsmodels when called.

The resampling plan (stereoprobe.stats.resample)::

    cluster_weights(levels, n_boot, seed=0, strata=None) -> np.ndarray  # (n_boot, n_rows) int32
        levels: label arrays, one label per row, outermost first, e.g. [group, probe_id];
        [probe_id] resamples probes; [group, probe_id, sample] also resamples samples
        within probes. strata: labels of fixed strata (e.g. category for "all").
        seed: int or numpy.random.Generator.
    replicate_ratio(weights, numerator, denominator) -> np.ndarray  # (n_boot,) or (n_boot, k)
        W @ numerator / W @ denominator, NaN for an empty denominator.
    n_clusters(levels, strata=None) -> (top_level_clusters, strata)

Rows are the units that are never split (answered probes, or probe-samples): words are
never rows. Paired use (two runs A and B aligned on the same probe rows, e.g. compare)::

    W = cluster_weights([groups, probe_ids], 2000, seed=0, strata=categories)
    share_a = replicate_ratio(W, neg_a, polar_a)         # (B,)
    share_b = replicate_ratio(W, neg_b, polar_b)
    diff = 100 * (share_a - share_b)                     # paired replicates of A - B
    g, h = n_clusters([groups, probe_ids], categories)
    low, high = t_interval(est_diff, diff, g, h, level=0.95, bounds=(-100, 100))
    p = t_pvalue(est_diff, diff, g, h)
    q = bh(p_values_of_the_family)

Intervals and p-values (stereoprobe.stats.intervals)::

    bootstrap_se(replicates, n_clusters, n_strata=1) -> np.ndarray
    t_interval(estimate, replicates, n_clusters, n_strata=1, level=0.95,
               bounds=(0.0, 100.0)) -> (low, high)
    t_pvalue(difference, replicates, n_clusters, n_strata=1, null=0.0) -> np.ndarray

Multiple testing (stereoprobe.stats.fdr)::

    bh(pvalues) -> np.ndarray   # Benjamini-Hochberg q-values, NaN kept
"""

from __future__ import annotations

from stereoprobe.stats.fdr import bh
from stereoprobe.stats.intervals import bootstrap_se, t_interval, t_pvalue
from stereoprobe.stats.resample import cluster_weights, n_clusters, replicate_ratio

__all__ = ["bh", "bootstrap_se", "cluster_weights", "n_clusters", "replicate_ratio", "t_interval", "t_pvalue"]
