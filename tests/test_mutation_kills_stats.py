"""Tests written for mutants of stereoprobe/stats/ that survived bench/mutation.py (set
``stats``; docs/testing.md lists them), each on a case small enough to check by hand."""

from __future__ import annotations

import math

import numpy as np
import pytest


# -- variance.py -------------------------------------------------------------------------------
def test_satterthwaite_by_hand():
    from stereoprobe.stats.variance import satterthwaite

    # (1 + 1)^2 / (1^2 / 1 + 1^2 / 1) = 4 / 2 = 2
    assert satterthwaite([1.0, 1.0], [1, 1]) == pytest.approx(2.0)
    # (0.5 + 0.5)^2 / (0.25 / 2 + 0.25 / 2) = 1 / 0.25 = 4 (a denominator below 1 is still a denominator)
    assert satterthwaite([0.5, 0.5], [2, 2]) == pytest.approx(4.0)
    # a part with 0 degrees of freedom counts as 1: 3^2 / (3^2 / 1) = 1
    assert satterthwaite([3.0], [0]) == pytest.approx(1.0)
    # no variance at all: no information against infinite degrees of freedom
    assert satterthwaite([0.0, 0.0], [3, 3]) == math.inf


def test_crossed_variance_with_strata_and_an_uncounted_row_by_hand():
    from stereoprobe.stats.variance import crossed_variance

    # rows: z, group, group stratum, template; row 4 has no counted words (its cluster E must not count)
    z = [1.0, 3.0, 2.0, 6.0, 0.0]
    groups = ["A", "B", "C", "D", "E"]
    g_strata = ["s1", "s1", "s2", "s2", "s2"]
    templates = ["T1", "T2", "T1", "T2", "T3"]
    counted = [True, True, True, True, False]
    var, df = crossed_variance(z, [0] * 5, 1, groups, templates, g_strata, ["q"] * 5, counted)
    # groups within strata: s1 {1, 3}: 2/1 * ((1-2)^2 + (3-2)^2) = 4; s2 {2, 6}: 2/1 * (4 + 4) = 16 -> 20, df 4 - 2 = 2
    # templates (E's T3 not counted): T1 = 1 + 2 = 3, T2 = 3 + 6 = 9: 2/1 * (9 + 9) = 36, df 2 - 1 = 1
    assert var[0] == pytest.approx(20 + 36)
    # Satterthwaite: 56^2 / (20^2 / 2 + 36^2 / 1) = 3136 / 1496
    assert df[0] == pytest.approx(3136 / 1496)
    # without group strata the groups are one stratum: 4/3 * ((1-3)^2 + 0 + (2-3)^2 + (6-3)^2) = 56/3
    var1, _ = crossed_variance(z, [0] * 5, 1, groups, templates, None, None, counted)
    assert var1[0] == pytest.approx(56 / 3 + 36)


# -- resample.py -------------------------------------------------------------------------------
def test_n_clusters_by_hand_and_of_no_rows():
    from stereoprobe.stats.resample import n_clusters

    # groups a, b, c in strata x, x, y (the probe level is not counted)
    assert n_clusters([["a", "a", "b", "c"], [1, 2, 3, 4]], ["x", "x", "x", "y"]) == (3, 2)
    assert n_clusters([[]]) == (0, 0)


# -- criteria.py -------------------------------------------------------------------------------
def test_four_fifths_ratio_by_hand():
    from stereoprobe.stats.criteria import four_fifths_ratio

    # shares 1/2 and 3/4; the third group has no counted words and is left out: 0.5 / 0.75 = 2/3
    assert four_fifths_ratio([1, 3, 0], [2, 4, 0]) == pytest.approx(2 / 3)
    # a group with a single counted word counts: shares 1/1 and 2/4 -> 0.5
    assert four_fifths_ratio([1, 2], [1, 4]) == pytest.approx(0.5)
    assert math.isnan(four_fifths_ratio([0, 0], [0, 0]))  # no counted words at all


