"""Sterlie et al.'s comparison across models (2024, 001 section 6, eq. 9, Figure 5).

One Word2Vec model (gensim) is trained on the texts of all compared runs. With f and m
the vectors of "she" and "he", beta their midpoint and a = (f - beta) / |f - beta|, a
word's score is the scalar projection s_w = (w - beta) . a (positive: towards "she");
a text's score is the mean s_w over its words that are not stop words (and, unlike 001,
not the student's name or a gendered pronoun: ``text.content_words``; the name would
otherwise score its own gender) and are in the model's vocabulary. Per run: the female-
and male-name text scores, the Mann-Whitney U p-value between them (over texts, as 001;
and over name means, the honest unit), and Cohen's d (pooled SD, female - male) with a
percentile interval from resampling names within each gender.

The numbers repeat in any process: one worker thread (several would interleave updates
in the order threads happen to run) and a fixed ``seed`` (gensim 4 draws the initial
vectors from numpy's generator seeded by it; Python's string hashing plays no part, which
a test checks with two interpreters of different ``PYTHONHASHSEED``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

#: Word2Vec settings (gensim names). min_count 2: a word met once has no usable vector.
SETTINGS = {"vector_size": 100, "window": 5, "min_count": 2, "epochs": 40, "sg": 1, "negative": 5}


@dataclass(frozen=True)
class RunTexts:
    """A run's texts for the comparison: ``sentences`` (all tokens, for training),
    ``words`` (the content words scored), ``genders`` and ``names`` per text."""

    run: str
    sentences: list[list[str]]
    words: list[list[str]]
    genders: list[str]
    names: list[str]


@dataclass(frozen=True)
class RunProjection:
    run: str
    scores: Any  # per text (NaN: no scored word in the vocabulary)
    genders: list[str]
    names: list[str]
    n_female: int
    n_male: int
    mean_female: float
    mean_male: float
    p_texts: float  # Mann-Whitney U over texts (001's test)
    p_names: float  # the same over name means
    d: float  # Cohen's d, female - male, over texts
    d_low: float
    d_high: float
    unscored: int  # texts without a word in the vocabulary


def train(sentences: Sequence[Sequence[str]], seed: int = 0, what: str = "The texts") -> Any:
    """A Word2Vec model's word vectors (gensim KeyedVectors); "she" or "he" used fewer than ``min_count``
    times is a DataError (``what`` names the texts in its message)."""
    from collections import Counter

    from gensim.models import Word2Vec

    from stereoprobe.errors import DataError

    counts = Counter(w for s in sentences for w in s if w in ("she", "he"))
    missing = [w for w in ("she", "he") if counts[w] < SETTINGS["min_count"]]
    if missing:
        raise DataError(f"{what} use {' and '.join(repr(m) for m in missing)} fewer than "
                        f"{SETTINGS['min_count']} times: the she-he axis needs both; compare runs with more texts.")
    return Word2Vec(sentences=[list(s) for s in sentences], seed=seed, workers=1, **SETTINGS).wv


def axis(wv: Any) -> tuple[Any, Any]:
    """(beta, a-hat): the she-he midpoint and the unit vector towards "she" (eq. 9)."""
    import numpy as np

    f, m = wv["she"].astype(np.float64), wv["he"].astype(np.float64)
    beta = (f + m) / 2
    return beta, (f - beta) / np.linalg.norm(f - beta)


def text_scores(wv: Any, words: Sequence[Sequence[str]]) -> Any:
    """The mean scalar projection of each text's words in the vocabulary (NaN if none)."""
    import numpy as np

    beta, a = axis(wv)
    proj = (wv.vectors.astype(np.float64) - beta) @ a  # one per vocabulary word
    index = wv.key_to_index
    out = np.full(len(words), np.nan)
    for i, ws in enumerate(words):
        known = [index[w] for w in ws if w in index]
        if known:
            out[i] = proj[known].mean()
    return out


def cohens_d(x: Any, y: Any) -> float:
    """(mean x - mean y) / pooled SD; NaN with fewer than two values a side."""
    import numpy as np

    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if len(x) < 2 or len(y) < 2:
        return float("nan")
    pooled = ((len(x) - 1) * x.var(ddof=1) + (len(y) - 1) * y.var(ddof=1)) / (len(x) + len(y) - 2)
    return float((x.mean() - y.mean()) / np.sqrt(pooled)) if pooled > 0 else float("nan")


