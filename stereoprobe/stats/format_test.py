"""Question vs statement: the paper's central claim, tested per category and overall.

Templates are paired by their words: a question template and a statement template of
one category pair when their ids have the same words once question words are dropped
(``why_are_so`` / ``are_so``, ``why_are_all_people_in_so`` / ``all_people_in_are_so``).
A category without any pair falls back to all its templates of each format.

The difference is question minus statement negative share, pooled over the groups that
answered both formats of the paired templates. One method gives the interval and the
p-value, so a sentence cannot contradict itself: its linearized variance with the groups
as clusters (categories as strata for ``all``; "these templates"), a t interval and
two-sided t test with ``groups - strata`` degrees of freedom. With ``wording="random"``
the template pairs are clusters too (two-way, Satterthwaite df: with three pairs the
honest answer is a wide interval). Only the selected groups and templates enter. The
effect size is Cohen's h (``cohens_h``: statsmodels' ``proportion_effectsize``, written out
because importing ``statsmodels.stats.proportion`` costs ``stereoprobe sentiment`` a second);
q-values are BH across the categories (the ``all`` row is one more test, its q equals its p).
"""

from __future__ import annotations

from typing import Any

QUESTION_WORDS = frozenset({"why", "how", "come", "what", "makes", "when", "who", "does", "do"})
COLUMNS = ["category", "question_negative", "statement_negative", "difference", "ci_low", "ci_high",
           "p", "q", "cohens_h", "groups", "pairs", "sentence"]  # fmt: skip


def cohens_h(p1: float, p2: float) -> float:
    """Cohen's h of two proportions, ``2 (asin(sqrt p1) - asin(sqrt p2))``, as statsmodels'
    ``proportion_effectsize`` computes it (tests/test_stats_format_criteria.py compares them).

    >>> round(cohens_h(0.5, 0.25), 4)  # 2 (pi / 4 - pi / 6) = pi / 6
    0.5236
    """
    import numpy as np

    return float(2 * (np.arcsin(np.sqrt(p1)) - np.arcsin(np.sqrt(p2))))


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
    if q != q or lo != lo:  # one group: no test, no interval
        return f"Too few groups to test questions against statements for {where}: {qn:.0f}% vs {sn:.0f}%"
    qtext = "q < 0.001" if q < 0.001 else f"q = {q:.3f}"
    points = f"{abs(d):.0f} point{'' if f'{abs(d):.0f}' == '1' else 's'}"
    detail = f"{qn:.0f}% vs {sn:.0f}%, {points} ({level * 100:g}% CI {lo:.0f} to {hi:.0f}), {qtext}"
    if q >= 1 - level:
        return f"No clear difference between questions and statements for {where}: {detail}"
    first, second = ("Questions", "statements") if d > 0 else ("Statements", "questions")
    return f"{first} are more negative than {second} for {where}: {detail}"


