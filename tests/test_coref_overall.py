"""Table 3's overall rates where jobs differ strongly (issue 36): one interval rule at every rate.

The overall rate of a run is ``100 sum k / sum n`` over its pairs of jobs; its interval
(:func:`stereoprobe.studies.coreference.inference.overall_interval`) is the pair of quantiles, at ``Phi(-0.8 t)`` and
``Phi(1.2 t)``, of the rate's replicates with both sides' jobs drawn at once (the upper with each pair's rate
from its posterior), never inside the Jeffreys interval of the counts. Until issue 36 a rate under 5% got the Jeffreys interval at the larger of the two-way variance and a
model's floor, a rate of 5% or more the two-way interval alone: the interval jumped at 5%, and one more wrong answer
could lower the upper limit. Counts are drawn per pair (42 answers a pair: 7 scenes x 6 answers, as in a run), in
the two families bench/sim_overall_rates.py runs: job effects normal on the logit (the third review's), and the
project's mixture (tests/coref_synth.py: hard triples, pair effects of their own).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

pytestmark = pytest.mark.long(12)  # its longest test, seconds: run first, longest first (tests/conftest.py)


def _design(women: int, men: int | None = None):
    import pandas as pd

    men = women if men is None else men
    return pd.DataFrame([{"cluster": f"w{i} / m{j}", "profession_a": f"w{i}", "profession_b": f"m{j}",
                          "gender_a": "women", "gender_b": "men"} for i in range(women) for j in range(men)])


def _overall(plan, rows, k, n):
    from stereoprobe.studies.coreference.inference import rate_table

    return rate_table(plan, rows["cluster"], np.asarray(k, float), np.asarray(n, float), np.zeros(len(rows), int),
                      ["all"], total="Overall").loc["Overall"]


def test_one_more_wrong_answer_at_5_percent_does_not_lower_the_upper_limit():
    # The review's case (issue 36): 10 x 10 jobs, 42 answers a pair, 209 wrong answers (4.976%) and then 210
    # (5.000%). Here the women's jobs have effects 1.4 z_i and the men's 0.6 z_j on the logit (z: the normal
    # quantiles of (i + 1/2) / 10), beta = -3.75, each pair's count its expectation rounded: 209 in all; the 210th
    # goes to the pair of the two hardest jobs, whose count is already the largest. With the switch at 5% (the
    # code before issue 36) the upper limit fell, 11.60% -> 11.24%: the model's floor held under 5% and not at 5%,
    # so a gate rule `max = 0.115` flipped from fail to pass with one more wrong answer. Now one rule holds at both
    # counts, the upper limit rises and the lower does not fall (measured: 1.90-12.69% -> 1.90-12.78%).
    from scipy import special, stats

    from stereoprobe.studies.coreference.inference import make_plan

    rows = _design(10)
    z = stats.norm.ppf((np.arange(10) + 0.5) / 10)
    k = np.floor(42 * special.expit(-3.75 + 1.4 * z[:, None] + 0.6 * z[None, :]).ravel() + 0.5)
    assert k.sum() == 209
    plan = make_plan(rows["cluster"], 1000, seed=0, members=rows)
    before = _overall(plan, rows, k, np.full(100, 42))
    k[np.argmax(k)] += 1
    after = _overall(plan, rows, k, np.full(100, 42))
    assert before["pct"] == pytest.approx(4.976, abs=0.001) and after["pct"] == pytest.approx(5.0, abs=1e-9)
    assert after["high"] >= before["high"] and after["low"] >= before["low"]
    # the values the comment above quotes, to three decimals: this run's limits pin the reading rule (REACH,
    # STRETCH, CONCENTRATION, the plan's seed), which the coverage checks below cannot tell apart from a neighbour
    # (the upper limit read at Phi(1.08 t) instead of Phi(1.2 t) passed every other test in this file)
    assert (before["low"], before["high"], after["high"]) == pytest.approx((1.905, 12.688, 12.779), abs=0.001)


@settings(max_examples=60, deadline=None)
@example(women=2, men=2, n=[1] * 36, k=[0] * 36, pair=0)  # no wrong answer at all, then one
@example(women=3, men=2, n=[5] * 36, k=[5] * 5 + [4] + [0] * 30, pair=5)  # the last right answer made wrong
@example(women=3, men=3, n=[42] * 36, k=[0] * 8 + [30] + [0] * 27, pair=0)  # an easy pair among hard ones
@given(women=st.integers(2, 6), men=st.integers(2, 6),
       n=st.lists(st.integers(1, 50), min_size=36, max_size=36),
       k=st.lists(st.integers(0, 50), min_size=36, max_size=36), pair=st.integers(0, 35))
def test_one_more_wrong_answer_in_any_pair_never_lowers_a_limit(women, men, n, k, pair):
    # Any counts on women x men jobs (each pair k of n wrong), then one right answer of one pair made wrong. Every
    # replicate of the rate is sum_u w_u k_u / sum_u w_u n_u with weights w_u >= 0 that the counts do not choose,
    # so each replicate, each of their quantiles and the Jeffreys limits can only rise; the interval before issue
    # 36 learnt the jobs' spread from the counts and fell in about half of such additions (an answer in an easy
    # pair makes the jobs look more alike). Drawn: the design, the counts, the pair.
    from stereoprobe.studies.coreference.inference import make_plan

    rows = _design(women, men)
    size = len(rows)
    n = np.asarray(n[:size], float)  # the lists hold 36, enough for 6 x 6 jobs
    k = np.minimum(np.asarray(k[:size], float), n)
    u = pair % size
    if k[u] == n[u]:  # no right answer left in that pair: take the first pair that has one
        free = np.flatnonzero(k < n)
        if not free.size:
            return
        u = int(free[0])
    plan = make_plan(rows["cluster"], 50, seed=1, members=rows)
    before = _overall(plan, rows, k, n)
    k[u] += 1
    after = _overall(plan, rows, k, n)
    assert after["pct"] > before["pct"]
    assert after["high"] >= before["high"] and after["low"] >= before["low"]


def _runs(family: str, runs: int, seed: int, k: int = 10, **par):
    """(estimate, low, high) of the overall rate in ``runs`` simulated runs of k x k jobs with 42 answers a pair
    (14 triples of 3), and the truth (%). ``normal``: a pair's answers wrong with probability logistic(beta + a +
    b), job effects N(0, sd) a side, beta set so that the rate of jobs like these is ``rate`` %; ``mixture``:
    tests/coref_synth.py's model (a triple hard with probability logistic(logit(hard) + a + b + v), v ~ N(0, 1) the
    pair's own, its answers then wrong with probability 1/2, else ``easy``)."""
    from coref_synth import Model
    from scipy import optimize, special

    from stereoprobe.studies.coreference.inference import make_plan

    x, w = np.polynomial.hermite_e.hermegauss(80)
    w = w / w.sum()
    if family == "normal":
        beta = optimize.brentq(lambda b: w @ special.expit(b + np.sqrt(2) * par["sd"] * x) - par["rate"] / 100, -20, 10)
        truth = par["rate"]
    else:
        model = Model(hard=par["hard"], easy=par["easy"], job_sd=par["sd"])
        truth = 100 * model.wrong()
    rows = _design(k)
    plan = make_plan(rows["cluster"], 200, seed=0, members=rows)  # the counts change from run to run, the plan not
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(runs):
        a, b = rng.normal(0, par["sd"], k), rng.normal(0, par["sd"], k)
        effect = (a[:, None] + b[None, :]).ravel()
        if family == "normal":
            counts = rng.binomial(42, special.expit(beta + effect))
        else:
            hard = rng.binomial(14, special.expit(special.logit(par["hard"]) + effect + rng.normal(0, 1, k * k)))
            counts = rng.binomial(3 * hard, 0.5) + rng.binomial(3 * (14 - hard), par["easy"])
        t = _overall(plan, rows, counts, np.full(k * k, 42))
        out.append((t["pct"], t["low"], t["high"]))
    return np.array(out), truth


