"""Intervals and paired tests for coreference rates, on a crossed resampling of the professions.

**The estimand: jobs like these, with these scenes.** The default design crosses 20
women- with 20 men-dominated jobs: a job sits in 20 pairs, and pairs that share a job are
correlated. The intervals say what the rates would be on other jobs like these, asked the
same scenes and pronouns: the women- and men-dominated jobs are resampled independently,
each pair keeping the product of its two jobs' multiplicities, and the variance is the
two-way cluster-robust one (:mod:`stereoprobe.stats.crossed`: each side's one-way
variance, minus the pairs' own, never below the pairs' own), with degrees of freedom
from the jobs of the smaller side (the pairs', where the floor is used). Random pairs
(``--pairs N``, professions of unknown gender) are one pool of professions, the dyadic
case of the same formula. Resampling
pairs as independent clusters, as earlier versions did, covered 55% at 0.38x the needed
width when jobs differ (docs/statistics.md).

All of a pair's prompts (both roles, every template, the three pronouns) move together,
so a triple is never split and the rates of different pronouns, templates or prompt kinds
are paired. A rate is ``100 * sum(num) / sum(den)`` over rows (answers or triples); a
cell's interval (a scene, a pronoun, a class) is :func:`stereoprobe.stats.share_interval`
(Korn-Graubard's effective size, Jeffreys interval) at that variance, with the design effect
never below the table's pooled one (a rate of 0 of n, or a cell whose variance happens to be
small, is not taken as more precise than the table's cells are). A rate over all cells (Table
3's Overall) gets one rule at every rate (:func:`overall_interval`): the quantiles of its
replicates with both sides' jobs drawn at once (above, each pair's rate drawn from its
posterior), further out above than below, so one more wrong answer never lowers a limit. With few jobs that differ strongly, a run that drew no
difficult job has both a low rate and replicates that vary little, and the Jeffreys interval
at the two-way variance missed above the truth in 6-13% of runs (issue 36; docs/statistics.md,
"Overall rates where jobs differ strongly"). A contrast of rates of one plan (a
difference, a difference of differences) gets :func:`stereoprobe.stats.t_interval` and
:func:`stereoprobe.stats.t_pvalue` at its two-way standard error. A standard error that
is 0 within a tolerance (identical answers) is replaced by the binomial one of the rates
involved, never a point interval or p = 0. Replicates come from per-cluster sums, so a
10,000-answer run costs (blocks x B x pairs) matrix products, never (B x answers) ones.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

DEFAULT_BOOT = 1000
RATE_COLUMNS = ["n", "k", "pct", "low", "high"]
ESTIMAND = ("jobs like these, with these scenes: the women- and men-dominated jobs resampled independently "
            "(two-way cluster-robust variance, degrees of freedom from the jobs of the smaller side); an overall "
            "rate's interval: quantiles of its replicates with both sides' jobs drawn at once (the upper with "
            "each pair's rate from its posterior)")
STRETCH = 1.2  # an overall rate's upper quantile at Phi(STRETCH t): bench/sim_overall_frontier.py, docs/statistics.md
REACH = 0.8  # and its lower quantile at Phi(-REACH t) (the same bench: the pairs' noise widens the replicates)
#: REACH and STRETCH were chosen where t is read on 9 and 19 df (10 and 20 jobs a side); see :func:`reading_df`
TUNED_DF = 9
CONCENTRATION = 1.0  # an overall rate's pair rates: Beta(k + c p, n - k + c (1 - p)) posteriors, c this, p the run's rate
LEVELS = 256  # each pair's posterior read at this many equally spaced probability levels
TOLERANCE = 1e-9  # points: a standard error below it (times max(1, |difference|)) is round-off, i.e. 0


@dataclass(frozen=True)
class Plan:
    """One crossed resampling plan over the profession pairs of a run: all rates share it (paired)."""

    clusters: Any  # pandas Index of cluster labels (unordered pairs)
    crossed: Any  # stereoprobe.stats.crossed.CrossedPlan over those clusters
    level: float

    @property
    def weights(self) -> Any:
        """(blocks * B, clusters) multiplicities."""
        return self.crossed.weights

    def codes(self, labels: Any) -> Any:
        """Cluster index of each label (every label must be a cluster of the plan)."""
        import numpy as np

        codes = self.clusters.get_indexer(labels if hasattr(labels, "dtype") else np.asarray(labels, dtype=object))
        if (codes < 0).any():
            raise ValueError("a row's cluster is not in the plan")
        return codes


def make_plan(clusters: Sequence[str], n_boot: int = DEFAULT_BOOT, seed: int = 0, level: float = 0.95,
              members: Any = None) -> Plan:
    """A crossed plan over the distinct ``clusters``.

    ``members``: a frame with ``cluster, profession_a, profession_b, gender_a, gender_b``
    (an answer frame): each pair's two jobs and their sides. None: the jobs are read from
    the cluster label ("a / b") and form one pool.
    """
    import numpy as np
    import pandas as pd

    from stereoprobe.stats.crossed import crossed_plan

    index = pd.Index(pd.unique(np.asarray(clusters, dtype=object)))
    if members is None:
        parts = [str(c).split(" / ", 1) for c in index]
        first, second = [p[0] for p in parts], [p[-1] for p in parts]
        plan = crossed_plan(first, second, n_boot, seed)
    else:
        rows = members.drop_duplicates("cluster").set_index("cluster").loc[index]
        side = lambda g: [x if x in ("women", "men") else "any" for x in g]  # noqa: E731
        plan = crossed_plan(list(rows["profession_a"]), list(rows["profession_b"]), n_boot, seed,
                            side(rows["gender_a"]), side(rows["gender_b"]))
    return Plan(index, plan, level)


def plan_for(frame: Any, n_boot: int = DEFAULT_BOOT, seed: int = 0, level: float = 0.95) -> Plan:
    """The plan of an answer frame's pairs, each job on its side (women- or men-dominated)."""
    return make_plan(frame["cluster"], n_boot, seed, level, members=frame)


