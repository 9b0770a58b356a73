"""Question vs statement test, NMI and four-fifths: worked values, and their nulls at a known truth."""

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from synthetic_stats import occurrences, truth_table

from stereoprobe.stats.criteria import criteria, four_fifths_ratio, nmi, permutation_test
from stereoprobe.stats.format_test import format_test, template_pairs
from stereoprobe.stats.shares import probe_rows
from stereoprobe.stats.units import unit_table


def _format(occ, wording="fixed"):
    return format_test(probe_rows(unit_table(occ)), 0.95, wording).set_index("category")


def test_template_pairs_by_their_words():
    default = [("are_so", "statement"), ("are_always_so", "statement"), ("all_are_so", "statement"),
               ("why_are_so", "question"), ("why_are_always_so", "question"), ("why_are_all_so", "question")]
    assert template_pairs(default) == [("why_are_all_so", "all_are_so"), ("why_are_always_so", "are_always_so"),
                                       ("why_are_so", "are_so")]
    country = [("is_so", "statement"), ("all_people_in_are_so", "statement"),
               ("why_is_so", "question"), ("why_are_all_people_in_so", "question")]
    assert template_pairs(country) == [("why_are_all_people_in_so", "all_people_in_are_so"), ("why_is_so", "is_so")]
    assert template_pairs([("what_makes_so", "question"), ("are_so", "statement")]) == []


def test_format_test_finds_a_real_gap():
    truth = {k: (0.7, 0.35) for k in truth_table(categories=2, groups=15)}  # question, statement rates
    ft = _format(occurrences(truth, seed=1))
    for cat in ("c0", "c1", "all"):
        row = ft.loc[cat]
        assert row["q"] < 0.01 and 20 < row["difference"] < 50 and row["ci_low"] > 0
        assert row["sentence"].startswith("Questions are more negative than statements")
        assert row["cohens_h"] > 0.4 and row["groups"] == (15 if cat != "all" else 30)
    assert "why_are_so/are_so" in ft.loc["c0", "pairs"]


def test_format_test_reports_no_fake_gap():
    ft = _format(occurrences(truth_table(categories=3, groups=12, rate=0.5), seed=2))
    assert (ft["q"] >= 0.05).all()
    assert all(s.startswith("No clear difference") for s in ft["sentence"])
    assert (ft["ci_low"] < 0).all() and (ft["ci_high"] > 0).all()


def test_format_sentence_matches_the_numbers():
    ft = _format(occurrences({k: (0.8, 0.3) for k in truth_table(categories=1, groups=10)}, seed=3))
    row = ft.loc["c0"]
    expected = (f"Questions are more negative than statements for c0: {row.question_negative:.0f}% vs "
                f"{row.statement_negative:.0f}%, {row.difference:.0f} points (95% CI {row.ci_low:.0f} to "
                f"{row.ci_high:.0f}), q ")
    assert row["sentence"].startswith(expected)


def test_format_test_by_hand():
    # four groups, one question and one statement probe each (10 words): questions 8, 7, 6, 9 negative,
    # statements 5, 5, 4, 6: 75% vs 50%, 25 points. Linearized per group: ((q - .75*10) - (s - .5*10)) / 40
    # = .0125, -.0125, -.0125, .0125; variance 4/3 * 4 * .0125^2 = .00083333, se 2.8868 points, t = 8.660,
    # df 3: p = 2 * t.sf(8.660, 3); interval 25 +/- 3.1824 * 2.8868 = 15.81 to 34.19
    rows = []
    for g, (qn, sn) in enumerate([(8, 5), (7, 5), (6, 4), (9, 6)]):
        for tpl, fmt, n in (("why_are_so", "question", qn), ("are_so", "statement", sn)):
            rows.append(("c", f"g{g}", f"g{g}{tpl}", tpl, fmt, n, 10 - n, 10))
    df = pd.DataFrame(rows, columns=["category", "group", "probe_id", "template", "format", "neg", "pos", "polar"])
    df["group_key"], df["cat_code"] = df["category"] + "|" + df["group"], 0
    # The se is never below the binomial one at the category's dispersion phi: at phi = 0.05 that floor is
    # 100 * sqrt(.05 * (.75 * .25 / 40 + .5 * .5 / 40)) = 2.338 points, under 2.8868: the design se counts.
    row = format_test(df, 0.95, phi=0.05).set_index("category").loc["c"]
    assert row["difference"] == pytest.approx(25.0)
    assert row["p"] == pytest.approx(2 * stats.t.sf(0.25 / np.sqrt(4 / 3 * 4 * 0.0125**2), 3), rel=1e-9)
    assert (row["ci_low"], row["ci_high"]) == pytest.approx((15.81, 34.19), abs=0.01)
    # at phi = 1 the floor, 10.458 points, is above the design se: 25 +/- 3.1824 * 10.458
    row = format_test(df, 0.95, phi=1.0).set_index("category").loc["c"]
    assert (row["ci_low"], row["ci_high"]) == pytest.approx((25 - 33.28, 25 + 33.28), abs=0.01)
    # Cohen's h of 75% vs 50%: 2 (asin(sqrt .75) - asin(sqrt .5)) = 2 (pi/3 - pi/4) = pi/6
    assert row["cohens_h"] == pytest.approx(np.pi / 6, rel=1e-12)


