"""The independence criterion of seed 001: is the word label independent of the group?

``nmi(table)``: normalised mutual information MI / sqrt(H(A) H(C)) of a groups x labels
contingency table (entropies from ``scipy.special.entr``; the log base cancels). The
p-value permutes whole replies among the groups of a category (each reply keeps its
negative and positive counts), never single words: with few words per group, NMI is
biased upward even when nothing differs, and only its permutation distribution says
whether a value is unusual. ``four_fifths_ratio``: lowest group positive share / highest,
over groups with at least MIN_PROBES probes with counted words.
"""

from __future__ import annotations

from typing import Any

COLUMNS = ["category", "format", "nmi", "nmi_p", "four_fifths_ratio", "groups", "permutations"]
PERMUTATIONS = 999  # p-values to 0.001; the NMI's null distribution is smooth


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
    h_a, h_c = entr(p.sum(-1)).sum(-1), entr(p.sum(-2)).sum(-1)
    denom = np.sqrt(h_a * h_c)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(denom > 0, (h_a + h_c - h_joint) / np.where(denom > 0, denom, 1), 0.0)


def nmi_test(groups: Any, neg: Any, pos: Any, n_perm: int, seed: int, strata: Any = None) -> tuple[float, float]:
    """(NMI, permutation p-value) of replies labelled by ``groups`` with their word counts.

    Each permutation shuffles whole replies (their negative and positive counts together)
    among the group slots; ``strata``: optional labels within which they are shuffled
    (for ``all``: within each category). p = (1 + #null >= observed) / (1 + n_perm).
    """
    import numpy as np
    import pandas as pd

    raw = pd.factorize(np.asarray(groups))[0]
    order = np.argsort(raw, kind="stable")  # group slots contiguous
    codes = raw[order]
    counts = np.column_stack([np.asarray(neg, np.float64), np.asarray(pos, np.float64)])[order]
    starts = np.flatnonzero(np.r_[True, codes[1:] != codes[:-1]])
    obs = float(nmi(np.add.reduceat(counts, starts, axis=0)))
    rng = np.random.default_rng(seed)
    n = len(codes)
    block = max(1, 500_000 // max(n, 1))
    null = []
    st = None if strata is None else np.asarray(strata)[order]
    for lo in range(0, n_perm, block):
        b = min(block, n_perm - lo)
        idx = np.tile(np.arange(n, dtype=np.int32), (b, 1))
        if st is None:
            idx = rng.permuted(idx, axis=1)
        else:
            for s in np.unique(st):
                cols = np.flatnonzero(st == s)
                idx[:, cols] = rng.permuted(idx[:, cols], axis=1)
        tables = np.stack([np.add.reduceat(counts[:, k][idx], starts, axis=1) for k in (0, 1)], -1)
        null.append(nmi(tables))  # tables: (b, groups, 2)
    null_all = np.concatenate(null)
    return obs, float((1 + np.sum(null_all >= obs - 1e-12)) / (n_perm + 1))


def four_fifths_ratio(pos: Any, polar: Any) -> float:
    """Lowest positive share / highest, over the given groups' totals (NaN if none, or the highest is 0)."""
    import numpy as np

    pos, polar = np.asarray(pos, np.float64), np.asarray(polar, np.float64)
    ok = polar > 0
    if not ok.any():
        return float("nan")
    share = pos[ok] / polar[ok]
    return float(share.min() / share.max()) if share.max() > 0 else float("nan")


def criteria(units: Any, seed: int, n_perm: int = PERMUTATIONS) -> Any:
    """``criteria.csv`` as a DataFrame: per category (and ``all``) and format (all, question, statement)."""
    import numpy as np
    import pandas as pd

    from stereoprobe.stats.shares import MIN_PROBES

    gcode = pd.factorize(units["category"].astype(str) + "\x1f" + units["group"].astype(str))[0]
    pcode = pd.factorize(units["probe_id"])[0]
    neg, pos, polar = (units[c].to_numpy() for c in ("neg", "pos", "polar"))
    cats, fmts = units["category"].to_numpy(), units["format"].to_numpy()
    ng = int(gcode.max()) + 1 if len(gcode) else 0
    rows = []
    for cat in [*sorted(set(cats)), "all"]:
        for fmt in ("all", "question", "statement"):
            m = (polar > 0) & ((cats == cat) if cat != "all" else True) & ((fmts == fmt) if fmt != "all" else True)
            present = np.bincount(gcode[m], minlength=ng) > 0
            n_groups = int(present.sum())
            row = {"category": cat, "format": fmt, "groups": n_groups, "permutations": n_perm}
            if n_groups >= 2:
                strata = cats[m] if cat == "all" else None
                row["nmi"], row["nmi_p"] = nmi_test(gcode[m], neg[m], pos[m], n_perm, seed, strata)
                probes = np.bincount(np.unique(gcode[m] * (pcode.max() + 1) + pcode[m]) // (pcode.max() + 1),
                                     minlength=ng)
                enough = present & (probes >= MIN_PROBES)
                row["four_fifths_ratio"] = four_fifths_ratio(np.bincount(gcode[m], pos[m], ng)[enough],
                                                             np.bincount(gcode[m], polar[m], ng)[enough])
            rows.append(row)
    return pd.DataFrame(rows).reindex(columns=COLUMNS)
