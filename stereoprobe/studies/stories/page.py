"""The stories study's page: RUN_DIR/report/index.html from RUN_DIR/stories/ (the briefing's
shell: key findings in words first, the model caveat, settings last). Table 4 as 000
prints it, each profession's share of female names with its interval, the most frequent
names, and three stories per profession with the name that decided marked."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from stereoprobe.page.shell import esc, fill_shell, meta_line, table
from stereoprobe.page.numbers import counted, number
from stereoprobe.studies.base import read_scores
from stereoprobe.generation.stats import SAMPLED_AGAIN, estimand
from stereoprobe.studies.stories.score import ESTIMAND_DRAWN, STUDY, TABLES, rules_line

MARIN = ("Marin & Eger (2024), “Towards Evaluating Profession-based Gender Bias in ChatGPT and its Impact on "
         "Narrative Generation”, section 3.4 and Table 4")
ESTIMAND_SENTENCE = f"Intervals are 95% intervals for {esc(estimand(ESTIMAND_DRAWN))}."
NOTE = (
    "<p><strong>What the numbers mean.</strong> The model continued story openings that stop where the main "
    "character's name comes (“Once upon a time there was a baker called”). The first name in the story (titles "
    "such as Dr or Mrs are never names) is looked up in a table of first names and given the gender most people "
    "with that name have, as Marin & Eger did (or, scored with their rule, the first two words in their table). "
    "Names the table does not know are counted as unknown, never "
    "guessed. Table 4 divides by every story read, as the paper does; the intervals are for the share among "
    f"stories with a female or male name. {ESTIMAND_SENTENCE}</p>"
    "<p><strong>What they do not mean.</strong> A name's usual gender is not the character's gender, and a "
    "profession's share says what the model tends to write, not who does the job.</p>")


def _tied(p: Any, value: float, most: int = 4) -> str:
    """Every profession at ``value`` (ties are common with few stories), each with its counts.

    >>> import pandas as pd
    >>> _tied(pd.DataFrame({"profession": ["a", "b", "c"], "female": [0, 0, 1], "male": [7, 9, 2],
    ...                     "female_of_gendered": [0.0, 0.0, 100 / 3]}), 0.0)
    'a (0 of 7), b (0 of 9): 0%'
    """
    rows = p[p.female_of_gendered == value]
    names = [f"{r.profession} ({int(r.female)} of {int(r.female + r.male)})" for r in rows.head(most).itertuples()]
    more = f" and {len(rows) - most} more" if len(rows) > most else ""
    return f"{', '.join(names)}{more}: {number(value, '{:.0f}')}%"


def key_findings(t: dict[str, Any]) -> list[str]:
    s = t["summary"].set_index("statistic")
    p = t["professions"].dropna(subset=["female_of_gendered"])
    f, n = s.loc["female_of_gendered"], s.loc["nmi"]
    over = counted(int(f.groups), "profession")
    spread = (f"{number(f.low, '{:.0f}')} to {number(f.high, '{:.0f}')}, over {over}" if f.low == f.low else
              f"over {over}: too few for an interval over professions")
    out = [f"{number(f.value, '{:.0f}')}% of the protagonists with a gendered name have a female name ({spread})."
           if f.value == f.value else "No story's protagonist has a gendered name, so the share of female names "
           "is not measured."]
    if len(p) > 1:
        top, bottom = p.female_of_gendered.max(), p.female_of_gendered.min()
        if top == bottom:
            out.append(f"Every profession: {number(top, '{:.0f}')}% female names.")
        else:
            out.append(f"Most often a woman: {_tied(p, top)}; least often: {_tied(p, bottom)}.")
    c = s.loc["nmi_corrected"]
    if not n.groups >= 2 or n.p != n.p:
        out.append("Whether the gender depends on the profession is not measured: that needs stories with a "
                   "gendered name from two or more professions, and names of both genders.")
    else:
        out.append(f"NMI(profession, gender) {number(n.value, '{:.3f}')} against {number(n.null_mean, '{:.3f}')} by "
                   f"chance, p = {number(n.p, '{:.3g}')}; corrected for the few stories per profession "
                   f"{number(c.value, '{:.3f}')} ({number(c.low, '{:.3f}')} to {number(c.high, '{:.3f}')}).")
    names = t["names"]
    if len(names):
        top = names.groupby("name")["count"].sum().sort_values(ascending=False).head(5)
        out.append("The most frequent names: " + ", ".join(f"{k} ({v})" for k, v in top.items()) + ".")
    out += rules_line(SimpleNamespace(summary=t["summary"], meta=t["meta"]))
    bad = (t["texts"].status != "ok").sum()
    out.append(f"Names the table does not know: {number(s.loc['unknown_share'].value, '{:.0f}')}% of the stories; "
               f"no name at all: {number(s.loc['no_name_share'].value, '{:.0f}')}%; {bad} "
               f"{'story was' if bad == 1 else 'stories were'} not read "
               "(empty, refused, in another language or failed).")
    return out


def model_note(meta: dict[str, Any]) -> str:
    model = meta.get("model") or "the model"
    if meta.get("method") == "completion":
        return (f"These stories come from {model}, a base model: it continued each story opening as plain text, "
                f"without the storyteller instructions. A demonstration of the method, not comparable to {MARIN}.")
    return (f"These stories come from {model} with the prompts and instructions of {MARIN}, temperature "
            f"{meta.get('temperature')}, at most {meta.get('max_tokens')} tokens per story.")


def _table(frame: Any, columns: list[tuple[str, str]], caption: str) -> str:
    return table(frame, columns, caption, "{:.0f}")


def table4_section(t4: Any, meta: dict[str, Any]) -> str:
    """000's Table 4 in its layout (profession, model, the five prompts, overall) for this run,
    with 000's own rows beside it only where ``paper.reason`` allows, else one line why not."""
    from stereoprobe.studies.stories import paper

    theirs = paper.table4(meta)
    prompts = [c for c in t4.columns if c != "profession"]
    head = "".join(f"<th>{esc(c)}</th>" for c in ["profession", "model", *prompts])
    rows = []
    for _, r in t4.iterrows():
        rows.append(f"<tr><td>{esc(r.profession)}</td><td>this run</td>"
                    + "".join(f"<td>{number(r[c], '{:.0f}%')}</td>" for c in prompts) + "</tr>")
        for (profession, model), values in theirs.items():
            if profession == r.profession:
                rows.append(f'<tr class="paper"><td></td><td>{esc(model)} (Marin &amp; Eger)</td>'
                            + "".join(f"<td>{number(values.get(c), '{:.0f}%')}</td>" for c in prompts) + "</tr>")
    why = paper.reason(meta)
    line = f'<p class="small">{esc(why)}</p>' if why else (
        '<p class="small">Marin &amp; Eger\'s rows: their Table 4 (ChatGPT 3.5 and 4o, 2024), read by the same rule '
        "as this run's.</p>")
    caption = ("Stories whose protagonist has a female name, % of all stories read (read by "
               + ("Marin &amp; Eger's rule" if meta.get("reading") == "marin-eger" else "stereoprobe's rule") + ")")
    return (f"<table><caption>{caption}</caption><thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody>"
            f"</table>{line}")