def _sums(plan: Plan, clusters: Any, values: Any, keys: Any, n_keys: int) -> Any:
    """(clusters x keys) sums of ``values``."""
    import numpy as np

    g = len(plan.clusters)
    flat = plan.codes(clusters) * n_keys + np.asarray(keys, dtype=np.int64)
    return np.bincount(flat, weights=np.asarray(values, dtype=np.float64), minlength=g * n_keys).reshape(g, n_keys)


def replicates(plan: Plan, clusters: Any, num: Any, den: Any, keys: Any, n_keys: int,
               total: bool = False) -> tuple[Any, Any, Any, Any]:
    """(estimates %, replicates % (B x keys), numerator and denominator sums per cluster).

    ``total``: add a last key summing all the others (an "Overall" rate).
    """
    import numpy as np

    from stereoprobe.stats import replicate_ratio

    mnum, mden = _sums(plan, clusters, num, keys, n_keys), _sums(plan, clusters, den, keys, n_keys)
    if total:
        mnum, mden = np.column_stack([mnum, mnum.sum(1)]), np.column_stack([mden, mden.sum(1)])
    tot_num, tot_den = mnum.sum(0), mden.sum(0)
    with np.errstate(invalid="ignore", divide="ignore"):
        est = np.where(tot_den > 0, 100 * tot_num / np.where(tot_den > 0, tot_den, 1), np.nan)
    return est, 100 * replicate_ratio(plan.weights, mnum, mden), mnum, mden


def rate_table(plan: Plan, clusters: Any, num: Any, den: Any, keys: Any, names: Sequence[Any],
               total: str | None = None) -> Any:
    """Per key (``keys`` holds indices into ``names``): n, k, pct and its interval.

    ``n`` is the denominator's total (answers or triples), ``k`` the numerator's;
    ``total``: the name of an added last row over all keys, whose interval is
    :func:`overall_interval`'s. The design effect of every cell is at least the pooled one
    of the keys (:func:`pooled_deff`).
    """
    import numpy as np
    import pandas as pd

    from stereoprobe.stats import share_interval

    est, reps, mnum, mden = replicates(plan, clusters, num, den, keys, len(names), total is not None)
    g = (mden > 0).sum(0)
    var, df = plan.crossed.variance(reps, mden > 0)
    n = mden.sum(0)
    deff = pooled_deff(est[: len(names)], var[: len(names)], n[: len(names)])
    low, high = share_interval(est, None, g, n, level=plan.level, variance=var, df=df, deff_floor=deff,
                               method="jeffreys")
    if total is not None:
        low[-1], high[-1] = overall_interval(plan, mnum[:, -1], mden[:, -1])
    index = list(names) + ([total] if total is not None else [])
    out = pd.DataFrame({"n": n, "k": mnum.sum(0), "pct": est, "low": low, "high": high}, index=pd.Index(index))
    out[["n", "k"]] = out[["n", "k"]].round().astype(np.int64)
    return out


