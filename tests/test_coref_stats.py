"""The coreference statistics on synthetic answers with a known truth (tests/coref_synth.py).

Null: answers wrong at random, pairs and triples correlated, nothing depends on the
pronoun. The intervals must cover the true rates about 95% of the time (not less: too
narrow; not more: too wide), and the four-fifths permutation test and the paired
pronoun tests may flag about 5%. Planted bias: anti-stereotypical answers wrong 25% more
often; every rate must come out where that bias puts it and every test must find it.
Fixed seeds: the same numbers every run.
"""

from __future__ import annotations

import numpy as np
import pytest

from conftest import once_per_run
from coref_synth import Model, design, simulate, truth
from stereoprobe.studies.coreference.criteria import four_fifths, pronoun_differences, sterlie
from stereoprobe.studies.coreference.inference import plan_for
from stereoprobe.studies.coreference.tables import table3, winobias

pytestmark = pytest.mark.long(46)  # its longest test, seconds: run first, longest first (tests/conftest.py)

RUNS = 200  # simulated runs of the null
BOOT = 200
RATES = ("fnr", "fpr", "ppv", "npv")


@pytest.fixture(scope="module")
@once_per_run  # its two tests may run on two pytest-xdist workers: computed by one, read by the other
def null_runs():
    """Coverage hits and test flags over RUNS null runs of 6 x 6 jobs (36 pairs, 1,512 prompts)."""
    probes = design(6)
    model = Model(hard=0.2, easy=0.02)
    true = truth(model)
    rng = np.random.default_rng(20261124)
    hits: dict[str, list[bool]] = {"overall": [], "template_answers": [], "template_triples": [], "sterlie": []}
    flags: dict[str, list] = {"four_fifths": [], "differences": [], "family": [], "winobias": [],
                              "four_fifths_any": [], "four_fifths_any_holm": []}
    for r in range(RUNS):
        frame = simulate(probes, model, rng)
        plan = plan_for(frame, BOOT, seed=r)
        t3 = table3(frame, plan).set_index("template")
        for m in ("incorrect", "inconsistent", "binary_inconsistent"):
            low, high = t3[f"{m}_low"], t3[f"{m}_high"]
            inside = ((low <= true[m]) & (true[m] <= high)).to_numpy()
            hits["overall"].append(inside[-1])
            hits["template_answers" if m == "incorrect" else "template_triples"].extend(inside[:-1])
        st = sterlie(frame, plan).set_index("pronoun")
        for p in st.index:
            for rate in RATES:
                hits["sterlie"].append(st.loc[p, f"{rate}_low"] <= true[f"{p}_{rate}"] <= st.loc[p, f"{rate}_high"])
        ff = four_fifths(frame, n_perm=99, seed=r)
        flags["four_fifths"].append((ff["p"] < 0.05).to_numpy())
        flags["four_fifths_any"].append(bool((ff["p"] < 0.05).any()))
        flags["four_fifths_any_holm"].append(bool((ff["p_holm"] < 0.05).any()))
        d = pronoun_differences(frame, plan)
        flags["differences"].append((d["p"] < 0.05).to_numpy())
        flags["family"].append(bool((d["q"] < 0.05).any()))
        flags["winobias"].append((winobias(frame, plan)["p"] < 0.05).to_numpy())
    return {k: np.mean(v) for k, v in hits.items()}, {k: np.mean(v, axis=0) for k, v in flags.items()}


def test_null_intervals_cover_about_95_percent_from_above_and_below(null_runs):
    coverage, _ = null_runs
    # overall incorrect / inconsistent / binary (900 intervals); FNR FPR PPV NPV x 3 pronouns (3,600);
    # incorrect per template (2,100)
    for key in ("sterlie", "template_answers"):
        assert 0.93 <= coverage[key] <= 0.97, (key, coverage[key])
    # the overall rates' interval (issue 36: quantiles of replicates with both sides drawn at once, so that one more
    # wrong answer never lowers it) counts the pairs' own noise about three times, which this family has much of:
    # it over-covers here (0.995 measured; docs/statistics.md, "Overall rates where jobs differ strongly"). The
    # check from above is its width, in tests/test_coref_overall.py
    assert coverage["overall"] >= 0.93, coverage["overall"]
    # inconsistent and binary per template: 72 triples each here (95.8% with the Jeffreys
    # interval; 97.4% with Clopper-Pearson's, which is too wide: docs/coreference.md)
    assert 0.93 <= coverage["template_triples"] <= 0.97, coverage["template_triples"]


