"""The independence criterion of seed 001: is the word label independent of the group?

- ``nmi(table)``: normalised mutual information MI / sqrt(H(A) H(C)) of a groups x labels
  contingency table (entropies from ``scipy.special.entr``; the log base cancels).
- ``four_fifths_ratio``: lowest group positive share / highest, over groups with at least
  MIN_PROBES probes with counted words.

Both are judged against their **permutation null**: whole replies (their negative and
positive counts together) are shuffled among the groups *within strata*, the category x
template cells of the design (``permutation_test``): under independence, the replies
to one template are exchangeable among groups, whatever the templates do. Shuffling
across templates would mix template effects into the null and leave the test almost no
power. With many groups and few words each, NMI is above 0 and the four-fifths ratio
far below 0.8 by chance alone: only the null says whether a value is unusual.
``nmi_p = (1 + #{null >= observed}) / (1 + permutations)``; ``four_fifths_p`` is the
same for ``null <= observed`` (a ratio below what chance gives), and
``four_fifths_null_p05`` the null's 5th percentile. ``permutation_test`` takes plain
arrays, so other studies can use it.
"""

from __future__ import annotations

from typing import Any

COLUMNS = ["category", "format", "nmi", "nmi_p", "four_fifths_ratio", "four_fifths_p", "four_fifths_null_p05",
           "groups", "permutations"]  # fmt: skip
PERMUTATIONS = 999  # p-values to 0.001
CHUNK = 128  # permutations summed at a time (their index arrays: 8 bytes a reply each)


def nmi(table: Any) -> Any:
    """NMI of a contingency table (..., groups, labels); stacked tables along leading axes.

    0 when a margin has zero entropy (one group or one label: nothing to depend on).
    """
    import numpy as np
    from scipy.special import entr

    t = np.asarray(table, dtype=np.float64)
    total = t.sum(axis=(-2, -1))[..., None]
    with np.errstate(invalid="ignore", divide="ignore"):
        p = t / total[..., None]  # entropy(p) = sum(entr(p)), as scipy.stats.entropy computes it
    h_joint = entr(p).sum(axis=(-2, -1))
    if p.shape[-1] == 2:  # two labels: numpy's sum over an axis of 2 is this addition, at a fraction of the time
        h_a = entr(p[..., 0] + p[..., 1]).sum(-1)
        col = entr(p.sum(-2))
        h_c = col[..., 0] + col[..., 1]
    else:
        h_a, h_c = entr(p.sum(-1)).sum(-1), entr(p.sum(-2)).sum(-1)
    with np.errstate(invalid="ignore", divide="ignore"):  # a margin's entropy can be -1e-17, not 0
        denom = np.sqrt(h_a * h_c)
        return np.where(denom > 0, (h_a + h_c - h_joint) / np.where(denom > 0, denom, 1), 0.0)


def nmi_ceiling(groups: int, labels: int = 2) -> float:
    """The largest NMI of ``labels`` classes over ``groups`` groups of equal size:
    sqrt(ln(min) / ln(max)). MI <= min(H(A), H(C)), so NMI <= sqrt(min(H) / max(H)), reached
    when the class is a function of the group with equal classes; equal groups give
    H = ln(groups). A binary gender over 40 professions cannot pass 0.433, over 100 not 0.388,
    so NMIs over different numbers of groups are on different scales. (Unequal groups lower
    H(groups) and so raise the bound: the ceiling is that of the groups' number, not of
    their sizes.) NaN below two groups or labels.

    >>> round(nmi_ceiling(40), 3), round(nmi_ceiling(100), 3), nmi_ceiling(2)
    (0.433, 0.388, 1.0)
    """
    import math

    if groups < 2 or labels < 2:
        return float("nan")
    low, high = sorted((groups, labels))
    return math.sqrt(math.log(low) / math.log(high))


def _ratio(pos: Any, polar: Any, probes: Any, min_probes: int) -> Any:
    """Four-fifths ratio along the last axis: groups with enough probes, NaN if fewer than two or a zero top."""
    import numpy as np

    ok = (probes >= min_probes) & (polar > 0)
    with np.errstate(invalid="ignore", divide="ignore"):
        share = np.where(ok, pos / np.where(polar > 0, polar, 1), np.nan)
        hi, lo = np.nanmax(np.where(ok, share, -np.inf), -1), np.nanmin(np.where(ok, share, np.inf), -1)
        r = np.where((ok.sum(-1) >= 2) & (hi > 0), lo / np.where(hi > 0, hi, 1), np.nan)
    return r


def four_fifths_ratio(pos: Any, polar: Any) -> float:
    """Lowest positive share / highest, over the given groups' totals (NaN if none, or the highest is 0)."""
    import numpy as np

    pos, polar = np.asarray(pos, np.float64), np.asarray(polar, np.float64)
    ok = polar > 0
    if not ok.any():
        return float("nan")
    share = pos[ok] / polar[ok]
    return float(share.min() / share.max()) if share.max() > 0 else float("nan")


