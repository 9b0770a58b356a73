"""Writing ``RUN_DIR/sentiment/`` (all or nothing) and the terminal summary."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from stereoprobe.studies.fillin.sentiment.tables import COUNT_COLUMNS, SHARE_COLUMNS

FILES = (
    "table4.csv", "table4.md", "groups.csv", "templates.csv", "words.csv",
    "occurrences.csv", "coverage.json", "meta.json",
    "format_test.csv", "criteria.csv", "robustness.csv",
)  # fmt: skip
SHARE_WITH_CI = [c for x in SHARE_COLUMNS for c in (x, f"{x}_ci_low", f"{x}_ci_high")]
STATUS = ["probes_asked", "probes_answered", "probes_refused", "probes_failed"]
VS = ["vs_category", "vs_category_q", "vs_category_difference", "vs_category_p"]


def _num(x: Any) -> str:
    return "" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.1f}"


def table4_lines(table4: Any, markdown: bool) -> list[str]:
    """Table 4 in the paper's layout: overall, question and statement shares per category."""
    head = ["Category", "Negative", "Positive", "Negative", "Positive", "Negative", "Positive"]
    rows = [[str(r["category"])] + [_num(r[c]) for c in SHARE_COLUMNS] for _, r in table4.iterrows()]
    if markdown:
        lines = [
            "| Probe formats | Social group | | Question | | Statement | |",
            "|---|---|---|---|---|---|---|",
            "| " + " | ".join(head) + " |",
        ]
        return lines + ["| " + " | ".join(r) + " |" for r in rows]
    width = max(len(head[0]), *(len(r[0]) for r in rows))
    fmt = f"{{:<{width}}}  " + "  ".join(["{:>8}"] * 6)
    band = f"{'':<{width}}  {'Social group':^18}  {'Question':^18}  {'Statement':^18}"
    return [band, fmt.format(*head)] + [fmt.format(*r) for r in rows]


def interval_lines(table4: Any, meta: dict[str, Any], markdown: bool) -> list[str]:
    """Table 4's negative shares with their intervals, overall, questions and statements (empty without statistics)."""
    if "negative_ci_low" not in table4.columns:
        return []
    st = meta.get("statistics") or {}
    level = f"{st.get('level', 0.95) * 100:g}%"
    title = (f"Negative share with {level} intervals ({'templates as a sample' if st.get('wording') == 'random' else 'these templates'}; "
             "positive = 100 - negative):")

    def cell(r: Any, prefix: str) -> str:
        v, lo, hi = r[f"{prefix}negative"], r[f"{prefix}negative_ci_low"], r[f"{prefix}negative_ci_high"]
        if v != v:
            return ""
        return f"{v:.1f} ({lo:.1f} to {hi:.1f})" if lo == lo else f"{v:.1f} (too few probes)"

    head = ["Category", "All probes", "Questions", "Statements"]
    rows = [[str(r["category"])] + [cell(r, p) for p in ("", "question_", "statement_")] for _, r in table4.iterrows()]
    if markdown:
        return [title, "", "| " + " | ".join(head) + " |", "|---|---|---|---|"] + ["| " + " | ".join(r) + " |" for r in rows]
    width = max(len(head[0]), *(len(r[0]) for r in rows))
    cols = [max(len(head[i]), *(len(r[i]) for r in rows)) for i in range(1, 4)]
    fmt = f"{{:<{width}}}  " + "  ".join(f"{{:>{c}}}" for c in cols)
    return [title, fmt.format(*head)] + [fmt.format(*r) for r in rows]


def coverage_line(cov: dict[str, Any]) -> str:
    """The paper's bookkeeping in one line."""
    from stereoprobe.page.numbers import counted

    occ = cov["occurrences"]
    parts = [
        f"{counted(cov['unique_words'], 'unique word')}: {cov['in_lexicon']:,} in lexicon"
        + (f", {cov['via_override']:,} via overrides" if cov["via_override"] else "")
        + f", {cov['via_lemma']:,} via lemma, {cov['via_synonyms']:,} via synonyms, {cov['ignored']:,} ignored",
        f"{counted(occ['total'], 'word occurrence')}, {occ['counted']:,} positive/negative "
        f"({occ['left_out']:,} both/neutral/unassigned left out of the shares)",
        f"records left out: {cov['left_out_records']['refused']:,} refused, {cov['left_out_records']['failed']:,} failed",
        f"{counted(cov['group_name_words']['occurrences'], 'group-name word')} left out",
    ]
    return "; ".join(parts) + "."


def synonyms_line(table4: Any, cov: dict[str, Any]) -> str:
    """The all-row shares with and without the synonym fallback."""
    if not cov["synonyms"]:
        return "Synonym fallback off (--no-synonyms)."
    row = table4[table4["category"] == "all"].iloc[0]
    plain = cov["without_synonyms"]["all"]
    return (
        f"All categories: {_num(row['negative'])}% negative / {_num(row['positive'])}% positive with synonyms, "
        f"{_num(plain['negative'])}% / {_num(plain['positive'])}% without."
    )


