"""Two generation runs that asked the same probes, compared: run minus baseline, each
difference with an interval that resamples what the metric's own interval resamples.

- **A share over groups** (``share_difference``; anecdotes' texts that follow their job's
  majority, story names' female share): a run's share is the mean of its texts' 0/1 over
  the run, its interval a t-based cluster bootstrap over groups (professions). The paired
  difference draws the *same* groups for both runs in each replicate (the groups are the
  probes both runs asked), so what the groups have in common cancels and each group's
  texts in each run still vary: ``stats.cluster_weights`` over the groups, the difference
  of the two runs' ratios per replicate, ``stats.t_interval`` with groups - 1 degrees of
  freedom, as the run's own interval has.
- **A group's share** (``group_differences``; a profession's share of texts about a woman):
  each run's Jeffreys interval over that group's samples; the two runs' samples are
  independent, so the difference gets the MOVER interval of the two (``stats.mover``).
- **The bias-corrected NMI** (``nmi_difference``; anecdotes, story names): a run's interval
  is normal, from a parametric bootstrap of its texts within each group (the groups
  fixed). Two runs' texts are independent draws on the same groups, so the difference of
  the two corrected NMIs (before each is floored at 0) has the variance of the two
  bootstraps together: a normal interval on ``sqrt(sd_a^2 + sd_b^2)``. What it means: how
  much more (or less) the run's gender depends on the profession than the baseline's, on
  these professions.

Each function returns a :class:`Paired` (the estimate in the tables' scale, its interval,
``method`` and ``df`` as ``gate.values.Value`` takes them); a difference's two-sided p is
read from its interval by ``gate.pvalues.no_difference`` (metrics.py). The studies' own
statistics: docs/statistics.md, "Paired differences of generation runs"; the coverage on
synthetic runs with a known truth: tests/test_generation_paired.py.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Sequence


@dataclass(frozen=True)
class Paired:
    """Run minus baseline: the estimate and its 95% interval (the tables' scale: percent for a
    share), how the interval was made, and what it rests on (``n``: the run's texts counted)."""

    estimate: float
    low: float
    high: float
    method: str = "t"
    df: float = math.inf
    n: int | None = None


def _by_group(groups: Sequence[Any], values: Sequence[Any], index: Any) -> tuple[Any, Any]:
    """Per group of ``index``: the sum of ``values`` and the count of texts (0 where none)."""
    import numpy as np

    codes = index.get_indexer(np.asarray(groups, dtype=object))
    v = np.asarray(values, dtype=np.float64)
    return (np.bincount(codes, weights=v, minlength=len(index)), np.bincount(codes, minlength=len(index)).astype(
        np.float64))


def share_difference(base_groups: Sequence[Any], base_values: Sequence[Any], run_groups: Sequence[Any],
                     run_values: Sequence[Any], n_boot: int = 2000, seed: int = 2023, level: float = 0.95) -> Paired:
    """The run's share (percent) minus the baseline's, over the same groups (module docstring).

    By hand: groups g1 (baseline 1 of 2 texts, run 2 of 2) and g2 (0 of 2, 1 of 2): the
    baseline's share is 1/4 = 25%, the run's 3/4 = 75%, the difference 50 points.

    >>> d = share_difference(["g1", "g1", "g2", "g2"], [1, 0, 0, 0], ["g1", "g1", "g2", "g2"], [1, 1, 1, 0], 200)
    >>> d.estimate, d.df
    (50.0, 1.0)
    """
    import numpy as np
    import pandas as pd

    from stereoprobe.stats import cluster_weights, t_interval

    index = pd.Index(pd.unique(np.concatenate([np.asarray(base_groups, dtype=object),
                                               np.asarray(run_groups, dtype=object)])))
    sa, na = _by_group(base_groups, base_values, index)
    sb, nb = _by_group(run_groups, run_values, index)
    n = int(nb.sum())
    if na.sum() == 0 or nb.sum() == 0:
        return Paired(math.nan, math.nan, math.nan, n=n)
    est = 100 * (sb.sum() / nb.sum() - sa.sum() / na.sum())
    g = len(index)
    if g < 2:
        return Paired(float(est), math.nan, math.nan, df=math.nan, n=n)
    w = cluster_weights([np.arange(g)], n_boot, seed=seed).astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        reps = 100 * ((w @ sb) / (w @ nb) - (w @ sa) / (w @ na))
    low, high = t_interval(np.array([est]), reps[:, None], g, 1, level=level, bounds=(-100.0, 100.0))
    return Paired(float(est), float(low[0]), float(high[0]), "t", float(g - 1), n)


def group_differences(base: Any, run: Any, key: str, column: str) -> list[tuple[str, Paired]]:
    """Per group in both tables (``key``: the group's column): the run's ``column`` (percent,
    with ``column_low`` and ``column_high``: its Jeffreys interval) minus the baseline's, with
    the MOVER interval (``stats.mover``)."""
    from stereoprobe.stats.intervals import mover

    cols = [key, column, f"{column}_low", f"{column}_high"]
    both = base[cols].merge(run[cols], on=key, suffixes=("_a", "_b"))
    out = []
    for r in both.to_dict("records"):
        d, low, high = mover(*(r[f"{c}_{side}"] for side in "ab" for c in cols[1:]))
        out.append((str(r[key]), Paired(float(d), float(low), float(high), "sides")))
    return out


def nmi_difference(base: Any, run: Any, level: float = 0.95) -> Paired:
    """The run's bias-corrected NMI minus the baseline's (two ``generation.stats.NMITest``s of
    independent runs on the same groups; module docstring)."""
    from scipy.stats import norm

    est = run.centre - base.centre
    se = math.sqrt(run.sd ** 2 + base.sd ** 2)
    if not (se == se and est == est):
        return Paired(est, math.nan, math.nan, n=run.texts)
    half = float(norm.ppf(0.5 + level / 2)) * se
    return Paired(float(est), max(-1.0, est - half), min(1.0, est + half), "t", math.inf, run.texts)
