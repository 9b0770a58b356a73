"""The statistics core: resampling plan, t interval, p-value, Benjamini-Hochberg."""

import numpy as np
import pytest

from stereoprobe.stats import bh, bootstrap_se, holm, cluster_weights, n_clusters, replicate_ratio, t_interval, t_pvalue


def test_probe_resample_keeps_size_and_is_deterministic():
    probes = ["a", "b", "c", "d", "e", "f"]
    w = cluster_weights([probes], 500, seed=3)
    assert w.shape == (500, 6) and w.dtype == np.int32
    assert (w.sum(axis=1) == 6).all()  # six draws per replicate
    assert (w == cluster_weights([probes], 500, seed=3)).all()
    assert not (w == cluster_weights([probes], 500, seed=4)).all()
    # each probe is drawn once per replicate on average
    assert abs(w.mean() - 1.0) < 0.05


def test_two_stage_draws_whole_groups_then_probes():
    groups = ["g1"] * 3 + ["g2"] * 3 + ["g3"] * 2
    probes = [f"p{i}" for i in range(8)]
    w = cluster_weights([groups, probes], 2000, seed=0)
    per_group = np.stack([w[:, :3].sum(1), w[:, 3:6].sum(1), w[:, 6:].sum(1)], axis=1)
    # a group drawn c times contributes c * (its probe count) draws
    assert (per_group[:, :2] % 3 == 0).all() and (per_group[:, 2] % 2 == 0).all()
    copies = per_group / np.array([3, 3, 2])
    assert (copies.sum(axis=1) == 3).all()  # three groups drawn each time
    assert (copies == 0).any()  # groups can be left out


def test_strata_are_never_dropped_and_rows_of_one_unit_move_together():
    cats = ["x"] * 4 + ["y"] * 4
    groups = ["a", "a", "b", "b", "c", "c", "d", "d"]
    probes = ["1", "1", "2", "3", "4", "5", "6", "7"]  # rows 0 and 1 are one probe
    w = cluster_weights([groups, probes], 1000, seed=1, strata=cats)
    assert (w[:, 0] == w[:, 1]).all()
    assert (w[:, 4:].sum(axis=1) == 4).all() and (w[:, 2:4].sum(1) + w[:, 0] <= 4).all()
    assert n_clusters([groups, probes], cats) == (4, 2)


def test_replicate_ratio_by_hand():
    w = np.array([[2, 0, 1], [0, 3, 0]])
    neg, polar = np.array([1, 2, 3]), np.array([4, 4, 4])
    assert replicate_ratio(w, neg, polar).tolist() == [5 / 12, 6 / 12]
    assert np.isnan(replicate_ratio(np.array([[1, 0, 0]]), neg, np.array([0, 4, 4])))[0]
    both = replicate_ratio(w, np.stack([neg, neg], 1), np.stack([polar, polar], 1))
    assert both.shape == (2, 2)


def test_t_interval_by_hand():
    reps = np.array([40.0, 50.0, 60.0])  # sd = 10
    # G = 5 clusters: se = 10 * sqrt(5/4); t(4, 0.975) = 2.7764
    low, high = t_interval(50.0, reps, 5, 1, 0.95)
    assert high - 50 == pytest.approx(2.776445 * 10 * np.sqrt(1.25), rel=1e-5)
    assert low == pytest.approx(100 - high)
    assert t_interval(95.0, reps, 5)[1] == 100.0  # clipped
    assert np.isnan(t_interval(50.0, reps, 1)[0])  # one cluster: no interval
    assert bootstrap_se(reps, 5)[()] == pytest.approx(10 * np.sqrt(1.25))


def test_t_pvalue_by_hand():
    reps = np.array([-1.0, 0.0, 1.0])  # sd 1
    # G = 10: se = sqrt(10/9); t = 2 / se; p = 2 * sf(t, 9)
    from scipy import stats

    p = t_pvalue(2.0, reps, 10)
    assert p == pytest.approx(2 * stats.t.sf(2 / np.sqrt(10 / 9), 9))
    # no variance: p = 1 for no difference; a difference cannot be tested without a floor (never p = 0)
    assert t_pvalue(0.0, np.zeros(3), 10) == 1.0 and np.isnan(t_pvalue(1.0, np.zeros(3), 10))


