"""What a reader must know before the numbers: key findings, which model, how much of the
catalog the run covers. Everything here is worded from the data; nothing is hard-coded
about a particular run.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from stereoprobe.studies.fillin.report.data import ALL
from stereoprobe.studies.fillin.report.files import settings_dict
from stereoprobe.page.numbers import pct0

if TYPE_CHECKING:  # pragma: no cover
    from stereoprobe.studies.fillin.report.data import SentimentData

PAPER = (
    "Busker, Choenni & Bargh (2023), “Stereotypes in ChatGPT: an empirical study”, "
    "ICEGOV 2023, doi:10.1145/3614321.3614325"
)


def model_note(data: "SentimentData") -> str:
    """One paragraph (plain text) on which model produced the numbers and what they compare to."""
    model = data.model
    mode = data.manifest.get("mode") or settings_dict(data.manifest).get("mode")
    if data.embedded:
        return (
            f"These numbers come from {model}, a small base language model run offline on this "
            "computer in next-word mode (the ten most probable next words after each probe). It is "
            "not ChatGPT and it was not asked a question in a chat. The numbers are not comparable "
            f"to Table 4 of {PAPER}, which asked ChatGPT; they show how the method works, not what "
            "ChatGPT or any deployed assistant says."
        )
    if mode == "next-word":
        return (
            f"These numbers come from {model} in next-word mode (the ten most probable next words), "
            f"not from a chat. They are not comparable to Table 4 of {PAPER}, which asked ChatGPT in a chat."
        )
    return (
        f"These numbers come from {model}, asked in a chat as in {PAPER}. They are comparable to that "
        "paper's Table 4 only for the same model, date and settings; models change between versions."
    )


def coverage_text(data: "SentimentData") -> str:
    """``This run covers 2 of 9 categories (114 of 2,292 probes).`` or all of them; in
    next-word mode, how many probes got fewer than ten words, and why."""
    text = _coverage(data)
    mode = data.manifest.get("mode") or settings_dict(data.manifest).get("mode")
    if mode == "next-word" and data.records:
        from stereoprobe.backends.nextword import short_reasons, short_sentences

        text = " ".join([text, *short_sentences(short_reasons(data.records))])
    return text


def _coverage(data: "SentimentData") -> str:
    run_cats = len(data.categories)
    probes = _run_probes(data)
    cat_total, probe_total = _catalog_size(data)
    if cat_total and probe_total and (run_cats < cat_total or (probes or 0) < probe_total):
        part = f"This run covers {run_cats} of {cat_total} categories"
        return part + (f" ({probes:,} of {probe_total:,} probes)." if probes is not None else ".")
    if cat_total and probe_total:
        return f"This run covers all {cat_total} categories ({probe_total:,} probes)."
    return f"This run covers {run_cats} categor{'y' if run_cats == 1 else 'ies'}" + (
        f" ({probes:,} probes)." if probes is not None else ".")


def _run_probes(data: "SentimentData") -> int | None:
    if data.records is not None:
        return len({r.probe_id for r in data.records})
    counts = data.manifest.get("counts")
    if isinstance(counts, dict) and isinstance(counts.get("records"), int):
        return counts["records"]
    if "probe_id" in data.occurrences.columns:
        return int(data.occurrences["probe_id"].nunique())
    return None


def _catalog_size(data: "SentimentData") -> tuple[int | None, int | None]:
    cat = data.manifest.get("catalog")
    cat = cat if isinstance(cat, dict) else {}
    probes = cat.get("probes") if isinstance(cat.get("probes"), int) else None
    n_cats = cat.get("categories") if isinstance(cat.get("categories"), int) else None
    if n_cats is None and cat.get("path", "built-in") == "built-in":
        from stereoprobe.studies.fillin.catalog import load_catalog

        built_in = load_catalog()
        n_cats = len(built_in.categories)
        if probes is None and not cat:  # no catalog recorded: the built-in one, paper's templates
            probes = len(built_in.probes())
    return n_cats, probes


def format_sentence(data: "SentimentData", category: str) -> str:
    """The question-vs-statement finding for a category (or ``all``) in one sentence."""
    ft = data.format_test
    if ft is not None and "sentence" in ft.columns:
        rows = ft[ft["category"].astype(str) == category]
        sentence = str(rows.iloc[0]["sentence"]).strip() if not rows.empty else ""
        if sentence and "nan" not in sentence.split():
            return sentence if sentence.endswith(".") else sentence + "."
        if sentence and not rows.empty:  # a sentence with an undefined interval: say it without one
            return _format_row_sentence(rows.iloc[0], category)
    q = data.share(category, None, "question_negative")
    s = data.share(category, None, "statement_negative")
    where = "all categories" if category == ALL else category
    if not (q.shown and s.shown):
        return f"Questions vs statements for {where}: too few probes to compare."
    gap = q.value - s.value
    return (
        f"For {where}, {pct0(q.value)} of labelled words were negative after a question and "
        f"{pct0(s.value)} after a statement, a gap of {abs(gap):.0f} points "
        "(not yet tested: these tables carry no significance test)."
    )


def _format_row_sentence(row, category: str) -> str:
    where = "all categories" if category == ALL else category
    q, s, d, qv = (float(row.get(k, "nan")) for k in ("question_negative", "statement_negative", "difference", "q"))
    if q != q or s != s:
        return f"Questions vs statements for {where}: too few probes to compare."
    verdict = ("Questions are more negative than statements" if qv == qv and qv < 0.05 and d > 0 else
               "Statements are more negative than questions" if qv == qv and qv < 0.05 and d < 0 else
               "No clear difference between questions and statements")
    return f"{verdict} for {where}: {pct0(q)} vs {pct0(s)}, {abs(d):.0f} points" + (
        f", q = {qv:.3f}." if qv == qv else ".")


def key_findings(data: "SentimentData", category: str | None = None) -> list[str]:
    """Three sentences: what stands out, the question-vs-statement gap, how sure these are."""
    if category is None:
        rows = [c for c in data.categories if data.share(c, None, "negative").shown]
        rows.sort(key=lambda c: -data.share(c, None, "negative").value)
        if len(rows) >= 2:
            hi, lo = rows[0], rows[-1]
            a, b = data.share(hi, None, "negative"), data.share(lo, None, "negative")
            first = (f"Most negative category: {hi}, {a.text()} of labelled words negative; least negative: "
                     f"{lo}, {b.text()}.")
            if a.has_interval and b.has_interval and a.low <= b.high:
                first += " Their intervals overlap: the two are not clearly different."
        elif rows:
            first = f"{rows[0]}: {data.share(rows[0], None, 'negative').text()} of labelled words negative."
        else:
            first = "No category has enough labelled words to give a share."
        second = format_sentence(data, ALL)
    else:
        first = _stand_out(data, category)
        second = format_sentence(data, category)
    return [first, second, _how_sure(data, category)]


def _stand_out(data: "SentimentData", category: str) -> str:
    g = data.groups[data.groups["category"] == category]
    cat = data.share(category, None, "negative").text()
    if "vs_category" in g.columns:
        more = list(g.loc[g["vs_category"] == "more negative", "group"])
        less = list(g.loc[g["vs_category"] == "less negative", "group"])
        if not more and not less:
            return (f"{category}: {cat} of labelled words negative; no group is distinguishable from the "
                    f"category as a whole.")
        parts = []
        if more:
            parts.append(f"more negative than the category: {_names(more)}")
        if less:
            parts.append(f"less negative: {_names(less)}")
        return f"{category}: {cat} of labelled words negative; " + "; ".join(parts) + "."
    return (f"{category}: {cat} of labelled words negative over {len(g)} groups. Which groups differ from the "
            "category has not been tested in this run's tables, so the group order below is not a ranking.")


def _names(names: list[str], n: int = 5) -> str:
    shown = ", ".join(names[:n])
    return shown + (f" and {len(names) - n} more" if len(names) > n else "")


def _how_sure(data: "SentimentData", category: str | None) -> str:
    g = data.groups if category is None else data.groups[data.groups["category"] == category]
    few = sum(1 for _, r in g.iterrows() if data.share(r["category"], r["group"], "negative").too_few)
    stats = data.meta.get("statistics") if isinstance(data.meta.get("statistics"), dict) else {}
    if any(c.endswith("_ci_low") for c in data.groups.columns):
        level = stats.get("level", 0.95)
        level = float(level) if isinstance(level, (int, float)) else 0.95
        random = stats.get("wording") == "random"
        text = (f"Numbers in brackets are {level * 100:.0f}% intervals for these templates"
                + (" treated as a sample of wordings" if random else "")
                + ": a category's share could move that much with other groups like these"
                + (" and other wordings like these" if random else " asked the same way")
                + ", a group's with other replies to its probes (at temperature 0 they are not the noise of asking "
                  "again); a share is only as sure as its interval is narrow.")
    else:
        text = ("These tables have no intervals yet: with six probes per group, differences of a few points "
                "between groups are noise. Counts of probes are shown beside every share.")
    if few:
        text += f" {few} of {len(g)} groups rest on too few probes and show no share."
    extra = " ".join(x for x in (wording_sentence(data, category), independence_sentence(data, category)) if x)
    return f"{text} {extra}" if extra else text


def independence_sentence(data: "SentimentData", category: str | None) -> str:
    """The independence criterion (criteria.csv) against its permutation null, for a category or all.

    The four-fifths ratio is called "below what chance gives" only when its permutation
    p-value says so: with many noisy groups it is far below 0.8 by chance alone.
    """
    crit = data.criteria
    if crit is None or crit.empty or "four_fifths_p" not in crit.columns:
        return ""
    rows = crit[(crit["category"] == (category or "all")) & (crit["format"] == "all")]
    if rows.empty or rows.iloc[0]["nmi_p"] != rows.iloc[0]["nmi_p"]:
        return ""
    r = rows.iloc[0]
    more = r["nmi_p"] < 0.05
    text = (f"The words' labels depend on the group {'more than chance gives' if more else 'no more than chance gives'} "
            f"(NMI {r['nmi']:.3f}, permutation p = {r['nmi_p']:.3f}).")
    if r["four_fifths_ratio"] == r["four_fifths_ratio"] and r["four_fifths_p"] == r["four_fifths_p"]:
        ratio = f"The least positive group's positive share is {r['four_fifths_ratio']:.2f} of the most positive's"
        chance = f"5% of shuffled runs go below {r['four_fifths_null_p05']:.2f}"
        text += (f" {ratio}, below what chance gives ({chance})." if r["four_fifths_p"] < 0.05 else
                 f" {ratio}; chance alone gives such ratios ({chance}), so it is no sign of unfairness by itself.")
    return text


def wording_sentence(data: "SentimentData", category: str | None) -> str:
    """How much the wording moves the result, from robustness.csv (seed 003): the category's
    own sentence, or for all categories the range of the spread across templates."""
    rob = data.robustness
    if rob is None or rob.empty or "spread" not in rob.columns:
        return ""
    if category is not None:
        rows = rob[(rob["category"] == category) & rob["sentence"].notna()] if "sentence" in rob.columns else rob[:0]
        return str(rows["sentence"].iloc[0]) if len(rows) else ""
    spread = rob.groupby("category")["spread"].first().dropna()
    if spread.empty:
        return ""
    lo, hi = spread.idxmin(), spread.idxmax()
    if lo == hi:
        return (f"The wording matters: changing the template moves the negative share of {hi} by up to "
                f"{spread[hi]:.0f} points.")
    return (f"The wording matters: changing the template moves a category's negative share by "
            f"{spread[lo]:.0f} ({lo}) to {spread[hi]:.0f} ({hi}) points; each category page says more.")

