"""Intervals of shares at the edges, by hand, and against R survey's svyciprop(method = "beta").

One group of six probes with ten counted words each. Its design-based variance (the
probes are the clusters, drawn with replacement) is ``6/5 * sum(z_k^2)`` with
``z_k = (negatives_k - 10 p) / 60``; with 6 clusters ``df = 5``, and Korn-Graubard's
degrees-of-freedom factor is ``(t(0.975, 59) / t(0.975, 5))^2 = (2.00100 / 2.57058)^2 =
0.60594``. R's survey package (svyciprop.R, method "beta") computes, for such a design,

    n.eff <- coef(m) * (1 - coef(m)) / vcov(m)
    n.eff <- n.eff * (qt(alpha/2, nrow(design) - 1) / qt(alpha/2, degf(design)))^2
    ci <- c(qbeta(alpha/2, n.eff * rval, n.eff * (1 - rval) + 1),
            qbeta(1 - alpha/2, n.eff * rval + 1, n.eff * (1 - rval)))

which the tests below write out with scipy's beta quantiles (R's qbeta) and compare
with ``share_interval``.
"""

import numpy as np
import pytest
from scipy import stats

from stereoprobe.stats.intervals import betabinomial_pvalue, part_pmfs, share_interval, t_interval, t_pvalue

DF_FACTOR = (stats.t.ppf(0.975, 59) / stats.t.ppf(0.975, 5)) ** 2


def _design_variance(negatives):
    """By hand: with-replacement variance of the share of six 10-word probes (proportion^2)."""
    negatives = np.asarray(negatives, float)
    p = negatives.sum() / 60
    z = (negatives - 10 * p) / 60
    return 6 / 5 * (z**2).sum()


def _svyciprop_beta(p, var, n=60, df=5, level=0.95):
    """The svyciprop(method = "beta") formula, written out (no cap, no edge rule)."""
    a = 1 - level
    neff = p * (1 - p) / var * (stats.t.ppf(a / 2, n - 1) / stats.t.ppf(a / 2, df)) ** 2
    return 100 * stats.beta.ppf(a / 2, neff * p, neff * (1 - p) + 1), 100 * stats.beta.ppf(1 - a / 2, neff * p + 1, neff * (1 - p))


def _interval(negatives, method="beta"):
    negatives = np.asarray(negatives, float)
    share = 100 * negatives.sum() / 60
    low, high = share_interval(share, None, 6, 60, 1, 0.95, variance=1e4 * _design_variance(negatives), method=method)
    return float(low), float(high)


def test_korn_graubard_equals_svyciprop_beta_on_the_worked_example():
    # probes with 8, 7, 6, 5, 4, 3 negative words of 10 (docs/statistics.md): p = 0.55
    var = _design_variance([8, 7, 6, 5, 4, 3])
    assert var == pytest.approx(0.0058333, rel=1e-4)  # 6/5 * (2.5^2 + 1.5^2 + .5^2) * 2 / 3600
    low, high = _interval([8, 7, 6, 5, 4, 3])
    assert (low, high) == pytest.approx(_svyciprop_beta(0.55, var), abs=1e-9)
    assert (round(low, 1), round(high, 1)) == (34.3, 74.5)  # n_eff 42.43 * 0.60594 = 25.71, x = 14.14


def test_korn_graubard_equals_svyciprop_beta_elsewhere():
    for negatives in ([1, 0, 2, 0, 1, 0], [10, 9, 9, 10, 8, 10], [3, 6, 2, 7, 4, 5]):
        p = sum(negatives) / 60
        var = _design_variance(negatives)
        if p * (1 - p) / var > 60:  # svyciprop has no cap at the sample size; ours does (Korn & Graubard)
            continue
        assert _interval(negatives) == pytest.approx(_svyciprop_beta(p, var), abs=1e-9)


