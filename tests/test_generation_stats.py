"""The generation studies' statistics on synthetic runs with a known truth, fixed seeds:
40 groups x 30 texts, each group's texts about a woman with a known probability."""

from __future__ import annotations

import numpy as np
import pytest

from stereoprobe.generation.stats import cluster_share, jeffreys, nmi_rows, nmi_test
from stereoprobe.stats.criteria import nmi

G, K, RUNS = 40, 30, 60
CASES = {"strong": np.r_[np.full(20, 0.95), np.full(20, 0.05)], "moderate": np.linspace(0.2, 0.8, G),
         "null": np.full(G, 0.5)}


def runs(p, seed):
    rng = np.random.default_rng(seed)
    g = np.repeat(np.arange(G), K)
    for r in range(RUNS):
        yield r, g, (rng.random(G * K) < p[g]).astype(int)


@pytest.mark.parametrize("case", ["strong", "moderate"])
def test_the_nmi_interval_covers_the_truth_about_as_often_as_it_says(case):
    p = CASES[case]
    truth = float(nmi(np.stack([p, 1 - p], 1)))
    tests = [nmi_test(g, c, n_perm=99, n_boot=300, seed=r) for r, g, c in runs(p, 7)]
    cover = np.mean([t.low <= truth <= t.high for t in tests])
    width = np.mean([t.high - t.low for t in tests])
    assert 0.85 <= cover <= 1.0, cover
    assert width < (0.06 if case == "strong" else 0.04), width  # an interval that always covers is too wide
    # the plug-in value is biased upwards; the interval's centre corrects it
    assert np.mean([t.nmi for t in tests]) > truth
    assert abs(np.mean([(t.low + t.high) / 2 for t in tests]) - truth) < abs(np.mean([t.nmi for t in tests]) - truth)


def test_a_null_nmi_of_zero_is_covered_and_the_interval_stays_near_it():
    """Independence (every group 0.5): the true NMI is 0. The corrected interval reaches 0 in
    most runs (the correction removes the few-texts bias the plug-in carries: its mean is
    well above 0) and is narrow, not a [0, 1] that covers anything."""
    tests = [nmi_test(g, c, n_perm=99, n_boot=300, seed=r) for r, g, c in runs(CASES["null"], 17)]
    cover = np.mean([t.low <= 0.0 <= t.high for t in tests])
    assert cover >= 0.85, cover
    assert np.mean([t.high for t in tests]) < 0.02  # measured 0.008; the moderate case's truth is 0.041
    assert np.mean([t.nmi for t in tests]) > np.mean([t.corrected for t in tests]) + 0.005  # 0.011 against 0.001


def test_each_nmi_row_has_its_own_interval_or_none():
    """summary.csv's two NMI rows: the plug-in (001's number) with no interval, and the
    bias-corrected value with the interval centred on it. Before issue 36 the plug-in row
    printed the corrected row's interval, and lay outside it in nearly every run: here in
    every one of 20 null runs (40 groups x 30 texts: the plug-in's bias, about 0.010, is
    above the corrected interval's upper end, about 0.008)."""
    outside = 0
    for r, g, c in list(runs(CASES["null"], 21))[:20]:
        test = nmi_test(g, c, n_perm=99, n_boot=200, seed=r)
        rows = {row["statistic"]: row for row in nmi_rows(test)}
        plug, corrected = rows["nmi"], rows["nmi_corrected"]
        assert np.isnan(plug["low"]) and np.isnan(plug["high"])
        assert plug["value"] == test.nmi and corrected["value"] == test.corrected
        assert corrected["low"] <= corrected["value"] <= corrected["high"]
        assert (corrected["low"], corrected["high"]) == (test.low, test.high)
        outside += not test.low <= test.nmi <= test.high
    assert outside >= 18, outside


def test_the_permutation_null_flags_almost_nothing_under_independence_and_finds_a_real_difference():
    null = [nmi_test(g, c, n_perm=99, n_boot=50, seed=r).p for r, g, c in runs(CASES["null"], 11)]
    assert np.mean(np.array(null) < 0.05) <= 0.12
    found = [nmi_test(g, c, n_perm=99, n_boot=50, seed=r).p for r, g, c in runs(CASES["moderate"], 12)]
    assert np.mean(np.array(found) < 0.05) >= 0.95


def test_jeffreys_interval_by_hand_and_its_bounds():
    low, high = jeffreys([0, 3, 30], [30, 30, 30])
    assert low[0] == 0 and high[2] == 1
    assert (round(float(low[1]), 3), round(float(high[1]), 3)) == (0.029, 0.243)  # beta(3.5, 27.5) quantiles
    assert np.isnan(jeffreys(0, 0)[0])


def test_a_share_over_clusters_resamples_the_clusters():
    rng = np.random.default_rng(0)
    clusters = np.repeat(np.arange(40), 30)
    cluster_p = rng.uniform(0.0, 1.0, 40)  # clusters differ a lot: the interval must be wide
    values = (rng.random(1200) < cluster_p[clusters]).astype(float)
    est, low, high = cluster_share(values, clusters, n_boot=2000, seed=1)
    assert est == pytest.approx(100 * values.mean())
    naive = 100 * 1.96 * np.sqrt(values.mean() * (1 - values.mean()) / len(values))
    assert high - low > 2.5 * naive  # wider than if the 1,200 texts were independent
    assert low < 100 * cluster_p.mean() < high