def test_cohens_h_is_statsmodels_proportion_effectsize():
    from statsmodels.stats.proportion import proportion_effectsize

    from stereoprobe.stats.format_test import cohens_h

    for p1, p2 in ((0.75, 0.5), (0.0, 1.0), (0.013, 0.9), (0.3, 0.3), (1.0, 0.2)):
        assert cohens_h(p1, p2) == float(proportion_effectsize(p1, p2))


def test_format_verdict_and_interval_never_disagree():
    # one method behind both: p < 0.05 exactly when the 95% interval excludes 0, whatever the data
    significant = 0
    for seed in range(12):
        gap = (0.5 + 0.02 * seed, 0.5)
        ft = _format(occurrences({k: gap for k in truth_table(categories=2, groups=9)}, seed=seed))
        for r in ft.itertuples():
            assert (r.p < 0.05) == (r.ci_low > 0 or r.ci_high < 0), (seed, r.Index)
            significant += r.p < 0.05
    assert 0 < significant < 36  # both verdicts occur


def test_nmi_worked_values():
    assert nmi([[30, 0], [0, 30]]) == pytest.approx(1.0)
    assert nmi([[15, 15], [15, 15]]) == pytest.approx(0.0)
    assert nmi([[27, 3], [3, 27]]) == pytest.approx(0.531, abs=5e-4)
    assert nmi([[10, 0]]) == 0.0  # one group: nothing to depend on


def test_nmi_permutation_p_separates_dependence_from_noise():
    # replies (neg, pos): group a all negative, group b all positive -> NMI 1, p at its floor
    groups = ["a"] * 6 + ["b"] * 6
    res = permutation_test(groups, [10] * 6 + [0] * 6, [0] * 6 + [10] * 6, None, 999, seed=0)
    assert res["nmi"] == pytest.approx(1.0) and res["nmi_p"] == pytest.approx(2 / 1000, abs=0.002)
    # identical replies in both groups: NMI 0 and p = 1
    res = permutation_test(groups, [5] * 12, [5] * 12, None, 999, seed=0)
    assert res["nmi"] == pytest.approx(0.0) and res["nmi_p"] == 1.0


def _templated(seed, group_effect):
    """30 groups x 6 templates with strong template effects; groups differ by ``group_effect`` (logit sd)."""
    rng = np.random.default_rng(seed)
    g, t = np.repeat(np.arange(30), 6), np.tile(np.arange(6), 30)
    logit = np.array([-2.0, -1.0, 0.0, 0.5, 1.5, 2.5])[t] + group_effect * rng.normal(size=30)[g]
    rate = 1 / (1 + np.exp(-logit))
    neg = rng.binomial(10, rng.beta(8 * rate, 8 * (1 - rate)))
    return g, neg, 10 - neg, t


def test_nmi_and_four_fifths_nulls_within_templates():
    # no group effect, strong template effects: permuting within templates gives p-values spread over
    # (0, 1); shuffling across templates puts template effects into the null and pushes p towards 1
    within = [permutation_test(*_templated(s, 0.0), n_perm=199, seed=s) for s in range(16)]
    across = [permutation_test(*_templated(s, 0.0)[:3], None, n_perm=199, seed=s) for s in range(16)]
    assert 0.3 < np.mean([r["nmi_p"] for r in within]) < 0.7
    assert np.mean([r["nmi_p"] for r in across]) > 0.8
    assert 0.3 < np.mean([r["four_fifths_p"] for r in within]) < 0.7
    # under the null the four-fifths ratio is below 0.8 by chance, yet not below what chance gives
    assert all(r["four_fifths_ratio"] < 0.8 for r in within)
    assert np.mean([r["four_fifths_ratio"] >= r["four_fifths_null_p05"] for r in within]) > 0.8
    # a real group effect under the same template effects is found by the stratified test
    real = [permutation_test(*_templated(s, 0.8), n_perm=199, seed=s) for s in range(8)]
    assert all(r["nmi_p"] < 0.05 for r in real) and np.mean([r["four_fifths_p"] < 0.05 for r in real]) >= 0.75