def lexicon_line(lex: dict[str, Any]) -> str:
    """What lexicon was loaded, with its counts, so a user can check their copy."""
    c = lex.get("counts") or {}
    if not c:
        return "Lexicon: unknown"
    over = f", {len(lex['overrides'])} overrides" if lex.get("overrides") else ""
    return (
        f"Lexicon {lex['name']} ({lex['path']}): {c['words']:,} words, {c['positive']:,} positive, "
        f"{c['negative']:,} negative, {c['both']:,} both, {c['neutral']:,} neutral{over}"
    )


def statistics_line(meta: dict[str, Any]) -> str:
    """How the intervals were made, in one line."""
    st = meta.get("statistics") or {}
    if not st:
        return ""
    return (f"Intervals: {st['level'] * 100:g}%, wording {st.get('wording', 'fixed')}: {st.get('estimand', '')}; "
            f"cells with fewer than {st['min_probes']} answered probes: too few probes (docs/statistics.md).")


def format_lines(result: Any) -> list[str]:
    """The question-vs-statement finding, one sentence per category and overall."""
    ft = result.format_test
    if ft is None or not len(ft):
        return []
    return ["Questions vs statements (paired by group and template, BH across categories):"] + [
        f"  {s}" for s in ft["sentence"]
    ]


def format_summary(result: Any) -> str:
    """What ``stereoprobe sentiment`` prints: Table 4, the format test, coverage, the synonym difference."""
    lines = [lexicon_line(result.meta.get("lexicon") or {}), "", "Table 4: percentage negative/positive per category"]
    lines += table4_lines(result.table4, markdown=False)
    ci = interval_lines(result.table4, result.meta, markdown=False)
    lines += ["", *ci] if ci else []
    lines += ["", *format_lines(result)]
    lines += ["", coverage_line(result.coverage), synonyms_line(result.table4, result.coverage)]
    stat = statistics_line(result.meta)
    return "\n".join(lines + ([stat] if stat else []))


def _markdown(result: Any) -> str:
    cov = result.coverage
    lines = ["# Table 4: percentage positive/negative per category", ""]
    lines += table4_lines(result.table4, markdown=True)
    ci = interval_lines(result.table4, result.meta, markdown=True)
    lines += ["", *ci] if ci else []
    lines += ["", *format_lines(result), ""]
    lines += ["", coverage_line(cov), "", synonyms_line(result.table4, cov), "", statistics_line(result.meta), ""]
    return "\n".join(lines)


def _is_ours(path: Path) -> bool:
    if not any(path.iterdir()):
        return True
    try:
        return "stereoprobe_version" in json.loads((path / "meta.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False


def _rounded(table: Any, columns: list[str]) -> Any:
    """The columns to write, shares and intervals rounded to two decimals (from full precision)."""
    return table[columns].round({c: 2 for c in SHARE_WITH_CI})


def _write_all(result: Any, tmp: Path) -> None:
    table4_cols = ["category", *SHARE_WITH_CI, "n_probes", "too_few_probes"]
    _rounded(result.table4, table4_cols).to_csv(tmp / "table4.csv", index=False)
    (tmp / "table4.md").write_text(_markdown(result), encoding="utf-8")
    group_cols = ["category", "group", *SHARE_WITH_CI, *COUNT_COLUMNS, "n_probes", "too_few_probes", *STATUS, *VS]
    _rounded(result.groups, group_cols).round({"vs_category_difference": 2}).to_csv(tmp / "groups.csv", index=False)
    template_cols = ["category", "template", "format", *SHARE_WITH_CI, *COUNT_COLUMNS, "n_probes", "too_few_probes"]
    _rounded(result.templates, template_cols).to_csv(tmp / "templates.csv", index=False)
    points = ["question_negative", "statement_negative", "difference", "ci_low", "ci_high"]
    result.format_test.round({c: 2 for c in points} | {"cohens_h": 3}).to_csv(tmp / "format_test.csv", index=False)
    result.criteria.round({"nmi": 4, "four_fifths_ratio": 3, "four_fifths_null_p05": 3}).to_csv(
        tmp / "criteria.csv", index=False)
    rob = {c: 2 for c in ("negative", "negative_ci_low", "negative_ci_high", "spread")}
    rob |= {c: 3 for c in ("var_group", "var_template", "var_residual", "rank_stability", "rank_stability_ci_low",
                           "rank_stability_ci_high", "rank_reliability", "rank_reliability_ci_low",
                           "rank_reliability_ci_high", "jaccard")}
    result.robustness.round(rob).to_csv(tmp / "robustness.csv", index=False)
    result.words.to_csv(tmp / "words.csv", index=False)
    result.occurrences.to_csv(tmp / "occurrences.csv", index=False)
    for name, obj in (("coverage.json", result.coverage), ("meta.json", result.meta)):
        (tmp / name).write_text(json.dumps(obj, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


def write_outputs(result: Any, out_dir: str | Path) -> Path:
    """Write every output file into ``out_dir`` (normally ``RUN_DIR/sentiment``), all or nothing.

    The files are written to a temporary folder next to ``out_dir`` and renamed into
    place at the end; an older complete ``out_dir`` is replaced only by a complete new one.
    A folder not written by this stage is never replaced.
    """
    from stereoprobe.store import replace_folder

    return replace_folder(Path(out_dir), lambda tmp: _write_all(result, tmp), _is_ours, "stereoprobe sentiment")
