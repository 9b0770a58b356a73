"""The hobbies study's statistics. The unit is the name: a name's samples are one cluster
(they share the prompt), so every interval and test treats the names as the sample.

- ``word_counts``: content words (``text.content_words``) counted per gender (001 Figure 3).
- ``label_means``: per label, the mean score over female and over male names (each name's
  mean over its texts first), with t intervals over the names (cut at 0 and 100%: a score
  cannot lie beyond, so the cut loses no coverage), and the difference female -
  male with Welch's interval and p-value over the names, Benjamini-Hochberg q over the
  labels (``stereoprobe.stats.bh``).
- ``top_label_nmi``: NMI(gender, top label) of the texts' gender x top-label table
  (``stereoprobe.stats.criteria.nmi``, 001 eq. 1-2); its null permutes the genders among
  the *names* (each name keeps its texts), its interval resamples names within each gender.
- Two runs over the same names (metrics.py's ``differences``): ``paired_label_differences``
  (Welch over names on each name's run-minus-baseline mean) and ``paired_nmi`` (the names
  resampled within each gender, the same for both runs).
"""

from __future__ import annotations

from typing import Any, Sequence

from stereoprobe.studies.hobbies.names import GENDERS

PERMUTATIONS = 999


def word_counts(words: Sequence[Sequence[str]], genders: Sequence[str]) -> Any:
    """DataFrame word, female, male (counts over the texts), total, sorted by total then word."""
    import pandas as pd

    counts: dict[str, list[int]] = {}
    for ws, g in zip(words, genders):
        col = GENDERS.index(g)
        for w in ws:
            counts.setdefault(w, [0, 0])[col] += 1
    out = pd.DataFrame([(w, f, m) for w, (f, m) in counts.items()], columns=["word", "female", "male"])
    out["total"] = out["female"] + out["male"]
    return out.sort_values(["total", "word"], ascending=[False, True], ignore_index=True)


def per_name(texts: Any, labels: Sequence[str]) -> Any:
    """Name-level means of the label scores: one row per name (name, gender, texts, labels...)."""
    g = texts.groupby(["name", "gender"], sort=True)
    out = g[list(labels)].mean()
    out.insert(0, "texts", g.size())
    return out.reset_index()


def label_means(texts: Any, labels: Sequence[str], level: float = 0.95) -> Any:
    """One row per label: female and male mean (percent) with intervals over names, the
    difference female - male with Welch's interval (``df``: its degrees of freedom), p and q."""
    import numpy as np
    import pandas as pd

    from stereoprobe.stats import bh

    names = per_name(texts, labels)
    rows = []
    for label in labels:
        row: dict[str, Any] = {"label": label}
        parts = {}
        for g in GENDERS:
            x = 100 * names.loc[names["gender"] == g, label].to_numpy(dtype=float)
            parts[g] = x
            lo, hi = _mean_interval(x, level)
            row.update({f"{g}_mean": x.mean() if len(x) else np.nan, f"{g}_low": lo, f"{g}_high": hi,
                        f"{g}_names": len(x)})
        f, m = parts["female"], parts["male"]
        row["difference"] = f.mean() - m.mean() if len(f) and len(m) else np.nan
        if len(f) > 1 and len(m) > 1 and (f.std() > 0 or m.std() > 0):
            test = _welch(f, m)
            ci = test.confidence_interval(level)
            row.update({"diff_low": ci.low, "diff_high": ci.high, "df": float(test.df), "p": test.pvalue})
        else:
            row.update({"diff_low": np.nan, "diff_high": np.nan, "df": np.nan, "p": np.nan})
        rows.append(row)
    out = pd.DataFrame(rows)
    out["q"] = bh(out["p"].to_numpy()) if len(out) else []
    return out


def _welch(f: Any, m: Any) -> Any:
    """scipy's Welch test of female vs male names (at least two a side, some spread). A gender's
    names all at one score is no loss of precision (the test reads the other's spread); scipy's
    warning that says so is not shown."""
    import warnings

    from scipy import stats as st

    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "Precision loss", RuntimeWarning)
        return st.ttest_ind(f, m, equal_var=False)


def _mean_interval(x: Any, level: float) -> tuple[float, float]:
    import numpy as np

    from stereoprobe.stats import t_interval

    if len(x) and np.all(x == x[0]) and x[0] in (0.0, 100.0):
        # every name at 0 (or 100%): no spread for t, yet the mean is not known to be 0. A name's mean
        # score lies in 0-1, so P(a name at 0) <= 1 - mean and P(all n at 0) <= (1 - mean)^n: the
        # means this is not unlikely for reach up to 1 - ((1 - level) / 2)^(1 / n) (19.5% for 17 names)
        reach = 100 * (1 - ((1 - level) / 2) ** (1 / len(x)))
        return (0.0, float(reach)) if x[0] == 0 else (float(100 - reach), 100.0)
    if len(x) < 2 or np.std(x) == 0:  # one name, or names all at one score between 0 and 100%: no spread
        return (np.nan, np.nan)  # to read, and a "60 to 60" would claim names like these all score 60
    low, high = t_interval(x.mean(), None, len(x), 1, level, bounds=(0.0, 100.0), se=x.std(ddof=1) / np.sqrt(len(x)),
                           df=len(x) - 1)  # a score is 0-100%: the cut loses no coverage
    return float(low), float(high)