def test_permutation_test_is_reproducible_from_its_seed():
    from stereoprobe.stats.criteria import permutation_test

    # two groups of four replies with a moderate difference: p-values well inside (0, 1), so a
    # differently seeded null would move them
    groups = ["a"] * 4 + ["b"] * 4
    neg, pos = [2, 1, 3, 2, 1, 2, 1, 0], [2, 3, 1, 2, 3, 2, 3, 4]
    first = permutation_test(groups, neg, pos, n_perm=99, seed=3)
    assert permutation_test(groups, neg, pos, n_perm=99, seed=3) == first
    assert permutation_test(groups, neg, pos, n_perm=99, seed=np.random.default_rng(3)) == first


# -- intervals.py ------------------------------------------------------------------------------
def test_t_pvalue_against_a_null_and_with_a_floor_by_hand():
    from stereoprobe.stats.intervals import t_pvalue

    # t with 1 degree of freedom is Cauchy: two-sided p = 1 - (2 / pi) atan(|t|)
    # difference 3 against null 3: t = 0, p = 1
    assert float(t_pvalue(3.0, None, 0, null=3.0, se=1.0, df=1)) == pytest.approx(1.0)
    # difference 4 against null 3 with se 1: t = 1, p = 1 - (2 / pi)(pi / 4) = 0.5
    assert float(t_pvalue(4.0, None, 0, null=3.0, se=1.0, df=1)) == pytest.approx(0.5)
    # the floor replaces only a zero se: se 1 stays (t = 1, p = 0.5); se 0 takes the floor 0.5 (t = 2)
    assert float(t_pvalue(1.0, None, 0, se=1.0, df=1, se_floor=0.5)) == pytest.approx(0.5)
    assert float(t_pvalue(1.0, None, 0, se=0.0, df=1, se_floor=0.5)) == pytest.approx(1 - 2 / math.pi * math.atan(2))


def test_permutation_test_reports_its_groups():
    from stereoprobe.stats.criteria import permutation_test

    # four groups of one reply each
    out = permutation_test(["a", "b", "c", "d"], [1, 0, 2, 1], [1, 2, 0, 1], n_perm=9, seed=0, min_probes=1)
    assert out["groups"] == 4


def _criteria_rows():
    import pandas as pd

    # c1: groups A and B answer a question (t1) and a statement (t2); c2: group C answers only the question
    rows = [("c1", "A", "t1", "question", 1, 2), ("c1", "A", "t2", "statement", 2, 1),
            ("c1", "B", "t1", "question", 0, 3), ("c1", "B", "t2", "statement", 1, 1),
            ("c2", "C", "t1", "question", 2, 2)]
    df = pd.DataFrame(rows, columns=["category", "group", "template", "format", "neg", "pos"])
    return df.assign(group_key=df["category"] + "\x1f" + df["group"], polar=df["neg"] + df["pos"])


def test_criteria_counts_the_groups_of_each_row():
    from stereoprobe.stats.criteria import criteria

    table = criteria(_criteria_rows(), seed=0, n_perm=19)
    got = {(r.category, r.format): r.groups for r in table.itertuples()}
    assert got == {("c1", "all"): 2, ("c1", "question"): 2, ("c1", "statement"): 2,
                   ("c2", "all"): 1, ("c2", "question"): 1, ("c2", "statement"): 0,
                   ("all", "all"): 3, ("all", "question"): 3, ("all", "statement"): 2}
    assert set(table["permutations"]) == {19}


# -- crossed.py --------------------------------------------------------------------------------
def test_crossed_plan_incidence_sides_and_df_by_hand():
    from stereoprobe.stats.crossed import crossed_plan

    # units (a, x) and (b, y); a, b are women's jobs, x, y men's: members in first-appearance order a, b, x, y
    plan = crossed_plan(["a", "b"], ["x", "y"], 5, first_side=["w", "w"], second_side=["m", "m"])
    assert plan.incidence.tolist() == [[True, False], [False, True], [True, False], [False, True]]
    assert plan.member_side.tolist() == [0, 0, 1, 1] and plan.sides == 2
    # df: smallest side's members (2), at most the units (2), minus 1 = 1; with only unit 0 contributing
    # to the second column, each side has 1 member there: 1 - 1 = 0, no df
    df = plan.df([[True, True], [True, False]])
    assert df[0] == 1 and math.isnan(df[1])
    # random pairs from one pool (no sides): b is one member, one side
    pool = crossed_plan(["a", "b"], ["b", "c"], 5)
    assert pool.sides == 1 and pool.incidence.shape == (3, 2)


