"""Tests written for mutants of stereoprobe/stats/analysis.py, robustness.py and units.py that survived
bench/mutation.py (set ``stats``, their samples; docs/testing.md lists them), each on a case small
enough to check by hand. The other modules' are in test_mutation_kills_stats.py."""

from __future__ import annotations

import math

import numpy as np
import pytest
import test_mutation_kills_stats as other  # its _probe_rows (imported as a module: its tests are not collected twice)


def test_variance_parts_without_a_residual_degree_of_freedom():
    import pandas as pd

    from stereoprobe.stats.robustness import variance_parts

    # 2 groups x 2 templates with one cell empty: 3 shares for 1 + (2 - 1) + (2 - 1) = 3 parameters, no
    # residual degree of freedom left: no components
    d = pd.DataFrame({"group": ["a", "a", "b"], "template": ["s", "t", "s"], "share": [1.0, 3.0, 9.0]})
    assert all(math.isnan(v) for v in variance_parts(d).values())


def test_check_options_accepts_100_replicates():
    from stereoprobe.errors import DataError
    from stereoprobe.stats.analysis import check_options

    assert check_options(0.95, 100, 0).n_boot == 100  # "at least 100"
    with pytest.raises(DataError):
        check_options(0.95, 99, 0)


def test_robustness_ranks_the_groups_by_their_shares_by_hand():
    import pandas as pd

    from stereoprobe.stats.robustness import robustness

    # groups A, B, C; template t1: 1 of 4, 2 of 4, 1 of 1 negative words (25, 50, 100%); t2: 2 of 10, 3 of 5,
    # 4 of 4 (20, 60, 100%): both templates rank A < B < C, Spearman 1, and the two templates' mean has
    # reliability 2 x 1 / (1 + 1) = 1. (Ranked by negatives x words instead, t1 gives 4, 8, 1 and t2 20, 15,
    # 16: other orders; and a probe of one counted word is a probe: without C's t1 only two groups are complete.)
    rows = other._probe_rows([("c", 0, "A", 1, 4), ("c", 0, "A", 2, 10), ("c", 0, "B", 2, 4), ("c", 0, "B", 3, 5),
                              ("c", 0, "C", 1, 1), ("c", 0, "C", 4, 4)])
    templates = pd.DataFrame({"category": "c", "template": ["t1", "t2"], "format": "question",
                              "negative": [50.0, 60.0], "negative_ci_low": [10.0, 10.0],
                              "negative_ci_high": [90.0, 90.0], "n_probes": 3, "too_few_probes": False})
    occ = pd.DataFrame({"category": "c", "probe_id": rows["probe_id"], "sample": 0, "word": "w"})
    out = robustness(templates, rows, occ, 100, 0, 0.95)
    assert list(out["rank_stability"]) == pytest.approx([1.0, 1.0])
    assert list(out["rank_reliability"]) == pytest.approx([1.0, 1.0])
    assert list(out["spread"]) == pytest.approx([10.0, 10.0])  # two templates: 60 - 50


def test_rank_stability_interval_stays_within_minus_one_and_one():
    from stereoprobe.stats.robustness import rank_stability

    # 4 groups ranked 1 2 3 4 and 4 3 1 2: d = -3, -1, 2, 2, Spearman 1 - 6 x 18 / (4 x 15) = -0.8; with 4
    # groups the t interval is wider than the range a correlation can take, so it is cut at -1 and 1
    est, low, high = rank_stability(np.array([[1, 4], [2, 3], [3, 1], [4, 2]], float), 200, 0, 0.95)
    assert est == pytest.approx(-0.8) and low == -1.0 and high == 1.0


def test_robustness_sentence_names_the_template_share_only_when_there_is_one():
    from stereoprobe.stats.robustness import _sentence

    parts = {"spread": 12.0, "var_template": 0.4, "var_group": 0.5, "rank_stability": math.nan,
             "rank_reliability": math.nan}
    assert _sentence("c", parts, 0.95) == ("For c, the wording moves the negative share by up to 12 points across "
                                           "templates (templates explain 40% of the probe-level variance, groups 50%).")
    no_parts = parts | {"var_template": math.nan, "var_group": math.nan}
    assert _sentence("c", no_parts, 0.95) == "For c, the wording moves the negative share by up to 12 points across templates."


def test_attach_marks_a_row_without_intervals():
    import pandas as pd

    from stereoprobe.stats.analysis import _attach

    table = pd.DataFrame({"category": ["a", "b"], "negative": [10.0, 20.0]})
    intervals = pd.DataFrame({"category": ["a"], "negative_ci_low": [5.0], "n_probes": [7], "too_few_probes": [False]})
    out = _attach(table, intervals, ["category"])
    # b has no interval row: no probes, too few
    assert list(out["n_probes"]) == [7, 0] and str(out["n_probes"].dtype) == "int64"
    assert list(out["too_few_probes"]) == [False, True]


