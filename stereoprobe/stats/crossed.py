"""Resampling for crossed designs: units that each join two members of crossed sets.

The coreference study's unit is a pair of professions; by default every women-dominated
job meets every men-dominated one, so a job sits in 20 pairs and pairs that share a job
are correlated. Resampling pairs as independent clusters is right for neither estimand
(docs/statistics.md). For "members like these" (the jobs a sample of jobs like them),
this module gives the two-way cluster-robust variance of Cameron, Gelbach & Miller (2011,
*J. Business & Economic Statistics* 29: 238-249), by replicates, so it applies to any
statistic of the units (ratios, differences of ratios, differences of differences):

    V = max(sum over sides s of V_s - V_units,  V_units)

with ``V_s`` the bootstrap variance when only side ``s``'s members are resampled (a
unit's weight is the product of its members' multiplicities, members of other sides
kept once; times ``G_s / (G_s - 1)``) and ``V_units`` the variance when the units are
resampled as independent clusters (times ``U / (U - 1)``). Each side's one-way variance
counts the unit-level noise once; the subtraction keeps it counted once in all. The
pigeonhole bootstrap (Owen 2007, *Ann. Appl. Stat.* 1: 246-261; both sides drawn at
once) counts it three times: up to 1.7 times too wide when the members hardly differ.
``V`` is never below ``V_units``, what treating the units as independent gives: members
that are a sample can only add variance to the units' own, and the difference of
variances is noisy with few members (with 6 jobs per side, paired pronoun tests flagged
7-10% of null cases without this floor). Flooring at the larger one-way variance instead
made the intervals 1.5 times the needed width when the jobs do not differ. Degrees of
freedom: the members of the smallest side minus 1; the units' minus 1 where the floor is
used (it rests on them).

Members are resampled within their side (e.g. the gender that dominates the job); a unit
whose two members share a side (random pairs from one pool) gets the product of both
multiplicities in that side's block, the dyadic case. Everything is vectorised: one
:func:`stereoprobe.stats.cluster_weights` draw per block.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

JOINT_ROWS = 20_000  # CrossedPlan.joint_ratio's replicates: 45 beyond Phi(1.2 t(9)) = 0.99777, 72 at t(19)
TOLERANCE = 1e-9  # relative: a variance below TOLERANCE^2 x scale^2 is round-off, i.e. 0


@dataclass(frozen=True)
class CrossedPlan:
    """Replicate weights of a crossed design: one block per side (in the order the sides first
    appear), then the units' block."""

    weights: Any  # (blocks * n_boot, units) float multiplicities
    n_boot: int
    factors: tuple[float, ...]  # per block: G / (G - 1)
    sides: int  # the first ``sides`` blocks are the sides' one-way blocks; the last the units'
    incidence: Any  # (members, units) bool: which members each unit joins
    member_side: Any  # (members,) side code of each member
    draw_seed: int = 0  # the seed of joint_ratio's draws from ``unit_quantiles`` (fixed by the plan, not the data)

    def variance(self, replicates: Any, contributing: Any = None) -> tuple[Any, Any]:
        """(variance, degrees of freedom) of each column of ``replicates`` ((blocks * B) x k).

        The variance as in the module docstring. Its degrees of freedom: those of the members
        (:meth:`df`) where the two-way part is used, the units' minus 1 where the floor
        ``V_units`` is (it rests on the units). ``contributing``: (units x k) bool, the
        units with data in each column (None: all).
        """
        import warnings

        import numpy as np

        reps = np.asarray(replicates, dtype=np.float64)
        blocks = reps.reshape(len(self.factors), self.n_boot, *reps.shape[1:])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # an all-NaN column: no variance
            parts = np.stack([f * np.nanvar(b, axis=0, ddof=1) for f, b in zip(self.factors, blocks)])
        total = parts[: self.sides].sum(axis=0) - parts[self.sides]
        units = self.incidence.shape[1]
        c = np.ones((units, reps.shape[1] if reps.ndim > 1 else 1), bool) if contributing is None else \
            np.asarray(contributing, bool).reshape(units, -1)
        df_units = np.where(c.sum(axis=0) >= 2, c.sum(axis=0) - 1.0, np.nan)
        df = np.where(total > parts[self.sides], self.df(c), df_units)
        return np.maximum(total, parts[self.sides]), df.reshape(np.shape(total))

    def df(self, contributing: Any = None) -> Any:
        """Degrees of freedom: members of the smallest side (at most the units) minus 1, counting
        only members of units with ``contributing`` (units x k bool; None: every unit). NaN below 1."""
        import numpy as np

        units = self.incidence.shape[1]
        c = np.ones((units, 1), bool) if contributing is None else np.asarray(contributing, bool).reshape(units, -1)
        has = (self.incidence.astype(np.int64) @ c.astype(np.int64)) > 0  # members x k
        counts = np.stack([has[self.member_side == s].sum(axis=0) for s in range(self.sides)])
        counts = np.where(counts > 0, counts, np.iinfo(np.int64).max).min(axis=0)
        df = np.minimum(counts.astype(np.float64), c.sum(axis=0)) - 1  # never more than the units minus 1
        out = np.where((df >= 1) & (df < 1e17), df, np.nan)
        return out if contributing is not None and np.ndim(contributing) > 1 else out[0]

    def joint_ratio(self, num: Any, den: Any, unit_quantiles: Any = None) -> Any:
        """(R,) replicates of ``sum num / sum den`` over the units with every side's members drawn at once (the
        pigeonhole bootstrap): a unit's weight is the product of its members' multiplicities, row ``b`` of one
        side's block times row ``b - s`` of the next's, for shifts ``s = 0, 1, ...`` until there are
        :data:`JOINT_ROWS` replicates (at most ``n_boot`` shifts; one with a single side, whose block already
        draws both members). NaN where no unit with ``den > 0`` is drawn. The units' own noise counts about three
        times in the replicates' variance (the module docstring).

        ``unit_quantiles``: (units, L) each unit's ratio at L equally spaced probability levels (e.g. quantiles
        of a posterior of its rate); a replicate then draws one level per unit (a seeded draw fixed by the plan,
        :attr:`draw_seed`) and is ``sum w den q / sum w den``. Every weight is at least 0 and every draw is
        fixed by the plan, so a replicate, and any quantile of them, never falls when a unit's ``num`` (or its
        quantiles) grows: what an overall rate's interval needs
        (:func:`stereoprobe.studies.coreference.inference.overall_interval`)."""
        import numpy as np

        sides = self.weights.reshape(len(self.factors), self.n_boot, -1)[: self.sides]
        num, den = np.asarray(num, dtype=np.float64), np.asarray(den, dtype=np.float64)
        shifts = int(min(self.n_boot, max(1, -(-JOINT_ROWS // self.n_boot)))) if self.sides > 1 else 1
        rng = np.random.default_rng(self.draw_seed) if unit_quantiles is not None else None
        q = None if unit_quantiles is None else np.asarray(unit_quantiles, dtype=np.float64)
        flat, offsets = (None, None) if q is None else (q.ravel(), np.arange(q.shape[0]) * q.shape[1])
        out = []
        for s in range(shifts):
            w = sides[0].copy()
            for later in sides[1:]:
                w *= np.roll(later, s, axis=0)
            if q is None:
                out.append(w @ np.column_stack([num, den]))
                continue
            levels = rng.integers(0, q.shape[1], size=w.shape)
            levels += offsets  # row-major positions in q: one flat take instead of a 2-d fancy index
            wd = w * den
            out.append(np.column_stack([np.einsum("ij,ij->i", wd, flat.take(levels)), wd.sum(axis=1)]))
        sums = np.concatenate(out)
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(sums[:, 1] > 0, sums[:, 0] / np.where(sums[:, 1] > 0, sums[:, 1], 1.0), np.nan)



def crossed_plan(first: Sequence[Any], second: Sequence[Any], n_boot: int, seed: int | Any = 0,
                 first_side: Sequence[Any] | None = None, second_side: Sequence[Any] | None = None) -> CrossedPlan:
    """Replicate weights for units joining member ``first[i]`` and member ``second[i]``.

    ``first_side`` / ``second_side``: each member's side (e.g. "women", "men"); None: one
    side for all (members drawn from one pool). A member keeps one side throughout.
    ``seed``: an int or a ``numpy.random.Generator``. Any statistic's replicates are then
    computed with ``weights`` (rows: the blocks' replicates) and its variance is
    ``plan.variance(replicates)``.
    """
    import numpy as np
    import pandas as pd

    from stereoprobe.stats.resample import cluster_weights

    n = len(first)
    if n < 1 or len(second) != n or n_boot < 2:
        raise ValueError("a crossed plan needs units with two members each and at least 2 replicates")
    fs = ["all"] * n if first_side is None else list(first_side)
    ss = ["all"] * n if second_side is None else list(second_side)
    names = pd.Index(pd.unique(np.asarray([f"{s}\t{m}" for s, m in zip(fs + ss, list(first) + list(second))],
                                          dtype=object)))
    code_a = names.get_indexer([f"{s}\t{m}" for s, m in zip(fs, first)])
    code_b = names.get_indexer([f"{s}\t{m}" for s, m in zip(ss, second)])
    member_side, side_names = pd.factorize(np.asarray([x.split("\t", 1)[0] for x in names], dtype=object))
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    blocks, factors = [], []
    for s in range(len(side_names)):
        members = np.flatnonzero(member_side == s)
        w = np.ones((n_boot, len(names)))
        w[:, members] = cluster_weights([members], n_boot, seed=rng)
        blocks.append(w[:, code_a] * w[:, code_b])
        factors.append(len(members) / max(len(members) - 1, 1))
    blocks.append(cluster_weights([np.arange(n)], n_boot, seed=rng).astype(np.float64))
    factors.append(n / max(n - 1, 1))
    incidence = np.zeros((len(names), n), bool)
    incidence[code_a, np.arange(n)] = True
    incidence[code_b, np.arange(n)] = True
    return CrossedPlan(np.concatenate(blocks), n_boot, tuple(factors), len(side_names), incidence,
                       np.asarray(member_side), int(rng.integers(2**62)))