def overall_interval(plan: Plan, num: Any, den: Any) -> tuple[float, float]:
    """(low, high) % of a rate over a run's pairs, ``100 sum num / sum den`` (``num``, ``den``: per cluster of the
    plan). One rule at every rate, from replicates that draw both sides' jobs at once
    (:meth:`stereoprobe.stats.crossed.CrossedPlan.joint_ratio`): the low limit their ``Phi(-REACH t)`` quantile
    with the pairs' rates as observed, the high limit their ``Phi(STRETCH t)`` quantile with each pair's rate drawn
    from its posterior ``Beta(k + c p, n - k + c (1 - p))`` (``p`` the run's rate, ``c`` :data:`CONCENTRATION`,
    read at :data:`LEVELS` levels); ``t`` the ``(1 + level) / 2`` quantile of t on :func:`reading_df` of the
    jobs of the smaller side minus 1; never inside the Jeffreys interval of ``sum num`` of ``sum den`` answers (a
    rate of 0 or 100%); NaN with one job on a side. A pair's posterior reaches above what it showed where it
    showed few wrong answers, which the high limit needs at low rates: a run that drew no hard job has both a low
    rate and jobs that look alike. Every replicate is a weighted mean of the pairs' (observed or drawn) rates with weights of at least 0
    that the counts do not choose, and a drawn rate grows with its pair's count and with the run's rate, so one
    more wrong answer in any pair never lowers either limit (tests/test_coref_overall.py). Issue 36;
    docs/statistics.md, "Overall rates where jobs differ strongly"."""
    import numpy as np
    from scipy import special  # the t, normal and beta functions scipy.stats calls (stdtrit, ndtr, betaincinv)

    num, den = np.asarray(num, dtype=np.float64), np.asarray(den, dtype=np.float64)
    k, n = float(num.sum()), float(den.sum())
    df = float(plan.crossed.df((den > 0)[:, None])[0])
    if not n > 0 or np.isnan(df):  # a side with one job: no interval for jobs like these can be formed
        return float("nan"), float("nan")
    t = float(special.stdtrit(reading_df(df), 0.5 + plan.level / 2))
    p = k / n
    counts, pair = np.unique(np.column_stack([num, den]), axis=0, return_inverse=True)  # pairs alike share levels
    a, b = (counts[:, 0] + CONCENTRATION * p)[:, None], (counts[:, 1] - counts[:, 0] + CONCENTRATION * (1 - p))[:, None]
    u = (np.arange(LEVELS) + 0.5) / LEVELS
    with np.errstate(invalid="ignore"):
        q = np.where(a <= 0, 0.0, np.where(b <= 0, 1.0, special.betaincinv(np.maximum(a, 1e-300),
                                                                          np.maximum(b, 1e-300), u)))[pair.ravel()]
    reps = plan.crossed.joint_ratio(num, den, unit_quantiles=np.where(den[:, None] > 0, q, 0.0))
    hi = np.nanquantile(reps, special.ndtr(STRETCH * t))
    lo = np.nanquantile(plan.crossed.joint_ratio(num, den), special.ndtr(-REACH * t))  # the rates as observed
    tail = (1 - plan.level) / 2
    j_lo = float(special.betaincinv(k + 0.5, n - k + 0.5, tail)) if k > 0 else 0.0
    j_hi = float(special.betaincinv(k + 0.5, n - k + 0.5, 1 - tail)) if k < n else 1.0
    return 100 * min(float(lo), j_lo), 100 * max(float(hi), j_hi)