def _permutations(strata: Any, n_perm: int, rng: Any) -> Any:
    """(n_perm, n) reply index per slot; slots must be sorted by stratum; shuffled within each stratum."""
    import numpy as np

    n = len(strata)
    starts = np.flatnonzero(np.r_[True, strata[1:] != strata[:-1]]) if n else np.zeros(0, int)
    ends = np.r_[starts[1:], n]
    idx = np.tile(np.arange(n, dtype=np.int32), (n_perm, 1))
    for a, b in zip(starts, ends):
        if b - a > 1:
            idx[:, a:b] = rng.permuted(idx[:, a:b], axis=1)
    return idx


class _Null:
    """One set of permutations of all replies within strata, evaluated on unions of strata.

    A union of strata (a category, a format) is itself permuted within its strata by the
    same permutations, so every test of a table shares them. Per permutation, the word
    counts are summed once per (group, part) cell, ``parts`` being a coarser label than
    the strata (the format); a test adds up the cells it covers.
    """

    def __init__(self, groups: Any, neg: Any, pos: Any, strata: Any, n_perm: int, rng: Any, min_probes: int,
                 parts: Any = None):
        import numpy as np
        import pandas as pd

        st = pd.factorize(np.asarray(strata))[0]
        order = np.argsort(st, kind="stable")
        n = len(st)
        part = np.zeros(n, dtype=object) if parts is None else np.asarray(parts, dtype=object)
        self.cell, cells = pd.factorize(pd.MultiIndex.from_arrays([np.asarray(groups, dtype=object), part]))
        self.cell_group = pd.factorize(cells.get_level_values(0))[0]
        self.cell_part = pd.factorize(cells.get_level_values(1))[0]
        self._by_group: dict[frozenset, tuple[Any, Any]] = {}  # parts -> (observed, null) summed per group
        n_c = len(cells)
        v = np.stack([np.asarray(neg, np.float64), np.asarray(pos, np.float64)])
        vals = np.concatenate([v, (v.sum(0) > 0)[None, :].astype(np.float64)])[:, order]  # neg, pos, counted
        cell_sorted = self.cell[order]
        self.observed = np.stack([np.bincount(self.cell, x, n_c) for x in
                                  np.concatenate([v, (v.sum(0) > 0)[None, :].astype(np.float64)])], -1)  # (cells, 3)
        idx = _permutations(st[order], n_perm, rng)  # permuted reply (sorted positions) in each slot
        # whole counts are kept as int32 (the same numbers in half the memory) and may be summed in any order
        self._whole = bool(np.all(vals == np.floor(vals))) and float(vals[:2].sum()) < 2**31
        self.null = np.empty((n_perm, n_c, 3), np.int32 if self._whole else np.float64)  # (perm, cells, 3)
        for a in range(0, n_perm, CHUNK):  # a chunk of permutations at a time: their index arrays are large
            part_idx = idx[a:a + CHUNK]
            flat = (np.arange(len(part_idx))[:, None] * n_c + cell_sorted[None, :]).ravel()
            for k in range(3):
                self.null[a:a + len(part_idx), :, k] = np.bincount(flat, vals[k][part_idx].ravel(),
                                                                   len(part_idx) * n_c).reshape(-1, n_c)
        self.min_probes = min_probes

    @staticmethod
    def _sums(table: Any, cols: Any, grp: Any) -> Any:
        """(..., groups, 3): the cells ``cols`` of ``table`` summed per group (``grp``: the cells' groups)."""
        import numpy as np

        order = np.argsort(grp, kind="stable")  # a group's cells side by side
        cols, grp = cols[order], grp[order]
        starts = np.flatnonzero(np.r_[True, grp[1:] != grp[:-1]])
        return np.add.reduceat(table[..., cols, :], starts, axis=-2)

    def _tables(self, cols: Any) -> tuple[Any, Any]:
        """The observed and null tables (..., groups, 3) of the cells ``cols``, groups in ascending order.

        A test usually covers, for each of its groups, the cells of the same parts (a
        category's groups, in one format or both): those are cut from per-group sums made once
        per set of parts. Counts are whole numbers, so summing them in another order gives the
        same floats."""
        import numpy as np

        grp = self.cell_group[cols]
        if not self._whole:  # fractional counts: summed in the cells' order, as always
            return self._sums(self.observed, cols, grp), self._sums(self.null, cols, grp)
        groups = np.unique(grp)
        parts = frozenset(self.cell_part[cols].tolist())
        same = np.isin(self.cell_part, list(parts))
        if np.count_nonzero(same & np.isin(self.cell_group, groups)) != len(cols):  # not whole groups' parts
            return self._sums(self.observed, cols, grp), self._sums(self.null, cols, grp)
        if parts not in self._by_group:
            mine = np.flatnonzero(same)
            present = np.unique(self.cell_group[mine])
            n_g = int(self.cell_group.max()) + 1
            out = []
            for table in (self.observed, self.null):
                full = np.zeros(table.shape[:-2] + (n_g, table.shape[-1]), table.dtype)
                full[..., present, :] = self._sums(table, mine, self.cell_group[mine])
                out.append(full)
            self._by_group[parts] = (out[0], out[1])
        observed, null = self._by_group[parts]
        if groups[-1] - groups[0] + 1 == len(groups):  # consecutive groups: a view, no copy
            pick = slice(int(groups[0]), int(groups[-1]) + 1)
            return observed[pick], null[..., pick, :]
        return observed[groups], null[..., groups, :]

    def _stats(self, per: Any) -> tuple[Any, Any]:
        return nmi(per[..., :2]), _ratio(per[..., 1], per[..., 0] + per[..., 1], per[..., 2], self.min_probes)

    def test(self, mask: Any) -> dict[str, float]:
        """The observed values and permutation p-values on the replies where ``mask`` (a union of strata)."""
        import numpy as np

        cols = np.unique(self.cell[np.asarray(mask, bool)])
        observed, null = self._tables(cols)
        obs_nmi, obs_ratio = (float(v) for v in self._stats(observed))
        null_nmi, null_ratio = self._stats(null)
        out = {"nmi": obs_nmi, "nmi_p": float((1 + np.sum(null_nmi >= obs_nmi - 1e-12)) / (len(null_nmi) + 1)),
               "four_fifths_ratio": obs_ratio, "four_fifths_p": float("nan"), "four_fifths_null_p05": float("nan"),
               "groups": int(len(set(self.cell_group[cols])))}
        valid = null_ratio[~np.isnan(null_ratio)]
        if obs_ratio == obs_ratio and len(valid):
            out["four_fifths_p"] = float((1 + np.sum(valid <= obs_ratio + 1e-12)) / (len(valid) + 1))
            out["four_fifths_null_p05"] = float(np.quantile(valid, 0.05))
        return out