def project_run(run: RunTexts, scores: Any, n_boot: int, seed: int, level: float = 0.95) -> RunProjection:
    import numpy as np
    import pandas as pd
    from scipy.stats import mannwhitneyu

    frame = pd.DataFrame({"name": run.names, "gender": run.genders, "score": scores}).dropna(subset=["score"])
    f = frame.loc[frame["gender"] == "female", "score"].to_numpy()
    m = frame.loc[frame["gender"] == "male", "score"].to_numpy()
    by_name = frame.groupby(["name", "gender"])["score"].mean().reset_index()
    nf, nm = (by_name.loc[by_name["gender"] == g, "score"].to_numpy() for g in ("female", "male"))
    ok = len(f) > 0 and len(m) > 0
    low, high = _d_interval(frame, n_boot, seed, level) if ok else (np.nan, np.nan)
    return RunProjection(
        run.run, np.asarray(scores), run.genders, run.names, len(f), len(m),
        float(f.mean()) if len(f) else np.nan, float(m.mean()) if len(m) else np.nan,
        _p(mannwhitneyu(f, m).pvalue) if ok else np.nan,
        _p(mannwhitneyu(nf, nm).pvalue) if len(nf) and len(nm) else np.nan,
        cohens_d(f, m), low, high, int(np.isnan(np.asarray(scores, dtype=float)).sum()))


def _p(p: float) -> float:
    """A p-value never shown as 0 (an underflow): at least the smallest positive double."""
    import numpy as np

    return float(max(p, np.finfo(np.float64).tiny))


def _d_interval(frame: Any, n_boot: int, seed: int, level: float) -> tuple[float, float]:
    """Percentile interval of Cohen's d, names resampled within each gender (texts kept with their name)."""
    import numpy as np

    from stereoprobe.stats import cluster_weights

    names = frame["name"].to_numpy()
    female = (frame["gender"] == "female").to_numpy()
    s = frame["score"].to_numpy(dtype=float)
    w = cluster_weights([names], n_boot, seed=seed, strata=female).astype(np.float64)  # B x n texts
    parts = []
    for side in (female, ~female):  # per replicate: texts, mean, sum of squared deviations
        ws, x = w[:, side], s[side]
        n = ws.sum(axis=1)
        mean = ws @ x / n
        parts.append((n, mean, ws @ x**2 - n * mean**2))
    (nf, mf, ssf), (nm, mm, ssm) = parts
    with np.errstate(invalid="ignore", divide="ignore"):
        ds = (mf - mm) / np.sqrt((ssf + ssm) / (nf + nm - 2))
    alpha = (1 - level) / 2
    return float(np.nanquantile(ds, alpha)), float(np.nanquantile(ds, 1 - alpha))


def folds(run: RunTexts, seed: int) -> Any:
    """Each text's fold (0 or 1): a run's names of each gender, sorted, shuffled by ``seed`` and cut in half
    (an odd name out goes to fold 1), so a name's texts share a fold and both folds hold both genders."""
    import numpy as np

    fold: dict[str, int] = {}
    for g in sorted(set(run.genders), key=str):
        names = np.array(sorted({n for n, gg in zip(run.names, run.genders) if gg == g}))
        for k, n in enumerate(np.random.default_rng(seed).permutation(names)):
            fold[str(n)] = int(k >= len(names) // 2)
    return np.array([fold[n] for n in run.names])


def compare(runs: Sequence[RunTexts], seed: int = 0, n_boot: int = 1000, level: float = 0.95,
            cross_fit: bool = True) -> list[RunProjection]:
    """Project each run's texts on the she-he axis of a model trained on every run's texts (in the order given).

    ``cross_fit`` (the default): a text is scored by a model that never saw it. Each run's names are split in
    two folds (``folds``); a model trained on fold 0 of every run scores fold 1's texts and one trained on
    fold 1 scores fold 0's. Scoring the texts the axis was learnt from (``cross_fit=False``, 001's way) biases
    d towards "she" under the null: words that happen to occur more in female-name texts are learnt near "she"
    (docs/hobbies.md, bench/sim_w2v_null.py).
    """
    import numpy as np

    if not cross_fit:
        wv = train([s for r in runs for s in r.sentences], seed=seed)
        return [project_run(r, text_scores(wv, r.words), n_boot, seed, level) for r in runs]
    split = [folds(r, seed) for r in runs]
    models = [train([s for r, f in zip(runs, split) for s, k in zip(r.sentences, f) if k == fold], seed=seed,
                    what=f"The texts of fold {fold} (half of each run's names)") for fold in (0, 1)]
    out = []
    for r, f in zip(runs, split):
        scores = np.full(len(r.words), np.nan)
        for fold in (0, 1):  # fold's texts scored by the other fold's model
            idx = np.flatnonzero(f == fold)
            scores[idx] = text_scores(models[1 - fold], [r.words[i] for i in idx])
        out.append(project_run(r, scores, n_boot, seed, level))
    return out