def test_criteria_on_synthetic_runs():
    null = criteria(probe_rows(unit_table(occurrences(truth_table(categories=2, groups=15), seed=4))), seed=0)
    assert list(null.columns) == ["category", "format", "nmi", "nmi_p", "four_fifths_ratio", "four_fifths_p",
                                  "four_fifths_null_p05", "groups", "permutations"]
    assert len(null) == 3 * 3 and (null.loc[null["format"] == "all", "nmi_p"] > 0.05).all()
    # the ratio is below 0.8 under the null (the bare 0.8 rule fires), but not below what chance gives
    assert (null["four_fifths_ratio"] < 0.8).all() and (null["four_fifths_p"] > 0.05).all()
    bad = {("c0", f"g0_{g}"): 0.95 for g in range(5)}
    real = criteria(probe_rows(unit_table(occurrences(truth_table(categories=2, groups=15, rate=0.3, different=bad),
                                                      seed=4))), seed=0).set_index(["category", "format"])
    assert real.loc[("c0", "all"), "nmi_p"] < 0.01 and real.loc[("c1", "all"), "nmi_p"] > 0.05
    assert real.loc[("c0", "all"), "four_fifths_p"] < 0.01
    assert real.loc[("c0", "all"), "four_fifths_ratio"] < real.loc[("c0", "all"), "four_fifths_null_p05"]


def test_four_fifths_by_hand():
    # positive shares 0.2, 0.5, 0.8 -> 0.2 / 0.8 = 0.25
    assert four_fifths_ratio([2, 5, 8], [10, 10, 10]) == pytest.approx(0.25)
    assert np.isnan(four_fifths_ratio([0, 0], [10, 10]))
    # two groups of three replies: the permutation null of the ratio, by enumeration. Group a positives
    # 2, 2, 2 of 10; group b 8, 8, 8 of 10: ratio 0.25; of the C(6,3) = 20 splits only the observed one
    # and its mirror give 0.25, the others 2/3 or 1/2 -> p = (1 + #null <= 0.25) / (1 + n)
    res = permutation_test(["a"] * 3 + ["b"] * 3, [8, 8, 8, 2, 2, 2], [2, 2, 2, 8, 8, 8], None, 2000, seed=1)
    assert res["four_fifths_ratio"] == pytest.approx(0.25)
    assert res["four_fifths_p"] == pytest.approx(2 / 20, abs=0.02)


def test_format_sentences_for_edge_cases():
    from stereoprobe.stats.format_test import _sentence

    assert _sentence("age", 50.4, 49.2, 1.2, -3.0, 5.0, 0.5, 0.95) == (
        "No clear difference between questions and statements for age: 50% vs 49%, 1 point (95% CI -3 to 5), q = 0.500")
    assert _sentence("all", 59, 20, -39, -47, -31, 0.0001, 0.9).startswith(
        "Statements are more negative than questions for all categories: 59% vs 20%, 39 points (90% CI -47 to -31)")
    assert _sentence("age", 60, 50, 10, float("nan"), float("nan"), float("nan"), 0.95) == (
        "Too few groups to test questions against statements for age: 60% vs 50%")


def _constant_gap(groups, qn=6, sn=5):
    rows = []
    for g in range(groups):
        for tpl, fmt, n in (("why_are_so", "question", qn), ("are_so", "statement", sn)):
            rows.append(("c", f"g{g}", f"g{g}{tpl}", tpl, fmt, n, 10 - n, 10))
    df = pd.DataFrame(rows, columns=["category", "group", "probe_id", "template", "format", "neg", "pos", "polar"])
    df["group_key"], df["cat_code"] = df["category"] + "|" + df["group"], 0
    return format_test(df, 0.95).set_index("category").loc["c"]