def _check(runs, truth):
    est, low, high = runs.T
    return np.mean(low > truth), np.mean(high < truth), np.mean(high - low) / (3.92 * est.std())


def test_overall_rates_cover_a_known_truth_when_jobs_differ_strongly_normal_family():
    # 150 runs of 10 x 10 jobs, job effects sd 1 on the logit a side, 2% wrong (the review's worst case). Measured:
    # the rule before issue 36 missed above the truth in 9-11% of such runs (coverage 0.88-0.90); this one (pairs'
    # rates drawn from their posteriors, the lower limit at Phi(-0.8 t)) misses above in 2.0% and below in 1.3%,
    # at 1.19 times the oracle width (3.92 times the estimate's sd over the runs; the lower limit at Phi(-t): none
    # below, 1.23; the 2026-11-27 rule, without posteriors: 4.0% above at 1.32).
    # With 150 runs a coverage's Monte-Carlo se is about 0.018: the bounds catch a return to the old rule (misses
    # above 0.10 or more) and an interval wider than 1.6 oracle widths; they cannot tell 0.93 from 0.96.
    runs, truth = _runs("normal", 150, seed=36, sd=1.0, rate=2.0)
    below, above, width = _check(runs, truth)
    assert above <= 0.075 and below <= 0.03 and 0.9 < width < 1.6


