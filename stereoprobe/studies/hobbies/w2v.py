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
and the three are averaged. Fold j's names move that mean twice: as fold j's scored names
and, through the model they train, in fold j - 1's d. Its variance is therefore the sum
over folds of (each fold's name-bootstrap variance with the models held fixed, 2,000
replicates: cheap) plus what retraining adds, measured by ``retrain`` bootstrap replicates
per fold that resample the fold's names (within run and gender), retrain its model on them
and score fold j - 1 again (``Fold.added``; ``pooled``: never below the name bootstrap's
variance); the interval is d +- z se. The test over
name means combines each fold's Mann-Whitney z (Stouffer); under the null it needs no
retraining (a fold's d has mean 0 whatever model scores it).

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

from dataclasses import dataclass, replace
from typing import Any, Sequence

#: Word2Vec settings (gensim names). min_count 2: a word met once has no usable vector.
SETTINGS = {"vector_size": 100, "window": 5, "min_count": 2, "epochs": 40, "sg": 1, "negative": 5}
WAYS = ("cross-fit", "001")
FOLDS = 3  # cross-fitting's folds of names (pooled() says why three)
#: Bootstrap replicates per fold that retrain the fold's model (each a third of one training
#: of all the texts): the interval's coverage at a known truth, docs/hobbies.md.
RETRAIN = 10
#: d's interval and the test at a known truth, per names a gender (x texts each), in two families of
#: texts, null and planted difference (bench/sim_w2v_null.py, 100-221 runs a cell; docs/hobbies.md,
#: "Why the default asks 214 names a gender"): (the lowest coverage of the four cells, the lowest
#: share of runs in which the test found a planted difference).
CHECKED = {214: (0.941, 0.869), 107: (0.886, 0.694), 20: (0.970, 0.020)}
#: The largest size measured (214 x 10: the default and 001's design), where the interval held best: 94.1-96.2%.
CHECKED_PER_GENDER = 214


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
    """One fold's numbers: Cohen's d over its name means, the name-bootstrap sd of that d
    (models held fixed), the Mann-Whitney z over its name means (positive: female names
    higher), and per retraining replicate (this fold's names resampled, its model retrained on
    them): ``own``, the shift of this fold's d (models held fixed); ``via_model``, the shift of
    the previous fold's d, which this fold's model scores; ``via_other``, the shift of another
    fold's d had this fold's model scored it (a fold whose names did not train it either)."""

    d: float
    sd: float
    z: float
    female_names: int
    male_names: int
    own: tuple[float, ...] = ()
    via_model: tuple[float, ...] = ()
    via_other: tuple[float, ...] = ()

    @property
    def added(self) -> float:
        """What retraining adds to this fold's names' part of k^2 var(mean d), beyond sd^2 (names resampled,
        models held fixed: the names' own chance and its product with whatever model scores them): the
        model's own variation along the real difference, cov(via_model, via_other), two folds' shifts whose
        names' chance imbalances are independent, so that only their common part, the real difference,
        survives (var(via_model) would count the product with the names' chance again: too wide under the
        null); and 2 cov(own, via_model): a fold's names move its own d and, through the model they train,
        the previous fold's (what makes neighbouring folds' d correlated). Not cov(own, via_other): the
        other fold trained the model that scores this one, so that covariance is not 0 even with no real
        difference. 0 without retraining replicates; may be negative (chance in few replicates)."""
        import numpy as np

        if len(self.own) < 2:
            return 0.0
        own, via, other = (np.asarray(x, dtype=float) for x in (self.own, self.via_model, self.via_other))

        def cov(x: Any, y: Any) -> float:
            return float(((x - x.mean()) * (y - y.mean())).sum() / (len(x) - 1))

        return cov(via, other) + 2 * cov(own, via)


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


def encode(words: Sequence[Sequence[str]]) -> tuple[list[str], Any, Any, int]:
    """Texts' words as (the distinct words, each word's index among them, each word's text, the number of
    texts): read once, scored by any number of models (``text_scores``)."""
    import numpy as np

    seen: dict[str, int] = {}
    ids = np.fromiter((seen.setdefault(w, len(seen)) for ws in words for w in ws), dtype=np.int64)
    return list(seen), ids, np.repeat(np.arange(len(words)), [len(ws) for ws in words]), len(words)


def text_scores(wv: Any, words: Sequence[Sequence[str]] = (), coded: Any = None) -> Any:
    """The mean scalar projection of each text's words in the vocabulary (NaN if none); ``coded``:
    ``encode(words)`` instead of the words, made once where one set of texts meets several models."""
    import numpy as np

    beta, a = axis(wv)
    proj = (wv.vectors.astype(np.float64) - beta) @ a  # one per vocabulary word
    distinct, ids, text, texts = coded if coded is not None else encode(words)
    row = np.array([wv.key_to_index.get(w, -1) for w in distinct], dtype=np.int64)[ids]
    known = row >= 0
    n = np.bincount(text[known], minlength=texts)
    total = np.bincount(text[known], weights=proj[row[known]], minlength=texts)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(n > 0, total / n, np.nan)


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


def weighted_d(female: Any, scores: Any, w: Any) -> Any:
    """Cohen's d over name means (female minus male) with each name counted ``w`` times, one d per
    row of ``w`` (names x columns): a bootstrap's replicates in one pass."""
    import numpy as np

    parts = []
    for side in (female, ~female):  # per replicate: names, mean, sum of squared deviations
        ws, x = w[:, side], scores[side]
        n = ws.sum(axis=1)
        mean = ws @ x / n
        parts.append((n, mean, ws @ x**2 - n * mean**2))
    (nf, mf, ssf), (nm, mm, ssm) = parts
    with np.errstate(invalid="ignore", divide="ignore"):
        return (mf - mm) / np.sqrt((ssf + ssm) / (nf + nm - 2))


def bootstrap_d(by_name: Any, n_boot: int, seed: Any) -> Any:
    """Cohen's d over name means in ``n_boot`` replicates, names resampled within each gender."""
    import numpy as np

    from stereoprobe.stats import cluster_weights

    female = (by_name["gender"] == "female").to_numpy()
    w = cluster_weights([by_name["name"].to_numpy()], n_boot, seed=seed, strata=female).astype(np.float64)
    return weighted_d(female, by_name["score"].to_numpy(dtype=float), w)


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
    """(d, se, z) of the folds together: the mean d; with three or more folds (fold j scored by the
    model of fold j + 1 in a cycle: each fold's names move the mean through their own d and the next
    model, and the folds' names are independent, so their parts add) se = sqrt(sum of the folds' sd^2
    + max(0, sum of what retraining adds, ``Fold.added``)) / k, the retraining part never narrowing the
    name bootstrap's interval (few replicates can make it negative by chance; under the null it is near
    0: no two folds' d share a source), and the Stouffer z; with two folds (each fold's model scores the
    other: their d share the product of both folds' chance imbalances) the mean of the sds (the bound)
    and of the z. With the name bootstrap alone (models held fixed) the se is right under the null but
    0.67-0.76 of the sd of d under a real difference, where the trained axes vary with the names that
    train them (docs/hobbies.md)."""
    import numpy as np

    d = np.array([p.d for p in parts], dtype=float)
    sd = np.array([p.sd for p in parts], dtype=float)
    z = np.array([p.z for p in parts], dtype=float)
    k = len(parts)
    if k >= 3:
        total = float((sd**2).sum()) + max(sum(p.added for p in parts), 0.0)
        return float(d.mean()), float(np.sqrt(total) / k), float(z.sum() / np.sqrt(k))
    return float(d.mean()), float(sd.mean()), float(z.mean())


def combine(run: RunTexts, way: str, scores: Any, fold: Any, n_boot: int, seed: int,
            level: float = 0.95, shifts: Sequence[tuple[Any, Any]] = ()) -> RunProjection:
    """A run's projection from its text scores (``fold``: each text's fold, or -1 for 001's way;
    ``shifts``: per fold, the retraining replicates' (own, via_model, via_other) from ``retrained``)."""
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
    parts = []
    for k in sorted(set(fold_of.values())):
        part = fold_numbers(by_name[[fold_of[n] == k for n in by_name["name"]]].reset_index(drop=True), n_boot,
                            seed + k)
        if len(shifts):
            fields = ("own", "via_model", "via_other")
            part = replace(part, **{f: tuple(map(float, x)) for f, x in zip(fields, shifts[k])})
        parts.append(part)
    d, se, z = pooled(parts)
    q = norm.isf((1 - level) / 2)
    return RunProjection(**common, d=d, d_low=d - q * se, d_high=d + q * se, se=se,
                         p_names=_p(2 * norm.sf(abs(z))) if np.isfinite(z) else np.nan, folds=tuple(parts))


def _fold_texts(runs: Sequence[RunTexts], split: Sequence[Any], fold: int,
                counts: Sequence[dict[str, int]] | None = None) -> list[Sequence[str]]:
    """Fold ``fold``'s token lists of every run, each text as many times as its name's count (once if none)."""
    return [s for i, (r, f) in enumerate(zip(runs, split)) for s, j, n in zip(r.sentences, f, r.names)
            if j == fold for _ in range(1 if counts is None else counts[i].get(n, 0))]


def _fold_tables(runs: Sequence[RunTexts], split: Sequence[Any], scores: Sequence[Any]) -> list[Any]:
    """Per run, its name means (``name_means``) with each name's fold."""
    tables = []
    for r, f, s in zip(runs, split, scores):
        by_name = name_means(r.names, r.genders, s)
        fold_of = dict(zip(r.names, f))
        by_name["fold"] = [fold_of[n] for n in by_name["name"]]
        tables.append(by_name)
    return tables


def resamples(tables: Sequence[Any], k: int, retrain: int, seed: int) -> list[tuple[Any, list[int]]]:
    """Per fold h: (multiplicities, ``retrain`` x the fold's names run by run in ``tables``' order, drawn
    within run and gender; a Word2Vec seed per replicate)."""
    import numpy as np

    from stereoprobe.stats import cluster_weights

    out = []
    for h in range(k):
        here = [t[t["fold"] == h] for t in tables]
        units = [f"{i}\x00{n}" for i, t in enumerate(here) for n in t["name"]]
        strata = [f"{i}\x00{g}" for i, t in enumerate(here) for g in t["gender"]]
        w = cluster_weights([units], retrain, seed=np.random.default_rng([seed, 7, h]), strata=strata)
        out.append((w, [int(np.random.SeedSequence([seed, h, b]).generate_state(1)[0]) for b in range(retrain)]))
    return out


def retrained(runs: Sequence[RunTexts], split: Sequence[Any], scores: Sequence[Any], models: Sequence[Any],
              draws: Sequence[tuple[Any, Sequence[int]]]) -> list[list[tuple[Any, Any, Any]]]:
    """Per run, per fold h: (own, via_model, via_other), one value per row of ``draws[h]``'s multiplicities:
    fold h's d recomputed over the resampled names with the models held fixed (own); fold h - 1's d when
    fold h's model is retrained (with that row's seed) on the resampled names' texts, each text as often as
    its name was drawn (via_model); and fold h + 1's d scored by the retrained model against the same fold
    scored by fold h's model (via_other); each a shift from the fold's d."""
    import numpy as np

    tables = _fold_tables(runs, split, scores)
    k = len(draws)
    out = [[tuple(np.zeros(len(seeds)) for _ in range(3)) for _, seeds in draws] for _ in runs]
    for h, (w, seeds) in enumerate(draws):
        here = [t[t["fold"] == h] for t in tables]
        female = [(t["gender"] == "female").to_numpy() for t in here]
        edges = np.cumsum([0] + [len(t) for t in here])
        scored = []  # per run: the previous fold's texts (scored by fold h's model) and the next fold's
        for r, f in zip(runs, split):
            sets = []
            for g in ((h - 1) % k, (h + 1) % k):
                ix = np.flatnonzero(np.asarray(f) == g)
                sets.append((encode([r.words[i] for i in ix]), [r.names[i] for i in ix], [r.genders[i] for i in ix]))
            scored.append(sets)
        base = []
        for i, t in enumerate(here):
            own = weighted_d(female[i], t["score"].to_numpy(float), np.ones((1, len(t))))[0]
            via = cohens_d(*_sides(tables[i][tables[i]["fold"] == (h - 1) % k]))
            coded, names, genders = scored[i][1]
            other = cohens_d(*_sides(name_means(names, genders, text_scores(models[h], coded=coded))))
            base.append((own, via, other))
        for b, model_seed in enumerate(seeds):
            counts = [dict(zip(t["name"], w[b, edges[i]:edges[i + 1]])) for i, t in enumerate(here)]
            wv = train(_fold_texts(runs, split, h, counts), seed=model_seed, what=f"A resample of fold {h}'s texts")
            for i, (r, t) in enumerate(zip(runs, here)):
                own = weighted_d(female[i], t["score"].to_numpy(float), w[None, b, edges[i]:edges[i + 1]].astype(float))
                moved = [cohens_d(*_sides(name_means(names, genders, text_scores(wv, coded=coded))))
                         for coded, names, genders in scored[i]]
                out[i][h][0][b] = own[0] - base[i][0]
                out[i][h][1][b] = moved[0] - base[i][1]
                out[i][h][2][b] = moved[1] - base[i][2]
    return out


def _sides(by_name: Any) -> tuple[Any, Any]:
    """(female, male) name means of a name_means frame."""
    female = by_name["gender"] == "female"
    return by_name.loc[female, "score"].to_numpy(), by_name.loc[~female, "score"].to_numpy()


def compare(runs: Sequence[RunTexts], seed: int = 0, n_boot: int = 1000, level: float = 0.95,
            way: str = "cross-fit", k: int = FOLDS, retrain: int = RETRAIN) -> list[RunProjection]:
    """Project each run's texts on the she-he axis (module docstring), the runs in the order given.

    ``way="cross-fit"``: ``k`` models, model j trained on fold j of names of every run; fold j's texts are
    scored by model j + 1 (mod k); ``retrain`` bootstrap replicates per fold retrain its model for the se
    (three or more folds; 0: the name bootstrap alone, models held fixed). ``way="001"``: one model trained
    on every run's texts scoring those same texts, names kept.
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
            raise DataError(f"{r.run} has only {fewest} name{'' if fewest == 1 else 's'} of one gender; the comparison cuts each gender's names in "
                            f"{k} folds of at least 2: give runs with at least {2 * k} names a gender.")
    split, models, scores = cross_fit(runs, seed, k)
    shifts = [()] * len(runs)
    if retrain > 1 and k >= 3:
        shifts = retrained(runs, split, scores, models, resamples(_fold_tables(runs, split, scores), k, retrain, seed))
    return [combine(r, way, s, f, n_boot, seed, level, sh) for r, s, f, sh in zip(runs, scores, split, shifts)]


_PART = {2: "half", 3: "a third", 4: "a quarter", 5: "a fifth"}


def cross_fit(runs: Sequence[RunTexts], seed: int, k: int) -> tuple[list[Any], list[Any], list[Any]]:
    """(each run's folds, the k models, each run's text scores): model j trained on fold j of every run,
    fold j's texts scored by the model of fold j + 1 (a cycle)."""
    import numpy as np

    split = [folds(r, seed, k) for r in runs]
    models = [train(_fold_texts(runs, split, fold), seed=seed,
                    what=f"The texts of fold {fold + 1} of {k} ({_PART.get(k, f'1/{k}')} of each run's names)")
              for fold in range(k)]
    scores = []
    for r, f in zip(runs, split):
        s = np.full(len(r.words), np.nan)
        for fold in range(k):
            idx = np.flatnonzero(f == fold)
            s[idx] = text_scores(models[(fold + 1) % k], [r.words[i] for i in idx])
        scores.append(s)
    return split, models, scores
