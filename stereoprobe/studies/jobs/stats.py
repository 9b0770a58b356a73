"""The jobs study's statistics, on the project's plan (stereoprobe.stats).

The unit is the job: the 40 jobs are a sample of occupations, the prompts and prefixes
are fixed conditions every job meets (crossed, not nested). So

- a group's mean (women- or men-dominated jobs) gets an interval from resampling its jobs
  (``stats.cluster_weights`` with the jobs as clusters; ``stats.share_interval``'s
  Jeffreys interval at the effective size, which follows means near 0% or 100%);
- a prefix's effect is a paired difference per job (the same jobs with and without the
  prefix), its interval from the same job resampling (``t_interval``), its p-value the
  sign-flip test over jobs (exact up to 16 jobs, never below 2 / 2^n; a prefix that moves
  every job from 0 to 100 is found), q-values by Benjamini-Hochberg over the family
  (``stats.bh``); zero variance (within a tolerance, never ``== 0``) and means at 0% or
  100% get a boundary rule, never a point interval;
- correlations with the labour statistics come from ``stats.correlation``;
- the independence criterion (Sterlie et al.) is the NMI between job and gender of a
  job x gender table of the model's probabilities (``stats.criteria.nmi``). Its null
  must respect the design: the job labels are permuted *within* each prompt (x prefix x
  setting) stratum, so every permuted table still has each prompt's answers once per
  job. ``stats.criteria.nmi_test`` permutes word counts of two labels, so the
  stratified permutation of three-gender probability rows is done here. With one probe
  per job in a stratum (a single prompt) a permutation only renames the rows and leaves
  the NMI unchanged: the test needs two or more prompts (its p-value is NaN otherwise).
"""

from __future__ import annotations

from typing import Any, Sequence

PERMUTATIONS = 999
TOLERANCE = 1e-9  # points: a standard error or difference below it is round-off, i.e. 0
EXACT_JOBS = 16  # up to 2^16 sign patterns are enumerated
FLIPS = 9_999  # random sign patterns beyond that


def group_means(values: Any, jobs: Sequence[str], n_boot: int, seed: int, level: float) -> dict[str, Any]:
    """Means of ``values`` (jobs x k, in [0, 1]) over the jobs, in percent, with intervals from
    resampling jobs: the Jeffreys interval at Korn-Graubard's effective size ``m (1 - m) /
    var`` (``var`` the bootstrap's, times n / (n - 1); t factor with n - 1 df), which follows
    a mean near 0% or 100% where a symmetric t interval undercovers (0.90 for 20 jobs, 70%
    of them at 0). Returns arrays ``mean``, ``low``, ``high`` (k,).

    A mean whose jobs all sit at one inner value has no spread either: its interval is
    Jeffreys' for ``n`` answers (the jobs as ``n`` Bernoulli answers, the widest spread a
    variable in [0, 1] with that mean can have).
    A mean whose jobs are all at 0 (or all at 1) has no spread to resample: its interval is
    the boundary rule, Clopper-Pearson's for 0 of ``n`` (``n`` of ``n``), valid for any
    variable in [0, 1] (a Bernoulli one is the worst case)."""
    import numpy as np

    from stereoprobe.stats import cluster_weights, share_interval

    v = np.asarray(values, dtype=np.float64)
    n = len(v)
    if n == 0:
        nan = np.full(v.shape[1:] or (1,), np.nan)
        return {"mean": nan, "low": nan, "high": nan, "n": 0}
    est = 100 * np.nanmean(v, axis=0)
    if n < 2:
        return {"mean": est, "low": np.full_like(est, np.nan), "high": np.full_like(est, np.nan), "n": n}
    w = cluster_weights([list(jobs)], n_boot, seed=seed).astype(np.float64)
    reps = 100 * (w @ np.nan_to_num(v)) / w.sum(axis=1, keepdims=True)
    low, high = share_interval(est, reps, n, np.full_like(est, np.inf), level=level, method="jeffreys")
    # every job at one inner value: the variance says nothing, so the jobs count as n answers
    # of a variable in [0, 1] (the Bernoulli worst case), as a fill-in cell's words do
    flat = np.isfinite(est) & np.isnan(low)
    if flat.any():
        flat_low, flat_high = share_interval(est, reps, n, np.full_like(est, n), level=level, method="jeffreys")
        low, high = np.where(flat, flat_low, low), np.where(flat, flat_high, high)
    low, high = _boundary(est, low, high, n, level, 0.0, 100.0)
    return {"mean": est, "low": low, "high": high, "n": n}


def _boundary(est: Any, low: Any, high: Any, n: int, level: float, lo: float, hi: float) -> tuple[Any, Any]:
    """Replace the intervals of means at a bound (every job at ``lo``, or at ``hi``, within
    :data:`TOLERANCE`) by Clopper-Pearson's for 0 (n) of ``n`` on the [lo, hi] scale."""
    import numpy as np

    reach = (hi - lo) * (1 - ((1 - level) / 2) ** (1 / n))
    at_lo, at_hi = est <= lo + TOLERANCE, est >= hi - TOLERANCE
    low = np.where(at_lo, lo, np.where(at_hi, hi - reach, low))
    high = np.where(at_lo, lo + reach, np.where(at_hi, hi, high))
    return low, high


