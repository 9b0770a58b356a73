"""Paired differences between two runs, with the statistics package's bootstrap and tests.

For a pair (A, B) the rows are the probes both runs answered, sorted by category, group
and probe id. One resampling plan of :func:`stereoprobe.stats.cluster_weights` is drawn
per pair and level and applied to both runs' counts, so every replicate holds the same
groups and probes for A and B (paired):

- ``all`` and ``category`` cells: groups resampled within each category (categories are
  fixed strata), then probes within each drawn group;
- ``group`` cells: probes resampled within the group, the question and statement probes
  separately (the design fixes how many of each a group has).

A cell's share in a replicate is ``W @ negative / W @ (negative + positive)`` over its
rows (:func:`stereoprobe.stats.replicate_ratio`; for the many group cells the same sum is
taken block by block, which is that product without its zero entries). The difference
``negative_a - negative_b`` (points) gets the package's t-based interval of a difference and two-sided
p-value (:func:`~stereoprobe.stats.t_interval`, :func:`~stereoprobe.stats.t_pvalue`),
q is Benjamini-Hochberg (:func:`~stereoprobe.stats.bh`) within each pair and level.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from stereoprobe.records import FORMATS

LEVELS = ("all", "category", "group")
DIFFERENCE_COLUMNS = [
    "run_a", "run_b", "level", "category", "group", "format", "negative_a", "negative_b", "difference",
    "ci_low", "ci_high", "p", "q", "verdict", "probes", "clusters", "too_few_probes",
]
VERDICTS = ("a more negative", "b more negative", "not distinguishable")
SHARE_COLUMNS = ["run", "level", "category", "group", "format", "negative", "ci_low", "ci_high", "probes", "too_few_probes"]


@dataclass(frozen=True)
class Settings:
    """The statistics of one comparison (recorded in meta.json)."""

    n_boot: int = 2000
    level: float = 0.95
    alpha: float = 0.05  # q below this is a finding
    seed: int = 2023

    def meta(self) -> dict[str, Any]:
        return {
            "method": "paired two-stage cluster bootstrap (stereoprobe.stats), t-based interval and p-value, "
                      "Benjamini-Hochberg within each pair and level",
            "B": self.n_boot, "level": self.level, "alpha": self.alpha, "seed": self.seed,
        }


def aligned(a: Any, b: Any) -> Any:
    """The probes both runs have, one row each: identity, then ``neg_a, pol_a, neg_b, pol_b``.

    The format is run A's, or B's when A is a baseline (``search-engine``).
    """
    cols = ["probe_id", "category", "group", "format", "n_negative", "n_positive"]
    m = a[cols].merge(b[cols], on="probe_id", suffixes=("_a", "_b"))
    fmt = m["format_a"].where(m["format_a"].isin(FORMATS), m["format_b"])
    out = m[["probe_id"]].assign(
        category=m["category_a"], group=m["group_a"], format=fmt,
        neg_a=m["n_negative_a"], pol_a=m["n_negative_a"] + m["n_positive_a"],
        neg_b=m["n_negative_b"], pol_b=m["n_negative_b"] + m["n_positive_b"],
    )
    return out.sort_values(["category", "group", "probe_id"], ignore_index=True)


@dataclass
class Cells:
    """The cells of one level: labels, a sparse (rows x cells) 0/1 indicator, (G, H) per cell."""

    labels: Any  # DataFrame: category, group, format
    indicator: Any  # scipy.sparse CSR, rows x cells
    clusters: Any  # (k, 2) int: resampled clusters G and fixed strata H, for t's degrees of freedom


def cells(rows: Any, level: str) -> Cells:
    """Every cell of ``level`` (all / category / group) x format (all, question, statement).

    Each row is in exactly two cells of a level: its key's ``all``-format cell and its
    key's own-format cell (a baseline's ``search-engine`` rows only in the first).
    """
    import numpy as np
    import pandas as pd
    from scipy import sparse

    n = len(rows)
    cat = rows["category"].to_numpy(object) if level != "all" else np.full(n, "all", dtype=object)
    grp = rows["group"].to_numpy(object) if level == "group" else np.full(n, "", dtype=object)
    fmt = rows["format"].to_numpy(object)
    keys = pd.DataFrame({"category": np.concatenate([cat, cat]), "group": np.concatenate([grp, grp]),
                         "format": np.concatenate([np.full(n, "all", dtype=object), fmt]),
                         "row": np.concatenate([np.arange(n), np.arange(n)])})
    keys = keys[keys["format"].isin(("all", *FORMATS))]
    codes, uniq = pd.factorize(pd.MultiIndex.from_frame(keys[["category", "group", "format"]]), sort=True)
    labels = pd.DataFrame(list(uniq), columns=["category", "group", "format"])
    x = sparse.csr_matrix((np.ones(len(codes)), (keys["row"].to_numpy(), codes)), shape=(n, len(labels)))
    member = keys.assign(cell=codes, probe=rows["probe_id"].to_numpy()[keys["row"].to_numpy()],
                         g=rows["category"].to_numpy()[keys["row"].to_numpy()] + "\t"
                         + rows["group"].to_numpy()[keys["row"].to_numpy()],
                         c=rows["category"].to_numpy()[keys["row"].to_numpy()],
                         f=fmt[keys["row"].to_numpy()])
    by = member.groupby("cell")
    if level == "group":  # probes resampled within the group, question and statement as strata
        gh = np.column_stack([by["probe"].nunique(), by["f"].nunique()])
    elif level == "category":  # groups resampled within the category
        gh = np.column_stack([by["g"].nunique(), np.ones(len(labels), dtype=np.int64)])
    else:  # groups resampled within each category (categories are strata)
        gh = np.column_stack([by["g"].nunique(), by["c"].nunique()])
    return Cells(labels, x, gh.astype(np.int64))


class Plans:
    """Resampling plans, cached by the exact rows they were drawn for.

    Pairs aligned on the same probes (the usual case: full runs of one catalog) share
    one plan per kind, so it is drawn once; a plan is only ever applied to rows of its
    own structure.
    """

    def __init__(self, settings: Settings):
        self.settings = settings
        self._cache: dict[tuple[str, int], Any] = {}

    def get(self, rows: Any, by_group: bool) -> Any:
        """W transposed (n_rows x B, float64), ready for ``indicator.T @ W.T``."""
        import numpy as np

        from stereoprobe import stats

        key = ("group" if by_group else "category",
               hash(tuple(rows["probe_id"]) + tuple(rows["category"]) + tuple(rows["group"]) + tuple(rows["format"])))
        if key not in self._cache:
            n_boot, seed = self.settings.n_boot, self.settings.seed
            if by_group:
                strata = (rows["group"] + "\t" + rows["format"]).to_numpy()
                w = stats.cluster_weights([rows["probe_id"].to_numpy()], n_boot, seed=seed, strata=strata)
            else:
                w = stats.cluster_weights([rows["group"].to_numpy(), rows["probe_id"].to_numpy()], n_boot,
                                          seed=seed, strata=rows["category"].to_numpy())
            self._cache[key] = np.ascontiguousarray(w.T, dtype=np.float64)
        return self._cache[key]


def ratio(wt: Any, num: Any, den: Any, indicator: Any) -> tuple[Any, Any]:
    """Full-sample (k,) and replicate (B, k) shares in percent of every cell.

    The same quantity as :func:`stereoprobe.stats.replicate_ratio` with ``numerator =
    indicator * num`` (a test checks they agree), computed through the sparse indicator
    so that hundreds of group cells cost no more than a few.
    """
    import numpy as np

    xt = indicator.T.tocsr()
    n_num, n_den = xt @ num, xt @ den
    r_num = xt.multiply(num[None, :]).tocsr() @ wt  # (k, B)
    r_den = xt.multiply(den[None, :]).tocsr() @ wt
    with np.errstate(invalid="ignore", divide="ignore"):
        est = np.where(n_den > 0, 100.0 * n_num / np.where(n_den > 0, n_den, 1), np.nan)
        reps = np.where(r_den > 0, 100.0 * r_num / np.where(r_den > 0, r_den, 1), np.nan).T
    return est, reps


def pair_differences(name_a: str, name_b: str, rows: Any, settings: Settings, plans: Plans | None = None) -> Any:
    """differences.csv rows of one pair of aligned runs (see the module docstring)."""
    import numpy as np
    import pandas as pd

    from stereoprobe import stats

    plans = plans or Plans(settings)
    out = []
    arrays = {c: rows[c].to_numpy(float) for c in ("neg_a", "pol_a", "neg_b", "pol_b")}
    for level in LEVELS:
        c = cells(rows, level)
        wt = plans.get(rows, by_group=level == "group")
        est_a, rep_a = ratio(wt, arrays["neg_a"], arrays["pol_a"], c.indicator)
        est_b, rep_b = ratio(wt, arrays["neg_b"], arrays["pol_b"], c.indicator)
        g, h = c.clusters[:, 0], c.clusters[:, 1]
        diff = est_a - est_b
        reps = rep_a - rep_b
        low, high = stats.t_interval(diff, reps, g, h, level=settings.level, bounds=(-100.0, 100.0))
        p = stats.t_pvalue(diff, reps, g, h)
        q = stats.bh(p)
        too_few = np.isnan(p) | np.isnan(diff)
        found = ~too_few & (q < settings.alpha)
        verdict = np.where(found & (diff > 0), VERDICTS[0], np.where(found & (diff < 0), VERDICTS[1], VERDICTS[2]))
        out.append(pd.DataFrame({
            "run_a": name_a, "run_b": name_b, "level": level,
            "category": c.labels["category"], "group": c.labels["group"], "format": c.labels["format"],
            "negative_a": est_a, "negative_b": est_b, "difference": diff, "ci_low": low, "ci_high": high,
            "p": p, "q": q, "verdict": verdict, "probes": np.asarray(c.indicator.sum(axis=0)).ravel().astype(int),
            "clusters": g, "too_few_probes": too_few,
        }))
    return _ordered(pd.concat(out, ignore_index=True))[DIFFERENCE_COLUMNS]


def _ordered(df: Any) -> Any:
    """Rows in reading order: 'all' first, then categories; formats all, question, statement."""
    order = {"all": 0, "question": 1, "statement": 2, "search-engine": 3}
    return df.assign(_l=df["level"].map({lv: i for i, lv in enumerate(LEVELS)}), _f=df["format"].map(order)) \
        .sort_values(["_l", "category", "group", "_f"], kind="stable").drop(columns=["_l", "_f"]).reset_index(drop=True)


def run_shares(name: str, probes: Any, settings: Settings, plans: Plans | None = None) -> Any:
    """One run's shares with intervals, overall and per category (for the dot-and-interval plot).

    The interval is the statistics package's interval of a share (``share_interval``,
    Korn-Graubard), the same rule as the sentiment stage's ``*_ci_low``/``*_ci_high``.
    """
    import numpy as np
    import pandas as pd

    from stereoprobe.stats.intervals import share_interval

    plans = plans or Plans(settings)
    rows = probes.sort_values(["category", "group", "probe_id"], ignore_index=True)
    neg = rows["n_negative"].to_numpy(float)
    pol = neg + rows["n_positive"].to_numpy(float)
    wt = plans.get(rows, by_group=False)
    out = []
    for level in ("all", "category"):
        c = cells(rows, level)
        est, reps = ratio(wt, neg, pol, c.indicator)
        words = c.indicator.T @ pol
        low, high = share_interval(est, reps, c.clusters[:, 0], words, c.clusters[:, 1], level=settings.level)
        out.append(pd.DataFrame({
            "run": name, "level": level, "category": c.labels["category"], "group": c.labels["group"],
            "format": c.labels["format"], "negative": est, "ci_low": low, "ci_high": high,
            "probes": np.asarray(c.indicator.sum(axis=0)).ravel().astype(int), "too_few_probes": np.isnan(low),
        }))
    return _ordered(pd.concat(out, ignore_index=True))[SHARE_COLUMNS]
