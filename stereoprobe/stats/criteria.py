"""The independence criterion of seed 001: is the word label independent of the group?

``nmi(table)``: normalised mutual information MI / sqrt(H(A) H(C)) of a groups x labels
contingency table (entropies by ``scipy.stats.entropy``; the log base cancels). The
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
    from scipy.stats import entropy

    t = np.asarray(table, dtype=np.float64)
    flat = t.reshape(*t.shape[:-2], -1)
    h_joint = entropy(flat, axis=-1)
    h_a, h_c = entropy(t.sum(-1), axis=-1), entropy(t.sum(-2), axis=-1)
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

    key = pd.Series(list(groups))
    order = np.argsort(pd.factorize(key)[0], kind="stable")  # group slots contiguous
    codes = pd.factorize(key)[0][order]
    counts = np.column_stack([np.asarray(neg, np.float64), np.asarray(pos, np.float64)])[order]
    starts = np.flatnonzero(np.r_[True, codes[1:] != codes[:-1]])
    obs = float(nmi(np.add.reduceat(counts, starts, axis=0)))
    rng = np.random.default_rng(seed)
    n = len(codes)
    block = max(1, 500_000 // max(n, 1))
    null = []
    st = None if strata is None else np.asarray(list(strata))[order]
    for lo in range(0, n_perm, block):
        b = min(block, n_perm - lo)
        idx = np.tile(np.arange(n), (b, 1))
        if st is None:
            idx = rng.permuted(idx, axis=1)
        else:
            for s in np.unique(st):
                cols = np.flatnonzero(st == s)
                idx[:, cols] = rng.permuted(idx[:, cols], axis=1)
        tables = np.add.reduceat(counts[idx], starts, axis=1)  # (b, groups, 2)
        null.append(nmi(tables))
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

    rows = []
    for cat in [*sorted(units["category"].unique()), "all"]:
        sub_c = units if cat == "all" else units[units["category"] == cat]
        for fmt in ("all", "question", "statement"):
            sub = sub_c if fmt == "all" else sub_c[sub_c["format"] == fmt]
            sub = sub[sub["polar"] > 0]
            key = sub["category"] + "\x1f" + sub["group"]
            if key.nunique() < 2:
                rows.append({"category": cat, "format": fmt, "groups": int(key.nunique()), "permutations": n_perm})
                continue
            strata = sub["category"].to_numpy() if cat == "all" else None
            value, p = nmi_test(key.to_numpy(), sub["neg"].to_numpy(), sub["pos"].to_numpy(), n_perm, seed, strata)
            per = sub.groupby(key).agg(pos=("pos", "sum"), polar=("polar", "sum"), probes=("probe_id", "nunique"))
            enough = per[per["probes"] >= MIN_PROBES]
            rows.append({"category": cat, "format": fmt, "nmi": value, "nmi_p": p,
                         "four_fifths_ratio": four_fifths_ratio(enough["pos"], enough["polar"]),
                         "groups": int(len(per)), "permutations": n_perm})
    return pd.DataFrame(rows).reindex(columns=COLUMNS)
