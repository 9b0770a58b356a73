"""Robustness: variance parts, rank stability, Jaccard, robustness.csv rows."""

import numpy as np
import pandas as pd
import pytest
from synthetic_stats import occurrences, truth_table

from stereoprobe.studies.fillin.sentiment import tables
from stereoprobe.stats.analysis import StatsOptions, add_statistics
from stereoprobe.stats.robustness import jaccard, rank_stability, spearman_brown, variance_parts


def test_variance_parts_by_hand():
    # balanced 2 groups x 2 templates: shares 1, 1 (group a) and 9, 13 (group b). Mean squares: groups
    # 100 / 1, templates 4 / 1, residual 4 / 1. Components: group (100 - 4) / 2 = 48, template
    # (4 - 4) / 2 = 0, residual 4: fractions 48/52, 0, 4/52 (an ANOVA table's sums of squares would give
    # the templates 4/108)
    d = pd.DataFrame({"group": ["a", "a", "b", "b"], "template": ["s", "t", "s", "t"], "share": [1, 1, 9, 13]})
    parts = variance_parts(d)
    assert (parts["var_group"], parts["var_template"], parts["var_residual"]) == pytest.approx((48 / 52, 0, 4 / 52))
    e = pd.DataFrame({"group": list("aabbcc"), "template": list("ststst"[:6]), "share": [1, 1, 9, 13, 5, 3]})
    # 3 groups x 2 templates; group means 1, 11, 4 (mean 16/3); template means 5, 17/3
    ms_g = 2 * ((1 - 16 / 3) ** 2 + (11 - 16 / 3) ** 2 + (4 - 16 / 3) ** 2) / 2
    ms_t = 3 * ((5 - 16 / 3) ** 2 + (17 / 3 - 16 / 3) ** 2) / 1
    total = ((e["share"] - 16 / 3) ** 2).sum()
    ms_e = (total - 2 * ms_g - ms_t) / 2
    s_g, s_t = max((ms_g - ms_e) / 2, 0), max((ms_t - ms_e) / 3, 0)
    parts = variance_parts(e)
    assert parts["var_group"] == pytest.approx(s_g / (s_g + s_t + ms_e))
    assert parts["var_template"] == pytest.approx(s_t / (s_g + s_t + ms_e))
    assert parts["var_residual"] == pytest.approx(ms_e / (s_g + s_t + ms_e))


def test_variance_parts_are_near_zero_without_effects_and_recover_real_ones():
    # 40 groups x 6 templates: the old sum-of-squares fractions gave groups about 16% and templates 2% from
    # degrees of freedom alone; components give about 0 (truncated at 0, so a little above on average)
    rng = np.random.default_rng(0)
    g, t = np.repeat(np.arange(40), 6), np.tile(np.arange(6), 40)
    null = [variance_parts(pd.DataFrame({"group": g, "template": t, "share": rng.normal(50, 10, 240)}))
            for _ in range(30)]
    assert np.mean([p["var_group"] for p in null]) < 0.04 and np.mean([p["var_template"] for p in null]) < 0.02
    # group sd 10, template sd 5 (fixed effects -2..2 scaled), residual sd 10: true fractions about .44, .11, .44
    effects = np.array([-7.3, -2.9, -1.5, 1.5, 2.9, 7.3])  # variance 25 (ddof 0... 1 as a random sample)
    real = [variance_parts(pd.DataFrame({"group": g, "template": t,
                                         "share": rng.normal(0, 10, 40)[g] + effects[t] + rng.normal(0, 10, 240)}))
            for _ in range(30)]
    assert 0.35 < np.mean([p["var_group"] for p in real]) < 0.52
    assert 0.07 < np.mean([p["var_template"] for p in real]) < 0.16
    # weights: wild shares that rest on one word count less than shares of ten words
    d = pd.DataFrame({"group": g, "template": t, "share": rng.normal(0, 10, 40)[g] + rng.normal(0, 3, 240),
                      "weight": 10.0})
    wild = d.index[::5]
    d.loc[wild, "share"], d.loc[wild, "weight"] = rng.choice([-50.0, 50.0], len(wild)), 1.0
    assert variance_parts(d)["var_group"] > variance_parts(d.drop(columns="weight"))["var_group"] + 0.2


