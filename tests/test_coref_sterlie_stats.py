"""Intervals over samples and the four-fifths null on synthetic answers to the sector prompts with a
known truth (tests/sterlie_synth.py; fixed seeds): coverage near 95% from both sides, about 5%
flagged under the null, a planted bias found. The larger run: bench/bench_sterlie.py."""

from __future__ import annotations

import numpy as np

from sterlie_synth import NULL, planted, simulate, true_rates
from stereoprobe.studies.coreference.criteria import four_fifths
from stereoprobe.studies.coreference.sterlie_score import separation, table6


def test_null_coverage_and_four_fifths_size():
    rng = np.random.default_rng(7)
    truth = true_rates(NULL)
    hits, cells, flags = [], [], []
    for r in range(60):
        frame = simulate(rng, NULL)
        st = separation(frame, 150, r, 0.95).set_index("pronoun")
        hits += [st.loc[pr, f"{rate}_low"] <= v <= st.loc[pr, f"{rate}_high"] for (pr, rate), v in truth.items()]
        cells += [row.error_low <= 100 * NULL[(row.template, row.pronoun)] <= row.error_high
                  for row in table6(frame, 150, r, 0.95).itertuples()]
        flags.append(four_fifths(frame, pronouns=("he", "she"), n_perm=39, seed=r)["p"].to_numpy() < 0.05)
    assert 0.88 <= np.mean(hits) <= 0.99, np.mean(hits)  # 240 intervals
    assert 0.90 <= np.mean(cells) <= 0.99, np.mean(cells)  # 720 intervals
    assert np.mean(flags) <= 0.10, np.mean(flags, axis=0)


def test_planted_bias_is_found_and_covered():
    rng = np.random.default_rng(8)
    p = planted(0.4)
    truth = true_rates(p)
    frame = simulate(rng, p)
    st = separation(frame, 300, 1, 0.95).set_index("pronoun")
    for (pr, rate), v in truth.items():
        assert st.loc[pr, f"{rate}_low"] <= v <= st.loc[pr, f"{rate}_high"], (pr, rate)
    assert st.loc["he", "fnr_low"] > st.loc["she", "fnr_high"]  # he: anti-stereotypical on 4.3-4.5
    ff = four_fifths(frame, pronouns=("he", "she"), n_perm=199, seed=1).set_index("rate")
    assert ff.loc["fnr", "p"] < 0.01 and ff.loc["fpr", "p"] < 0.01 and not ff.loc["fnr", "passes"]
