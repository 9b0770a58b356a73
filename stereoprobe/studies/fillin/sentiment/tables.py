"""Aggregation: word occurrences -> Table 4, per-group and per-template shares, coverage.

Shares are over word occurrences (each word of each counted record), in percent:
``negative = 100 * n_negative / (n_negative + n_positive)``. Occurrences labelled
``both``, ``neutral`` or ``unassigned`` are left out of the denominator and counted in
``n_left_out``. A share with an empty denominator is empty (NaN). Shares keep full
precision here; the output files round them (two decimals in CSV, one in Markdown).
"""

from __future__ import annotations

from typing import Any

from stereoprobe.records import FORMATS

LABEL_ORDER = ("positive", "negative", "both", "neutral", "unassigned")
SHARE_COLUMNS = [
    "negative", "positive",
    "question_negative", "question_positive",
    "statement_negative", "statement_positive",
]  # fmt: skip
COUNT_COLUMNS = ["n_words", "n_negative", "n_positive", "n_both", "n_neutral", "n_unassigned", "n_left_out"]
OCCURRENCE_COLUMNS = ["probe_id", "sample", "category", "group", "template", "format", "word", "label", "source"]


def _pct(part: Any, whole: Any) -> Any:
    return 100.0 * part / whole.where(whole > 0)


def shares(occ: Any, keys: list[str]) -> Any:
    """One row per ``keys`` value: share columns, then counts (see the module docstring)."""
    import pandas as pd

    levels = keys if "format" in keys else [*keys, "format"]
    # crosstab's table (observed keys, sorted), counted without its per-cell Python aggregation
    counts = occ.groupby([occ[k] for k in levels] + [occ["label"]]).size().unstack("label", fill_value=0)
    counts = counts.reindex(columns=list(LABEL_ORDER), fill_value=0)
    if len(levels) == 1:
        counts.index = pd.MultiIndex.from_arrays([counts.index], names=levels)
    key_levels = list(range(len(keys)))
    total = counts.groupby(level=key_levels).sum()
    out = pd.DataFrame(index=total.index)
    polar = total["negative"] + total["positive"]
    out["negative"] = _pct(total["negative"], polar)
    out["positive"] = _pct(total["positive"], polar)
    formats = counts.index.get_level_values(levels.index("format"))
    for fmt in FORMATS:
        sub = counts[formats == fmt].groupby(level=key_levels).sum().reindex(total.index, fill_value=0)
        sub_polar = sub["negative"] + sub["positive"]
        out[f"{fmt}_negative"] = _pct(sub["negative"], sub_polar)
        out[f"{fmt}_positive"] = _pct(sub["positive"], sub_polar)
    out["n_words"] = total.sum(axis=1)
    for label in ("negative", "positive", "both", "neutral", "unassigned"):
        out[f"n_{label}"] = total[label]
    out["n_left_out"] = out["n_words"] - polar
    return out.reset_index()


def table4(occ: Any) -> Any:
    """The paper's Table 4: one row per category (alphabetical), then ``all``."""
    import pandas as pd

    per_cat = shares(occ, ["category"])
    overall = shares(occ.assign(category="all"), ["category"])
    return pd.concat([per_cat, overall], ignore_index=True)


def group_table(occ: Any) -> Any:
    """Per ``category, group``."""
    return shares(occ, ["category", "group"])


def template_table(occ: Any) -> Any:
    """Per template; the share columns of the other format are empty by construction."""
    return shares(occ, ["category", "template", "format"])


def word_table(labels: dict[str, Any], occ: Any) -> Any:
    """One row per unique counted word: word, label, source, voters, count, votes."""
    import pandas as pd

    counts = occ["word"].value_counts()
    rows = []
    for word, n in counts.items():
        wl = labels[word]
        rows.append(
            {
                "word": word,
                "label": wl.label,
                "source": wl.source,
                "voters": wl.voters_text(),
                "count": int(n),
                "votes_negative": wl.votes_negative,
                "votes_positive": wl.votes_positive,
            }
        )
    cols = ["word", "label", "source", "voters", "count", "votes_negative", "votes_positive"]
    table = pd.DataFrame(rows, columns=cols)
    return table.sort_values(["count", "word"], ascending=[False, True], ignore_index=True)


def _bookkeeping(labels: dict[str, Any], occ: Any) -> dict[str, Any]:
    """The paper's counts for the unique words of ``occ`` and their occurrences."""
    from collections import Counter

    unique = [labels[w] for w in occ["word"].unique().tolist()]
    by_source = Counter(wl.source for wl in unique)
    by_word_label = Counter(wl.label for wl in unique)
    src = {s: by_source[s] for s in ("lexicon", "override", "lemma", "synonyms", "none")}
    by_label = occ["label"].value_counts()
    occ_counts = {label: int(by_label.get(label, 0)) for label in LABEL_ORDER}
    polar = occ_counts["positive"] + occ_counts["negative"]
    return {
        "unique_words": len(unique),
        "in_lexicon": src["lexicon"],
        "via_override": src["override"],
        "via_lemma": src["lemma"],
        "via_synonyms": src["synonyms"],
        "ignored": src["none"],
        "word_labels": {label: by_word_label[label] for label in LABEL_ORDER},
        "occurrences": {"total": int(len(occ)), "counted": polar, **occ_counts, "left_out": int(len(occ)) - polar},
    }


def coverage(labels: dict[str, Any], occ: Any) -> dict[str, Any]:
    """Bookkeeping overall and per category (record and exclusion counts are added by the caller)."""
    out = _bookkeeping(labels, occ)
    out["by_category"] = {str(cat): _bookkeeping(labels, sub) for cat, sub in occ.groupby("category", sort=True)}
    return out


def shares_without_synonyms(occ: Any) -> dict[str, dict[str, float | None]]:
    """Table 4's negative/positive shares if synonym-labelled words were unassigned."""
    plain = occ.copy()
    plain.loc[plain["source"] == "synonyms", "label"] = "unassigned"
    table = table4(plain)
    return {
        str(row.category): {
            "negative": None if row.negative != row.negative else round(float(row.negative), 2),
            "positive": None if row.positive != row.positive else round(float(row.positive), 2),
        }
        for row in table.itertuples()
    }
