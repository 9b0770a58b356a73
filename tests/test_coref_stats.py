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

from coref_synth import Model, design, simulate, truth
from stereoprobe.studies.coreference.criteria import four_fifths, pronoun_differences, sterlie
from stereoprobe.studies.coreference.inference import make_plan
from stereoprobe.studies.coreference.tables import table3, winobias

RUNS = 300  # simulated runs of the null
BOOT = 300
RATES = ("fnr", "fpr", "ppv", "npv")


@pytest.fixture(scope="module")
def null_runs():
    """Coverage hits and test flags over RUNS null runs of 6 x 6 jobs (36 pairs, 1,512 prompts)."""
    probes = design(6)
    model = Model(hard=0.2, easy=0.02)
    true = truth(model)
    rng = np.random.default_rng(20261124)
    hits: dict[str, list[bool]] = {"overall": [], "template_answers": [], "template_triples": [], "sterlie": []}
    flags: dict[str, list] = {"four_fifths": [], "differences": [], "family": [], "winobias": []}
    for r in range(RUNS):
        frame = simulate(probes, model, rng)
        plan = make_plan(frame["cluster"], BOOT, seed=r)
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
        flags["four_fifths"].append((four_fifths(frame, n_perm=99, seed=r)["p"] < 0.05).to_numpy())
        d = pronoun_differences(frame, plan)
        flags["differences"].append((d["p"] < 0.05).to_numpy())
        flags["family"].append(bool((d["q"] < 0.05).any()))
        flags["winobias"].append((winobias(frame, plan)["p"] < 0.05).to_numpy())
    return {k: np.mean(v) for k, v in hits.items()}, {k: np.mean(v, axis=0) for k, v in flags.items()}


def test_null_intervals_cover_about_95_percent_from_above_and_below(null_runs):
    coverage, _ = null_runs
    # overall incorrect / inconsistent / binary (900 intervals); FNR FPR PPV NPV x 3 pronouns (3,600);
    # incorrect per template (2,100)
    for key in ("overall", "sterlie", "template_answers"):
        assert 0.93 <= coverage[key] <= 0.97, (key, coverage[key])
    # inconsistent and binary per template: 72 triples each here (95.8% with the Jeffreys
    # interval; 97.4% with Clopper-Pearson's, which is too wide: docs/coreference.md)
    assert 0.93 <= coverage["template_triples"] <= 0.97, coverage["template_triples"]


def test_null_tests_flag_about_5_percent(null_runs):
    _, flags = null_runs
    assert (flags["four_fifths"] <= 0.08).all(), flags["four_fifths"]  # each rate's permutation test
    assert 0.02 <= flags["differences"].mean() <= 0.07, flags["differences"]  # 15 paired tests
    assert flags["differences"].max() <= 0.09
    assert flags["family"] <= 0.07  # any BH q < 0.05 in the family of 15
    assert (flags["winobias"] <= 0.09).all(), flags["winobias"]


@pytest.fixture(scope="module")
def biased():
    model = Model(hard=0.2, easy=0.02, bias=0.25)
    frame = simulate(design(20), model, np.random.default_rng(7))  # the full default design
    return frame, make_plan(frame["cluster"], 500, seed=3), truth(model)


def test_planted_bias_rates_come_out_at_the_values_it_implies(biased):
    frame, plan, true = biased
    t3 = table3(frame, plan).set_index("template").loc["Overall"]
    for m in ("incorrect", "inconsistent", "binary_inconsistent"):
        assert t3[f"{m}_pct"] == pytest.approx(true[m], abs=2.0), m
    st = sterlie(frame, plan).set_index("pronoun")
    for p in ("he", "she", "they"):
        for rate in RATES:
            assert st.loc[p, f"{rate}_pct"] == pytest.approx(true[f"{p}_{rate}"], abs=2.0), (p, rate)
    wb = winobias(frame, plan).set_index("pronoun")
    assert wb.loc["he", "gap"] == pytest.approx(true["he_gap"], abs=2.0)
    assert wb.loc["she", "gap"] == pytest.approx(true["she_gap"], abs=2.0)


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