def test_overall_rates_cover_a_known_truth_in_the_mixture_family():
    # 150 runs of 10 x 10 jobs in the project's mixture (hard 0.2, easy 0.02, job sd 0.5, pair sd 1: 14.1% wrong).
    # Measured: 1.3% of runs miss below and none above, at 1.57 times the oracle width (the lower limit at
    # Phi(-t) instead of Phi(-0.8 t): no miss, 1.69; the 2026-11-27 rule, without the pairs' posteriors: 1.81):
    # the interval over-covers here (pairs' own noise, large in this family, counts about three times in the
    # replicates' variance; the bench has the figures). The bounds catch an interval that misses often on either
    # side and one as wide as either earlier rule's.
    runs, truth = _runs("mixture", 150, seed=37, hard=0.2, easy=0.02, sd=0.5)
    below, above, width = _check(runs, truth)
    assert above <= 0.05 and below <= 0.05 and 1.0 < width < 1.64


def test_overall_rates_at_5_x_5_jobs_are_not_read_deep_in_the_replicates_tail():
    # With 5 jobs a side t on the smaller side's 4 df put the upper limit at Phi(1.2 t), the replicates' 99.96%
    # quantile: far out in a skewed tail. Measured on these runs (200 a family, 5 x 5 jobs, 42 answers a pair),
    # t on 4 df against t on inference.reading_df's 8: job effects sd 1 at 5% wrong, misses 0.0% below / 0.5%
    # above at 1.51 oracle widths -> 0.5% / 3.0% at 1.20; the mixture (14.1%), none / none at 2.17 -> 1.0% / none
    # at 1.71; jobs alike (sd 0, 2%: the gate's served runs), none at 4.41 -> 0.5% / none at 3.21 (there the
    # interval cannot know from 5 jobs that they are alike). bench/results/overall-few-jobs-20261128.md has 400
    # runs a cell at 3, 4 and 5 jobs a side. The bounds fail with t on 4 df (1.51 > 1.35, 2.17 > 1.9, 4.41 > 3.6)
    # and with an interval that misses often.
    runs, truth = _runs("normal", 200, seed=38, k=5, sd=1.0, rate=5.0)
    below, above, width = _check(runs, truth)
    assert above <= 0.075 and below <= 0.03 and 0.9 < width < 1.35
    runs, truth = _runs("mixture", 200, seed=40, k=5, hard=0.2, easy=0.02, sd=0.5)
    below, above, width = _check(runs, truth)
    assert above <= 0.05 and below <= 0.05 and 1.0 < width < 1.9
    runs, truth = _runs("normal", 200, seed=39, k=5, sd=0.0, rate=2.0)
    below, above, width = _check(runs, truth)
    assert above <= 0.03 and below <= 0.03 and width < 3.6