def rules_section(rules: Any, meta: dict[str, Any]) -> str:
    """How the two readings of the protagonist class the same stories (``rules.csv``)."""
    if not len(rules):
        return ('<p class="small">Marin &amp; Eger read the name from the story\'s first two words, looked up in the '
                "UCI Gender by Name table. To count how many of these stories their rule reads differently, score "
                "the run with <code>--names-file</code> and your copy of that table (docs/stories.md).</p>")
    from stereoprobe.studies.stories.marin_eger import gender_of

    total = int(rules.stories.sum())
    apart = int(rules[rules.ours.map(gender_of) != rules.marin_eger.map(gender_of)].stories.sum())
    body = "".join(f"<tr><td>{esc(r.ours)}</td><td>{esc(r.marin_eger)}</td><td>{int(r.stories)}</td></tr>"
                   for _, r in rules.sort_values("stories", ascending=False).iterrows())
    return (f"<p>The two rules read <strong>{apart} of {total}</strong> stories' protagonists as another gender "
            "or none (stereoprobe's: the first 30 words, titles and the prompt's words skipped, nomquamgender; "
            "Marin &amp; Eger's: the first two words in the UCI table). The tables above use "
            + ("Marin &amp; Eger's" if meta.get("reading") == "marin-eger" else "stereoprobe's") + ".</p>"
            "<table><caption>Stories per pair of readings</caption><thead><tr><th>stereoprobe's rule</th>"
            f"<th>Marin &amp; Eger's rule</th><th>stories</th></tr></thead><tbody>{body}</tbody></table>")


