"""Intervals and paired tests for coreference rates, on stereoprobe.stats' cluster bootstrap.

The resampled unit is the unordered pair of professions (``CorefProbe.cluster``): all of
a pair's prompts (both roles, every template, the three pronouns) move together, so a
triple is never split and the rates of different pronouns, templates or prompt kinds
are paired. The estimand is the rate over *these* professions and templates: the
interval says how much it would move if the model answered the same prompts again, not
what other professions would give (the professions are crossed with each other, so a
bootstrap that treated them as sampled would need a crossed scheme).

A rate is ``100 * sum(num) / sum(den)`` over rows (answers or triples); its interval is
:func:`stereoprobe.stats.share_interval` (Korn-Graubard's effective size, Jeffreys
interval: it keeps coverage near 0% and 100%) with the clusters that contribute to it; a difference of two rates of one
plan gets :func:`stereoprobe.stats.t_interval` and :func:`stereoprobe.stats.t_pvalue`.
Replicates come from per-cluster sums, so a 10,000-answer run costs a (B x pairs) matrix
product, never a (B x answers) one.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

DEFAULT_BOOT = 1000
RATE_COLUMNS = ["n", "k", "pct", "low", "high"]


@dataclass(frozen=True)
class Plan:
    """One bootstrap plan over the profession pairs of a run: all rates share it (paired)."""

    clusters: Any  # pandas Index of cluster labels
    weights: Any  # (B, clusters) multiplicities
    level: float

    def codes(self, labels: Any) -> Any:
        """Cluster index of each label (every label must be a cluster of the plan)."""
        import numpy as np

        codes = self.clusters.get_indexer(labels if hasattr(labels, "dtype") else np.asarray(labels, dtype=object))
        if (codes < 0).any():
            raise ValueError("a row's cluster is not in the plan")
        return codes


def make_plan(clusters: Sequence[str], n_boot: int = DEFAULT_BOOT, seed: int = 0, level: float = 0.95) -> Plan:
    """A plan resampling the distinct ``clusters`` (with replacement, as many as there are)."""
    import numpy as np
    import pandas as pd

    from stereoprobe.stats import cluster_weights

    index = pd.Index(pd.unique(np.asarray(clusters, dtype=object)))
    weights = cluster_weights([np.arange(len(index))], n_boot, seed=seed)
    return Plan(index, weights, level)


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
    ``total``: the name of an added last row over all keys.
    """
    import numpy as np
    import pandas as pd

    from stereoprobe.stats import share_interval

    est, reps, mnum, mden = replicates(plan, clusters, num, den, keys, len(names), total is not None)
    g = (mden > 0).sum(0)
    low, high = share_interval(est, reps, g, mden.sum(0), level=plan.level, method="jeffreys")
    index = list(names) + ([total] if total is not None else [])
    out = pd.DataFrame({"n": mden.sum(0), "k": mnum.sum(0), "pct": est, "low": low, "high": high},
                       index=pd.Index(index))
    out[["n", "k"]] = out[["n", "k"]].round().astype(np.int64)
    return out


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
    difference of differences), with its t interval and p-value; the clusters counted are
    those with answers in every rate the contrast uses.
    """
    import numpy as np

    from stereoprobe.stats import t_interval, t_pvalue

    weights = np.asarray(weights, dtype=np.float64)
    used = weights != 0
    g = int((contributing[:, used] > 0).all(axis=1).sum())
    with np.errstate(invalid="ignore"):
        d = float(np.dot(np.where(used, est, 0.0), weights)) if not np.isnan(est[used]).any() else np.nan
        rd = np.where(used, reps, 0.0) @ weights
        rd[np.isnan(reps[:, used]).any(axis=1)] = np.nan
    ok = ~np.isnan(rd)
    if np.isnan(d) or g < 2 or ok.sum() < 2:
        return {"difference": d, "low": np.nan, "high": np.nan, "p": np.nan}
    bound = 100.0 * np.abs(weights).sum() / 2 if np.abs(weights).sum() > 2 else 100.0
    low, high = t_interval(d, rd[ok], g, level=plan.level, bounds=(-bound, bound))
    return {"difference": d, "low": float(low), "high": float(high), "p": float(t_pvalue(d, rd[ok], g))}