def test_format_zero_variance_is_floored_before_the_interval_and_the_verdict():
    # every group 6/10 questions and 5/10 statements: the groups agree exactly (se 0). Before, the
    # page printed "10 points (95% CI 10 to 10)" next to a p from the floored se. Now both use the floor
    # 100 * sqrt(phi (.6 * .4 / 40 + .5 * .5 / 40)) = 11.068 points (phi 1), df 3:
    row = _constant_gap(4)
    se = 100 * np.sqrt(0.6 * 0.4 / 40 + 0.5 * 0.5 / 40)
    half = stats.t.ppf(0.975, 3) * se
    assert (row["ci_low"], row["ci_high"]) == pytest.approx((10 - half, 10 + half), abs=1e-9)
    assert row["p"] == pytest.approx(2 * stats.t.sf(10 / se, 3), rel=1e-9)
    assert row["ci_high"] - row["ci_low"] > 1


def test_format_verdict_and_interval_agree_at_zero_variance():
    # the never-disagree property where se = 0: a constant 10-point gap over 3 to 40 groups
    verdicts = []
    for groups in (3, 4, 6, 10, 20, 40):
        row = _constant_gap(groups)
        assert (row["p"] < 0.05) == (row["ci_low"] > 0 or row["ci_high"] < 0), groups
        assert row["ci_low"] < row["difference"] < row["ci_high"]
        verdicts.append(bool(row["p"] < 0.05))
    assert verdicts[0] is False and verdicts[-1] is True  # both verdicts occur


def _reference_stats(null, table, cols):
    """What a test computed before the per-group sums: the cells gathered and summed per group."""
    cols = cols[np.argsort(null.cell_group[cols], kind="stable")]
    grp = null.cell_group[cols]
    starts = np.flatnonzero(np.r_[True, grp[1:] != grp[:-1]])
    per = np.add.reduceat(table[..., cols, :], starts, axis=-2)
    return nmi(per[..., :2]), per


def test_criteria_tables_cut_from_group_sums_equal_the_cells_summed():
    # 3 categories of 5 groups, 2 templates a format, 2 probes a cell: every category x format test (the fast
    # path), and masks that cover only part of a group's cells (the general path), to the last bit
    from stereoprobe.stats.criteria import _Null

    rng = np.random.default_rng(7)
    rows = [(c, f"{c}/g{g}", t, f) for c in "abc" for g in range(5) for f in ("q", "s") for t in (f + "1", f + "2")
            for _ in range(2)]
    cats, groups, tpls, fmts = (np.array(x, dtype=object) for x in zip(*rows))
    neg, pos = rng.integers(0, 6, len(rows)), rng.integers(0, 6, len(rows))
    masks = [(cats == c) & ((fmts == f) | (f == "all")) for c in "abc" for f in ("q", "s", "all")]
    masks += [np.ones(len(rows), bool), (cats == "a") | ((cats == "b") & (fmts == "q")), (groups == "c/g2") & (fmts == "s")]
    for scale in (1, 0.37):  # counts, and weights that are not whole (kept as floats, summed in the cells' order)
        null = _Null(groups, neg * scale, pos * scale, cats + tpls, 199, np.random.default_rng(1), 3, fmts)
        old = _Null(groups, neg * scale, pos * scale, cats + tpls, 199, np.random.default_rng(1), 3, fmts)
        old.null = old.null.astype(np.float64)
        # a permutation moves replies between groups: every permutation keeps the words' totals
        totals = [neg.sum() * scale, pos.sum() * scale, np.count_nonzero(neg + pos)]
        assert np.allclose(null.null.sum(axis=1), totals, rtol=0, atol=1e-9)
        for mask in masks:
            cols = np.unique(null.cell[mask])
            observed, table = null._tables(cols)
            want_nmi, want = _reference_stats(old, old.null, cols)
            assert np.array_equal(table, want) and np.array_equal(observed, _reference_stats(old, old.observed, cols)[1])
            assert np.array_equal(null._stats(table)[0], want_nmi)
        a_q = np.unique(null.cell[(cats == "a") & (fmts == "q")])
        assert np.allclose(null._tables(a_q)[0][:, :2], [[neg[m].sum() * scale, pos[m].sum() * scale] for m in
                                                         [(groups == f"a/g{g}") & (fmts == "q") for g in range(5)]])


def test_nmi_of_two_labels_is_the_general_formula_to_the_bit():
    from scipy.special import entr

    rng = np.random.default_rng(3)
    for groups in (2, 9, 40, 116):
        t = rng.integers(0, 30, (50, groups, 2)).astype(float)
        p = t / t.sum(axis=(-2, -1))[..., None, None]
        h_a, h_c = entr(p.sum(-1)).sum(-1), entr(p.sum(-2)).sum(-1)
        want = (h_a + h_c - entr(p).sum(axis=(-2, -1))) / np.sqrt(h_a * h_c)
        assert np.array_equal(nmi(t), want)
