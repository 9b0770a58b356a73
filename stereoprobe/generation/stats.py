"""The generation studies' statistics, on the project's plan (stereoprobe.stats).

- A group's share of a class (the female share of a profession's texts) over its K
  samples: the samples are independent draws at a temperature, so the share is binomial;
  its interval is Jeffreys' (the beta(k + 1/2, n - k + 1/2) quantiles, as the fill-in
  tables use), ``share_intervals``.
- A share over groups (the texts that follow their job's majority, over all jobs): the
  groups are a sample of occupations, so the interval resamples groups (a cluster
  bootstrap, ``stats.cluster_weights``, the t-based ``stats.t_interval``), ``cluster_share``;
  clusters can be finer (a name's samples in the hobbies study).
- Independence (seed 001, eq. 1-2): NMI of the group x class table (``stats.criteria.nmi``)
  over the texts with a class in ``classes`` (001: male, female), against its permutation
  null (the classes shuffled among texts, within strata when given, e.g. a story prompt),
  and an interval for the NMI of the model's own distribution (each group's class
  probabilities, the groups at their sizes). The plug-in NMI of a few texts per group is
  biased upwards (the null's mean says by how much), so the interval is a bias-corrected
  normal interval from a parametric bootstrap: each group's texts drawn again from its
  Jeffreys-smoothed shares ((count + 1/2) / (n + classes / 2), so that a group whose texts
  all have one class still varies); bias = mean replicate NMI - NMI of the smoothed table;
  interval = NMI - bias +/- z sd(replicates), its upper end capped at the largest NMI the
  groups' sizes allow (``size_bound``). ``nmi_test``; its coverage on synthetic runs
  with a known NMI is checked in tests/test_generation_stats.py.
- Spearman's rho of a group's share with an outside share (the BLS share of women):
  ``stats.correlation.correlation`` (Fisher z, Bonett-Wright standard error).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

PERMUTATIONS = 999
#: What a generation study's intervals are about (Sterlie et al.'s prompts' too): the model asked
#: these same prompts again. Pages say it beside the numbers and meta.json records it.
SAMPLED_AGAIN = "these prompts, sampled again"


def estimand(drawn: str) -> str:
    """The estimand in words (a page's sentence after "Intervals are 95% intervals for", and
    meta.json's ``statistics.estimand``); ``drawn``: what the intervals draw again."""
    return (f"{SAMPLED_AGAIN}: what the numbers would be had the model been asked these same prompts again "
            f"({drawn}), not what other wordings of the same request would give; one wording cannot say how much "
            "the wording moves them")


def jeffreys(k: Any, n: Any, level: float = 0.95) -> tuple[Any, Any]:
    """Jeffreys interval of k successes in n, as fractions (NaN where n is 0); the bounds are
    0 at k = 0 and 1 at k = n (Brown, Cai & DasGupta's modification).

    >>> [round(float(v), 3) for v in jeffreys(3, 30)]
    [0.029, 0.243]
    """
    import numpy as np
    from scipy.stats import beta

    k, n = np.asarray(k, np.float64), np.asarray(n, np.float64)
    a = (1 - level) / 2
    with np.errstate(invalid="ignore"):
        low = np.where(k > 0, beta.ppf(a, k + 0.5, n - k + 0.5), 0.0)
        high = np.where(k < n, beta.ppf(1 - a, k + 0.5, n - k + 0.5), 1.0)
    bad = n <= 0
    return np.where(bad, np.nan, low), np.where(bad, np.nan, high)


def share_intervals(frame: Any, by: str, label: str, classes: Sequence[str], level: float = 0.95) -> Any:
    """Per value of ``by``: n (texts with a class), and per class its count, share and
    Jeffreys interval (percent)."""
    import pandas as pd

    counts = pd.crosstab(frame[by], frame[label]).reindex(columns=list(classes), fill_value=0)
    n = counts.sum(axis=1)
    out = pd.DataFrame({by: counts.index, "n": n.to_numpy()})
    for c in classes:
        low, high = jeffreys(counts[c].to_numpy(), n.to_numpy(), level)
        out[c] = counts[c].to_numpy()
        out[f"{c}_share"] = 100 * counts[c].to_numpy() / n.where(n > 0).to_numpy()
        out[f"{c}_low"], out[f"{c}_high"] = 100 * low, 100 * high
    return out.reset_index(drop=True)


def cluster_share(values: Any, clusters: Sequence[Any], n_boot: int = 2000, seed: int = 0,
                  level: float = 0.95) -> tuple[float, float, float]:
    """The mean of 0/1 ``values`` in percent with a t-based cluster-bootstrap interval."""
    import numpy as np

    from stereoprobe.stats import cluster_weights, t_interval

    v = np.asarray(values, dtype=np.float64)
    if len(v) == 0:
        return float("nan"), float("nan"), float("nan")
    est = 100 * float(v.mean())
    g = len(set(clusters))
    if g < 2:
        return est, float("nan"), float("nan")
    w = cluster_weights([list(clusters)], n_boot, seed=seed).astype(np.float64)
    reps = 100 * (w @ v) / w.sum(axis=1)
    low, high = t_interval(np.array([est]), reps[:, None], g, 1, level=level, bounds=(0.0, 100.0))
    return est, float(low[0]), float(high[0])


@dataclass(frozen=True)
class NMITest:
    nmi: float  # the plug-in value of the texts' table (001's eq. 1-2)
    corrected: float  # nmi - the bootstrap's estimate of its small-sample bias: what the interval is around
    low: float
    high: float
    null_mean: float
    null_p95: float
    p: float
    texts: int
    groups: int
    permutations: int
    centre: float = float("nan")  # nmi - bias before ``corrected`` is floored at 0: the interval's centre
    sd: float = float("nan")  # the parametric bootstrap's standard deviation (the interval's half-width / z)


def _table(codes: Any, labels: Any, n_groups: int, n_labels: int, weights: Any = None) -> Any:
    import numpy as np

    flat = np.asarray(codes) * n_labels + np.asarray(labels)
    return np.bincount(flat, weights, n_groups * n_labels).reshape(n_groups, n_labels)


def nmi_test(groups: Sequence[Any], labels: Sequence[Any], strata: Sequence[Any] | None = None,
             n_perm: int = PERMUTATIONS, n_boot: int = 2000, seed: int = 0, level: float = 0.95) -> NMITest:
    """NMI(group, label) of the texts given (module docstring)."""
    import numpy as np
    import pandas as pd

    from stereoprobe.stats.criteria import nmi

    g = pd.factorize(np.asarray(groups, dtype=object))[0]
    c = pd.factorize(np.asarray(labels, dtype=object))[0]
    n, ng, nc = len(g), int(g.max(initial=-1)) + 1, int(c.max(initial=-1)) + 1
    if ng < 2 or nc < 2:
        value = 0.0 if n else float("nan")
        return NMITest(value, value, float("nan"), float("nan"), float("nan"), float("nan"), float("nan"), n, ng, 0)
    observed = float(nmi(_table(g, c, ng, nc)))
    rng = np.random.default_rng(seed)
    st = np.zeros(n, np.int64) if strata is None else pd.factorize(np.asarray(strata, dtype=object))[0]
    perm = np.tile(np.arange(n), (n_perm, 1))
    for s in np.unique(st):
        cols = np.flatnonzero(st == s)
        perm[:, cols] = rng.permuted(perm[:, cols], axis=1)
    flat = (np.arange(n_perm)[:, None] * ng * nc + g[None, :] * nc + c[perm]).ravel()
    null = nmi(np.bincount(flat, minlength=n_perm * ng * nc).reshape(n_perm, ng, nc))
    from scipy.stats import norm

    counts = _table(g, c, ng, nc)
    sizes = counts.sum(1)
    smooth = (counts + 0.5) / (sizes[:, None] + 0.5 * nc)  # Jeffreys-smoothed class probabilities per group
    boot = nmi(np.stack([rng.multinomial(sizes.astype(np.int64), smooth) for _ in range(n_boot)]))
    bias = boot.mean() - float(nmi(smooth * sizes[:, None]))
    half = norm.ppf(0.5 + level / 2) * boot.std(ddof=1)
    low, high = max(0.0, observed - bias - half), min(size_bound(sizes, nc), observed - bias + half)
    p = float((1 + np.sum(null >= observed - 1e-12)) / (n_perm + 1))
    return NMITest(observed, max(0.0, float(observed - bias)), float(low), float(high), float(null.mean()),
                   float(np.quantile(null, 0.95)), p, n, ng, n_perm, float(observed - bias), float(boot.std(ddof=1)))


def size_bound(sizes: Any, classes: int) -> float:
    """The largest NMI any table with these group sizes and ``classes`` classes can have:
    min(1, sqrt(ln classes / H(groups))) (NMI <= sqrt(H(class) / H(group)) once H(class) <=
    H(group), and H(class) <= ln classes). The interval's upper end is capped there: no truth
    lies above it (4 groups of 30 and a binary class: 0.707, not the 0.785 a normal interval
    near the boundary can give).

    >>> round(size_bound([30, 30, 30, 30], 2), 4), size_bound([10, 10], 2)
    (0.7071, 1.0)
    """
    import numpy as np

    n = np.asarray(sizes, dtype=np.float64)
    p = n[n > 0] / n.sum()
    h = float(-(p * np.log(p)).sum())
    return 1.0 if h <= 0 else min(1.0, float(np.sqrt(np.log(classes) / h)))


def spearman(x: Any, y: Any, level: float = 0.95) -> Any:
    """Spearman's rho with its interval and p (``stats.correlation``); NaN pairs left out."""
    from stereoprobe.stats.correlation import correlation

    return correlation(x, y, "spearman", level)


def share_row(statistic: str, values: Any, on: Any, n_boot: int, seed: int, level: float) -> dict[str, Any]:
    """A summary row: the share of ``values`` (0 or 1 per text of the frame ``on``) over the
    run, with its interval from the cluster bootstrap over ``on``'s groups."""
    import numpy as np

    est, low, high = cluster_share(np.asarray(values, dtype=float), on.group.to_numpy(), n_boot, seed, level)
    return {"statistic": statistic, "value": est, "low": low, "high": high, "n": len(on),
            "groups": on.group.nunique(), "p": np.nan, "null_mean": np.nan}


def nmi_rows(test: NMITest) -> list[dict[str, Any]]:
    """The summary's two rows of an NMI test, each with p and the mean by chance: ``nmi``
    (the plug-in value, 001's number, with no interval: it is biased upwards, and the
    interval is for the NMI of the model's own distribution) and ``nmi_corrected`` (less
    its bias) with that interval, which is centred on it."""
    nan = float("nan")
    return [{"statistic": name, "value": value, "low": low, "high": high, "n": test.texts,
             "groups": test.groups, "p": test.p, "null_mean": test.null_mean}
            for name, value, low, high in (("nmi", test.nmi, nan, nan),
                                           ("nmi_corrected", test.corrected, test.low, test.high))]