def test_crossed_variance_floor_and_its_df_by_hand():
    from stereoprobe.stats.crossed import crossed_plan

    plan = crossed_plan(["a", "b"], ["x", "y"], 2, first_side=["w", "w"], second_side=["m", "m"])
    # blocks of 2 replicates: side w constant, side m constant, units 0 and 2
    reps = np.array([[1.0], [1.0], [5.0], [5.0], [0.0], [2.0]])
    var, df = plan.variance(reps)
    # sides add 0, units: var([0, 2]) = 2 times 2 / (2 - 1) = 4; 0 + 0 - 4 < 4: the floor 4, df units - 1 = 1
    assert float(var[0]) == pytest.approx(4.0) and float(df[0]) == 1
    # only unit 0 has data: no df for the floor
    _, df1 = plan.variance(reps, [[True], [False]])
    assert math.isnan(float(df1[0]))


# -- correlation.py ----------------------------------------------------------------------------
def test_correlation_difference_needs_four_units():
    from stereoprobe.stats.correlation import correlation_difference

    # the fourth unit has a NaN, so three are left: no estimate, no interval
    out = correlation_difference([1, 2, 3, 4], [1, 3, 2, float("nan")], [3, 1, 2, 4], [1, 2, 3, 4])
    assert len(out) == 3 and all(math.isnan(v) for v in out)


# -- format_test.py ----------------------------------------------------------------------------
def _format_rows():
    import pandas as pd

    rows = []
    for g in "ABC":  # c1: one template pair; questions 100 of 200 negative, statements 100 of 400
        rows += [("c1", g, "why_are_so", "question", 100, 200), ("c1", g, "are_so", "statement", 100, 400)]
    rows.append(("c1", "G", "why_are_so", "question", 200, 200))  # G answered no statement: left out
    for g in "DEF":  # c2: no pair (words differ): all its templates; questions 300 of 400, statements 100 of 400
        rows += [("c2", g, "why_so_q", "question", 300, 400), ("c2", g, "are_x", "statement", 100, 400)]
    rows.append(("c3", "H", "why_are_so", "question", 1, 2))  # c3: no group answered both formats
    df = pd.DataFrame(rows, columns=["category", "group", "template", "format", "neg", "polar"])
    return df.assign(pos=df["polar"] - df["neg"], group_key=df["category"] + "\x1f" + df["group"])


def test_format_test_by_hand():
    from stereoprobe.stats.format_test import format_test

    t = format_test(_format_rows(), 0.95).set_index("category")
    assert list(t.index) == ["c1", "c2", "c3", "all"]
    assert t.loc["c1", "question_negative"] == pytest.approx(50) and t.loc["c1", "groups"] == 3  # not G's 100%
    assert t.loc["c1", "statement_negative"] == pytest.approx(25) and t.loc["c1", "difference"] == pytest.approx(25)
    assert t.loc["c2", "question_negative"] == pytest.approx(75) and t.loc["c2", "difference"] == pytest.approx(50)
    assert t.loc["c3", "groups"] == 0 and t.loc["c3", "question_negative"] != t.loc["c3", "question_negative"]
    # all: questions 1200 of 1800 = 2/3, statements 600 of 2400 = 1/4: 41.67 points. The groups agree
    # within each category, so with categories as strata the variance is 0 and the se is the binomial
    # floor 100 sqrt((2/9)/1800 + (3/16)/2400) = 1.4198; df = 6 groups - 2 strata = 4, t(0.975, 4) = 2.776
    row = t.loc["all"]
    assert row["difference"] == pytest.approx(100 * (2 / 3 - 1 / 4))
    half = 2.776 * 100 * math.sqrt((2 / 9) / 1800 + (3 / 16) / 2400)
    assert row["ci_high"] - row["difference"] == pytest.approx(half, rel=1e-3)
    assert row["difference"] - row["ci_low"] == pytest.approx(half, rel=1e-3)


