"""The crossed resampling plan (stereoprobe.stats.crossed) by hand and at a known truth.

A 2 x 2 crossing by hand: units (w0, m0), (w0, m1), (w1, m0), (w1, m1). In a women-side
replicate the women's multiplicities are (2, 0), (1, 1) or (0, 2) and each unit's weight
is its woman's; in the units' block the units are drawn as independent clusters.
"""

import numpy as np
import pytest

from stereoprobe.stats.crossed import crossed_plan


def _mean_reps(plan, y):
    w = plan.weights
    return (w @ y) / w.sum(axis=1)


def test_weights_by_hand():
    plan = crossed_plan(["w0", "w0", "w1", "w1"], ["m0", "m1", "m0", "m1"], 50, seed=1,
                        first_side=["women"] * 4, second_side=["men"] * 4)
    assert plan.sides == 2 and plan.weights.shape == (150, 4)
    women, men, units = plan.weights[:50], plan.weights[50:100], plan.weights[100:]
    assert (women[:, 0] == women[:, 1]).all() and (women[:, 2] == women[:, 3]).all()  # a woman's two units
    assert ((women[:, 0] + women[:, 2]) == 2).all()  # two women drawn with replacement
    assert (men[:, 0] == men[:, 2]).all() and (men[:, 1] == men[:, 3]).all()
    assert (units.sum(axis=1) == 4).all()
    assert plan.factors == (2.0, 2.0, 4 / 3)
    assert plan.df() == 1.0  # two jobs per side


def test_two_way_variance_by_hand():
    # y = 10 * woman + 4 * man + unit noise: w0, w1 = 0, 1; m0, m1 = 0, 1; noise +1, -1, -1, +1
    # (the interaction). Women's one-way: the mean moves by 10 * (k - 1) / 2 for k copies of w1:
    # var over (2, 0), (1, 1), (0, 2) with probabilities 1/4, 1/2, 1/4 = 25 / 2, times 2 / 1 = 25.
    # Men's: 4, so 4. The units' block estimates var(y) / 4 * 4/3 (about 37.67 / 3 * 4/3)
    y = np.array([0 + 0 + 1, 0 + 4 - 1, 10 + 0 - 1, 10 + 4 + 1], float)
    plan = crossed_plan(["w0", "w0", "w1", "w1"], ["m0", "m1", "m0", "m1"], 40000, seed=2,
                        first_side=["women"] * 4, second_side=["men"] * 4)
    var, df = plan.variance(_mean_reps(plan, y)[:, None])
    pop = np.var(y)  # the units' block: pop / 4 per draw, times 4 / 3
    assert var[0] == pytest.approx(max(25 + 4 - pop / 4 * 4 / 3, pop / 4 * 4 / 3), rel=0.03)
    assert df[0] == 1.0


def test_never_below_the_units_variance():
    # nothing differs between jobs: the one-way variances are noise, their sum minus the units' can be
    # below the units' own; the variance is then the units' with their degrees of freedom
    rng = np.random.default_rng(3)
    first = np.repeat([f"w{i}" for i in range(6)], 6)
    second = np.tile([f"m{i}" for i in range(6)], 6)
    plan = crossed_plan(first, second, 400, seed=4, first_side=["women"] * 36, second_side=["men"] * 36)
    floored = 0
    for _ in range(40):
        y = rng.normal(0, 1, 36)
        reps = _mean_reps(plan, y)
        var, df = plan.variance(reps[:, None])
        units = plan.factors[-1] * np.var(reps[800:], ddof=1)
        assert var[0] >= units - 1e-12
        floored += df[0] == 35
        assert df[0] in (5.0, 35.0)
    assert 5 <= floored <= 35  # both cases occur


def test_crossed_mean_covers_jobs_like_these():
    # y_ij = a_i + b_j + e_ij with jobs drawn afresh each run (sd 1, 1; noise sd 1), 10 x 10 jobs:
    # the mean's truth is 0. A t interval at the plan's variance and df covers about 95%; resampling
    # the 100 units as independent clusters covers far less (job effects shared by 10 units each)
    rng = np.random.default_rng(5)
    first = np.repeat([f"w{i}" for i in range(10)], 10)
    second = np.tile([f"m{i}" for i in range(10)], 10)
    from scipy import stats

    plan = crossed_plan(first, second, 300, seed=6, first_side=["women"] * 100, second_side=["men"] * 100)
    hits, naive = 0, 0
    runs = 300
    for _ in range(runs):
        y = np.repeat(rng.normal(0, 1, 10), 10) + np.tile(rng.normal(0, 1, 10), 10) + rng.normal(0, 1, 100)
        reps = _mean_reps(plan, y)
        var, df = plan.variance(reps[:, None])
        hits += abs(y.mean()) <= stats.t.ppf(0.975, df[0]) * np.sqrt(var[0])
        naive += abs(y.mean()) <= stats.t.ppf(0.975, 99) * y.std(ddof=1) / 10
    assert 0.92 <= hits / runs <= 0.985, hits / runs
    assert naive / runs < 0.8, naive / runs
