"""The jobs study's statistics, on the project's plan (stereoprobe.stats).

The unit is the job: the 40 jobs are a sample of occupations, the prompts and prefixes
are fixed conditions every job meets (crossed, not nested). So

- a group's mean (women- or men-dominated jobs) gets a cluster-bootstrap interval that
  resamples its jobs (``stats.cluster_weights`` with the jobs as clusters, the t-based
  ``stats.t_interval``);
- a prefix's effect is a paired difference per job (the same jobs with and without the
  prefix), its interval and p-value from the same job resampling (``t_interval``,
  ``t_pvalue``), q-values by Benjamini-Hochberg over the family (``stats.bh``);
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


def group_means(values: Any, jobs: Sequence[str], n_boot: int, seed: int, level: float) -> dict[str, Any]:
    """Means of ``values`` (jobs x k, in [0, 1]) over the jobs, in percent, with t-based
    bootstrap intervals resampling jobs. Returns arrays ``mean``, ``low``, ``high`` (k,)."""
    import numpy as np

    from stereoprobe.stats import cluster_weights, t_interval

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
    low, high = t_interval(est, reps, n, 1, level=level, bounds=(0.0, 100.0))
    return {"mean": est, "low": low, "high": high, "n": n}


def paired_differences(with_prefix: Any, without: Any, jobs: Sequence[str], n_boot: int, seed: int,
                       level: float) -> dict[str, Any]:
    """Mean of (with - without) per job, in points, with interval and p-value (jobs resampled)."""
    import numpy as np

    from stereoprobe.stats import cluster_weights, t_interval, t_pvalue

    d = 100 * (np.asarray(with_prefix, dtype=np.float64) - np.asarray(without, dtype=np.float64))
    n = len(d)
    est = d.mean(axis=0)
    if n < 2:
        nan = np.full_like(est, np.nan)
        return {"difference": est, "low": nan, "high": nan, "p": nan, "n": n}
    w = cluster_weights([list(jobs)], n_boot, seed=seed).astype(np.float64)
    reps = (w @ d) / w.sum(axis=1, keepdims=True)
    low, high = t_interval(est, reps, n, 1, level=level, bounds=(-100.0, 100.0))
    return {"difference": est, "low": low, "high": high, "p": t_pvalue(est, reps, n, 1), "n": n}


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
