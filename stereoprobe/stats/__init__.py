"""Statistics for stereoprobe: variances, intervals, tests, criteria, robustness.

See docs/statistics.md for the reasoning (the estimand, what each interval means, the
simulations behind every method). Nothing heavy is imported here; each function imports
numpy/scipy/statsmodels when called. Every function below takes plain arrays.

Design-based variances by linearization (stereoprobe.stats.variance)::

    cell_scores(neg, polar, cells, n_cells) -> (estimate, score per row, words)   # share = sum neg / sum polar
    cluster_variance(z, cells, n_cells, clusters, strata=None, counted=None) -> (var, G, H)
        # with-replacement variance of summed scores, clusters drawn within fixed strata:
        # what a cluster bootstrap of those clusters estimates (times G / (G - H)), exactly
    crossed_variance(z, cells, n_cells, groups, templates, group_strata=None, template_strata=None,
                     counted=None) -> (var, df)        # groups and templates both drawn (two-way)

A category's pooled dispersion (stereoprobe.stats.dispersion)::

    dispersion(neg, polar, groups, blocks, templates=None) -> Dispersion(phi, df, mu)

Intervals and p-values (stereoprobe.stats.intervals)::

    share_interval(share, replicates, n_clusters, n_words, n_strata=1, level=0.95, *, variance=None,
                   df=None, deff_floor=1.0, method="beta") -> (low, high)
        Korn-Graubard interval of a share (percent): from bootstrap replicates, or from a
        variance (percent^2) and df; method "jeffreys" for the Jeffreys interval at the same
        effective size (what the tables use).
    bootstrap_se(replicates, n_clusters, n_strata=1) -> np.ndarray
    t_interval(estimate, replicates, n_clusters, n_strata=1, level=0.95, bounds=(0.0, 100.0), *,
               se=None, df=None) -> (low, high)                     # for differences
    t_pvalue(difference, replicates, n_clusters, n_strata=1, null=0.0, *, se=None, df=None,
             se_floor=None) -> np.ndarray                            # never 0
    betabinomial_pvalue(x, trials, rates, icc, unit) -> np.ndarray   # a total against its parts' null

Permutation nulls of the independence criterion (stereoprobe.stats.criteria)::

    permutation_test(groups, neg, pos, strata=None, n_perm=999, seed=0, min_probes=3)
        -> {nmi, nmi_p, four_fifths_ratio, four_fifths_p, four_fifths_null_p05, groups}
        replies shuffled among groups within strata (e.g. category x template).

Multiple testing (stereoprobe.stats.fdr)::

    bh(pvalues) -> np.ndarray     # Benjamini-Hochberg q-values, NaN kept
    holm(pvalues) -> np.ndarray   # Holm's step-down adjusted p-values, NaN kept

The cluster-bootstrap plan, for statistics without a closed-form variance (stereoprobe.stats.resample)::

    cluster_weights(levels, n_boot, seed=0, strata=None) -> np.ndarray  # (n_boot, n_rows) int32
        levels: label arrays, one label per row, outermost first, e.g. [group]; strata: fixed strata.
    replicate_ratio(weights, numerator, denominator) -> np.ndarray  # W @ num / W @ den per replicate
    n_clusters(levels, strata=None) -> (top_level_clusters, strata)

Crossed designs, units joining two sampled members (stereoprobe.stats.crossed; the coreference pairs of jobs)::

    crossed_plan(first, second, n_boot, seed=0, first_side=None, second_side=None) -> CrossedPlan
        .weights (blocks * B, units): replicates of any statistic of the units
        .variance(replicates, contributing=None) -> (var, df)   # two-way cluster-robust, never below the units'
        .joint_ratio(num, den) -> (R,)   # sum num / sum den, every side drawn at once: quantiles never fall as num grows

For example, a paired difference of two runs aligned on the same probe rows, groups as clusters::

    est_a, z_a, _ = cell_scores(neg_a, polar_a, cells, k)
    est_b, z_b, _ = cell_scores(neg_b, polar_b, cells, k)
    var, g, h = cluster_variance(z_a - z_b, cells, k, groups, strata=categories)
    se = 100 * np.sqrt(var)
    low, high = t_interval(100 * (est_a - est_b), None, g, h, se=se, df=g - h, bounds=(-100, 100))
    p = t_pvalue(100 * (est_a - est_b), None, g, h, se=se, df=g - h)
    q = bh(p)

The sentiment tables (modules imported by their full names)::

    stereoprobe.stats.analysis.check_options(level, n_boot, seed, wording="fixed") -> StatsOptions
    stereoprobe.stats.analysis.add_statistics(occ, records, table4, groups, templates, options) -> Statistics
    stereoprobe.stats.analysis.share_tables(rows, level, wording="fixed") -> {table4, templates, groups, ...}
    stereoprobe.stats.units.unit_table(occ) / probe_status(records)
    stereoprobe.stats.shares.probe_rows(units) / over_groups(...) / within_groups(...) / vs_category(...)
    stereoprobe.stats.format_test.template_pairs(templates) / format_test(rows, level, wording="fixed", phi=1.0)
    stereoprobe.stats.criteria.nmi(table) / four_fifths_ratio(pos, polar) / criteria(rows, seed, n_perm=999)
    stereoprobe.stats.correlation.correlation(x, y, method, level) / jackknife_interval(x, y, method, level)
    stereoprobe.stats.robustness.variance_parts(probe_shares) / spearman_brown(r, k) / rank_stability(...)
"""

from __future__ import annotations

from stereoprobe.stats.criteria import permutation_test
from stereoprobe.stats.crossed import crossed_plan
from stereoprobe.stats.dispersion import dispersion
from stereoprobe.stats.fdr import bh, holm
from stereoprobe.stats.intervals import betabinomial_pvalue, bootstrap_se, share_interval, t_interval, t_pvalue
from stereoprobe.stats.resample import cluster_weights, n_clusters, replicate_ratio
from stereoprobe.stats.variance import cell_scores, cluster_variance, crossed_variance

__all__ = ["betabinomial_pvalue", "bh", "bootstrap_se", "cell_scores", "cluster_variance", "cluster_weights",
           "crossed_plan", "crossed_variance", "dispersion", "holm", "n_clusters", "permutation_test", "replicate_ratio", "share_interval",
           "t_interval", "t_pvalue"]