# -- shares.py ---------------------------------------------------------------------------------
def _probe_rows(spec):
    """Probe rows from (category, cat_code, group, neg, polar) tuples, one template per probe of a group."""
    import pandas as pd

    rows, seen = [], {}
    for cat, code, group, neg, polar in spec:
        i = seen[group] = seen.get(group, 0) + 1
        rows.append((cat, group, f"{group}{i}", f"t{i}", "question", neg, polar - neg, polar,
                     f"{cat}\x1f{group}", code))
    return pd.DataFrame(rows, columns=["category", "group", "probe_id", "template", "format", "neg", "pos", "polar",
                                       "group_key", "cat_code"])


def test_over_groups_keeps_categories_as_strata():
    from stereoprobe.stats.shares import over_groups

    # c1: groups A, B, C with three probes of 1 negative word in 4; c2: D, E, F with 3 in 4. Overall 50%.
    spec = [("c1", 0, g, 1, 4) for g in "ABC" for _ in range(3)] + [("c2", 1, g, 3, 4) for g in "DEF" for _ in range(3)]
    rows = _probe_rows(spec)
    strat = over_groups(rows, np.zeros(len(rows), int), 1, 0.95, strata="cat_code")
    plain = over_groups(rows, np.zeros(len(rows), int), 1, 0.95)
    # within each category the groups agree: the stratified variance is 0 and the interval is that of the
    # 72 words (about 37 after the few-clusters factor); across the categories the groups differ by 50
    # points (n_eff about 12): the unstratified interval is sqrt(37 / 12) = 1.75 times as wide
    width = lambda t: float(t["negative_ci_high"][0] - t["negative_ci_low"][0])  # noqa: E731
    assert strat["negative_ci_low"][0] < 50 < strat["negative_ci_high"][0]
    assert width(plain) > 1.5 * width(strat)


def test_within_groups_uses_the_fitted_rates_and_the_dispersion():
    from stereoprobe.stats.dispersion import Dispersion
    from stereoprobe.stats.shares import within_groups

    rows = _probe_rows([("c1", 0, "A", 1, 4)] * 3)  # one group: 3 of 12 words negative (25%)
    one = np.zeros(3, int)

    def width(phi, mu, data=rows):
        t = within_groups(data, Dispersion(phi=[phi], df=[10.0], mu=[mu] * 3), one, 1, 0.95)
        return float(t["negative_ci_high"][0] - t["negative_ci_low"][0])

    # fitted rates 0.25: variance 12 x 0.25 x 0.75 / 12^2, n_eff = 0.1875 / that = 12 (the words);
    # fitted rates 0.5: variance 12 x 0.25 / 144 = 1/48, n_eff = 0.1875 x 48 = 9: wider
    assert width(1.0, 0.5) > width(1.0, 0.25)
    # a group at 0%: no variance; n_eff = words / phi: 12 words at phi 1, 6 at phi 2: wider
    zero = _probe_rows([("c1", 0, "A", 0, 4)] * 3)
    assert width(2.0, 0.1, zero) > width(1.0, 0.1, zero)


