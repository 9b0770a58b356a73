"""The hobbies study's statistics. The unit is the name: a name's samples are one cluster
(they share the prompt), so every interval and test treats the names as the sample.

- ``word_counts``: content words (``text.content_words``) counted per gender (001 Figure 3).
- ``label_means``: per label, the mean score over female and over male names (each name's
  mean over its texts first), with t intervals over the names, and the difference female -
  male with Welch's interval and p-value over the names, Benjamini-Hochberg q over the
  labels (``stereoprobe.stats.bh``).
- ``top_label_nmi``: NMI(gender, top label) of the texts' gender x top-label table
  (``stereoprobe.stats.criteria.nmi``, 001 eq. 1-2); its null permutes the genders among
  the *names* (each name keeps its texts), its interval resamples names within each gender.
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
    from scipy import stats as st

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
            test = st.ttest_ind(f, m, equal_var=False)
            ci = test.confidence_interval(level)
            row.update({"diff_low": ci.low, "diff_high": ci.high, "df": float(test.df), "p": test.pvalue})
        else:
            row.update({"diff_low": np.nan, "diff_high": np.nan, "df": np.nan, "p": np.nan})
        rows.append(row)
    out = pd.DataFrame(rows)
    out["q"] = bh(out["p"].to_numpy()) if len(out) else []
    return out


def _mean_interval(x: Any, level: float) -> tuple[float, float]:
    import numpy as np
    from scipy import stats as st

    if len(x) < 2 or np.std(x) == 0:
        return (float(x.mean()), float(x.mean())) if len(x) else (np.nan, np.nan)
    ci = st.ttest_1samp(x, 0.0).confidence_interval(level)
    return float(ci.low), float(ci.high)


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
