"""The statistics core: resampling plan, t interval, p-value, Benjamini-Hochberg."""

import numpy as np
import pytest

from stereoprobe.stats import bh, bootstrap_se, cluster_weights, n_clusters, replicate_ratio, t_interval, t_pvalue


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
    assert t_pvalue(0.0, np.zeros(3), 10) == 1.0 and t_pvalue(1.0, np.zeros(3), 10) == 0.0


def test_bh_by_hand():
    # sorted p: .01 .02 .03 .5 -> p*n/rank = .04 .04 .04 .5
    q = bh([0.5, 0.01, np.nan, 0.03, 0.02])
    assert np.isnan(q[2])
    assert q[[1, 4, 3, 0]] == pytest.approx([0.04, 0.04, 0.04, 0.5])