def test_vs_category_with_a_category_without_counted_words():
    from stereoprobe.stats.dispersion import Dispersion
    from stereoprobe.stats.shares import vs_category

    # c1: groups A, B, C with three probes of 1 negative word in 4 each; c2: group D whose probes have no words
    spec = [("c1", 0, g, 1, 4) for g in "ABC" for _ in range(3)] + [("c2", 1, "D", 0, 0)] * 3
    rows = _probe_rows(spec)
    codes = np.repeat([0, 1, 2, 3], 3)
    out = vs_category(rows, Dispersion(phi=[1.0, 1.0], df=[6.0, np.inf], mu=[0.25] * 9 + [0.0] * 3), codes, 4,
                      [0, 0, 0, 1], 0.95)
    # A, B, C have the rest of their category's rate (25% = 25%): difference 0, p = 1; D: nothing to test
    assert list(out["vs_category"]) == ["not distinguishable"] * 3 + ["too few probes"]
    assert list(out["vs_category_p"][:3]) == [1.0, 1.0, 1.0]


def test_vs_category_labels_a_significant_difference_below_one_point():
    from stereoprobe.stats.dispersion import Dispersion
    from stereoprobe.stats.shares import vs_category

    # A: 30 of 3000 words negative (1%); B and C: 6 of 3000 each (0.2%). Under the null A expects the
    # category's 42 / 9000 = 0.47%, i.e. 14 words: 30 is far out (p about 0.001), yet only 0.8 points above the rest
    spec = [("c1", 0, "A", 10, 1000)] * 3 + [("c1", 0, g, 2, 1000) for g in "BC" for _ in range(3)]
    out = vs_category(_probe_rows(spec), Dispersion(phi=[1.0], df=[6.0], mu=[0.01] * 3 + [0.002] * 6),
                      np.repeat([0, 1, 2], 3), 3, [0, 0, 0], 0.95)
    assert out["vs_category_difference"][0] == pytest.approx(0.8)
    assert out["vs_category_p"][0] < 0.01 and out["vs_category"][0] == "more negative"


# -- dispersion.py -----------------------------------------------------------------------------
def test_dispersion_of_one_group_over_two_templates_by_hand():
    from stereoprobe.stats.dispersion import dispersion

    # one group, templates t1 (0 and 2 of 4 negative) and t2 (3 and 3 of 4): the model fits each template's
    # rate, 2/8 = 0.25 and 6/8 = 0.75. Pearson X^2 = (0 - 1)^2 / 0.75 + (2 - 1)^2 / 0.75 + 0 + 0 = 8/3 on
    # 4 probes - 1 group - (2 - 1) templates = 2 df: phi = 4/3
    d = dispersion([0, 3, 2, 3], [4, 4, 4, 4], ["A"] * 4, [0] * 4, ["t1", "t2", "t1", "t2"])
    assert d.phi[0] == pytest.approx(4 / 3, rel=1e-6) and d.df[0] == 2
    assert d.mu == pytest.approx([0.25, 0.75, 0.25, 0.75], rel=1e-6)


# -- intervals.py (betabinomial_pvalue) --------------------------------------------------------
def test_betabinomial_pvalue_with_words_that_always_agree():
    from stereoprobe.stats.intervals import betabinomial_pvalue

    # an intra-reply correlation of 1 (kept just below): the 4 words of a reply are all negative (rate 0.5)
    # or none is, so 0 negative words is as likely as 4: p = min(1, 2 x P(X <= 0)) = min(1, 2 x 0.5) = 1
    assert float(betabinomial_pvalue([0], [4], [0.5], [1.0], [0])[0]) == pytest.approx(1.0, abs=0.01)


def test_dispersion_of_a_block_with_only_boundary_groups_is_the_pooled_one():
    from stereoprobe.stats.dispersion import dispersion

    # blocks 0 and 1 as above (X^2 = 8/3 on 2 df each); block 2: one group at 0% (boundary: not fitted,
    # no df): it borrows the pooled value (8/3 + 8/3) / (2 + 2) = 4/3, with the pooled 4 df
    neg, polar = [0, 3, 2, 3] * 2 + [0, 0], [4] * 10
    groups, blocks = ["A"] * 4 + ["B"] * 4 + ["C"] * 2, [0] * 4 + [1] * 4 + [2] * 2
    d = dispersion(neg, polar, groups, blocks, ["t1", "t2", "t1", "t2"] * 2 + ["t1", "t2"])
    assert d.phi == pytest.approx([4 / 3] * 3, rel=1e-6) and list(d.df) == [2, 2, 4]


