"""Paired differences between two sets of coreference answers (coreference/paired.py: compare of
two runs, and a prefix against none), on synthetic runs with a known truth (tests/coref_synth.py).

Null: two runs of the same model answer the same prompts (the prompts' difficulty shared, the
answers drawn independently): every difference is 0 in truth; the intervals must cover 0
about 95% of the time (not much more: pairing must narrow them) and the tests flag about 5%.
Planted: run B answers by the pronoun's stereotype in 25% of the anti-stereotypical prompts
more: the differences it implies are found and come out at their true size, the ones it
does not imply are not flagged.
"""

from __future__ import annotations

import numpy as np
import pytest

from coref_synth import Model, design, simulate_pair, truth
from stereoprobe.studies.coreference.inference import plan_for
from stereoprobe.studies.coreference.paired import align, changed, paired_differences

pytestmark = pytest.mark.long(8)  # its longest test, seconds: run first, longest first (tests/conftest.py)

REPS = 100
BOOT = 300


@pytest.fixture(scope="module")
def null():
    d = design(5)  # 25 pairs of professions, 1,050 prompts
    rng = np.random.default_rng(20261125)
    cover, flagged, family = [], [], []
    for r in range(REPS):
        fa, fb = align(*simulate_pair(d, Model(), Model(), rng))
        out = paired_differences(fa, fb, plan_for(fa, BOOT, seed=r)).dropna(subset=["low"])
        cover.append(((out.low <= 0) & (0 <= out.high)).to_numpy())
        flagged.append((out.p < 0.05).to_numpy())
        family.append(bool((out.q < 0.05).any()))
    return np.concatenate(cover), np.concatenate(flagged), np.mean(family)


def test_null_paired_intervals_cover_zero_about_95_percent(null):
    cover, flagged, family = null
    assert len(cover) > 30 * REPS
    assert 0.93 <= cover.mean() <= 0.98, cover.mean()
    assert 0.02 <= flagged.mean() <= 0.07, flagged.mean()
    assert family <= 0.10, family


def test_a_planted_difference_is_found_at_its_size():
    d = design(6)
    a, b = Model(), Model(bias=0.25)
    fa, fb = align(*simulate_pair(d, a, b, np.random.default_rng(11)))
    plan = plan_for(fa, 500, seed=2)
    out = paired_differences(fa, fb, plan)
    ta, tb = truth(a), truth(b)
    row = lambda m, t="all", p="all": out[(out.measure == m) & (out.template == t) & (out.pronoun == p)].iloc[0]  # noqa: E731
    for m, key in (("incorrect", "incorrect"), ("inconsistent", "inconsistent")):
        r = row(m, "Overall")
        assert r.q < 0.001 and r.low < tb[key] - ta[key] < r.high, (m, r.difference, tb[key] - ta[key])
    r = row("winobias_gap", p="he")  # a difference of differences over 6 jobs a side: p about 0.003
    assert r.p < 0.01 and r.q < 0.05 and r.difference == pytest.approx(tb["he_gap"] - ta["he_gap"], abs=6)
    r = row("fnr", p="he")
    assert r.p < 0.01 and r.q < 0.05 and r.low < tb["he_fnr"] - ta["he_fnr"] < r.high
    for m, p in (("fnr", "they"), ("fpr", "they"), ("fpr", "he"), ("fnr", "she")):  # the bias does not touch these
        assert row(m, p=p).q > 0.05, (m, p)
    share = changed(fa, fb, plan).iloc[0]
    assert 0 < share.low < share.pct < share.high


def test_identical_answers_differ_by_nothing():
    d = design(3)
    fa, _ = simulate_pair(d, Model(), Model(), np.random.default_rng(1))
    fa, fb = align(fa, fa.copy())
    out = paired_differences(fa, fb, plan_for(fa, 200, seed=0))
    assert (out.difference.abs() < 1e-12).all() and (out.q == 1).all()
    assert changed(fa, fb, plan_for(fa, 200)).pct.tolist() == [0.0]