def _alike_groups_occ(groups):
    """Word occurrences of alike groups: each has template t1 probes with 0 and 4 of 4 words negative, t2 with 3 and 3.

    The model (group + template) fits rates 4/8 in t1 and 6/8 in t2; a group's Pearson X^2 is
    (0 - 2)^2 / (4 x .5 x .5) + (4 - 2)^2 / 1 + 0 + 0 = 8, on 4 probes a group - groups - (2 - 1) templates
    df: phi = 8 k / (3 k - 1) for k groups (3 for 3 groups, 16/5 for 2).
    """
    import pandas as pd

    occ = []
    for group in groups:
        for i, (tpl, neg) in enumerate([("t1", 0), ("t1", 4), ("t2", 3), ("t2", 3)]):
            for k in range(4):
                label = "negative" if k < neg else "positive"
                occ.append((f"{group}{i}", 0, "c", group, tpl, "question", f"{label[:3]}{k}", label, "lexicon"))
    return pd.DataFrame(occ, columns=["probe_id", "sample", "category", "group", "template", "format", "word",
                                      "label", "source"])


def test_share_tables_all_row_of_one_category_is_that_category():
    from stereoprobe.stats.analysis import share_tables
    from stereoprobe.stats.shares import probe_rows
    from stereoprobe.stats.units import unit_table

    st = share_tables(probe_rows(unit_table(_alike_groups_occ("ABC"))), 0.95)
    assert st["dispersion"].phi[0] == pytest.approx(3.0, rel=1e-6) and st["dispersion"].df[0] == 8
    t4 = st["table4"]
    assert list(t4["category"]) == ["c", "all"]
    # one category: the "all" row is that category, with its dispersion (the alike groups give no variance
    # over groups, so the dispersion floor sets the width: 17 to 94 here, 33 to 86 at phi 1)
    assert t4["negative_ci_low"][0] < 30 / 48 * 100 < t4["negative_ci_high"][0]
    for col in ("negative_ci_low", "negative_ci_high", "positive_ci_low", "positive_ci_high"):
        assert t4[col][1] == pytest.approx(t4[col][0], rel=1e-9)


def test_add_statistics_returns_its_tables_and_options():
    from stereoprobe.stats.analysis import StatsOptions, add_statistics
    from stereoprobe.studies.fillin.sentiment import tables

    occ = _alike_groups_occ("AB")
    stats = add_statistics(occ, [], tables.table4(occ), tables.group_table(occ), tables.template_table(occ),
                           StatsOptions(0.95, 100, 0, "fixed"))
    assert list(stats.table4["category"]) == ["c", "all"] and stats.table4["n_probes"][0] == 8
    assert len(stats.format_test) > 0 and "category" in stats.format_test
    assert stats.meta["wording"] == "fixed" and stats.meta["bootstrap"] == 100
    assert stats.meta["permutation_strata"] == "category x template"
    # phi 8 x 2 / (3 x 2 - 1) = 3.2 (worked in _alike_groups_occ)
    assert stats.meta["dispersion"]["c"]["phi"] == 3.2


def test_share_tables_random_wording_degrees_of_freedom_by_hand():
    from stereoprobe.stats.analysis import share_tables
    from stereoprobe.stats.dispersion import Dispersion, dispersion
    from stereoprobe.stats.shares import probe_rows, within_groups
    from stereoprobe.stats.units import unit_table

    rows = probe_rows(unit_table(_alike_groups_occ("ABC")))
    # a group's own share over wordings: the model without templates fits each group's own rate, 10 / 16 = .625
    # (the maximum-likelihood fit of a group-only logit model); a probe of 4 words expects 2.5 negative with
    # variance 4 x .625 x .375 = .9375; a group's probes have 0, 4, 3 and 3, so its X^2 is
    # (2.5^2 + 1.5^2 + 2 x .5^2) / .9375 = 9.6, three groups on 12 - 3 = 9 df: phi 28.8 / 9 = 3.2.
    # With templates phi is 3 on 8 df (_alike_groups_occ), so the templates add .2, resting on 2 - 1 = 1
    # df: Satterthwaite (3 + .2)^2 / (3^2 / 8 + .2^2 / 1) = 10.24 / 1.165 = 8.7897, below the 9 df of the 3.2
    own = dispersion(rows["neg"], rows["polar"], rows["group_key"], rows["cat_code"])
    assert own.phi[0] == pytest.approx(3.2, rel=1e-9) and own.df[0] == 9
    by_hand = Dispersion(phi=[3.2], df=[10.24 / 1.165], mu=[10 / 16] * 12)
    expected = within_groups(rows, by_hand, np.repeat([0, 1, 2], 4), 3, 0.95)
    got = share_tables(rows, 0.95, "random")["groups"]
    for col in ("negative_ci_low", "negative_ci_high"):
        assert list(got[col]) == pytest.approx(list(expected[col]), rel=1e-4)
    # the degrees of freedom matter here: at 9 df the interval is another
    at_9 = within_groups(rows, Dispersion(phi=[3.2], df=[9.0], mu=[10 / 16] * 12), np.repeat([0, 1, 2], 4), 3,
                         0.95)
    assert at_9["negative_ci_low"][0] != pytest.approx(expected["negative_ci_low"][0], rel=1e-4)