def format_test(rows: Any, level: float, wording: str = "fixed", phi: Any = 1.0) -> Any:
    """``format_test.csv`` as a DataFrame, from probe rows (:func:`stereoprobe.stats.shares.probe_rows`).

    ``phi``: per row, the dispersion of its category; the standard error is never below
    that dispersion's binomial one (a difference whose groups all agree exactly has
    variance 0): the floor is applied before the interval and the test alike, so neither
    is ever a point or p = 0, and they cannot disagree.
    """
    import numpy as np
    import pandas as pd

    from stereoprobe.stats.fdr import bh
    from stereoprobe.stats.intervals import t_interval, t_pvalue
    from stereoprobe.stats.variance import cluster_variance, crossed_variance

    used = np.zeros(len(rows), bool)
    pair_id = np.full(len(rows), "", dtype=object)
    pair_text = {}
    for cat, sub in rows.groupby("category", sort=True):
        pairs = template_pairs(sub[["template", "format"]].drop_duplicates().itertuples(index=False))
        in_cat = (rows["category"] == cat).to_numpy()
        for qt, st in pairs:
            for t in (qt, st):
                pair_id[in_cat & (rows["template"] == t).to_numpy()] = qt
        used |= in_cat & ((rows["template"].isin({t for p in pairs for t in p})).to_numpy() if pairs else True)
        if not pairs:
            pair_id[in_cat] = rows.loc[in_cat, "template"].to_numpy()
        pair_text[cat] = "; ".join(f"{a}/{b}" for a, b in pairs) if pairs else "none: all templates"
    fmt = rows["format"].to_numpy()
    neg, pol = rows["neg"].to_numpy(np.float64), rows["polar"].to_numpy(np.float64)
    is_q, is_s = (fmt == "question") & used, (fmt == "statement") & used
    gkey = rows["group_key"].to_numpy()
    gcode = pd.factorize(gkey)[0]
    ng = int(gcode.max()) + 1 if len(gcode) else 0
    qp, sp = np.bincount(gcode, pol * is_q, ng), np.bincount(gcode, pol * is_s, ng)
    both = ((qp > 0) & (sp > 0))[gcode]  # rows of groups that answered both formats
    cats = sorted(rows["category"].unique())
    phi_row = np.broadcast_to(np.asarray(phi, np.float64), len(rows))
    out = []
    for cat in [*cats, "all"]:
        sel = both & ((rows["category"] == cat).to_numpy() if cat != "all" else True)
        qm, sm = sel & is_q, sel & is_s
        g = len(set(gcode[sel]))
        tot = {"qn": neg[qm].sum(), "qp": pol[qm].sum(), "sn": neg[sm].sum(), "sp": pol[sm].sum()}
        if g == 0 or tot["qp"] == 0 or tot["sp"] == 0:
            out.append({"category": cat, "groups": g, "pairs": pair_text.get(cat, ""), "sentence": ""})
            continue
        qn, sn = tot["qn"] / tot["qp"], tot["sn"] / tot["sp"]
        z = np.where(qm, (neg - qn * pol) / tot["qp"], 0.0) - np.where(sm, (neg - sn * pol) / tot["sp"], 0.0)
        cells = np.where(sel, 0, -1)
        strata = rows["category"].to_numpy() if cat == "all" else None
        var, k, h = cluster_variance(z, cells, 1, gkey, strata, pol > 0)
        df = float(k[0] - h[0])
        if wording == "random":
            v2, d2 = crossed_variance(z, cells, 1, gkey, pair_id, strata, None, pol > 0)
            var, df = v2, float(d2[0])
        phi_sel = float(np.average(phi_row[sel], weights=np.maximum(pol[sel], 1e-12)))
        floor = 100 * np.sqrt(phi_sel * (qn * (1 - qn) / tot["qp"] + sn * (1 - sn) / tot["sp"]))
        se = max(100 * np.sqrt(max(float(var[0]), 0.0)), floor) if df >= 1 else np.nan  # floored for both
        d = 100 * (qn - sn)
        lo, hi = t_interval(d, None, k[0], h[0], level, bounds=(-100, 100), se=se, df=df)
        p = t_pvalue(d, None, k[0], h[0], se=se, df=df)
        out.append({"category": cat, "question_negative": 100 * qn, "statement_negative": 100 * sn, "difference": d,
                    "ci_low": float(lo), "ci_high": float(hi), "p": float(p),
                    "cohens_h": cohens_h(qn, sn), "groups": g,
                    "pairs": pair_text.get(cat, "; ".join(sorted(set(pair_text.values()))))})
    table = pd.DataFrame(out).reindex(columns=COLUMNS)
    is_cat = table["category"] != "all"
    table.loc[is_cat, "q"] = bh(table.loc[is_cat, "p"].to_numpy(dtype=np.float64))
    table.loc[~is_cat, "q"] = table.loc[~is_cat, "p"]
    table["sentence"] = [
        _sentence(r.category, r.question_negative, r.statement_negative, r.difference, r.ci_low, r.ci_high, r.q, level)
        if r.question_negative == r.question_negative else f"{r.category}: too few probes to compare the formats"
        for r in table.itertuples()
    ]
    return table