def build_page(run_dir: str | Path, out: str | Path | None = None) -> Path:
    from stereoprobe.generation.page import at_level, sample_rows, texts_section
    from stereoprobe.page.folder import write_report

    run = Path(run_dir)
    t = read_scores(run, STUDY, TABLES, dtype={"evidence": str, "text": str, "label": str, "name": str, "variant": str,
                                               "ours": str, "marin_eger": str})
    meta = t["meta"]
    target = Path(out) if out is not None else run / "report"
    texts = t["texts"].fillna({"evidence": "", "text": "", "label": "", "variant": ""})
    t4 = t["table4"]
    prof = t["professions"]
    body = ['<p class="small">Data behind this page: ' + ", ".join(
        f'<a href="data/{n}.csv">{n}.csv</a>' for n in TABLES) + " (docs/stories.md describes every column).</p>",
            "<h2>Female names per profession and prompt (Marin &amp; Eger's Table 4)</h2>",
            table4_section(t4, meta),
            at_level(_table(prof.assign(interval=[f"{number(a, '{:.0f}')} to {number(b, '{:.0f}')}" for a, b in
                                         zip(prof.female_of_gendered_low, prof.female_of_gendered_high)]),
                   [("profession", "profession"), ("female_of_gendered", "female, % of gendered"),
                    ("interval", "95% interval"), ("female", "female"), ("male", "male"), ("unknown", "unknown"),
                    ("none", "no name"), ("top_names", "most frequent names")],
                   f"Per profession, all prompts; 95% intervals for {SAMPLED_AGAIN} (the profession's stories "
                   "drawn again), not for other wordings of the openings"), meta),
            "<h2>Two ways to read the name</h2>", rules_section(t["rules"], meta),
            "<h2>The stories: three per profession, the deciding name marked</h2>",
            texts_section(sample_rows(texts.assign(text=texts.text.str.slice(0, 400)), 3, seed=0))]
    settings = [("model", str(meta.get("model"))), ("design", str(meta.get("design", "default"))),
                ("reading", str(meta.get("reading", "stereoprobe"))), ("UCI table", str(meta.get("uci_table") or "none (no --names-file)")),
                ("method", str(meta.get("method"))),
                ("temperature", str(meta.get("temperature"))), ("samples", str(meta.get("samples"))),
                ("max_tokens", str(meta.get("max_tokens"))),
                ("prompts", json.dumps(meta.get("templates"), ensure_ascii=False)),
                ("classifier", str(meta.get("classifier"))), ("names table", str(meta.get("names_table"))),
                ("statistics", json.dumps(meta.get("statistics")))]
    html = fill_shell("Whose name is it? Story protagonists per profession", meta_line(meta, meta.get("method")),
                      key_findings(t), model_note(meta), "\n".join(body), at_level(NOTE, meta), settings)
    return write_report(target, html, run / STUDY, TABLES)
