"""The cluster-bootstrap resampling plan: a (B x n_rows) matrix of multiplicities.

Rows are the resampling units of the data (answered probes, or probe-samples with
``--samples K``); words are never rows. ``levels`` names, outermost first, the nested
clusters every row belongs to, e.g. ``[group, probe]``. Each replicate:

1. every stratum is kept once (strata are fixed: categories for the ``all`` share);
2. within a stratum, its level-1 clusters are drawn with replacement, as many as it has;
3. within each drawn cluster, its level-2 units are drawn with replacement, as many as
   it has, independently for every copy of the cluster; and so on down the levels.

Rows with the same label path at the innermost level are one unit: they always get the
same multiplicity (so several rows of one probe move together). The multiplicity of a
row is how often its innermost unit appears in the replicate; any weighted total of a
replicate is then ``W @ values``.

Implementation: ``c`` copies of a cluster with ``m`` children give ``c * m`` independent
uniform draws among those children (the sum of independent multinomials with equal
probabilities is one multinomial), so each level is one vectorised ``Generator.integers``
draw plus a ``bincount``, never a Python loop per replicate. Replicates are made in
blocks to bound memory.
"""

from __future__ import annotations

from typing import Any, Sequence

_BLOCK_DRAWS = 1_000_000  # draws held in memory at once (a few arrays of 8 MB each)


def _codes(labels: Sequence[Any]) -> Any:
    import pandas as pd

    return pd.factorize(pd.Series(list(labels), dtype=object) if not hasattr(labels, "dtype") else labels)[0]


def _tree(levels: Sequence[Sequence[Any]], strata: Sequence[Any] | None, n: int) -> list[tuple[Any, Any]]:
    """Per level: (parent index of each node, node index of each row at that depth)."""
    import numpy as np
    import pandas as pd

    path = np.zeros(n, dtype=np.int64) if strata is None else _codes(strata).astype(np.int64)
    out = []
    for labels in levels:
        codes = _codes(labels).astype(np.int64)
        if len(codes) != n:
            raise ValueError(f"every level needs one label per row: {len(codes)} labels for {n} rows")
        pairs = pd.MultiIndex.from_arrays([path, codes])
        node, uniques = pd.factorize(pairs)
        parent = np.asarray(uniques.get_level_values(0), dtype=np.int64)
        out.append((parent, node.astype(np.int64)))
        path = node.astype(np.int64)
    return out


def _draw_children(counts: Any, parent: Any, rng: Any) -> Any:
    """Given parent multiplicities (b x n_parents), draw child multiplicities (b x n_children)."""
    import numpy as np

    b, n_par = counts.shape
    order = np.argsort(parent, kind="stable")  # children grouped by parent
    sizes = np.bincount(parent, minlength=n_par)
    start = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    n_draws = (counts * sizes[None, :]).ravel()  # per (replicate, parent)
    par_flat = np.repeat(np.arange(b * n_par), n_draws)
    par = par_flat % n_par
    n_child = len(parent)
    slot = (par_flat // n_par) * n_child  # the replicate's offset
    del par_flat
    slot += order[start[par] + (rng.random(len(par)) * sizes[par]).astype(np.int64)]
    return np.bincount(slot, minlength=b * n_child).reshape(b, n_child)


def cluster_weights(
    levels: Sequence[Sequence[Any]],
    n_boot: int,
    seed: int | Any = 0,
    strata: Sequence[Any] | None = None,
) -> Any:
    """Multiplicities of each row in each of ``n_boot`` cluster-bootstrap replicates.

    ``levels``: label arrays, one label per row, outermost cluster first (e.g.
    ``[groups, probe_ids]``; ``[probe_ids]`` alone resamples probes; ``[groups,
    probe_ids, samples]`` resamples samples within probes too). ``strata``: optional
    labels of fixed strata (each resampled separately, never dropped). ``seed``: an int
    or a ``numpy.random.Generator``. Returns an int32 array of shape (n_boot, n_rows).
    The same seed and structure give the same matrix.
    """
    import numpy as np

    if not levels:
        raise ValueError("cluster_weights needs at least one level")
    n = len(levels[0])
    if n_boot < 1:
        raise ValueError("n_boot must be at least 1")
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    tree = _tree(levels, strata, n)
    n_strata = int(tree[0][0].max()) + 1 if n else 0
    block = max(1, _BLOCK_DRAWS // max(1, n))
    out = np.empty((n_boot, n), dtype=np.int32)
    for lo in range(0, n_boot, block):
        b = min(block, n_boot - lo)
        counts = np.ones((b, n_strata), dtype=np.int64)
        for parent, _ in tree:
            counts = _draw_children(counts, parent, rng)
        out[lo : lo + b] = counts[:, tree[-1][1]]
    return out


def n_clusters(levels: Sequence[Sequence[Any]], strata: Sequence[Any] | None = None) -> tuple[int, int]:
    """(number of top-level clusters, number of strata) of a plan: for degrees of freedom."""
    tree = _tree(levels[:1], strata, len(levels[0]))
    parent, node = tree[0]
    return int(len(parent)), int(parent.max()) + 1 if len(parent) else 0


def replicate_ratio(weights: Any, numerator: Any, denominator: Any) -> Any:
    """``W @ numerator / W @ denominator`` per replicate (NaN where the denominator is 0).

    ``numerator`` and ``denominator`` may be vectors (n_rows) or matrices (n_rows x k):
    the result is then (B,) or (B x k). This is how any share of any run aligned on the
    plan's rows is resampled: two runs on the same rows share one ``weights`` (paired).
    """
    import numpy as np

    w = np.asarray(weights, dtype=np.float64)
    num = w @ np.asarray(numerator, dtype=np.float64)
    den = w @ np.asarray(denominator, dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, num / np.where(den > 0, den, 1.0), np.nan)
