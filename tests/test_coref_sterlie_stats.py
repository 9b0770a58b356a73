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


def test_intervals_follow_the_counts_not_which_sample_was_wrong():
    # The same answers to every prompt, with each prompt's wrong samples moved to other sample
    # numbers (as the order requests arrive in moves them): every interval must be the same.
    import pandas as pd

    from stereoprobe.studies.coreference.sterlie import BASELINE, sector_probes
    from stereoprobe.studies.coreference.records import CorefRecord
    from stereoprobe.studies.coreference.sterlie_score import sample_frame

    rng = np.random.default_rng(11)
    probes = [p for p in sector_probes() if p.pronoun != BASELINE]
    wrong = {p.probe_id: rng.random(20) < 0.3 for p in probes}

    def frame(shuffle):
        recs = []
        for p in probes:
            w = rng.permutation(wrong[p.probe_id]) if shuffle else wrong[p.probe_id]
            other = "B" if p.expected == "A" else "A"
            recs += [CorefRecord.of(p, s, "chat", answer=other if x else p.expected, raw="") for s, x in enumerate(w)]
        return sample_frame(recs)

    a, b = frame(False), frame(True)
    assert not (a["correct"].to_numpy() == b["correct"].to_numpy()).all()  # the samples did move
    pd.testing.assert_frame_equal(separation(a, 200, 3, 0.95), separation(b, 200, 3, 0.95))
    pd.testing.assert_frame_equal(table6(a, 200, 3, 0.95), table6(b, 200, 3, 0.95))