def test_null_tests_flag_about_5_percent(null_runs):
    _, flags = null_runs
    assert (flags["four_fifths"] <= 0.08).all(), flags["four_fifths"]  # each rate's permutation test
    assert 0.02 <= flags["differences"].mean() <= 0.07, flags["differences"]  # 15 paired tests
    assert flags["differences"].max() <= 0.09
    assert flags["family"] <= 0.07  # any BH q < 0.05 in the family of 15
    # the four rates of one prefix are four tests: unadjusted, at least one is flagged in about 12% of null
    # runs; Holm keeps the family at 5% (the page's "lower than chance" follows p_holm)
    assert flags["four_fifths_any"] > 0.08, flags["four_fifths_any"]
    assert 0.01 <= flags["four_fifths_any_holm"] <= 0.065, flags["four_fifths_any_holm"]
    assert (flags["winobias"] <= 0.09).all(), flags["winobias"]


@pytest.fixture(scope="module")
def biased():
    # the rates' values are checked here, not the intervals: jobs that do not differ (pairs do), so one run's
    # rates sit within sampling error of the implied ones (with job effects they sit where the drawn jobs put them)
    model = Model(hard=0.2, easy=0.02, bias=0.25, job_sd=0.0, pair_sd=0.5)
    frame = simulate(design(20), model, np.random.default_rng(7))  # the full default design
    return frame, plan_for(frame, 500, seed=3), truth(model)


def test_planted_bias_rates_come_out_at_the_values_it_implies(biased):
    frame, plan, true = biased
    t3 = table3(frame, plan).set_index("template").loc["Overall"]
    for m in ("incorrect", "inconsistent", "binary_inconsistent"):
        assert t3[f"{m}_pct"] == pytest.approx(true[m], abs=2.0), m
    st = sterlie(frame, plan).set_index("pronoun")
    for p in ("he", "she", "they"):
        for rate in RATES:
            # one pronoun's rate over 2,800 answers of correlated pairs and triples: sd about 1.5 points
            assert st.loc[p, f"{rate}_pct"] == pytest.approx(true[f"{p}_{rate}"], abs=3.5), (p, rate)
    wb = winobias(frame, plan).set_index("pronoun")
    assert wb.loc["he", "gap"] == pytest.approx(true["he_gap"], abs=3.5)
    assert wb.loc["she", "gap"] == pytest.approx(true["she_gap"], abs=3.5)


def test_planted_bias_is_found(biased):
    frame, plan, _ = biased
    assert (winobias(frame, plan)["q"] < 0.001).all()
    every = four_fifths(frame, n_perm=199, seed=1)
    ff = every[every["decides"]].set_index("rate")  # the verdict: he vs she
    assert (ff["p"] <= 0.01).all() and (ff["ratio"] < ff["null_p05"]).all()
    they = every[~every["decides"]].set_index(["comparison", "rate"])  # they is unbiased, as is he on FPR, she on FNR
    assert they.loc[("they vs he", "fpr"), "p"] > 0.05 and they.loc[("they vs she", "fnr"), "p"] > 0.05
    assert they.loc[("they vs he", "fnr"), "p"] <= 0.01 and they.loc[("they vs she", "fpr"), "p"] <= 0.01
    d = pronoun_differences(frame, plan).set_index(["measure", "pronoun_1", "pronoun_2"])
    for key in [("fnr", "he", "she"), ("fnr", "he", "they"), ("fpr", "he", "she"), ("fpr", "she", "they"),
                ("incorrect", "he", "they"), ("incorrect", "she", "they")]:
        assert d.loc[key, "q"] < 0.001, key
    # he and she are equally biased (each against its own stereotype): their incorrect shares agree
    assert d.loc[("incorrect", "he", "she"), "q"] > 0.05