def permutation_test(groups: Any, neg: Any, pos: Any, strata: Any = None, n_perm: int = PERMUTATIONS, seed: Any = 0,
                     min_probes: int = 3) -> dict[str, float]:
    """NMI and four-fifths ratio of replies labelled by ``groups``, each against its permutation null.

    One entry per reply (probe): its group, its negative and positive word counts, and its
    stratum (e.g. category x template; None: one stratum). Each permutation shuffles the
    replies among the reply slots of the same stratum, so every group keeps its number of
    replies per stratum. Returns ``nmi, nmi_p, four_fifths_ratio, four_fifths_p,
    four_fifths_null_p05, groups`` (see the module docstring); the four-fifths values are
    NaN with fewer than two groups of ``min_probes`` replies with counted words.
    ``seed``: an int or a ``numpy.random.Generator``.
    """
    import numpy as np

    n = len(np.asarray(groups))
    st = np.zeros(n, np.int64) if strata is None else strata
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    return _Null(groups, neg, pos, st, n_perm, rng, min_probes).test(np.ones(n, bool))


def criteria(rows: Any, seed: int, n_perm: int = PERMUTATIONS) -> Any:
    """``criteria.csv`` as a DataFrame: per category (and ``all``) and format (all, question, statement).

    ``rows``: probe rows (:func:`stereoprobe.stats.shares.probe_rows`); strata are
    category x template; one set of permutations serves every row of the table.
    """
    import numpy as np
    import pandas as pd

    from stereoprobe.stats.shares import MIN_PROBES

    rows = rows[(rows["neg"] + rows["pos"]) > 0]
    cats, fmts = rows["category"].to_numpy(), rows["format"].to_numpy()
    strata = (rows["category"].astype(str) + "\x1f" + rows["template"].astype(str)).to_numpy()
    gkey = rows["group_key"].to_numpy()
    null = _Null(gkey, rows["neg"], rows["pos"], strata, n_perm, np.random.default_rng(seed), MIN_PROBES, fmts) \
        if len(rows) else None
    out = []
    for cat in [*sorted(set(cats)), "all"]:
        for fmt in ("all", "question", "statement"):
            m = np.asarray(((cats == cat) if cat != "all" else True) & ((fmts == fmt) if fmt != "all" else True), bool)
            m = np.broadcast_to(m, len(rows))
            n_groups = len(set(gkey[m]))
            row = {"category": cat, "format": fmt, "groups": n_groups, "permutations": n_perm}
            if n_groups >= 2:
                row.update({k: v for k, v in null.test(m).items() if k != "groups"})
            out.append(row)
    return pd.DataFrame(out).reindex(columns=COLUMNS)