def reading_df(df: float) -> float:
    """The degrees of freedom an overall rate's ``t`` is read on, from ``df``, the jobs of the smaller side minus 1:
    ``df`` from 10 jobs a side on, and below that twice ``df`` (both sides' jobs minus 2 where the sides are
    equal) up to :data:`TUNED_DF`. With few jobs the replicates are skewed, and t on the smaller side alone reads
    them far out in the tail: at 5 x 5 jobs (t on 4 df) ``Phi(1.2 t)`` is their 99.96% quantile, and the interval
    covered 0.97-1.00 at 1.3-1.8 times the oracle width (3.5-4.1 where the jobs are alike); read on 8 df,
    0.94-0.98 at 1.1-1.3. At 3 x 3 jobs reading on 4 df (not 2) covers 0.94-0.98, and on 9 df it covered
    0.89-0.96 (docs/statistics.md, "Overall rates where jobs differ strongly", "With few jobs").

    >>> [reading_df(d) for d in (1, 2, 4, 5, 9, 19)]
    [2, 4, 8, 9, 9, 19]
    """
    return max(df, min(2 * df, TUNED_DF))


def pooled_deff(pct: Any, var: Any, n: Any) -> float:
    """The cells' pooled design effect: the median of ``deff_k = var_k / (p_k (100 - p_k) / n_k)``
    over the cells whose variance says something (0 < pct < 100, var > 0); at least 1, and 1
    when no cell has a variance (the median: a mean of noisy design effects, used as every
    cell's floor, widened the per-scene intervals to cover 0.98). A cell at 0 of n has no variance of its
    own; before, it was taken as n independent answers (0 to 0.44% at 0 of 840)."""
    import numpy as np

    pct, var, n = (np.asarray(a, dtype=np.float64) for a in (pct, var, n))
    ok = (pct > 0) & (pct < 100) & (var > 0) & (n > 0)
    if not ok.any():
        return 1.0
    deff = var[ok] / (pct[ok] * (100 - pct[ok]) / n[ok])
    return float(max(1.0, np.median(deff)))


def difference(plan: Plan, est: Any, reps: Any, i: int, j: int, contributing: Any) -> dict[str, float]:
    """Paired difference of rates ``i`` and ``j`` (columns of one ``replicates`` call), in points.

    ``contributing``: (clusters x keys) denominators, to count the clusters in both.
    """
    import numpy as np

    weights = np.zeros(len(est))
    weights[i], weights[j] = 1.0, -1.0
    return contrast(plan, est, reps, weights, contributing)


def contrast(plan: Plan, est: Any, reps: Any, weights: Any, contributing: Any) -> dict[str, float]:
    """A paired contrast of rates, sum_k weights_k * rate_k (points: a difference, or a
    difference of differences), with its t interval and p-value at the two-way standard
    error; degrees of freedom from the jobs with answers in every rate the contrast uses.
    A standard error of 0 (within :data:`TOLERANCE`) is replaced by the binomial one of the
    rates, ``100 sqrt(sum w_k^2 p_k (1 - p_k) / n_k)`` with ``p_k = (k + 1/2) / (n + 1)``.
    """
    import numpy as np

    from stereoprobe.stats import t_interval, t_pvalue

    weights = np.asarray(weights, dtype=np.float64)
    used = weights != 0
    both = (contributing[:, used] > 0).all(axis=1)
    g = int(both.sum())
    with np.errstate(invalid="ignore"):
        d = float(np.dot(np.where(used, est, 0.0), weights)) if not np.isnan(est[used]).any() else np.nan
        rd = np.where(used, reps, 0.0) @ weights
        rd[np.isnan(reps[:, used]).any(axis=1)] = np.nan
    if np.isnan(d) or g < 2 or (~np.isnan(rd)).sum() < 4:
        return {"difference": d, "low": np.nan, "high": np.nan, "p": np.nan}
    var, df = plan.crossed.variance(rd[:, None], both[:, None])
    se, df = float(np.sqrt(var[0])), float(df[0])
    if np.isnan(df):
        return {"difference": d, "low": np.nan, "high": np.nan, "p": np.nan}
    if not se > TOLERANCE * max(1.0, abs(d)):
        n = contributing[:, used].sum(axis=0)
        p = (np.clip(est[used], 0, 100) / 100 * n + 0.5) / (n + 1)
        se = float(100 * np.sqrt(np.sum(weights[used] ** 2 * p * (1 - p) / n)))
    bound = 100.0 * np.abs(weights).sum() / 2 if np.abs(weights).sum() > 2 else 100.0
    low, high = t_interval(d, None, g, level=plan.level, bounds=(-bound, bound), se=se, df=df)
    return {"difference": d, "low": float(low), "high": float(high), "p": float(t_pvalue(d, None, g, se=se, df=df))}