def test_rare_rates_floor_the_design_effect_at_the_pooled_one():
    # wrong answers at about 1.9% (hard triples at 1% on the logit scale, job effects sd 1): per scene, 216
    # answers of 6 x 6 jobs; a zero count happens. A zero cell has no variance of its own: taking its
    # answers as independent, no zero cell covered the truth and the scenes covered 0.85 (measured);
    # with the table's pooled design effect 0.94 and 0.6 of the zero cells
    # (table3's per-scene incorrect rows, without its Overall row: that row's rare-rate floor fits a crossed
    # logistic model, 90% of each run's time, and the scenes' rows do not depend on it: checked in run 0)
    import pandas as pd

    from stereoprobe.studies.coreference.inference import rate_table

    model = Model(hard=0.01, easy=0.002, job_sd=1.0)
    true = truth(model)["incorrect"]
    d, rng = design(6), np.random.default_rng(8)
    hits, zero_hits = [], []
    for r in range(100):
        frame = simulate(d, model, rng)
        plan, order = plan_for(frame, 200, seed=r), list(pd.unique(frame["template"]))
        t3 = rate_table(plan, frame["cluster"], ~frame["correct"], np.ones(len(frame)),
                        pd.Index(order).get_indexer(frame["template"]), order).add_prefix("incorrect_")
        if r == 0:
            pd.testing.assert_frame_equal(t3, table3(frame, plan).set_index("template").iloc[:-1][t3.columns],
                                          check_names=False)
        inside = ((t3["incorrect_low"] <= true) & (true <= t3["incorrect_high"])).to_numpy()
        hits.extend(inside)
        zero_hits.extend(inside[(t3["incorrect_k"] == 0).to_numpy()])
    assert 0.91 <= np.mean(hits) <= 0.975, np.mean(hits)
    assert len(zero_hits) >= 40 and np.mean(zero_hits) >= 0.4, (len(zero_hits), np.mean(zero_hits))


def test_pooled_design_effect_by_hand():
    from stereoprobe.studies.coreference.inference import pooled_deff

    # cells at 10% of 100 with variance 18 (deff 18 / (10 * 90 / 100) = 2), 50% of 100 with 75 (deff 3), 20% of 400 with 4
    # (deff 1): the median, 2; a cell at 0% has no say; no informative cell: 1
    assert pooled_deff([10, 50, 20, 0], [18, 75, 4, 0], [100, 100, 400, 50]) == pytest.approx(2.0)
    assert pooled_deff([0, 100], [0, 0], [10, 10]) == 1.0
    assert pooled_deff([10], [0.45], [100]) == 1.0  # a design effect below 1 is not believed


def test_identical_pronouns_get_an_interval_not_a_point():
    # a deterministic model that answers they exactly as he: every resample gives the same two rates, so the
    # difference's replicates are all 0 (or differ by round-off). Before: the interval [0, 0] (and p = 2e-308
    # where round-off left a difference). Now the standard error falls back to the rates' binomial one
    d = design(4)
    frame = simulate(d, Model(), np.random.default_rng(2))
    he = frame[frame["pronoun"] == "he"].set_index("triple_id")["answer"]
    they = frame["pronoun"] == "they"
    frame.loc[they, "answer"] = he.loc[frame.loc[they, "triple_id"]].to_numpy()
    from stereoprobe.studies.coreference.frame import with_answers

    frame = with_answers(frame.drop(columns=["answer", "refused", "correct", "truth", "said", "tp", "fn", "fp", "tn"]),
                         frame["answer"])
    d = pronoun_differences(frame, plan_for(frame, 200, seed=0)).set_index(["measure", "pronoun_1", "pronoun_2"])
    row = d.loc[("incorrect", "he", "they")]
    assert row["difference"] == 0 and row["p"] == 1.0
    n = int((frame["pronoun"] == "he").sum())
    p = (row["pct_1"] / 100 * n + 0.5) / (n + 1)
    se = 100 * np.sqrt(2 * p * (1 - p) / n)
    assert row["high"] == pytest.approx(-row["low"]) and row["high"] > 1
    assert row["high"] / se == pytest.approx(float(__import__("scipy").stats.t.ppf(0.975, 15)), rel=1e-6)


