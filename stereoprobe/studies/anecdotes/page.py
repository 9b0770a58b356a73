"""The anecdotes study's page: RUN_DIR/report/index.html from the tables of RUN_DIR/anecdotes/.

The briefing's page shell (key findings in words first, the model caveat, settings at
the end; one offline file, the figure embedded), 001's Figure 1 as ``figures.shares_chart``,
the per-profession table, and a sample of texts per profession with the words that
decided their class (``generation.page``). Nothing is recomputed: every number is
``stereoprobe score``'s.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from stereoprobe.page.shell import esc, fill_shell, meta_line
from stereoprobe.page.numbers import counted, number
from stereoprobe.generation.stats import SAMPLED_AGAIN, estimand
from stereoprobe.studies.anecdotes.score import ESTIMAND_DRAWN, STUDY, TABLES
from stereoprobe.studies.base import read_scores

STERLIE = ("Sterlie, Weng & Feragen (2024), “Non-discrimination Criteria for Generative Language Models”, "
           "section 4.1 and 5.1")
ESTIMAND_SENTENCE = f"Intervals are 95% intervals for {esc(estimand(ESTIMAND_DRAWN))}."
NOTE = (
    "<p><strong>What the numbers mean.</strong> The model was asked for a 30-word anecdote about a person of each "
    "profession, several times at a temperature above 0. Each text's gender is read from the names, pronouns, "
    "gendered nouns and titles in it (marked in the samples below): <em>male</em> or <em>female</em> when one "
    "gender's words clearly dominate, <em>neutral</em> when there are none, <em>mixed</em> when both occur about "
    "equally. Texts that are empty, refused or cut off are counted and never given a gender. "
    f"{ESTIMAND_SENTENCE} NMI is 0 when the gender of the texts does not depend on the profession and 1 when the "
    "profession decides it.</p>"
    "<p><strong>What they do not mean.</strong> A name or pronoun in a story is what the model chose to write, not "
    "a claim about people in the job; a neutral text may still be read as about a man or a woman.</p>")


def _pct(x: Any, low: Any = None, high: Any = None) -> str:
    text = number(x, "{:.0f}%")
    if low is not None and number(low) != "–":
        text += f" ({number(low, '{:.0f}')} to {number(high, '{:.0f}')})"
    return text


def key_findings(t: dict[str, Any]) -> list[str]:
    from stereoprobe.studies.anecdotes.paper import quote

    s = t["summary"].set_index("statistic")
    p = t["professions"]
    texts = t["texts"]
    out = []
    f = s.loc["follows_majority"]
    known = int(p.dominated_by.isin(["women", "men"]).sum())
    over = counted(int(f.groups), "profession") if known == len(p) else \
        f"{int(f.groups)} of the {len(p)} professions: the others have no BLS share in the data"
    if known:
        out.append(f"{_pct(f.value, f.low, f.high)} of the texts with a gender are about someone of the job's "
                   f"majority gender in the US labour statistics ({counted(int(f.n), 'text')}, {over}).")
    else:
        which = f"None of these {len(p)} professions has a" if len(p) != 1 else "The run's one profession has no"
        out.append(f"{which} BLS share of women in the data, so whether the texts "
                   "follow the job's majority gender is not measured. " + quote("follows_majority_all", t))
    if "follows_majority_all" in s.index and known:
        a = s.loc["follows_majority_all"]
        out.append(f"Over all classified texts of those professions, those without a gender included (Sterlie et "
                   f"al.'s denominator): {_pct(a.value, a.low, a.high)} ({counted(int(a.n), 'text')}). "
                   + quote("follows_majority_all", t))
    n, c = s.loc["nmi"], s.loc["nmi_corrected"]
    ceiling = ""
    if "nmi_ceiling" in s.index and s.loc["nmi_ceiling"].value == s.loc["nmi_ceiling"].value:
        top, share = s.loc["nmi_ceiling"], s.loc["nmi_of_ceiling"]
        ceiling = (f" A binary gender over {int(top.groups)} professions of equal size cannot pass NMI "
                   f"{number(top.value, '{:.3f}')}: this NMI is {number(100 * n.value / top.value, '{:.0f}')}% of "
                   f"that ceiling (corrected {_pct(share.value, share.low, share.high)}).")
    dependence = ("Whether the gender depends on the profession is not measured: that needs texts with a gender "
                  "from two or more professions." if not n.groups >= 2 else
                  f"The texts with a gender all have the same one, so it cannot depend on the profession (NMI "
                  f"{number(n.value, '{:.3f}')})." if n.p != n.p else
                  f"The gender depends on the profession: NMI {number(n.value, '{:.3f}')} against "
                  f"{number(n.null_mean, '{:.3f}')} by chance (p = {number(n.p, '{:.3g}')}); corrected for the few "
                  f"texts per profession {number(c.value, '{:.3f}')} ({number(c.low, '{:.3f}')} to "
                  f"{number(c.high, '{:.3f}')})." if n.p == n.p and n.p < 0.05 else
                  f"No dependence on the profession beyond chance: NMI {number(n.value, '{:.3f}')} against "
                  f"{number(n.null_mean, '{:.3f}')} by chance (p = {number(n.p, '{:.3g}')}).")
    out.append(dependence + ceiling + " " + quote("nmi", t))
    r = s.loc["spearman_bls"]
    if r.n == r.n and r.n >= 3:
        trend = ("The more women in a job, the more of its texts are about a woman" if r.low > 0 else
                 "The more women in a job, the fewer of its texts are about a woman" if r.high < 0 else
                 "No clear link between the share of women in a job and the share of its texts about a woman")
        out.append(f"{trend}: Spearman "
                   f"{number(r.value, '{:.2f}')} ({number(r.low, '{:.2f}')} to {number(r.high, '{:.2f}')}) over "
                   f"{int(r.n)} professions with a BLS share.")
    with_share = p.dropna(subset=["female_of_gendered"])
    if len(with_share):
        def named(rows: Any) -> list[str]:  # with the texts behind "always": one text is not a pattern
            return [f"{r.profession} ({counted(int(r.gendered), 'text')})" for r in rows.itertuples()]

        all_f = named(with_share[with_share.female_of_gendered >= 99.5])
        all_m = named(with_share[with_share.female_of_gendered <= 0.5])
        if all_f or all_m:
            out.append("Every text with a gender about a woman: " + (", ".join(all_f[:8]) or "none")
                       + ". About a man: " + (", ".join(all_m[:8]) or "none") + ".")
    bad = (texts.status != "ok").sum()
    out.append(f"Neutral texts (no gendered word): {_pct(s.loc['neutral_share'].value)}; mixed: "
               f"{_pct(s.loc['mixed_share'].value)}; {bad} of {counted(len(texts), 'text')} "
               f"{'was' if bad == 1 else 'were'} not classified "
               "(empty, refused, cut off, in another language or failed).")
    return out


def model_note(meta: dict[str, Any]) -> str:
    model = meta.get("model") or "the model"
    if meta.get("method") == "completion":
        return (f"These texts come from {model}, a base model that cannot follow an instruction: it continued a "
                "completion form of the task (“Small anecdotes about people at work ... Profession: nurse Story:”), "
                f"not 001's prompt. The numbers demonstrate the method and are not comparable to {STERLIE}.")
    return f"These texts come from {model} with Template Prompt 4.1 of {STERLIE}, at temperature {meta.get('temperature')}."


def _profession_table(p: Any) -> str:
    sourced = "source" in p
    head = ("<tr><th>profession</th><th>women in the job</th><th>texts about a woman (of gendered)</th>"
            "<th>male</th><th>female</th><th>neutral</th><th>mixed</th><th>not classified</th>"
            + ("<th>source</th>" if sourced else "") + "</tr>")
    rows = []
    for _, r in p.iterrows():
        missing = sum(int(r.get(c, 0) or 0) for c in ("n_empty", "n_truncated", "n_refused", "n_language", "n_failed"))
        share = _pct(r.bls_female_share) if r.bls_female_share == r.bls_female_share else "not in the data"
        rows.append(f"<tr><td>{esc(r.profession)}</td><td>{share}</td>"
                    f"<td>{_pct(r.female_of_gendered, r.female_of_gendered_low, r.female_of_gendered_high)}</td>"
                    + "".join(f"<td>{number(r.get(c), '{:.0f}')}</td>" for c in ("male", "female", "neutral", "mixed"))
                    + f"<td>{missing}</td>" + (f"<td>{esc(r.source)}</td>" if sourced else "") + "</tr>")
    return (f"<table><caption>Per profession: the share of its gendered texts about a woman, with its 95% interval "
            f"for {SAMPLED_AGAIN} (its texts drawn again), not for other wordings of the prompt</caption>"
            f"<thead>{head}</thead><tbody>{''.join(rows)}</tbody></table>")


def build_page(run_dir: str | Path, out: str | Path | None = None) -> Path:
    import base64

    from stereoprobe.generation.page import at_level, sample_rows, texts_section
    from stereoprobe.page.figures import to_png
    from stereoprobe.page.folder import write_report
    from stereoprobe.studies.anecdotes.figures import shares_chart

    run = Path(run_dir)
    t = read_scores(run, STUDY, TABLES, dtype={"evidence": str, "text": str, "label": str, "variant": str})
    meta = t["meta"]
    target = Path(out) if out is not None else run / "report"
    png = to_png(shares_chart(t["professions"], str(meta.get("model"))))
    uri = "data:image/png;base64," + base64.b64encode(png).decode("ascii")
    texts = t["texts"].fillna({"evidence": "", "text": "", "label": "", "variant": ""})
    body = ['<p class="small">Data behind this page: ' + ", ".join(
        f'<a href="data/{n}.csv">{n}.csv</a>' for n in TABLES) + " (docs/anecdotes.md describes every column).</p>",
            "<h2>Who are the anecdotes about?</h2>",
            f'<figure class="big"><img src="{uri}" alt="share of texts about a woman per profession beside the '
            f'share of women in the job" width="760"></figure>', at_level(_profession_table(t["professions"]), meta),
            "<h2>The texts: three per profession, the deciding words marked</h2>",
            texts_section(sample_rows(texts, 3, seed=0))]
    settings = [("model", str(meta.get("model"))), ("design", str(meta.get("design", "default"))),
                ("method", str(meta.get("method"))),
                ("temperature", str(meta.get("temperature"))), ("samples", str(meta.get("samples"))),
                ("template", json.dumps(meta.get("template"), ensure_ascii=False)),
                ("classifier", str(meta.get("classifier"))), ("names table", str(meta.get("names_table"))),
                ("catalog", str(meta.get("catalog"))), ("statistics", json.dumps(meta.get("statistics")))]
    html = fill_shell("Who does the model write about?", meta_line(meta, meta.get("method")),
                      key_findings(t), model_note(meta), "\n".join(body), at_level(NOTE, meta), settings)
    return write_report(target, html, run / STUDY, TABLES, {"professions": png})
