"""How often `stereoprobe gate` blocks a release by chance (docs/gate.md, "One family").

Each test runs the public ``stereoprobe.gate.gate`` many times on synthetic values with a
known truth (a stand-in study whose metrics module hands the values; fixed seeds), so
today's gate and tomorrow's are measured the same way:

- nine regression checks from few jobs (t intervals on 4 degrees of freedom), every
  change exactly at its allowance: read as normal intervals and adjusted by BH, the gate
  blocked 8.1% of these releases (the review: 4.3-5.8%), not the 2.5% the docs promise;
- a ``"*"`` rule over 9 or 20 groups whose shares all sit at the threshold (Jeffreys
  intervals over binomial samples, as a profession's share): judged one by one, 20.2%
  and 40.7% of these gates failed (the review: 14-16% and 22-26%);
- a real excess among fine checks is still found, and a fine check beside it is marked
  fail in at most about 2.5% of gates under Holm (today's gate: 18.6%).

Today's figures were measured by running these tests against main's gate (its judge,
policy, output and ``gate``; only ``Value`` taking the new fields), where each fails.

The rates are counted over 1,000 simulated gates (a rate's standard error about 0.5
points at 2.5%); the bounds leave room for it and sit far from the defects' rates.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import stereoprobe.gate as gate_module
from stereoprobe.gate.values import MetricSpec, Value, scope

RUNS = 1000


class Stand:
    """A stand-in study: one share metric ``rate`` per ``group``, paired, whose values and
    run-minus-baseline differences are whatever the simulation last put here."""

    SPECS = {"rate": MetricSpec("rate", "a share per group", {"group": None}, paired=True)}

    def __init__(self) -> None:
        self.current: list[Value] = []
        self.diffs: list[Value] = []

    def values(self, run):
        return self.current

    def differences(self, baseline, run):
        return self.diffs


@pytest.fixture
def stand(monkeypatch, tmp_path):
    study = Stand()
    monkeypatch.setattr(gate_module, "_metrics", lambda name: study)
    monkeypatch.setattr(gate_module, "_study_of", lambda run: "coreference")
    monkeypatch.setattr(gate_module, "_catalog", lambda run: None)
    study.tmp = tmp_path
    return study


def write_policy(tmp_path, text):
    p = tmp_path / "policy.toml"
    p.write_text(text, encoding="utf-8")
    return p


def t_differences(rng, truth, se, df, groups, runs=RUNS):
    """Per simulated gate, run-minus-baseline differences as a compare over df + 1 jobs gives
    them: the estimate normal around the truth, its standard error estimated on ``df``
    degrees of freedom, the interval estimate +/- t(df) se."""
    from scipy import stats

    est = truth + se * rng.standard_normal((runs, groups))
    half = stats.t.ppf(0.975, df) * se * np.sqrt(rng.chisquare(df, (runs, groups)) / df)
    return [[Value("rate", scope(group=f"g{i}"), e, e - h, e + h, df + 1, method="t", df=df)
             for i, (e, h) in enumerate(zip(row_e.tolist(), row_h.tolist()))] for row_e, row_h in zip(est, half)]


def jeffreys_shares(rng, truths, n, runs=RUNS):
    """Per simulated gate, each group's share of ``n`` independent samples at its true share,
    with its Jeffreys interval (generation.stats.jeffreys, a profession's share in the
    generation studies)."""
    from stereoprobe.generation.stats import jeffreys

    k = rng.binomial(n, np.broadcast_to(truths, (runs, len(truths))))
    low, high = jeffreys(k, np.full(k.shape, n))
    return [[Value("rate", scope(group=f"g{i}"), ki / n, lo, hi, n, method="jeffreys")
             for i, (ki, lo, hi) in enumerate(zip(rk.tolist(), rl.tolist(), rh.tolist()))]
            for rk, rl, rh in zip(k, low, high)]


def test_nine_regression_checks_at_df4_at_their_allowance_block_at_most_the_promised_rate(stand):
    """The issue's case: 9 checks, 5 jobs (df 4), every true change exactly at the allowance
    (0.02). Each check alone fails 2.5% of the time; Holm over the nine keeps the release's
    chance failure at most 2.5%. Today's gate (normal p, BH) blocked 4.3-5.8%."""
    policy = write_policy(stand.tmp, '[[rule]]\nstudy = "coreference"\nmetric = "rate"\ngroup = "*"\n'
                                     'max_increase = 0.02\n')
    stand.current = [Value("rate", scope(group=f"g{i}"), 0.5, 0.4, 0.6) for i in range(9)]
    blocked = 0
    for stand.diffs in t_differences(np.random.default_rng(36), 0.02, 0.01, 4, 9):
        blocked += gate_module.gate(["cand"], policy, "base").exit_code == 1
    rate = blocked / RUNS
    assert rate <= 0.03, rate  # measured 0.026 (26 of 1,000); today's gate 0.081
    assert rate >= 0.01, rate  # not a gate that never fails: Holm's level is used, not wasted


