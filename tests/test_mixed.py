"""stereoprobe.stats.mixed: the crossed logistic model's fit and its standard error of the observed rate, on counts
whose answer is known by hand (the coreference study's overall rates take their interval from it,
docs/statistics.md)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from stereoprobe.stats.mixed import mixed_rate

WOMEN = [f"w{i}" for i in range(10) for _ in range(10)]  # 10 x 10 jobs, every pair once
MEN = [f"m{j}" for _ in range(10) for j in range(10)]
SIDES = (["women"] * 100, ["men"] * 100)


def test_jobs_that_do_not_differ_give_the_binomial_standard_error():
    # every pair 50 of 1,000 wrong: no job or pair differs, so every variance goes to its floor (0.001)
    # and the rate is the pooled one, 5%, with beta = logit(0.05) = log(0.05 / 0.95) = -2.9444 and the
    # binomial standard error of a logit over 100,000 answers: 1 / sqrt(100000 * 0.05 * 0.95) = 0.01451, nearly all
    # of it the answers' part of the observed rate's variance
    fit = mixed_rate(np.full(100, 50), np.full(100, 1000), WOMEN, MEN, *SIDES)
    assert fit.pct == pytest.approx(5.0, abs=1e-3)
    assert fit.beta == pytest.approx(-2.9444, abs=1e-3)
    assert fit.se_observed == pytest.approx(0.01451, rel=0.01)
    assert fit.parts[2] / sum(fit.parts) > 0.999
    assert max(fit.sd) < 0.01 and fit.df == 9


def test_planted_job_effects_are_recovered():
    # the women's jobs have effects a_i with sample sd 1 (ddof 1), the men's none, beta = -3, and
    # every pair 100,000 answers, so each count is its expectation: the fit finds sd 1 for the
    # women's side, about 0 for the men's and the pairs', beta -3 (the a_i sum to 0), and beta's
    # standard error is the one of a mean of 10 jobs with sd 1: 1 / sqrt(10) = 0.316
    a = np.linspace(-1, 1, 10)
    a = a / a.std(ddof=1)
    n = np.full(100, 1e5)
    k = np.round(n / (1 + np.exp(-(-3 + np.repeat(a, 10)))))
    fit = mixed_rate(k, n, WOMEN, MEN, *SIDES)
    assert fit.sd[0] == pytest.approx(1.0, abs=0.02)
    assert fit.sd[1] < 0.05 and fit.sd[2] < 0.05
    assert fit.beta == pytest.approx(-3.0, abs=0.01)
    assert fit.se_beta == pytest.approx(1 / np.sqrt(10), rel=0.03)
    # the marginal mean: E logistic(-3 + Z), by 40-point quadrature; 6.93% (logistic(-3) = 4.74%)
    assert fit.pct == pytest.approx(6.93, abs=0.05)


def test_a_rate_without_events_is_refused():
    with pytest.raises(ValueError, match="at least one event"):
        mixed_rate(np.zeros(100), np.full(100, 10), WOMEN, MEN, *SIDES)


def _logistic_moments(beta: float, tau: float, square: bool = False) -> Any:
    """E logistic(beta + tau Z) and E p(1 - p) by adaptive quadrature (not the module's Gauss-Hermite nodes); with
    ``square``, E p^2 alone."""
    from scipy import integrate, stats

    def mean(f):
        return integrate.quad(lambda z: f(1 / (1 + np.exp(-(beta + tau * z)))) * stats.norm.pdf(z), -12, 12)[0]

    if square:
        return mean(lambda p: p * p)
    return mean(lambda p: p), mean(lambda p: p * (1 - p))


def test_the_marginal_rate_and_the_observed_rates_standard_error_at_a_spread_of_one_half():
    # as above with the women's effects at sd 0.5: the fit finds 0.5, beta -3 and se(beta) = 0.5 / sqrt(10) = 0.158.
    # The rate of "jobs like these" is m = E F(-3 + 0.5 Z) = 5.27%, F the logistic (by quadrature). The observed
    # rate is the mean of the 10 women's jobs' rates (10^7 answers: the binomial part is nil), so under the model
    # Var R = Var F(-3 + 0.5 Z) / 10 and the standard error of logit R is sqrt(Var R) / (m (1 - m)): 0.163, a
    # little more than beta's 0.158 (the rate of a job is skewed: exp(0.5^2) - 1 = 0.284 against 0.5^2 = 0.25)
    a = np.linspace(-1, 1, 10)
    a = 0.5 * a / a.std(ddof=1)
    n = np.full(100, 1e5)
    k = np.round(n / (1 + np.exp(-(-3 + np.repeat(a, 10)))))
    fit = mixed_rate(k, n, WOMEN, MEN, *SIDES)
    assert fit.sd[0] == pytest.approx(0.5, abs=0.01) and fit.beta == pytest.approx(-3.0, abs=0.01)
    assert fit.se_beta == pytest.approx(0.5 / np.sqrt(10), rel=0.03)
    m, pq = _logistic_moments(fit.beta, fit.sd[0])
    second = _logistic_moments(fit.beta, fit.sd[0], square=True)
    assert fit.pct == pytest.approx(100 * m, rel=1e-4) and 5.2 < fit.pct < 5.35
    assert fit.se_observed == pytest.approx(np.sqrt((second - m * m) / 10) / (m * (1 - m)), rel=1e-3)
    assert fit.se_observed == pytest.approx(0.163, abs=0.002)


def test_the_observed_rates_variance_is_the_simulated_one():
    # The variance of the observed rate under the model (members, units' effects and answers drawn afresh, the design
    # held), against 200,000 draws of that: a two-sided crossed design and an unbalanced design of one pool (random
    # pairs, unequal answers a pair). Leaving out the members' shared part (pairs that share a job covary) gives
    # about a tenth of it in the crossed design.
    from scipy import special

    from stereoprobe.stats.mixed import _codes, _observed_variance

    rng = np.random.default_rng(11)
    pairs, side, _ = _codes(WOMEN, MEN, *SIDES)
    w, m = np.array([int(x[1:]) for x in WOMEN]), np.array([int(x[1:]) for x in MEN])
    rate, parts = _observed_variance(-4.5, np.log([1.0, 0.7, 0.3]), pairs, side, np.full(100, 42.0))
    draws = [rng.binomial(42, special.expit(-4.5 + rng.normal(0, 1.0, (20_000, 10))[:, w]
                                            + rng.normal(0, 0.7, (20_000, 10))[:, m] + rng.normal(0, 0.3, (20_000, 100))))
             .sum(axis=1) / 4200 for _ in range(10)]
    assert np.concatenate(draws).var() == pytest.approx(parts.sum(), rel=0.03)
    assert np.concatenate(draws).mean() == pytest.approx(rate, rel=0.01)
    assert parts[0] > 0.8 * parts.sum()
    first = rng.integers(0, 12, 60)
    second = (first + 1 + rng.integers(0, 11, 60)) % 12
    pool = np.unique(np.sort(np.c_[first, second], axis=1), axis=0)
    n = rng.integers(5, 50, len(pool)).astype(float)
    pairs, side, _ = _codes([f"j{x}" for x in pool[:, 0]], [f"j{x}" for x in pool[:, 1]], None, None)
    rate, parts = _observed_variance(-2.0, np.log([0.8, 0.5]), pairs, side, n)
    draws = []
    for _ in range(10):
        a = rng.normal(0, 0.8, (20_000, 12))
        p = special.expit(-2.0 + a[:, pool[:, 0]] + a[:, pool[:, 1]] + rng.normal(0, 0.5, (20_000, len(pool))))
        draws.append(rng.binomial(n.astype(int), p).sum(axis=1) / n.sum())
    assert np.concatenate(draws).var() == pytest.approx(parts.sum(), rel=0.03)


def test_pairs_of_one_pool_are_one_side():
    # random pairs (no sides): every job in one pool, so the degrees of freedom are its 20 jobs minus 1; the
    # fit is the one of the same pairs with every job labelled alike
    rng = np.random.default_rng(4)
    k = rng.binomial(200, 0.05, 100)
    pooled = mixed_rate(k, np.full(100, 200), WOMEN, MEN)
    labelled = mixed_rate(k, np.full(100, 200), WOMEN, MEN, ["any"] * 100, ["any"] * 100)
    assert pooled.df == 19 and len(pooled.sd) == 2
    assert pooled.se_observed == pytest.approx(labelled.se_observed, rel=1e-9) and pooled.pct == labelled.pct


def test_one_event_is_enough_and_all_events_are_not():
    k = np.zeros(100)
    k[0] = 1
    assert 0 < mixed_rate(k, np.full(100, 10), WOMEN, MEN, *SIDES).pct < 1
    with pytest.raises(ValueError, match="one non-event"):
        mixed_rate(np.full(100, 10), np.full(100, 10), WOMEN, MEN, *SIDES)


def test_the_inner_mode_is_the_maximum_of_the_joint_log_density():
    # on noisy counts (10 x 10 jobs, job effects sd 1, pair effects sd 0.5, 50 answers a pair): at given
    # spreads, the Newton steps must land where scipy's own optimiser finds the maximum of the model's log
    # density over beta, the 20 job effects and the 100 pair effects,
    #   sum_u [k_u eta_u - n_u log(1 + e^eta_u)] - sum_j a_j^2 / (2 s_side(j)^2) - sum_u c_u^2 / (2 s_unit^2)
    from scipy import optimize

    from stereoprobe.stats.mixed import _codes, _Laplace

    rng = np.random.default_rng(6)
    a = rng.normal(0, 1, 20)
    eta = -3 + a[[int(w[1:]) for w in WOMEN]] + a[[10 + int(m[1:]) for m in MEN]] + rng.normal(0, 0.5, 100)
    n = np.full(100, 50.0)
    k = rng.binomial(50, 1 / (1 + np.exp(-eta))).astype(float)
    pairs, side, sides = _codes(WOMEN, MEN, *SIDES)
    model = _Laplace(k, n, pairs, side, sides)
    sd = np.array([1.0, 0.8, 0.5])  # women's jobs, men's jobs, pairs
    value, _, _ = model.mode(np.log(sd))
    prec = np.r_[0.0, 1 / sd[side] ** 2]

    def minus_log_density(x):
        theta, c = x[:21], x[21:]
        e = model.X @ theta + c
        p = 1 / (1 + np.exp(-e))
        f = np.sum(k * e - n * np.logaddexp(0, e)) - 0.5 * np.sum(prec * theta**2) - 0.5 * np.sum(c**2) / sd[2] ** 2
        r = k - n * p
        return -f, -np.r_[model.X.T @ r - prec * theta, r - c / sd[2] ** 2]

    best = optimize.minimize(minus_log_density, np.zeros(121), jac=True, method="BFGS", options={"gtol": 1e-9})
    assert value == pytest.approx(-best.fun, abs=1e-6)
    assert np.abs(np.r_[model.theta, model.c] - best.x).max() < 1e-4