def test_cell_scores_ignore_rows_outside_every_cell():
    from stereoprobe.stats.variance import cell_scores

    # row 0 in cell 0 (1 of 2 negative), row 1 in no cell (-1): cell 0's share is 1/2, row 1's score 0;
    # row 0's score (1 - 0.5 x 2) / 2 = 0
    est, z, den = cell_scores([1, 0], [2, 3], [0, -1], 1)
    assert est.tolist() == [0.5] and z.tolist() == [0.0, 0.0] and den.tolist() == [2.0]


# -- resample.py (cluster_weights) -------------------------------------------------------------
def test_one_replicate_draws_as_many_clusters_as_there_are():
    from stereoprobe.stats.resample import cluster_weights

    # a single replicate is allowed: 3 clusters drawn with replacement, multiplicities summing to 3
    w = cluster_weights([["a", "b", "c"]], 1, seed=0)
    assert w.shape == (1, 3) and int(w.sum()) == 3
    with pytest.raises(ValueError, match="^n_boot must be at least 1$"):
        cluster_weights([["a", "b", "c"]], 0)


def test_crossed_plan_draws_every_block_from_its_seed():
    from stereoprobe.stats.crossed import crossed_plan

    args = (["a", "b", "c", "d"], ["w", "x", "y", "z"], 20)
    sides = {"first_side": ["f"] * 4, "second_side": ["m"] * 4}
    one, again = crossed_plan(*args, seed=3, **sides), crossed_plan(*args, seed=np.random.default_rng(3), **sides)
    assert np.array_equal(one.weights, again.weights)  # the same seed: the same blocks, units' block included
    other = crossed_plan(*args, seed=4, **sides)
    # another seed draws every block anew: each side's 20 replicates of 4 members differ somewhere
    for block in range(3):
        rows = slice(20 * block, 20 * (block + 1))
        assert not np.array_equal(one.weights[rows], other.weights[rows])
    # a 1-d contributing (one column) gives one number, as no contributing does
    assert np.ndim(one.df([True] * 4)) == 0 and one.df([True] * 4) == one.df() == 3


def test_format_test_of_no_rows_and_of_one_word():
    import pandas as pd

    from stereoprobe.stats.format_test import format_test

    cols = ["category", "group", "template", "format", "neg", "polar", "pos", "group_key"]
    empty = format_test(pd.DataFrame({c: [] for c in cols}).astype({"neg": float, "polar": float}), 0.95)
    assert list(empty["category"]) == ["all"] and empty["groups"][0] == 0
    # one group: its one question word is negative, neither of its two statement words is: 100% vs 0%,
    # Cohen's h = 2 asin(1) - 2 asin(0) = pi; one group: no interval, no test
    one = pd.DataFrame([("c1", "A", "why_are_so", "question", 1, 1, 0, "c1\x1fA"),
                        ("c1", "A", "are_so", "statement", 0, 2, 2, "c1\x1fA")], columns=cols)
    t = format_test(one, 0.95).set_index("category")
    assert t.loc["c1", "difference"] == 100 and t.loc["c1", "cohens_h"] == pytest.approx(math.pi)
    assert t.loc["c1", "sentence"].startswith("Too few groups")


def test_four_fifths_null_counts_replies_of_one_word():
    from stereoprobe.stats.criteria import permutation_test

    # two groups of three one-word replies; positive: a 2 of 3, b 1 of 3: ratio (1/3) / (2/3) = 0.5.
    # Each reply counts (one word), so every permutation keeps 3 replies per group: the 3 positive
    # replies split 3-0 (ratio 0), 2-1 or 1-2 (0.5), 0-3 (0); none is above 0.5: p = 1. The 3-0 and 0-3
    # splits have chance 2/20 = 10% > 5%, so the null's 5th percentile is 0 (seed 0 draws some of them)
    out = permutation_test(["a"] * 3 + ["b"] * 3, [0, 0, 1, 0, 1, 1], [1, 1, 0, 1, 0, 0], n_perm=19, seed=0)
    assert out["four_fifths_ratio"] == 0.5 and out["four_fifths_p"] == 1.0 and out["four_fifths_null_p05"] == 0.0


