"""Table 3's overall rates where jobs differ strongly (issue 36): one interval rule at every rate, at a known truth.

The overall rate of a run is ``100 sum k / sum n`` over its pairs of jobs; its interval
(:func:`stereoprobe.studies.coreference.inference.overall_interval`) is a t interval on the logit at the crossed
logistic model's standard error of the observed rate (:func:`stereoprobe.stats.mixed.rate_interval`). Until issue
36 an overall rate under 5% got the Jeffreys interval at the larger of the two-way variance and the model's
standard error of beta carried to the rate at the observed rate, and a rate of 5% or more the two-way interval:
the interval jumped at 5%, and a run that drew no hard job got a low rate and a small floor. Counts are drawn per
pair (42 answers a pair: 7 scenes x 6 answers), with job effects normal on the logit (the model's own family, the
third review's); tests/test_coref_stats.py and bench/sim_overall_rates.py use the project's mixture generator.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st


def _design(k: int):
    import pandas as pd

    return pd.DataFrame([{"cluster": f"w{i} / m{j}", "profession_a": f"w{i}", "profession_b": f"m{j}",
                          "gender_a": "women", "gender_b": "men"} for i in range(k) for j in range(k)])


def _overall(plan, rows, k, n):
    from stereoprobe.studies.coreference.inference import rate_table

    return rate_table(plan, rows["cluster"], np.asarray(k, float), np.asarray(n, float), np.zeros(len(rows), int),
                      ["all"], total="Overall").loc["Overall"]


def test_one_more_wrong_answer_at_5_percent_does_not_lower_the_upper_limit():
    # The review's case (issue 36): 10 x 10 jobs, 42 answers a pair, 209 wrong answers (4.976%) and then 210
    # (5.000%). Here the women's jobs have effects 1.4 z_i and the men's 0.6 z_j on the logit (z: the normal
    # quantiles of (i + 1/2) / 10), beta = -3.75, each pair's count its expectation rounded: 209 in all; the 210th
    # goes to the pair of the two hardest jobs, whose count is already the largest. Before issue 36 the upper limit
    # fell from 11.60% to 11.24% (the model's floor held under 5% and not at 5%), so a gate rule `max = 0.115`
    # flipped from fail to pass with one more wrong answer. Now one rule holds at both counts and the upper limit
    # rises (15.57% -> 15.86%, measured).
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
    assert after["high"] > before["high"] and after["low"] > before["low"] - 0.05


def _runs(k: int, runs: int, sd: float, rate: float, seed: int):
    """(estimate, low, high) of the overall rate in ``runs`` simulated runs of k x k jobs, job effects N(0, sd) on the
    logit a side, beta set so that the rate of jobs like these is ``rate`` (the truth), 42 answers a pair."""
    from scipy import optimize, special

    from stereoprobe.studies.coreference.inference import make_plan

    x, w = np.polynomial.hermite_e.hermegauss(80)
    w = w / w.sum()
    beta = optimize.brentq(lambda b: w @ special.expit(b + np.sqrt(2) * sd * x) - rate, -20, 10)
    rows = _design(k)
    plan = make_plan(rows["cluster"], 100, seed=0, members=rows)  # the counts change from run to run, the plan not
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(runs):
        a, b = rng.normal(0, sd, k), rng.normal(0, sd, k)
        counts = rng.binomial(42, special.expit(beta + a[:, None] + b[None, :]).ravel())
        t = _overall(plan, rows, counts, np.full(k * k, 42))
        out.append((t["pct"], t["low"], t["high"]))
    return np.array(out)


@pytest.fixture(scope="module")
def strong_jobs():
    """150 runs of 6 x 6 jobs whose effects have sd 1 on the logit a side, about 2% wrong (the truth: 2%)."""
    return _runs(6, 150, 1.0, 0.02, seed=36)


def test_runs_that_drew_easy_jobs_still_reach_the_truth(strong_jobs):
    # The second defect of issue 36: the floor moved with the observed rate, so a run that drew no hard job had both
    # a low rate and a narrow interval, and missed above the truth. Among these runs, 63% have a rate below the truth
    # (2%: the rate of jobs like these is pulled up by the few hard jobs a run may not draw). Measured: before issue
    # 36, 13.8% of those missed above (the truth above the upper limit), now 6.4%; a valid interval misses above in
    # about 2.5% of all runs, i.e. in about 4% of these
    est, low, high = strong_jobs.T
    below = est < 2.0
    assert 0.55 < below.mean() < 0.75
    assert np.mean(high[below] < 2.0) < 0.10


def test_overall_rates_cover_a_known_truth_when_jobs_differ_strongly(strong_jobs):
    # Measured on these 150 runs (Monte-Carlo se about 0.02): before issue 36, coverage 0.913 (misses above 8.7%,
    # below none) at 1.32 times the oracle width (3.92 times the estimate's sd over the runs); now 0.960 (above
    # 4.0%) at 2.25 times: 6 jobs a side rest on t(5) = 2.57, a few runs whose jobs differ most get very wide
    # intervals, and the logit interval reaches further above the rate than below, as the rate's own distribution
    # does. bench/sim_overall_rates.py has the larger designs (10 x 10 and 20 x 20, 1% to 20%, both families).
    est, low, high = strong_jobs.T
    cover = np.mean((low <= 2.0) & (2.0 <= high))
    assert 0.93 <= cover <= 0.98
    assert np.mean(high - low) / (3.92 * est.std()) < 2.5


def test_overall_rates_cover_a_known_truth_when_jobs_are_alike():
    # Jobs that do not differ (sd 0), 10% wrong, 6 x 6 jobs, 120 runs: every pair is binomial(42, 0.1). The interval
    # still generalises over 6 jobs a side (t(5)) and cannot rule out that they differ, so it covers every run here,
    # at 1.70 times the oracle width (before issue 36: also every run, at 1.44 times, the two-way variance at the
    # pairs' degrees of freedom where its floor held); the width is the check from above
    runs = _runs(6, 120, 0.0, 0.10, seed=37)
    est, low, high = runs.T
    cover = np.mean((low <= 10.0) & (10.0 <= high))
    assert cover >= 0.95 and np.mean(high - low) / (3.92 * est.std()) < 1.8


@settings(max_examples=30, deadline=None)
@example(women=10, men=10, sd_w=1.4, sd_m=0.6, baseline=2.188, shift=0.05)  # 4.84% -> 5.05%: the old switch
@given(women=st.integers(3, 8), men=st.integers(3, 8), sd_w=st.floats(0.0, 1.5), sd_m=st.floats(0.0, 1.5),
       baseline=st.floats(0.2, 30.0), shift=st.floats(0.02, 1.0))
def test_the_same_jobs_erring_more_never_get_a_lower_upper_limit(women, men, sd_w, sd_m, baseline, shift):
    # Jobs whose effects on the logit are sd_w z_i and sd_m z_j (z: normal quantiles), 100,000 answers a pair, each
    # count its expectation: a pair's rate is logistic(logit(baseline) + its two effects), and then the same jobs
    # with every log-odds of a wrong answer up by `shift` (more wrong answers in every pair, the pattern kept). The
    # upper limit (and the lower) must not fall. Before issue 36 it fell across 5% (the model's floor held under 5%
    # only): in the example above from 0.98-14.92% at 4.84% to 1.54-12.37% at 5.05%.
    # (One more wrong answer in a single pair can lower it: it can make the jobs look more alike, and any interval
    # that learns the jobs' spread from the run does that; docs/statistics.md gives how often and how much.)
    import pandas as pd
    from scipy import special, stats

    from stereoprobe.studies.coreference.inference import make_plan

    rows = pd.DataFrame([{"cluster": f"w{i} / m{j}", "profession_a": f"w{i}", "profession_b": f"m{j}",
                          "gender_a": "women", "gender_b": "men"} for i in range(women) for j in range(men)])
    effect = (sd_w * stats.norm.ppf((np.arange(women) + 0.5) / women)[:, None]
              + sd_m * stats.norm.ppf((np.arange(men) + 0.5) / men)[None, :]).ravel()
    plan = make_plan(rows["cluster"], 50, seed=0, members=rows)
    n = np.full(len(rows), 1e5)
    base = special.logit(baseline / 100)
    one = _overall(plan, rows, np.round(n * special.expit(base + effect)), n)
    two = _overall(plan, rows, np.round(n * special.expit(base + shift + effect)), n)
    assert two["pct"] > one["pct"]
    assert two["high"] >= one["high"] - 1e-9 and two["low"] >= one["low"] - 1e-9