def test_bh_by_hand():
    # sorted p: .01 .02 .03 .5 -> p*n/rank = .04 .04 .04 .5
    q = bh([0.5, 0.01, np.nan, 0.03, 0.02])
    assert np.isnan(q[2])
    assert q[[1, 4, 3, 0]] == pytest.approx([0.04, 0.04, 0.04, 0.5])
    # a later smaller ratio pulls the earlier down (running minimum from the largest): .02*3/1 = .06 > .03*3/2
    assert bh([0.02, 0.03, 0.9]) == pytest.approx([0.045, 0.045, 0.9])
    assert bh([0.9, 0.8]).tolist() == [0.9, 0.9]  # .8*2/1 = 1.6 -> min(1.6, .9) = .9
    assert np.isnan(bh([np.nan, np.nan])).all() and bh([]).shape == (0,)


def test_bh_is_statsmodels_fdr_bh_to_the_last_bit():
    from statsmodels.stats.multitest import multipletests

    rng = np.random.default_rng(4)
    for m in (1, 2, 3, 7, 40, 300):
        x = rng.uniform(0, 1, m) ** 3
        x[: m // 3] = x[0]  # ties
        assert np.array_equal(bh(x), multipletests(x, method="fdr_bh")[1])


def test_holm_by_hand_and_as_statsmodels_gives_it():
    # sorted p: .01 .02 .03 .5 (m = 4) -> .01*4 .02*3 .03*2 .5*1 = .04 .06 .06 .5; running max keeps .06
    p = [0.5, 0.01, np.nan, 0.03, 0.02]
    q = holm(p)
    assert np.isnan(q[2])
    assert q[[1, 4, 3, 0]] == pytest.approx([0.04, 0.06, 0.06, 0.5])
    # ties; a product above 1 (.6 x 2 = 1.2: clipped to 1); a later smaller product (kept at the running maximum)
    assert holm([0.3, 0.3, 0.01]) == pytest.approx([0.6, 0.6, 0.03])
    assert holm([0.7, 0.6]) == pytest.approx([1.0, 1.0])
    assert holm([0.6, 0.2, 0.4]) == pytest.approx([0.8, 0.6, 0.8])
    from statsmodels.stats.multitest import multipletests

    rng = np.random.default_rng(3)
    for m in (1, 2, 4, 15, 40):  # one family each: every statsmodels call collects garbage (the reason for ours)
        x = rng.uniform(0, 0.2, m) ** 2
        assert holm(x) == pytest.approx(multipletests(x, method="holm")[1], abs=1e-15)
    assert np.isnan(holm([np.nan, np.nan])).all()  # all NaN: NaN, not an error


def test_one_plan_pairs_two_runs_on_the_same_rows():
    # run B = run A with two extra negative words in probe 0: paired replicates of A - B
    groups = ["g1"] * 3 + ["g2"] * 3
    probes = list("abcdef")
    w = cluster_weights([groups, probes], 2000, seed=5)
    neg_a, polar = np.array([5, 6, 4, 3, 7, 5]), np.full(6, 10)
    neg_b = neg_a + np.array([2, 0, 0, 0, 0, 0])
    # the plan is a function of the rows and the seed: drawn again for run B, it is the same plan
    assert (cluster_weights([groups, probes], 2000, seed=5) == w).all()
    diff = 100 * (replicate_ratio(w, neg_b, polar) - replicate_ratio(w, neg_a, polar))
    # by hand: each replicate draws 6 rows (two groups of three), so its polar total is 60 and
    # B adds 2 negative words per copy of row 0: the paired difference is 100 * 2 * w0 / 60
    assert diff == pytest.approx(100 * 2 * w[:, 0] / 60)
    assert set(np.round(diff, 6)) <= {round(100 * 2 * c / 60, 6) for c in range(7)} and diff.max() > 0
    # unpaired (B on another plan), the difference also carries A's own resampling spread
    unpaired = 100 * (replicate_ratio(cluster_weights([groups, probes], 2000, seed=6), neg_b, polar)
                      - replicate_ratio(w, neg_a, polar))
    assert unpaired.std() > 2 * diff.std()
    g, h = n_clusters([groups, probes])
    assert (g, h) == (2, 1)
    low, high = t_interval(100 * 2 / 60, diff, g, h, 0.95, bounds=(-100, 100))
    assert low < 100 * 2 / 60 < high


def test_cluster_variance_by_hand():
    from stereoprobe.stats.variance import cell_scores, cluster_variance

    # one cell, clusters a (two probes: 2 of 4 and 1 of 4 negative), b (3 of 4), c (0 of 4): share 6/16
    neg, pol = np.array([2, 1, 3, 0]), np.array([4, 4, 4, 4])
    cells = np.zeros(4, int)
    est, z, words = cell_scores(neg, pol, cells, 1)
    assert est[0] == 0.375 and words[0] == 16
    assert z.tolist() == pytest.approx([0.5 / 16, -0.5 / 16, 1.5 / 16, -1.5 / 16])
    var, g, h = cluster_variance(z, cells, 1, ["a", "a", "b", "c"])
    # cluster sums 0, 0.09375, -0.09375; mean 0; 3/2 * (2 * 0.09375^2) = 0.0263672
    assert var[0] == pytest.approx(1.5 * 2 * 0.09375**2) and (g[0], h[0]) == (3, 1)
    # two strata {a, b} and {c, d}: each n/(n-1) * sum of squared deviations from its own mean
    var, g, h = cluster_variance(np.array([1.0, 3.0, 2.0, 6.0]), cells, 1, list("abcd"), list("xxyy"))
    assert var[0] == pytest.approx(2 * (1 + 1) + 2 * (4 + 4)) and (g[0], h[0]) == (4, 2)
    # rows outside any cell (-1) are ignored; a stratum with one cluster adds nothing and is not counted
    var, g, h = cluster_variance(np.array([1.0, 3.0, 2.0, 6.0]), np.array([0, 0, 0, -1]), 1, list("abcd"), list("xxyy"))
    assert var[0] == pytest.approx(4.0) and (g[0], h[0]) == (2, 1)


def test_crossed_variance_is_groups_plus_templates():
    from stereoprobe.stats.variance import cluster_variance, crossed_variance

    rng = np.random.default_rng(0)
    groups, templates = np.repeat(np.arange(8), 4), np.tile(np.arange(4), 8)
    z = rng.normal(size=32) + np.array([1.0, -1.0, 0.5, -0.5])[templates]  # a template effect
    z -= z.mean()
    cells = np.zeros(32, int)
    v_g = cluster_variance(z, cells, 1, groups)[0][0]
    v_t = cluster_variance(z, cells, 1, templates)[0][0]
    var, df = crossed_variance(z, cells, 1, groups, templates)
    assert var[0] == pytest.approx(v_g + v_t)
    # Satterthwaite: (a + b)^2 / (a^2 / 7 + b^2 / 3)
    assert df[0] == pytest.approx((v_g + v_t) ** 2 / (v_g**2 / 7 + v_t**2 / 3))
    # templates within two fixed strata (formats): df of the template part 4 - 2
    _, df2 = crossed_variance(z, cells, 1, groups, templates, template_strata=templates // 2)
    v_t2 = cluster_variance(z, cells, 1, templates, templates // 2)[0][0]
    assert df2[0] == pytest.approx((v_g + v_t2) ** 2 / (v_g**2 / 7 + v_t2**2 / 2))


def test_dispersion_of_independent_and_of_agreeing_words():
    from stereoprobe.stats.dispersion import dispersion

    rng = np.random.default_rng(2)
    groups, templates = np.repeat(np.arange(60), 6), np.tile(np.arange(6), 60)
    rate = 1 / (1 + np.exp(-(-0.5 + rng.normal(0, 0.5, 60)[groups] + np.linspace(-0.5, 0.5, 6)[templates])))
    blocks = np.zeros(360, int)
    # independent words: phi about 1
    neg = rng.binomial(10, rate)
    d = dispersion(neg, np.full(360, 10), groups, blocks, templates)
    assert 0.8 < d.phi[0] < 1.2 and d.df[0] == 360 - 60 - 5
    # a reply's rate drawn from Beta(8 r, 8 (1 - r)): phi = 1 + 9 / (8 + 1) = 2
    neg = rng.binomial(10, rng.beta(8 * rate, 8 * (1 - rate)))
    d = dispersion(neg, np.full(360, 10), groups, blocks, templates)
    assert 1.7 < d.phi[0] < 2.3
    # a group at 0% sits on the boundary: it changes neither phi nor its degrees of freedom
    neg2 = np.where(groups == 0, 0, neg)
    d2 = dispersion(neg2, np.full(360, 10), groups, blocks, templates)
    without = dispersion(neg[groups > 0], np.full(354, 10), groups[groups > 0], blocks[groups > 0], templates[groups > 0])
    assert d2.phi[0] == pytest.approx(without.phi[0], rel=1e-6) and d2.df[0] == without.df[0]
    assert (d2.mu[groups == 0] == 0).all()
