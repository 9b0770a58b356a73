"""Sterlie et al.'s comparison across models (2024, 001 section 6, eq. 9, Figure 5), two ways.

With f and m a Word2Vec model's vectors of "she" and "he", beta their midpoint and
a = (f - beta) / |f - beta|, a word's score is the scalar projection s_w = (w - beta) . a
(positive: towards "she"); a text's score is the mean s_w over its scored words in the
model's vocabulary; a name's score is the mean over its texts. The unit is the name (a
name's texts share one prompt: one cluster), and so are 001's populations: its Figure 5
plots one point per name, and its p-values (2.1e-66 to 5.6e-72) are what a Mann-Whitney
test over about 214 name means a gender gives; over 2,140 texts a gender they would be
below 1e-600 (docs/hobbies.md works this out).

``way="cross-fit"`` (the corrected measure, the default): each run's names of each gender
are cut in three folds (``folds``); a model trained on fold j's texts of every run scores
fold j + 1's texts (mod 3, a cycle), so no text is scored by a model that learnt from it.
The scored words leave out stop words, the student's name and gendered pronouns
(``text.content_words``). The folds' scores come from different models and sit at
different centres, so d is computed **within each fold** (Cohen's d over its name means)
and the three are averaged; its standard error combines the folds' bootstrap sds (names
resampled within each gender) as independent, which under the null they are in a cycle of
three and are not with two folds that score each other (``pooled``); the interval is
d +- z se. The test over name means combines each fold's Mann-Whitney z (Stouffer).

``way="001"`` (Sterlie et al.'s own way, for the published design): one model trained on
all the texts of every run scores those same texts; the scored words are the tokens less
stop words (the name is kept; spaCy's stop words include he, she, his, her, so pronouns go
as stop words do). Cohen's d and the Mann-Whitney test over name means, no interval (001
gave none). Biased towards "she" under the null (bench/sim_w2v_null.py).

The numbers repeat in any process: one worker thread and a fixed ``seed`` (gensim 4 draws
the initial vectors from numpy's generator seeded by it; Python's string hashing plays no
part, which a test checks with two interpreters of different ``PYTHONHASHSEED``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

#: Word2Vec settings (gensim names). min_count 2: a word met once has no usable vector.
SETTINGS = {"vector_size": 100, "window": 5, "min_count": 2, "epochs": 40, "sg": 1, "negative": 5}
WAYS = ("cross-fit", "001")
FOLDS = 3  # cross-fitting's folds of names (pooled() says why three)


@dataclass(frozen=True)
class RunTexts:
    """A run's texts for the comparison: ``sentences`` (all tokens, for training),
    ``words`` (the content words the corrected measure scores), ``genders`` and ``names`` per text."""

    run: str
    sentences: list[list[str]]
    words: list[list[str]]
    genders: list[str]
    names: list[str]


@dataclass(frozen=True)
class Fold:
    """One fold's numbers: Cohen's d over its name means, the name-bootstrap sd of that d,
    and the Mann-Whitney z over its name means (positive: female names higher)."""

    d: float
    sd: float
    z: float
    female_names: int
    male_names: int


@dataclass(frozen=True)
class RunProjection:
    run: str
    way: str  # "cross-fit" or "001"
    scores: Any  # per text (NaN: no scored word in the vocabulary)
    fold: Any  # per text: the fold (cross-fit), -1 (001)
    genders: list[str]
    names: list[str]
    n_female: int  # texts scored
    n_male: int
    female_names: int
    male_names: int
    mean_female: float  # over name means
    mean_male: float
    d: float  # Cohen's d over name means, female - male
    d_low: float  # NaN for 001's way
    d_high: float
    se: float
    p_names: float  # a test over name means (pooled folds' Mann-Whitney z; 001's way: Mann-Whitney over name means)
    unscored: int  # texts without a word in the vocabulary
    folds: tuple[Fold, ...] = ()


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


def name_means(names: Sequence[str], genders: Sequence[str], scores: Any) -> Any:
    """A frame name, gender, score (the mean over the name's scored texts), names in sorted order."""
    import pandas as pd

    frame = pd.DataFrame({"name": list(names), "gender": list(genders), "score": scores}).dropna(subset=["score"])
    return frame.groupby(["name", "gender"], sort=True)["score"].mean().reset_index()


def bootstrap_d(by_name: Any, n_boot: int, seed: int) -> Any:
    """Cohen's d over name means in ``n_boot`` replicates, names resampled within each gender."""
    import numpy as np

    from stereoprobe.stats import cluster_weights

    female = (by_name["gender"] == "female").to_numpy()
    s = by_name["score"].to_numpy(dtype=float)
    w = cluster_weights([by_name["name"].to_numpy()], n_boot, seed=seed, strata=female).astype(np.float64)
    parts = []
    for side in (female, ~female):  # per replicate: names, mean, sum of squared deviations
        ws, x = w[:, side], s[side]
        n = ws.sum(axis=1)
        mean = ws @ x / n
        parts.append((n, mean, ws @ x**2 - n * mean**2))
    (nf, mf, ssf), (nm, mm, ssm) = parts
    with np.errstate(invalid="ignore", divide="ignore"):
        return (mf - mm) / np.sqrt((ssf + ssm) / (nf + nm - 2))


def mann_whitney_z(f: Any, m: Any) -> float:
    """The Mann-Whitney z of f against m (positive: f higher), continuity-corrected as scipy's
    asymptotic test (two-sided p = 2 Phi(-|z|)); NaN without values on both sides."""
    import numpy as np
    from scipy.stats import mannwhitneyu, norm

    if len(f) == 0 or len(m) == 0:
        return float("nan")
    result = mannwhitneyu(f, m, method="asymptotic")
    u = result.statistic
    z = abs(norm.isf(result.pvalue / 2))  # scipy's z, sign from U against its mean
    return float(z if u > len(f) * len(m) / 2 else -z) if np.isfinite(z) else float("nan")


def fold_numbers(by_name: Any, n_boot: int, seed: int) -> Fold:
    import numpy as np

    f = by_name.loc[by_name["gender"] == "female", "score"].to_numpy()
    m = by_name.loc[by_name["gender"] == "male", "score"].to_numpy()
    d = cohens_d(f, m)
    sd = float(np.nanstd(bootstrap_d(by_name, n_boot, seed), ddof=1)) if np.isfinite(d) else float("nan")
    return Fold(d, sd, mann_whitney_z(f, m), len(f), len(m))


def _p(p: float) -> float:
    """A p-value never shown as 0 (an underflow): at least the smallest positive double."""
    import numpy as np

    return float(max(p, np.finfo(np.float64).tiny))


def folds(run: RunTexts, seed: int, k: int = 3) -> Any:
    """Each text's fold (0 to k - 1): a run's names of each gender, sorted, shuffled by ``seed`` and cut in
    ``k`` near-equal parts (the names left over go to the last folds), so a name's texts share a fold and
    every fold holds both genders."""
    import numpy as np

    fold: dict[str, int] = {}
    for g in sorted(set(run.genders), key=str):
        names = np.array(sorted({n for n, gg in zip(run.names, run.genders) if gg == g}))
        n = len(names)
        for i, name in enumerate(np.random.default_rng(seed).permutation(names)):
            fold[str(name)] = k - 1 - ((n - 1 - i) * k) // n
    return np.array([fold[n] for n in run.names])


def published_words(sentences: Sequence[Sequence[str]]) -> list[list[str]]:
    """001's scored words: a text's tokens less stop words (spaCy's list; the name is kept)."""
    from stereoprobe.studies.hobbies.text import stop_words

    stop = stop_words()
    return [[w for w in s if w not in stop and len(w) > 1 and "'" not in w] for s in sentences]


def pooled(parts: Sequence[Fold]) -> tuple[float, float, float]:
    """(d, se, z) of the folds together: the mean d, and a se and z that read the folds as
    independent when there are three or more (fold j scored by the model of fold j + 1 in a
    cycle: under the null no two folds' d share a source, so they are uncorrelated) and as
    perfectly correlated when there are two (each fold's model scores the other: their d share
    the product of both folds' chance imbalances, and the mean of the sds is the bound). Under a
    real difference the folds' d are positively correlated after all (a fold whose names differ
    more trains a sharper axis for the next) and the models vary from run to run, which the name
    bootstrap holds fixed: the se is then about a quarter too small (docs/hobbies.md)."""
    import numpy as np

    d = np.array([p.d for p in parts], dtype=float)
    sd = np.array([p.sd for p in parts], dtype=float)
    z = np.array([p.z for p in parts], dtype=float)
    k = len(parts)
    if k >= 3:
        return float(d.mean()), float(np.sqrt((sd**2).sum()) / k), float(z.sum() / np.sqrt(k))
    return float(d.mean()), float(sd.mean()), float(z.mean())


def combine(run: RunTexts, way: str, scores: Any, fold: Any, n_boot: int, seed: int,
            level: float = 0.95) -> RunProjection:
    """A run's projection from its text scores (``fold``: each text's fold, or -1 for 001's way)."""
    import numpy as np
    from scipy.stats import norm

    scores = np.asarray(scores, dtype=float)
    by_name = name_means(run.names, run.genders, scores)
    f = by_name.loc[by_name["gender"] == "female", "score"].to_numpy()
    m = by_name.loc[by_name["gender"] == "male", "score"].to_numpy()
    texts = [int(((np.asarray(run.genders) == g) & np.isfinite(scores)).sum()) for g in ("female", "male")]
    common = dict(run=run.run, way=way, scores=scores, fold=np.asarray(fold), genders=run.genders, names=run.names,
                  n_female=texts[0], n_male=texts[1], female_names=len(f), male_names=len(m),
                  mean_female=float(f.mean()) if len(f) else np.nan, mean_male=float(m.mean()) if len(m) else np.nan,
                  unscored=int(np.isnan(scores).sum()))
    if way == "001":
        z = mann_whitney_z(f, m)
        return RunProjection(**common, d=cohens_d(f, m), d_low=np.nan, d_high=np.nan, se=np.nan,
                             p_names=_p(2 * norm.sf(abs(z))) if np.isfinite(z) else np.nan)
    fold_of = dict(zip(run.names, np.asarray(fold)))
    parts = tuple(fold_numbers(by_name[[fold_of[n] == k for n in by_name["name"]]].reset_index(drop=True), n_boot,
                               seed + k) for k in sorted(set(fold_of.values())))
    d, se, z = pooled(parts)
    q = norm.isf((1 - level) / 2)
    return RunProjection(**common, d=d, d_low=d - q * se, d_high=d + q * se, se=se,
                         p_names=_p(2 * norm.sf(abs(z))) if np.isfinite(z) else np.nan, folds=parts)


def compare(runs: Sequence[RunTexts], seed: int = 0, n_boot: int = 1000, level: float = 0.95,
            way: str = "cross-fit", k: int = FOLDS) -> list[RunProjection]:
    """Project each run's texts on the she-he axis (module docstring), the runs in the order given.

    ``way="cross-fit"``: ``k`` models, model j trained on fold j of names of every run; fold j's texts are
    scored by model j + 1 (mod k). ``way="001"``: one model trained on every run's texts scoring those same
    texts, names kept.
    """
    import numpy as np

    from stereoprobe.errors import DataError

    if way not in WAYS:
        raise DataError(f"Unknown way {way!r}: choose {' or '.join(WAYS)}.")
    if way == "001":
        wv = train([s for r in runs for s in r.sentences], seed=seed)
        return [combine(r, way, text_scores(wv, published_words(r.sentences)), np.full(len(r.names), -1), n_boot,
                        seed, level) for r in runs]
    for r in runs:
        fewest = min(len({n for n, g in zip(r.names, r.genders) if g == gender}) for gender in ("female", "male"))
        if fewest < 2 * k:
            raise DataError(f"{r.run} has {fewest} names of one gender; the comparison cuts each gender's names in "
                            f"{k} folds of at least 2: give runs with at least {2 * k} names a gender.")
    split = [folds(r, seed, k) for r in runs]
    models = [train([s for r, f in zip(runs, split) for s, j in zip(r.sentences, f) if j == fold], seed=seed,
                    what=f"The texts of fold {fold} (a {k}th of each run's names)") for fold in range(k)]
    out = []
    for r, f in zip(runs, split):
        scores = np.full(len(r.words), np.nan)
        for fold in range(k):  # fold j's texts scored by the model of fold j + 1 (a cycle)
            idx = np.flatnonzero(f == fold)
            scores[idx] = text_scores(models[(fold + 1) % k], [r.words[i] for i in idx])
        out.append(combine(r, way, scores, f, n_boot, seed, level))
    return out
