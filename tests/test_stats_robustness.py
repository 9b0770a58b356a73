"""Robustness: variance parts, rank stability, Jaccard, robustness.csv rows."""

import numpy as np
import pandas as pd
import pytest
from synthetic_stats import occurrences, truth_table

from stereoprobe.sentiment import tables
from stereoprobe.stats.analysis import StatsOptions, add_statistics
from stereoprobe.stats.robustness import jaccard, rank_stability, variance_parts


def test_variance_parts_by_hand():
    # balanced 2 groups x 2 templates: shares 1, 1 (group a) and 9, 13 (group b); mean 6
    d = pd.DataFrame({"group": ["a", "a", "b", "b"], "template": ["s", "t", "s", "t"], "share": [1, 1, 9, 13]})
    # group means 1 and 11: SS 4 * 25 = 100; template means 5 and 7: SS 4 * 1 = 4;
    # total 25 + 25 + 9 + 49 = 108, so the residual is 4
    parts = variance_parts(d)
    assert parts["var_group"] == pytest.approx(100 / 108)
    assert parts["var_template"] == pytest.approx(4 / 108)
    assert parts["var_residual"] == pytest.approx(4 / 108)


def test_variance_parts_agree_with_the_formula_anova():
    import statsmodels.formula.api as smf
    from statsmodels.stats.anova import anova_lm

    rng = np.random.default_rng(0)
    d = pd.DataFrame({"group": np.repeat(list("abcde"), 6), "template": list("uvwxyz") * 5})
    d["share"] = rng.normal(50, 10, len(d)) + d["group"].map(dict(zip("abcde", range(0, 50, 10))))
    d = d.drop(index=[3, 17])  # unbalanced
    ss = anova_lm(smf.ols("share ~ C(group) + C(template)", data=d).fit(), typ=2)["sum_sq"]
    parts = variance_parts(d)
    assert parts["var_group"] == pytest.approx(ss["C(group)"] / ss.sum())
    assert parts["var_template"] == pytest.approx(ss["C(template)"] / ss.sum())


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
    assert len(rob) == 2 * 6 and {"negative_ci_low", "spread", "var_template", "rank_stability", "jaccard",
                                  "sentence"} <= set(rob.columns)
    c0 = rob[rob["category"] == "c0"]
    assert c0["spread"].iloc[0] > 30 and c0["var_template"].iloc[0] > c0["var_group"].iloc[0]
    assert 0 < c0["jaccard"].iloc[0] < 1
    assert c0["sentence"].iloc[0].startswith("For c0, the wording moves the negative share by up to")
    assert stats.meta["samples_resampled"] is True