def test_the_page_calls_a_four_fifths_ratio_lower_than_chance_after_holm():
    import pandas as pd

    from stereoprobe.studies.coreference.page import key_findings

    empty = pd.DataFrame({"debias": []})
    ff = pd.DataFrame({"debias": 0, "rate": ["fnr", "fpr", "ppv", "npv"], "ratio": [0.9, 0.95, 0.97, 0.99],
                       "passes": True, "p": [0.03, 0.04, 0.5, 0.6], "p_holm": [0.12, 0.12, 1.0, 1.0]})
    crit = pd.DataFrame({"debias": [0], "tp": [5], "fn": [5], "fp": [5], "tn": [5]})
    t = {"table3": pd.DataFrame({"debias": [], "template": []}), "winobias": empty, "four_fifths": ff,
         "criteria": crit, "professions": empty, "prefixes": pd.DataFrame()}
    line = next(s for s in key_findings(t, 0) if s.startswith("Separation"))
    # two raw p-values below 0.05, none after Holm over the four rates: the page follows Holm
    assert "0 are lower than shuffling" in line and "Holm" in line
    t["four_fifths"] = ff.assign(p_holm=[0.004, 0.12, 1.0, 1.0])
    line = next(s for s in key_findings(t, 0) if s.startswith("Separation"))
    assert "1 is lower than shuffling" in line and "FNR (0.90)" in line


def test_rare_overall_rate_two_way_variance_is_unbiased():
    # the rare overall rates cover about 0.89 (docs/statistics.md): not because the two-way variance is
    # wrong on average. Over runs of 6 x 6 jobs (job effects sd 1 on the logit) the root of its mean is
    # the estimate's sd (0.94 here; 1.04 over 400 runs of another stream, bench/diagnose_intervals.py).
    # Measured on these runs: the larger one-way variance alone 0.81, both sides without subtracting the
    # pairs' 1.12, the pairs' alone 0.63, without the G / (G - 1) factors 0.83. The misses come from the
    # variance moving with the estimate (correlation 0.88 here), checked too
    from stereoprobe.studies.coreference.inference import replicates

    model = Model(hard=0.01, easy=0.002, job_sd=1.0)
    d, rng = design(6), np.random.default_rng(12)
    est, var = [], []
    for r in range(150):
        frame = simulate(d, model, rng)
        plan = plan_for(frame, 100, seed=r)
        e, reps, _, den = replicates(plan, frame["cluster"], ~frame["correct"], np.ones(len(frame)),
                                     np.zeros(len(frame), int), 1)
        est.append(e[0])
        var.append(plan.crossed.variance(reps, den > 0)[0][0])
    ratio = np.sqrt(np.mean(var)) / np.std(est)
    assert 0.85 <= ratio <= 1.10, ratio
    assert np.corrcoef(est, var)[0, 1] > 0.6


def _scene_rates(wrong_in_third: int):
    """rate_table over 6 x 6 jobs, three scenes of 6 answers per pair (216 a scene): in the first two,
    every answer is wrong in the 12 pairs of two women-dominated jobs (33%, one job's answers all
    alike: a design effect far above 1); in the third, ``wrong_in_third`` wrong answers in one pair."""
    import pandas as pd

    from stereoprobe.studies.coreference.inference import make_plan, rate_table

    pairs = [(f"w{i}", f"m{j}") for i in range(6) for j in range(6)]
    rows = pd.DataFrame([{"cluster": f"{a} / {b}", "profession_a": a, "profession_b": b, "gender_a": "women",
                          "gender_b": "men", "scene": s, "wrong": s < 2 and a in ("w0", "w1")}
                         for a, b in pairs for s in range(3) for _ in range(6)])
    third = np.flatnonzero((rows["scene"] == 2).to_numpy())[:wrong_in_third]
    rows.loc[third, "wrong"] = True
    plan = make_plan(rows["cluster"], 200, seed=3, members=rows)
    return rate_table(plan, rows["cluster"], rows["wrong"].to_numpy(float), np.ones(len(rows)),
                      rows["scene"].to_numpy(), ["a", "b", "c"])


def test_a_scene_interval_is_monotone_in_its_count_under_the_pooled_design_effect():
    # docs/statistics.md (coreference, default design): the table's pooled design effect floors every cell,
    # not only cells at 0. 0 of 216 wrong gets n_eff = 216 / deff; 1 of 216 (one pair, its own design effect
    # near 1) would otherwise get n_eff near 216 and a narrower interval than 0 of 216. Measured: 0 of 216 ->
    # 0 to 37.4% (the first scenes' design effect is large), 1 of 216 -> 0.01 to 38.2%; with the floor only
    # at 0 (bench/diagnose_intervals.py's "floor where var says nothing"), 1 of 216 -> 0.03 to 2.7%
    from scipy import stats

    zero, one = _scene_rates(0).loc["c"], _scene_rates(1).loc["c"]
    assert zero["k"] == 0 and one["k"] == 1 and zero["low"] == 0.0
    # wider than 216 independent answers' Jeffreys upper end (beta(0.5, 216.5) 97.5%: 1.16%)
    assert zero["high"] > 100 * stats.beta.ppf(0.975, 0.5, 216.5) + 0.5
    assert one["low"] >= zero["low"] and one["high"] >= zero["high"]