def sign_flip_p(d: Any, seed: int = 0) -> Any:
    """Two-sided sign-flip p-value of the mean of paired differences ``d`` (jobs x k) being 0.

    Exact (all ``2^n`` sign patterns) for ``n <= EXACT_JOBS`` jobs, else ``FLIPS`` random
    patterns with ``p = (1 + #) / (1 + FLIPS)``; never below ``2 / 2^n`` (the observed signs
    and their mirror). A mean reaches the observed one within :data:`TOLERANCE`; all
    differences 0: p = 1.
    """
    import numpy as np

    d = np.asarray(d, dtype=np.float64)
    n = d.shape[0]
    obs = np.abs(d.mean(axis=0))
    if n <= EXACT_JOBS:
        signs = 1 - 2 * ((np.arange(2**n)[:, None] >> np.arange(n)[None, :]) & 1).astype(np.float64)
    else:
        signs = 1 - 2 * np.random.default_rng(seed).integers(0, 2, size=(FLIPS, n)).astype(np.float64)
    reach = np.abs(signs @ d / n) >= obs - TOLERANCE * np.maximum(1.0, obs)
    p = reach.mean(axis=0) if n <= EXACT_JOBS else (1 + reach.sum(axis=0)) / (1 + FLIPS)
    p = np.maximum(p, 2.0 / 2.0**n)
    return np.where(np.abs(d).max(axis=0, initial=0) <= TOLERANCE, 1.0, p)


def paired_differences(with_prefix: Any, without: Any, jobs: Sequence[str], n_boot: int, seed: int,
                       level: float) -> dict[str, Any]:
    """Mean of (with - without) per job, in points, with interval (jobs resampled, t) and the
    sign-flip p-value (:func:`sign_flip_p`). Where the bootstrap's standard error is 0 (within
    :data:`TOLERANCE`: every job moved alike), the interval uses the largest standard
    deviation a difference in [-100, 100] with that mean can have, and at -100 or +100 the
    boundary rule of :func:`group_means`."""
    import numpy as np
    from scipy import stats

    from stereoprobe.stats import bootstrap_se, cluster_weights, t_interval

    d = 100 * (np.asarray(with_prefix, dtype=np.float64) - np.asarray(without, dtype=np.float64))
    n = len(d)
    est = d.mean(axis=0)
    if n < 2:
        nan = np.full_like(est, np.nan)
        return {"difference": est, "low": nan, "high": nan, "p": nan, "n": n, "df": np.nan}
    w = cluster_weights([list(jobs)], n_boot, seed=seed).astype(np.float64)
    reps = (w @ d) / w.sum(axis=1, keepdims=True)
    se = bootstrap_se(reps, n, 1)
    u = np.clip((est + 100) / 200, 0, 1)
    worst = 200 * np.sqrt(u * (1 - u) / n) * stats.t.ppf(0.5 + level / 2, n - 1) / stats.norm.ppf(0.5 + level / 2)
    se = np.where(se > TOLERANCE * np.maximum(1.0, np.abs(est)), se, worst)
    low, high = t_interval(est, None, n, 1, level=level, bounds=(-100.0, 100.0), se=se, df=n - 1)
    low, high = _boundary(est, low, high, n, level, -100.0, 100.0)
    return {"difference": est, "low": low, "high": high, "p": sign_flip_p(d, seed), "n": n, "df": n - 1}


def nmi_table(jobs: Any, probabilities: Any, n_jobs: int) -> Any:
    """The jobs x genders table: each job's rows (probe probabilities) summed."""
    import numpy as np

    p = np.asarray(probabilities, dtype=np.float64)
    table = np.zeros((n_jobs, p.shape[1]))
    np.add.at(table, np.asarray(jobs), p)
    return table


def independence(jobs: Sequence[str], strata: Sequence[Any], probabilities: Any, n_perm: int = PERMUTATIONS,
                 seed: int = 0) -> tuple[float, float, float]:
    """(NMI, mean NMI under the null, permutation p) between job and gender.

    ``probabilities``: one row per probe (its P(male), P(female), P(diverse), or the story
    names' female and male mass); ``strata``: the probe's prompt (within one prefix and
    setting). Job labels are permuted within strata; p = (1 + #null >= observed) / (1 + n_perm).
    """
    import numpy as np
    import pandas as pd

    from stereoprobe.stats.criteria import nmi

    codes = pd.factorize(np.asarray(jobs, dtype=object))[0]
    n_jobs = int(codes.max()) + 1 if len(codes) else 0
    p = np.nan_to_num(np.asarray(probabilities, dtype=np.float64))
    observed = float(nmi(nmi_table(codes, p, n_jobs)))
    st = np.asarray(strata, dtype=object)
    if n_jobs < 2 or len(np.unique(st)) < 2:  # one prompt: a permutation only renames the rows
        return observed, float("nan"), float("nan")
    rng = np.random.default_rng(seed)
    perm = np.tile(np.arange(len(codes)), (n_perm, 1))
    for s in np.unique(st):
        cols = np.flatnonzero(st == s)
        perm[:, cols] = rng.permuted(perm[:, cols], axis=1)
    permuted_jobs = codes[perm]  # (n_perm, rows): the job each row is given
    tables = np.zeros((n_perm, n_jobs, p.shape[1]))
    rows = np.broadcast_to(np.arange(n_perm)[:, None], permuted_jobs.shape)
    np.add.at(tables, (rows, permuted_jobs), p[None, :, :])
    null = nmi(tables)
    return observed, float(null.mean()), float((1 + np.sum(null >= observed - 1e-12)) / (n_perm + 1))