def test_edges_by_hand():
    # 0 of 60: no variance, so n_eff = 60 words * 0.60594 = 36.36; upper = 1 - 0.025^(1/36.36)
    assert _interval([0] * 6) == pytest.approx((0.0, 9.6487), abs=1e-3)
    # 60 of 60: the mirror image
    assert _interval([10] * 6) == pytest.approx((90.3513, 100.0), abs=1e-3)
    # 6 of 60, one per probe: also no variance: x = 0.1 * 36.36 = 3.636 of 36.36
    assert _interval([1] * 6) == pytest.approx((2.5641, 24.5505), abs=1e-3)
    # 1 of 60 in one probe: var = 0.00027778 gives n_eff 59.0 (under the cap of 60), * 0.60594 = 35.75
    assert _interval([1, 0, 0, 0, 0, 0]) == pytest.approx((0.0047, 12.7913), abs=1e-3)


def test_monotone_in_the_count():
    # k negatives of 60 spread as evenly as the probes allow, k = 0..60: both bounds never go down
    lows, highs = [], []
    for k in range(61):
        negatives = [k // 6 + (1 if i < k % 6 else 0) for i in range(6)]
        low, high = _interval(negatives)
        lows.append(low)
        highs.append(high)
    assert all(b >= a - 1e-9 for a, b in zip(lows, lows[1:]))
    assert all(b >= a - 1e-9 for a, b in zip(highs, highs[1:]))
    assert highs[0] < 10 and lows[-1] > 90  # sane at 0% and 100%


def test_jeffreys_at_the_effective_size_by_hand():
    # the tables' method: Beta(x + 1/2, n - x + 1/2) quantiles at the same n_eff
    x = 0.55 * 42.4286 * DF_FACTOR
    n = 42.4286 * DF_FACTOR
    expected = (100 * stats.beta.ppf(0.025, x + 0.5, n - x + 0.5), 100 * stats.beta.ppf(0.975, x + 0.5, n - x + 0.5))
    assert _interval([8, 7, 6, 5, 4, 3], "jeffreys") == pytest.approx(expected, abs=1e-3)
    assert expected == pytest.approx((36.10, 72.84), abs=0.01)  # narrower than Clopper-Pearson's 34.3 to 74.5
    # no variance and a known design effect (deff_floor): n_eff = 60 / 1.5 = 40 (df large: no t factor)
    low, high = share_interval(0.0, None, 60, 60, 1, 0.95, variance=0.0, df=1e6, deff_floor=1.5, method="jeffreys")
    assert (float(low), float(high)) == pytest.approx((0.0, 100 * stats.beta.ppf(0.975, 0.5, 40.5)), abs=1e-6)
    assert float(high) == pytest.approx(6.05, abs=0.01)


def test_bootstrap_replicates_give_the_design_variance():
    # every one of the 6^6 bootstrap draws of the worked example: their variance * 6/5 is the design variance
    import itertools

    shares = [0.8, 0.7, 0.6, 0.5, 0.4, 0.3]
    reps = 100 * np.array([np.mean(c) for c in itertools.product(shares, repeat=6)])
    assert np.var(reps / 100, ddof=0) * 6 / 5 == pytest.approx(_design_variance([8, 7, 6, 5, 4, 3]), rel=1e-9)
    # so the replicate path gives the same interval (up to ddof = 1 on 46,656 replicates)
    low, high = share_interval(55.0, reps, 6, 60, 1, 0.95)
    assert (float(low), float(high)) == pytest.approx(_interval([8, 7, 6, 5, 4, 3]), abs=1e-3)


def test_t_interval_and_p_value_from_a_given_standard_error():
    low, high = t_interval(10.0, None, 9, 1, 0.95, bounds=None, se=4.0, df=8)
    assert high - 10 == pytest.approx(2.306004 * 4.0, rel=1e-6) and low == pytest.approx(20 - high)
    assert t_pvalue(10.0, None, 9, se=4.0, df=8) == pytest.approx(2 * stats.t.sf(2.5, 8))


def test_no_p_value_of_zero():
    # a difference with no variance at all: no p = 0 (NaN without a floor, the floor's p with one)
    assert np.isnan(t_pvalue(5.0, None, 9, se=0.0, df=8))
    assert t_pvalue(5.0, None, 9, se=0.0, df=8, se_floor=2.0) == pytest.approx(2 * stats.t.sf(2.5, 8))
    assert t_pvalue(0.0, None, 9, se=0.0, df=8) == 1.0
    assert t_pvalue(1e6, None, 9, se=1e-3, df=8) > 0  # underflow is clipped above 0


def test_betabinomial_pvalue_by_hand_and_against_scipy():
    # parts with no correlation: six probes of 10 at 10% add up to Binomial(60, 0.1)
    units = np.repeat([0, 1, 2], 6)
    p = betabinomial_pvalue([0, 6, 15], [10] * 18, [0.1] * 18, 0.0, units)
    assert p[0] == pytest.approx(2 * 0.9**60)  # by hand: 0 of 60
    assert p[1] == 1.0  # 6 of 60 is the mean: both tails above one half
    assert p[2] == pytest.approx(2 * stats.binom.sf(14, 60, 0.1))
    # one beta-binomial part: P(X = 0) for 10 trials, rate .2, correlation .3 (a = .2 * (1/.3 - 1))
    a, b = 0.2 * (1 / 0.3 - 1), 0.8 * (1 / 0.3 - 1)
    assert betabinomial_pvalue([0], [10], [0.2], 0.3, [0])[0] == pytest.approx(2 * stats.betabinom.pmf(0, 10, a, b))
    # correlated words make the same count less surprising
    assert betabinomial_pvalue([0], [10] * 6, [0.1] * 6, 0.2, [0] * 6)[0] > 10 * p[0]
    # two parts with different rates: the exact convolution
    conv = np.convolve(stats.binom.pmf(np.arange(11), 10, 0.1), stats.binom.pmf(np.arange(6), 5, 0.5))
    assert betabinomial_pvalue([6], [10, 5], [0.1, 0.5], 0.0, [0, 0])[0] == pytest.approx(2 * conv[6:].sum())


def test_scipy_special_gives_scipy_stats_numbers_to_the_last_bit():
    # the module reads scipy.special so that scipy.stats is never imported: the same numbers
    rng = np.random.default_rng(5)
    df = np.concatenate([np.arange(1, 120), rng.uniform(1, 4000, 300), [np.nan]])
    t = rng.uniform(0, 12, len(df))
    t[:3] = [0.0, np.inf, 1e-12]
    assert np.array_equal(t_pvalue(t, None, 2, se=1.0, df=df), np.maximum(2 * stats.t.sf(t, df), np.finfo(float).tiny), equal_nan=True)
    low, _ = t_interval(0.0, None, 2, bounds=None, se=1.0, df=df)
    assert np.array_equal(-low, stats.t.ppf(0.975, df), equal_nan=True)
    # share intervals: beta quantiles over a spread of shares, variances and sizes, both methods
    share, n = rng.uniform(0, 100, 400), rng.integers(2, 3000, 400).astype(float)
    var, g = rng.uniform(1e-3, 30, 400), rng.integers(2, 60, 400).astype(float)
    share[:4] = [0.0, 100.0, 1e-9, 50.0]
    for method, (a, b) in (("beta", (0.0, 1.0)), ("jeffreys", (0.5, 0.5))):
        low, high = share_interval(share, None, g, n, 1, variance=var, method=method)
        p = share / 100
        neff = np.where((p > 0) & (p < 1), np.minimum(p * (1 - p) / (var / 1e4), n), n)  # 0% and 100%: the words
        alpha = 1 - 0.95  # 0.05000000000000004: the module's own arithmetic, to the bit
        neff = neff * np.minimum(stats.t.ppf(1 - alpha / 2, n - 1) / stats.t.ppf(1 - alpha / 2, g - 1), 1.0) ** 2
        x = p * neff
        with np.errstate(invalid="ignore"):
            want_low = np.where(x > 0, stats.beta.ppf(alpha / 2, x + a, neff - x + b), 0.0)
            want_high = np.where(x < neff, stats.beta.ppf(1 - alpha / 2, x + b, neff - x + a), 1.0)
        assert np.array_equal(low, 100 * want_low) and np.array_equal(high, 100 * want_high)
    # the coreference overall rate's reach reads the normal's cdf as scipy.special.ndtr (what norm.cdf calls)
    from scipy import special

    z = np.linspace(-8, 8, 4001)
    assert np.array_equal(special.ndtr(z), stats.norm.cdf(z))
    # the parts' distributions: betabinom's and binom's pmf, zero outside 0..trials
    trials = rng.integers(0, 40, 300)
    rates = np.clip(rng.uniform(0, 1, 300), 1e-9, 1 - 1e-9)
    icc = np.where(rng.uniform(size=300) < 0.4, 0.0, rng.uniform(0, 0.999, 300))
    icc[:2] = [0.999, 1e-12]
    k = np.arange(trials.max() + 1)
    scale = np.where(icc > 0, 1 / np.where(icc > 0, icc, 1) - 1, 1.0)
    with np.errstate(invalid="ignore"):
        bb = stats.betabinom.pmf(k[None], trials[:, None], (rates * scale)[:, None], ((1 - rates) * scale)[:, None])
    bi = stats.binom.pmf(k[None], trials[:, None], rates[:, None])
    assert np.array_equal(part_pmfs(k, trials, rates, icc), np.where((icc > 0)[:, None], np.nan_to_num(bb), bi))


def test_docs_quote_the_worked_example_and_the_edges():
    from pathlib import Path

    doc = (Path(__file__).resolve().parent.parent / "docs" / "statistics.md").read_text(encoding="utf-8")
    for text in ("**34.3% to 74.5%**", "**36.1% to 72.8%**", "0.0058333", "0 to 9.6%", "2.6 to 24.6%", "90.4 to 100%",
                 "0.0 to 12.8%"):
        assert text in doc, text


def _over_groups(k, phi):
    """A cell over 60 groups of 10 counted words with k negatives spread as evenly as the groups
    allow, its with-replacement group variance, as the fill-in cells over groups compute it."""
    from stereoprobe.stats.variance import cell_scores, cluster_variance

    neg = np.array([min(10, k // 60 + (1 if i < k % 60 else 0)) for i in range(60)], float)
    est, z, words = cell_scores(neg, np.full(60, 10.0), np.zeros(60, int), 1)
    var, g, h = cluster_variance(z, np.zeros(60, int), 1, np.arange(60))
    low, high = share_interval(100 * est, None, g, words, h, 0.95, variance=1e4 * var, df=g - h, deff_floor=phi,
                               method="jeffreys")
    return float(low[0]), float(high[0])


def test_monotone_in_the_count_when_the_dispersion_exceeds_1():
    # phi = 4: 0/600 used n_eff = 600 / 4 = 150, but 1/600 took its own variance (n_eff about 600):
    # 0/600 -> 0 to 2.19%, 1/600 -> 0 to 0.93% before; now every cell's n_eff is at most n / phi
    zero, one = _over_groups(0, 4.0), _over_groups(1, 4.0)
    most, every = _over_groups(599, 4.0), _over_groups(600, 4.0)
    assert one[1] >= zero[1] and one[0] >= zero[0]
    assert every[0] >= most[0] and every[1] >= most[1]
    # at phi = 4 and 1/600 the effective size is 600 / 4 = 150 (times the df factor, about 1):
    ratio = (stats.t.ppf(0.975, 599) / stats.t.ppf(0.975, 59)) ** 2
    n_eff = 150 * ratio
    x = n_eff / 600
    assert one[1] == pytest.approx(100 * stats.beta.ppf(0.975, x + 0.5, n_eff - x + 0.5), abs=1e-6)
    assert zero[1] == pytest.approx(100 * stats.beta.ppf(0.975, 0.5, n_eff + 0.5), abs=1e-6)
    for k in range(0, 601, 7):  # and along the whole range
        a, b = _over_groups(k, 4.0), _over_groups(k + 1, 4.0)
        assert b[0] >= a[0] - 1e-9 and b[1] >= a[1] - 1e-9, k