def _three_by_three(counts):
    """Table 3's Overall row of 3 x 3 jobs, 42 answers a pair, ``counts[i][j]`` wrong in pair (w_i, m_j)."""
    import pandas as pd

    from stereoprobe.studies.coreference.inference import make_plan, rate_table

    rows = pd.DataFrame([{"cluster": f"w{i} / m{j}", "profession_a": f"w{i}", "profession_b": f"m{j}",
                          "gender_a": "women", "gender_b": "men", "k": counts[i][j], "n": 42}
                         for i in range(3) for j in range(3)])
    plan = make_plan(rows["cluster"], 400, seed=1, members=rows)
    return rate_table(plan, rows["cluster"], rows["k"].to_numpy(float), rows["n"].to_numpy(float),
                      np.zeros(9, int), ["all"], total="Overall").loc["Overall"]


def test_the_overall_interval_of_three_jobs_a_side_reaches_its_easiest_and_hardest_jobs():
    # docs/statistics.md, "Overall rates where jobs differ strongly". Pair (w_i, m_j) has 2 + 3i + 3j wrong of 42:
    # 72 of 378 in all, 19.05%. Three jobs a side: t is read on twice the smaller side's jobs minus 1
    # (inference.reading_df: 4 df, t = 2.776), so the quantiles are at Phi(-0.8 * 2.776) = 1.3% and Phi(1.2 *
    # 2.776) = 99.96% of 20,000 replicates. Below, the replicates of the pairs' rates as observed: the smallest
    # is the pair (w0, m0) alone, 2 / 42 = 4.76%, drawn when both sides draw their easiest job three times, in
    # 1 of 27^2 = 729 replicates (0.14%): fewer than 1.3%, so the limit lies above it (t on the smaller side's 2
    # df read 8e-6, and the limit was that pair alone). Above, the pairs' rates drawn from their posteriors
    # Beta(k + p, 42 - k + 1 - p), p = 72 / 378: a replicate is a weighted mean of them, so it never rises above
    # the hardest pair's (14 of 42) highest level, beta(14.19, 28.81)'s 255.5 / 256 point, 54.71%; the pair
    # (w2, m2) alone, at levels drawn for it in about 27 replicates, reaches above its own 14 / 42 = 33.33%,
    # where the rule without posteriors stopped.
    over = _three_by_three([[2 + 3 * i + 3 * j for j in range(3)] for i in range(3)])
    assert over["pct"] == pytest.approx(100 * 72 / 378)
    assert 100 * 2 / 42 < over["low"] < over["pct"] and 100 * 14 / 42 < over["high"] <= 54.71


def test_the_overall_interval_of_alike_pairs_is_never_inside_the_jeffreys_interval_of_its_counts():
    # Every pair 2 of 42 wrong: every replicate of the observed rates is 18 / 378 = 4.76%, so the lower limit is
    # the Jeffreys interval's, beta(18.5, 360.5)'s 2.5% point, 2.95%; the pairs' posteriors Beta(2 + p, 40 + 1 -
    # p), p = 18 / 378, still vary, so with t(4) the upper limit reaches at least the Jeffreys 97.5% point (7.26%)
    # and at most one pair's highest level (beta(2.05, 40.95)'s 255.5 / 256 point, 18.70%); no wrong answer at
    # all: every replicate is 0, so 0 to beta(0.5, 378.5)'s 97.5% point, 0.66% (not a point at 0)
    over = _three_by_three([[2] * 3] * 3)
    assert over["low"] == pytest.approx(2.949, abs=0.001) and 7.263 <= over["high"] <= 18.70
    none = _three_by_three([[0] * 3] * 3)
    assert none["low"] == 0 and none["high"] == pytest.approx(0.662, abs=0.001)