def test_spearman_brown_by_hand():
    assert spearman_brown(0.2, 6) == pytest.approx(1.2 / 2.0)
    assert spearman_brown(0.5, 2) == pytest.approx(2 / 3)
    assert spearman_brown(-0.1, 6) == 0.0 and np.isnan(spearman_brown(np.nan, 6))


def test_rank_stability():
    same = np.column_stack([np.arange(10.0)] * 3)
    rho, lo, hi = rank_stability(same, 200, 0, 0.95)
    assert rho == pytest.approx(1.0) and hi == pytest.approx(1.0)
    rng = np.random.default_rng(1)
    noise = rng.normal(size=(40, 4))
    rho, lo, hi = rank_stability(noise, 500, 0, 0.95)
    assert lo < 0 < hi and abs(rho) < 0.2
    assert all(np.isnan(v) for v in rank_stability(same[:2], 100, 0, 0.95))


def test_jaccard_by_hand():
    occ = pd.DataFrame({"category": "c", "probe_id": "p", "sample": [0, 0, 1, 1, 1],
                        "word": ["a", "b", "b", "c", "d"]})
    # {a,b} vs {b,c,d}: 1 shared of 4 -> 0.25
    assert jaccard(occ) == {"c": pytest.approx(0.25)}


def test_robustness_table_on_a_template_effect():
    occ = occurrences({k: (0.8, 0.3) for k in truth_table(categories=2, groups=12)}, seed=6, samples=2)
    stats = add_statistics(occ, [], tables.table4(occ), tables.group_table(occ), tables.template_table(occ),
                           StatsOptions(0.95, 300, 0))
    rob = stats.robustness
    assert len(rob) == 2 * 6 and {"negative_ci_low", "spread", "var_template", "rank_stability", "rank_reliability",
                                  "jaccard", "sentence"} <= set(rob.columns)
    c0 = rob[rob["category"] == "c0"]
    # a 50-point format effect and no group effect: templates carry the variance, groups about none
    assert c0["spread"].iloc[0] > 30 and c0["var_template"].iloc[0] > 0.4 and c0["var_group"].iloc[0] < 0.1
    assert 0 < c0["jaccard"].iloc[0] < 1
    # independent truths: questions at 80%, statements at 30%, so the wording moves the share by 50 points;
    # the groups do not differ, so one template ranks them no better than chance (true rank stability 0)
    # and the six templates' average ranks them no better either
    assert c0["spread"].iloc[0] == pytest.approx(50, abs=12)
    assert c0["rank_stability_ci_low"].iloc[0] < 0 < c0["rank_stability_ci_high"].iloc[0]
    assert c0["rank_reliability"].iloc[0] < 0.7
    assert float(spearman_brown(0.5, 6)) == pytest.approx(3 / 3.5)  # 6 * 0.5 / (1 + 5 * 0.5), by hand
    assert c0["sentence"].iloc[0].startswith("For c0, the wording moves the negative share by up to")
    assert stats.meta["units"].startswith("probes")


def test_robustness_without_effects():
    # no group and no template effect: neither gets a large share, rank stability is about 0
    occ = occurrences(truth_table(categories=1, groups=40, rate=0.4), seed=8)
    rob = add_statistics(occ, [], tables.table4(occ), tables.group_table(occ), tables.template_table(occ),
                         StatsOptions(0.95, 300, 0)).robustness.iloc[0]
    assert rob["var_group"] < 0.1 and rob["var_template"] < 0.1
    assert rob["rank_stability_ci_low"] < 0 < rob["rank_stability_ci_high"]