@pytest.mark.parametrize("groups, old", [(9, "20.2%"), (20, "40.7%")])
def test_a_star_rule_over_groups_at_the_threshold_fails_family_wise_at_most_the_promised_rate(stand, groups, old):
    """A "*" rule ``max = 0.30`` over 9 or 20 groups, each group's true share exactly 0.30,
    50 samples each (Jeffreys intervals). A fine group is marked fail when its interval lies
    wholly above 0.30; Holm over the groups keeps any such mark to at most about 2.5% of
    gates. Today's gate judged each group alone: ``old`` of the gates failed."""
    policy = write_policy(stand.tmp, '[[rule]]\nstudy = "coreference"\nmetric = "rate"\ngroup = "*"\nmax = 0.30\n')
    failed = 0
    for stand.current in jeffreys_shares(np.random.default_rng(1000 + groups), np.full(groups, 0.30), 50):
        result = gate_module.gate(["cand"], policy)
        failed += any(c.verdict == "fail" for c in result.checks)
    rate = failed / RUNS
    assert rate <= 0.035, rate  # measured 0.021 at 9 groups and 0.031 at 20
    assert rate >= 0.005, rate


def test_a_real_excess_fails_and_the_fine_checks_beside_it_rarely_do(stand):
    """Nine groups at the threshold 0.30 and one at 0.60, 50 samples each: the bad group's
    share is 0.60 +/- 0.07, about 4.3 standard errors above 0.30 (p about 1e-5; Holm's bar
    for the smallest of 10 is 0.0025, about 2.8 standard errors), so it is marked fail in
    most gates, and a fine group in at most about 2.5%."""
    policy = write_policy(stand.tmp, '[[rule]]\nstudy = "coreference"\nmetric = "rate"\ngroup = "*"\nmax = 0.30\n')
    found = fine = 0
    for stand.current in jeffreys_shares(np.random.default_rng(7), np.array([0.30] * 9 + [0.60]), 50):
        verdicts = [c.verdict for c in gate_module.gate(["cand"], policy).checks]
        found += verdicts[9] == "fail"
        fine += "fail" in verdicts[:9]
    assert found / RUNS >= 0.85, found  # measured 0.94
    assert fine / RUNS <= 0.035, fine  # measured 0.017; today's gate 0.186


def test_the_contrast_df_is_the_one_inference_contrast_used():
    """coreference's compare hands the gate the degrees of freedom of its interval
    (paired.contrast_df, read from the same crossed plan as inference.contrast): the
    interval's half-width and the two-sided p-value must both be t(df)'s, and not a
    normal's, on a 4 x 4 design (df 3; pairs' floor: 15)."""
    from scipy import stats

    from stereoprobe.studies.coreference.inference import contrast, plan_for, replicates
    from stereoprobe.studies.coreference.paired import contrast_df

    rng = np.random.default_rng(5)
    frame = _pair_frame(rng, [f"w{i}" for i in range(4)], [f"m{i}" for i in range(4)])
    plan = plan_for(frame, 400, seed=1, level=0.95)
    keys = (frame["side"] == "b").to_numpy().astype(np.int64)
    est, reps, _, mden = replicates(plan, frame["cluster"], frame["wrong"].to_numpy(float), np.ones(len(frame)), keys, 2)
    weights = np.array([-1.0, 1.0])
    out = contrast(plan, est, reps, weights, mden)
    df = contrast_df(plan, reps, weights, mden)
    assert df in (3.0, 15.0)
    se = (out["high"] - out["low"]) / (2 * stats.t.ppf(0.975, df))
    assert out["p"] == pytest.approx(2 * stats.t.sf(abs(out["difference"]) / se, df), rel=1e-6)
    normal_se = (out["high"] - out["low"]) / (2 * 1.959964)
    assert not math.isclose(out["p"], 2 * stats.norm.sf(abs(out["difference"]) / normal_se), rel_tol=1e-3)


def _pair_frame(rng, women, men):
    """Answers of a 4 x 4 crossed design: every woman-man pair, 6 answers a side, a side's
    wrong answers drawn with job effects (so the two-way variance is not floored)."""
    import pandas as pd

    effect = {j: rng.normal(0, 1) for j in women + men}
    rows = []
    for w in women:
        for m in men:
            for side, shift in (("a", 0.0), ("b", 0.4)):
                p = 1 / (1 + math.exp(-(-1.0 + effect[w] + effect[m] + shift)))
                rows += [{"profession_a": w, "profession_b": m, "gender_a": "women", "gender_b": "men",
                          "cluster": f"{w} / {m}", "side": side, "wrong": rng.random() < p} for _ in range(6)]
    return pd.DataFrame(rows)


def test_the_family_is_named_in_every_output(stand):
    from stereoprobe.gate.output import judged_lines, junit, markdown, to_json

    policy = write_policy(stand.tmp, 'family = "global"\n[[rule]]\nstudy = "coreference"\nmetric = "rate"\n'
                                     'group = "*"\nmax = 0.30\n')
    stand.current = [Value("rate", scope(group="a"), 0.5, 0.4, 0.6, method="jeffreys"),
                     Value("rate", scope(group="b"), 0.2, 0.1, 0.3, method="jeffreys")]
    result = gate_module.gate(["cand"], policy)
    assert result.family == "global" and result.family_size == 2
    assert [c.verdict for c in result.checks] == ["fail", "pass"]
    for text in (markdown(result), junit(result), to_json(result), "\n".join(judged_lines(result))):
        assert "Family: global, one verdict for the release over the 2 checks" in text
    assert '"method": "global"' in to_json(result) and 'name="family" value="global"' in junit(result)