def _name_tables(names: Sequence[str], genders: Sequence[str], tops: Sequence[str]) -> tuple[Any, Any, list[str]]:
    """Per name: its gender code (N,) and its texts' top-label counts (N x K); the K labels."""
    import numpy as np
    import pandas as pd

    frame = pd.DataFrame({"name": names, "gender": genders, "top": tops})
    counts = pd.crosstab(frame["name"], frame["top"])
    gender = frame.groupby("name")["gender"].first().reindex(counts.index)
    code = np.array([GENDERS.index(g) for g in gender])
    return code, counts.to_numpy(dtype=np.float64), list(counts.columns)


def top_label_nmi(names: Sequence[str], genders: Sequence[str], tops: Sequence[str], n_perm: int = PERMUTATIONS,
                  n_boot: int = 2000, seed: int = 0, level: float = 0.95) -> dict[str, Any]:
    """NMI(gender, top label) over the texts, its permutation p-value (genders permuted
    among names), the null's mean and 95th percentile, and a percentile interval from
    resampling names within each gender."""
    import numpy as np

    from stereoprobe.stats import cluster_weights
    from stereoprobe.stats.criteria import nmi

    code, counts, labels = _name_tables(names, genders, tops)
    onehot = np.eye(len(GENDERS))[code]  # N x 2
    observed = float(nmi(onehot.T @ counts))
    rng = np.random.default_rng(seed)
    perms = np.stack([rng.permutation(code) for _ in range(n_perm)])  # P x N
    null_tables = np.einsum("png,nk->pgk", np.eye(len(GENDERS))[perms], counts)
    null = nmi(null_tables)
    w = cluster_weights([np.arange(len(code))], n_boot, seed=seed, strata=code).astype(np.float64)  # B x N
    boot = nmi(np.einsum("bn,ng,nk->bgk", w, onehot, counts))
    alpha = (1 - level) / 2
    return {"nmi": observed, "p": float((1 + np.sum(null >= observed - 1e-12)) / (1 + n_perm)),
            "null_mean": float(null.mean()), "null_p95": float(np.quantile(null, 0.95)),
            "low": float(np.quantile(boot, alpha)), "high": float(np.quantile(boot, 1 - alpha)),
            "labels": labels, "names": len(code), "permutations": n_perm}


def paired_label_differences(base: Any, run: Any, labels: Sequence[str], level: float = 0.95) -> Any:
    """Run minus baseline of each label's female - male difference, over the names both runs
    scored (their texts with status ok: ``base``, ``run``). Per name its mean score in the run
    minus in the baseline (percent), then Welch's test of female vs male names on those: the
    names are resampled as in the run's own interval, and what a name brings to both runs
    cancels. One row per label: ``difference``, ``low``, ``high``, ``df``, ``names``."""
    import numpy as np
    import pandas as pd

    a, b = per_name(base, labels), per_name(run, labels)
    both = a.merge(b, on=["name", "gender"], suffixes=("_a", "_b"))
    rows = []
    for label in labels:
        d = 100 * (both[f"{label}_b"] - both[f"{label}_a"]).to_numpy(dtype=float)
        f, m = d[both["gender"].to_numpy() == "female"], d[both["gender"].to_numpy() == "male"]
        row = {"label": label, "difference": f.mean() - m.mean() if len(f) and len(m) else np.nan,
               "low": np.nan, "high": np.nan, "df": np.nan, "names": len(d)}
        if len(f) > 1 and len(m) > 1 and (f.std() > 0 or m.std() > 0):
            test = _welch(f, m)
            ci = test.confidence_interval(level)
            row.update(low=float(ci.low), high=float(ci.high), df=float(test.df))
        elif len(f) > 1 and len(m) > 1:  # every name scored alike in both runs: no difference, and no spread
            row.update(low=row["difference"], high=row["difference"], df=float(len(d) - 2))
        rows.append(row)
    return pd.DataFrame(rows)


def paired_nmi(base: Any, run: Any, n_boot: int = 2000, seed: int = 2023, level: float = 0.95) -> dict[str, Any]:
    """Run minus baseline of NMI(gender, top label), over the names both runs scored: the names
    resampled within each gender as the run's own interval does, the *same* names for both
    runs in each replicate; a percentile interval of the replicates' differences."""
    import numpy as np
    import pandas as pd

    from stereoprobe.stats import cluster_weights
    from stereoprobe.stats.criteria import nmi

    tables = [pd.crosstab(t["name"], t["top"]) for t in (base, run)]  # per name its texts' top labels
    names = tables[0].index.intersection(tables[1].index)
    labels = tables[0].columns.union(tables[1].columns)
    code = np.array([GENDERS.index(g) for g in base.groupby("name")["gender"].first().reindex(names)], dtype=int)
    onehot = np.eye(len(GENDERS))[code]
    counts = [c.reindex(index=names, columns=labels, fill_value=0).to_numpy(dtype=np.float64) for c in tables]
    observed = [float(nmi(onehot.T @ c)) for c in counts]
    w = cluster_weights([np.arange(len(code))], n_boot, seed=seed, strata=code).astype(np.float64)
    boot = [nmi(np.einsum("bn,ng,nk->bgk", w, onehot, c)) for c in counts]
    diff = boot[1] - boot[0]
    alpha = (1 - level) / 2
    return {"difference": observed[1] - observed[0], "low": float(np.quantile(diff, alpha)),
            "high": float(np.quantile(diff, 1 - alpha)), "names": len(code)}