def test_within_groups_when_the_last_group_has_no_words():
    from stereoprobe.stats.dispersion import Dispersion
    from stereoprobe.stats.shares import within_groups

    # A and B: three probes of 1 negative word in 4; C: three probes without counted words
    rows = _probe_rows([("c1", 0, g, 1, 4) for g in "AB" for _ in range(3)] + [("c1", 0, "C", 0, 0)] * 3)
    out = within_groups(rows, Dispersion(phi=[1.0], df=[6.0], mu=[0.25] * 6 + [0.0] * 3), np.repeat([0, 1, 2], 3),
                        3, 0.95)
    assert list(out["n_probes"]) == [3, 3, 0] and list(out["too_few_probes"]) == [False, False, True]
    assert out["negative_ci_low"][0] < 25 < out["negative_ci_high"][0]  # A's 3 of 12 = 25%
    assert math.isnan(out["negative_ci_low"][2])


def test_betabinomial_pvalue_of_a_missing_total_is_nan():
    from stereoprobe.stats.intervals import betabinomial_pvalue

    # unit 0 has no observed total (NaN): nothing to test; unit 1: 2 of 4 at rate 0.5 (binomial), the
    # middle: P(X <= 2) = 11/16 = P(X >= 2), p = min(1, 2 x 11/16) = 1
    p = betabinomial_pvalue([float("nan"), 2], [4, 4], [0.5, 0.5], 0.0, [0, 1])
    assert math.isnan(p[0]) and p[1] == pytest.approx(1.0)


def test_bootstrap_se_with_two_clusters_in_one_stratum():
    from stereoprobe.stats.intervals import bootstrap_se

    # replicates 0 and 2: sd (ddof 1) = sqrt(2); G = 2, H = 1: times sqrt(2 / (2 - 1)): se = 2
    assert float(bootstrap_se([0.0, 2.0], 2, 1)) == pytest.approx(2.0)
    assert math.isnan(float(bootstrap_se([0.0, 2.0], 1, 1)))  # one cluster: no variance


def test_correlation_guard_level_and_jackknife_by_hand():
    from scipy import stats

    from stereoprobe.stats.correlation import correlation, jackknife_interval

    x = [1.0, 2.0, 3.0, 4.0, 5.0]
    # y spans exactly 1 and rises with x: r = 1 (not the "constant" guard)
    assert correlation(x, [0, 0.25, 0.5, 0.75, 1], "pearson").r == pytest.approx(1.0)
    y = [2.0, 1.0, 4.0, 3.0, 5.0]
    wide, narrow = correlation(x, y, "pearson", 0.95), correlation(x, y, "pearson", 0.5)
    assert wide.low < narrow.low < narrow.high < wide.high  # a 50% interval inside the 95% one
    # the jackknife by Efron's formula: leave-one-out z_i = atanh r_-i, se^2 = (n-1)/n sum (z_i - mean z)^2,
    # centre n z - (n-1) mean z_i (bias-corrected), t with n - 1 = 4 df
    n = 5
    z = math.atanh(stats.pearsonr(x, y).statistic)
    loo = [math.atanh(stats.pearsonr(x[:i] + x[i + 1:], y[:i] + y[i + 1:]).statistic) for i in range(n)]
    mean = sum(loo) / n
    se = math.sqrt((n - 1) / n * sum((v - mean) ** 2 for v in loo))
    centre, t = n * z - (n - 1) * mean, stats.t.ppf(0.975, n - 1)
    low, high = jackknife_interval(np.array(x), np.array(y), "pearson", 0.95)
    assert (low, high) == pytest.approx((math.tanh(centre - t * se), math.tanh(centre + t * se)), rel=1e-9)
