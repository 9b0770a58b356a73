"""Question vs statement test, NMI and four-fifths: worked values and known truths."""

import numpy as np
import pytest
from synthetic_stats import occurrences, truth_table

from stereoprobe.stats.criteria import criteria, four_fifths_ratio, nmi, nmi_test
from stereoprobe.stats.format_test import format_test, template_pairs
from stereoprobe.stats.resample import cluster_weights
from stereoprobe.stats.units import unit_table


def _format(occ, seed=0):
    units = unit_table(occ)
    key = units["category"] + "|" + units["group"]
    w = cluster_weights([key, units["probe_id"]], 500, seed=seed, strata=units["category"]).astype(float)
    return format_test(w, units, 0.95, seed).set_index("category")


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
    # ten groups: 2^10 = 1024 sign patterns, enumerated exactly; the all-positive one is the most extreme
    assert row["p"] == pytest.approx(2 / 1024)


def test_nmi_worked_values():
    assert nmi([[30, 0], [0, 30]]) == pytest.approx(1.0)
    assert nmi([[15, 15], [15, 15]]) == pytest.approx(0.0)
    assert nmi([[27, 3], [3, 27]]) == pytest.approx(0.531, abs=5e-4)
    assert nmi([[10, 0]]) == 0.0  # one group: nothing to depend on


def test_nmi_permutation_p_separates_dependence_from_noise():
    # replies (neg, pos): group a all negative, group b all positive -> NMI 1, p at its floor
    groups = ["a"] * 6 + ["b"] * 6
    value, p = nmi_test(groups, [10] * 6 + [0] * 6, [0] * 6 + [10] * 6, 999, seed=0)
    assert value == pytest.approx(1.0) and p < 0.01
    # identical replies in both groups: NMI 0 and p = 1
    value, p = nmi_test(groups, [5] * 12, [5] * 12, 999, seed=0)
    assert value == pytest.approx(0.0) and p == 1.0


def test_criteria_on_synthetic_runs():
    null = criteria(unit_table(occurrences(truth_table(categories=2, groups=15), seed=4)), seed=0)
    assert list(null.columns)[:6] == ["category", "format", "nmi", "nmi_p", "four_fifths_ratio", "groups"]
    assert len(null) == 3 * 3 and (null.loc[null["format"] == "all", "nmi_p"] > 0.05).all()
    bad = {("c0", f"g0_{g}"): 0.95 for g in range(5)}
    real = criteria(unit_table(occurrences(truth_table(categories=2, groups=15, rate=0.3, different=bad),
                                           seed=4)), seed=0).set_index(["category", "format"])
    assert real.loc[("c0", "all"), "nmi_p"] < 0.01 and real.loc[("c1", "all"), "nmi_p"] > 0.05
    assert real.loc[("c0", "all"), "four_fifths_ratio"] < 0.8


def test_four_fifths_by_hand():
    # positive shares 0.2, 0.5, 0.8 -> 0.2 / 0.8 = 0.25
    assert four_fifths_ratio([2, 5, 8], [10, 10, 10]) == pytest.approx(0.25)
    assert np.isnan(four_fifths_ratio([0, 0], [10, 10]))
