"""Question vs statement: the paper's central claim, tested per category and overall.

Templates are paired by their words: a question template and a statement template of
one category pair when their ids have the same words once question words are dropped
(``why_are_so`` / ``are_so``, ``why_are_all_people_in_so`` / ``all_people_in_are_so``).
A category without any pair falls back to all its templates of each format. Per group,
the question and statement shares over the paired templates form one pair; the test is a
paired sign-flip permutation over groups (``scipy.stats.permutation_test``, exact when
2^groups <= PERMUTATIONS), of the pooled difference question minus statement negative
share. The interval comes from the category plan (groups, then probes), t-based; the
effect size is Cohen's h (statsmodels); q-values are BH across the categories (the
``all`` row is one more test, its q equals its p).
"""

from __future__ import annotations

from typing import Any

PERMUTATIONS = 10_000
QUESTION_WORDS = frozenset({"why", "how", "come", "what", "makes", "when", "who", "does", "do"})
COLUMNS = ["category", "question_negative", "statement_negative", "difference", "ci_low", "ci_high",
           "p", "q", "cohens_h", "groups", "pairs", "sentence"]  # fmt: skip


def template_pairs(templates: Any) -> list[tuple[str, str]]:
    """(question, statement) template pairs among ``(template, format)`` tuples, by their words."""
    def words(t: str) -> tuple[str, ...]:
        return tuple(sorted(w for w in t.split("_") if w not in QUESTION_WORDS))

    templates = [tuple(t) for t in templates]
    q = [t for t, f in templates if f == "question"]
    s = [t for t, f in templates if f == "statement"]
    pairs = []
    for qt in q:
        match = [st for st in s if words(st) == words(qt)]
        if len(match) == 1 and sum(words(o) == words(qt) for o in q) == 1:
            pairs.append((qt, match[0]))
    return sorted(pairs)


def _sentence(cat: str, qn: float, sn: float, d: float, lo: float, hi: float, q: float, level: float) -> str:
    where = "all categories" if cat == "all" else cat
    pct = f"{level * 100:g}%"
    qtext = "q < 0.001" if q < 0.001 else f"q = {q:.3f}"
    detail = f"{qn:.0f}% vs {sn:.0f}%, {abs(d):.0f} points ({pct} CI {lo:.0f} to {hi:.0f}), {qtext}"
    if q != q or q >= 1 - level:
        return f"No clear difference between questions and statements for {where}: {detail}"
    first, second = ("Questions", "statements") if d > 0 else ("Statements", "questions")
    return f"{first} are more negative than {second} for {where}: {detail}"


def _perm_p(qn: Any, qp: Any, sn: Any, sp: Any, seed: int) -> float:
    import numpy as np
    from scipy import stats

    neg, pol = np.concatenate([qn, sn]), np.concatenate([qp, sp])
    g = len(qn)

    def stat(x: Any, y: Any, axis: int = -1) -> Any:
        return neg[x].sum(axis) / pol[x].sum(axis) - neg[y].sum(axis) / pol[y].sum(axis)

    res = stats.permutation_test((np.arange(g), np.arange(g) + g), stat, permutation_type="samples",
                                 vectorized=True, n_resamples=PERMUTATIONS, batch=1000, random_state=seed)
    return float(res.pvalue)


def format_test(weights: Any, units: Any, level: float, seed: int) -> Any:
    """``format_test.csv`` as a DataFrame, from the category plan ``weights`` over ``units``."""
    import numpy as np
    import pandas as pd
    from statsmodels.stats.proportion import proportion_effectsize

    from stereoprobe.stats.fdr import bh
    from stereoprobe.stats.intervals import t_interval
    from stereoprobe.stats.shares import keyed_sums

    used = np.zeros(len(units), bool)
    pair_text = {}
    for cat, sub in units.groupby("category", sort=True):
        pairs = template_pairs(sub[["template", "format"]].drop_duplicates().itertuples(index=False))
        keep = {t for p in pairs for t in p}
        used |= (units["category"] == cat).to_numpy() & (units["template"].isin(keep).to_numpy() if pairs else True)
        pair_text[cat] = "; ".join(f"{a}/{b}" for a, b in pairs) if pairs else "none: all templates"
    is_q = (units["format"] == "question").to_numpy() & used
    is_s = (units["format"] == "statement").to_numpy() & used
    neg, pol = units["neg"].to_numpy(), units["polar"].to_numpy()
    gcode, gkeys = pd.factorize(pd.MultiIndex.from_frame(units[["category", "group"]]))
    ng = len(gkeys)
    per = {k: np.bincount(gcode, v, ng) for k, v in
           (("qn", neg * is_q), ("qp", pol * is_q), ("sn", neg * is_s), ("sp", pol * is_s))}
    gcat = np.asarray(gkeys.get_level_values(0))
    both = (per["qp"] > 0) & (per["sp"] > 0)
    cats = sorted(set(gcat))
    ccode = pd.Categorical(units["category"], categories=cats).codes
    reps = {}
    for k, m, v in (("qn", is_q, neg), ("qp", is_q, pol), ("sn", is_s, neg), ("sp", is_s, pol)):
        by_cat = keyed_sums(weights, ccode, len(cats), v * m)
        reps[k] = np.column_stack([by_cat, by_cat.sum(1)])
    with np.errstate(invalid="ignore", divide="ignore"):
        rep_diff = 100 * (reps["qn"] / reps["qp"] - reps["sn"] / reps["sp"])
    rows = []
    for i, cat in enumerate([*cats, "all"]):
        sel = both & ((gcat == cat) if cat != "all" else True)
        g = int(sel.sum())
        tot = {k: v[sel].sum() for k, v in per.items()}
        if g == 0 or tot["qp"] == 0 or tot["sp"] == 0:
            rows.append({"category": cat, "groups": g, "pairs": pair_text.get(cat, ""), "sentence": ""})
            continue
        qn, sn = 100 * tot["qn"] / tot["qp"], 100 * tot["sn"] / tot["sp"]
        strata = 1 if cat != "all" else len({c for c in gcat[sel]})
        lo, hi = t_interval(qn - sn, rep_diff[:, i], g, strata, level, bounds=(-100, 100))
        p = _perm_p(per["qn"][sel], per["qp"][sel], per["sn"][sel], per["sp"][sel], seed) if g >= 2 else np.nan
        rows.append({"category": cat, "question_negative": qn, "statement_negative": sn, "difference": qn - sn,
                     "ci_low": float(lo), "ci_high": float(hi), "p": p,
                     "cohens_h": float(proportion_effectsize(qn / 100, sn / 100)), "groups": g,
                     "pairs": pair_text.get(cat, "; ".join(sorted(set(pair_text.values()))))})
    table = pd.DataFrame(rows).reindex(columns=COLUMNS)
    is_cat = table["category"] != "all"
    table.loc[is_cat, "q"] = bh(table.loc[is_cat, "p"].to_numpy())
    table.loc[~is_cat, "q"] = table.loc[~is_cat, "p"]
    table["sentence"] = [
        _sentence(r.category, r.question_negative, r.statement_negative, r.difference, r.ci_low, r.ci_high, r.q, level)
        if r.question_negative == r.question_negative else f"{r.category}: too few probes to compare the formats"
        for r in table.itertuples()
    ]
    return table
