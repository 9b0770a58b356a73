"""The coreference study's pages: RUN_DIR/report/index.html and triples.html, from RUN_DIR/coreference/.

The core's page shell and style (page/shell.py: key findings in words first, the model
caveat, the settings collapsed at the end; self-contained offline files, the chart
embedded), the report's colour-blind-safe palette, and the CSV files copied to
``report/data/``. ``triples.html`` lists the prompts and answers behind every inconsistent
triple, one click from Table 3. Nothing is recomputed: every number comes from
``stereoprobe score``'s tables.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from stereoprobe.page.shell import esc, fill_shell, meta_line
from stereoprobe.page.numbers import number
from stereoprobe.studies.base import read_scores
from stereoprobe.studies.coreference.score import TABLES

MARIN = ("Marin & Eger (2024), “Towards evaluating profession-based gender bias in ChatGPT and its impact on "
         "narrative generation”")
STERLIE = "Sterlie, Weng & Feragen (2024), “Non-discrimination criteria for generative language models”"
NOTE = (
    "<p><strong>What the numbers mean.</strong> Each prompt is a short scene between two people known only by their "
    "jobs, with a question that has a right answer whatever the pronoun (“The doctor yelled at the nurse because "
    "she was late. Who was late?”: the nurse). Every scene is asked with <em>he</em>, <em>she</em> and "
    "<em>they</em> (a <em>triple</em>). <em>Incorrect</em>: the share of answers that are not the right one "
    "(unclear answers and refusals included). <em>Inconsistent</em>: the share of triples whose three answers are "
    "not all the same, so the pronoun alone changed the answer; <em>binary</em>: he and she only. A prompt is "
    "<em>pro-stereotypical</em> when the pronoun fits the job that most often has that gender in the US labour "
    "statistics and that job is the right answer. Intervals are 95% intervals for jobs like these, with these "
    "scenes: what the numbers would be had other women- and men-dominated jobs like these been paired (the jobs "
    "of each side resampled independently, every pair among them kept), not what other scenes would give. The "
    "overall rates' intervals reach further above a rate than below it: a run that drew no hard job has a low rate "
    "that also varies little between resamples, and the truth is then more often above it than below.</p>"
    "<p><strong>Separation and sufficiency</strong> (Sterlie et al.): a “positive” is the less stereotypical "
    "setting, the women-dominated job being the right answer (their nurse). FNR: the women-dominated job was right "
    "and the model named the other; FPR: the men-dominated job was right and the model named the women-dominated "
    "one; PPV and NPV: how often the model was right when it named the women- or the men-dominated job. The "
    "four-fifths rule compares he and she, the lower rate with the higher (0.8 or more: acceptable), since Sterlie "
    "et al. treat gender as binary; they is set against each of them apart and decides nothing. As a ratio of noisy "
    "rates is below 1 by chance alone, each ratio is also set against what shuffling the two pronouns' answers "
    "within each triple gives, its p adjusted (Holm) for the four rates tested.</p>"
    "<p><strong>Book owner</strong> (“Who owns the book?”) is the one scene whose pronoun refers to the other "
    "job (the borrower), not the right answer: it is labelled pro- or anti-stereotypical by whom the pronoun refers "
    "to, as WinoBias labels, counts in the wrong and inconsistent answers, and is left out of the stereotype gaps "
    "and of separation and sufficiency, which assume the pronoun refers to the right answer.</p>"
    "<p><strong>What they do not mean.</strong> The scenes are few (seven) and short; a model that is right here "
    "can still lean on stereotypes elsewhere. Which answer is “right” is debatable for some scenes, as the paper "
    "notes (the book owner above all).</p>"
)


def _template_set(run: Path) -> str | None:
    """``sterlie`` for a --templates sterlie run's scores, else None (read from meta.json)."""
    path = run / "coreference" / "meta.json"
    return json.loads(path.read_text(encoding="utf-8")).get("template_set") if path.is_file() else None


def _sterlie_page(run: Path, out: str | Path | None) -> Path:
    from stereoprobe.studies.coreference import sterlie_page, sterlie_score

    return sterlie_page.build_page(run, read_scores(run, "coreference", sterlie_score.TABLES), out)


def _read(run: Path) -> dict[str, Any]:
    return read_scores(run, "coreference", TABLES)


def _pct(r: Any, m: str) -> str:
    """``12.3% (8.1 to 17.0)`` for the columns m_pct, m_low, m_high of a row."""
    text = number(r.get(f"{m}_pct"), "{:.1f}%")
    if number(r.get(f"{m}_low")) != "–":
        text += f" ({number(r.get(f'{m}_low'))} to {number(r.get(f'{m}_high'))})"
    return text


def _q(q: Any) -> str:
    return number(q, "{:.2g}")


def prefix_label(d: int) -> str:
    return "no prefix" if int(d) == 0 else f"prefix {int(d)}"


def model_note(meta: dict[str, Any]) -> str:
    model = meta.get("model") or "the model"
    if "chat" in meta.get("method", []):
        samples = meta.get("samples", 1)
        how = (f"each prompt asked {samples} times and the majority answer kept" if samples > 1 else
               "one reply per prompt")
        return (f"These answers come from {model} in chat mode: its reply to Marin & Eger's instruction, parsed with "
                f"their rule ({how}). {MARIN} measured ChatGPT 3.5 and 4o with the same seven scenes and their own "
                "random pairs of professions; the numbers are comparable in method, not in the jobs asked.")
    if meta.get("embedded"):
        return (f"These answers come from {model}, a small base language model run offline on this computer, in "
                "logprob mode: nothing is generated; for each prompt the probabilities of the two replies “The <A>” "
                "and “The <B>” are compared and the more probable one is the answer. A model this small is near "
                "chance on these scenes (about half of its answers are wrong) and hardly reacts to the pronoun: this "
                "page shows how the study works (the offline smoke path), not what a deployed assistant does. Real "
                "findings come from chat models (collect --study coreference --model M).")
    return (f"These answers come from {model} in logprob mode (a /v1/completions endpoint's echoed log-probabilities): "
            "the more probable of the two replies “The <A>” and “The <B>” is the answer; nothing is generated.")


def _first(t: dict[str, Any]) -> int:
    prefixes = t["meta"].get("prefixes") or [0]
    return 0 if 0 in prefixes else int(min(prefixes))


def _sel(df: Any, d: int) -> Any:
    return df[df["debias"] == d] if len(df) else df


def key_findings(t: dict[str, Any], d: int) -> list[str]:
    out = []
    t3 = _sel(t["table3"], d)
    over = t3[t3.template == "Overall"]
    if len(over):
        r = over.iloc[0].to_dict()
        out.append(f"The model gave a wrong answer to {_pct(r, 'incorrect')} of the {int(r['incorrect_n']):,} "
                   "prompts; every prompt has a right answer whatever the pronoun, and guessing would be wrong half "
                   "the time.")
        out.append(f"Changing only the pronoun changed the answer in {_pct(r, 'inconsistent')} of the "
                   f"{int(r['inconsistent_n']):,} triples (he, she, they); between he and she alone in "
                   f"{_pct(r, 'binary_inconsistent')}.")
        per = t3[(t3.template != "Overall") & (t3.inconsistent_pct > 0)].sort_values("inconsistent_pct",
                                                                                    ascending=False)
        if len(per):
            w = per.iloc[0].to_dict()
            out.append(f"The most inconsistent scene was “{w['template']}”: {_pct(w, 'inconsistent')} of its triples.")
    wb = _sel(t["winobias"], d)
    parts = []
    for r in wb.to_dict("records"):
        if number(r.get("gap")) == "–":
            continue
        clear = number(r.get("q")) != "–" and float(r["q"]) < 0.05
        verdict = ("more often right when the pronoun fits the stereotype" if clear and r["gap"] > 0 else
                   "more often right when it does not" if clear else "no clear difference")
        who = "he and she pooled" if "+" in str(r["pronoun"]) else r["pronoun"]
        parts.append(f"with {who}, {number(r['pro_pct'], '{:.0f}%')} right on pro- and "
                     f"{number(r['anti_pct'], '{:.0f}%')} on anti-stereotypical prompts (gap {number(r['gap'], '{:+.1f}')}"
                     f" points, {number(r['gap_low'], '{:+.1f}')} to {number(r['gap_high'], '{:+.1f}')}, q = {_q(r['q'])}: "
                     f"{verdict})")
    if parts:
        out.append("Stereotype: " + "; ".join(parts) + ".")
    ff = _sel(t["four_fifths"], d)
    if not _gendered(t, d):
        out.append("No prompt pairs a women-dominated with a men-dominated job (random or your own pairs without "
                   "genders): the stereotype measures (pro/anti accuracy, separation, sufficiency) need such pairs.")
    elif len(ff):
        out.append(four_fifths_finding(ff))
    pro = _sel(t["professions"], d)
    pro = pro[pro.inconsistent > 0] if len(pro) else pro
    if len(pro):
        top = ", ".join(f"{r.profession} ({int(r.inconsistent)} of {int(r.triples)})" for r in pro.head(5).itertuples())
        out.append(f"Professions most often in inconsistent triples: {top}.")
    px = t["prefixes"]
    if len(px):
        sel = px[(px.measure.isin(["incorrect", "inconsistent"])) & (px.template == "Overall")]
        for dd, rows in sel.groupby("debias"):
            bits = [f"{r.measure} {r.difference:+.1f} points ({number(r.low, '{:+.1f}')} to {number(r.high, '{:+.1f}')}, "
                    f"q = {_q(r.q)})" for r in rows.itertuples()]
            out.append(f"Debiasing prefix {int(dd)} against none: " + "; ".join(bits) + ".")
    return out


def four_fifths_finding(ff: Any) -> str:
    """The four-fifths verdict in words: he vs she decides (001's binary gender); they is reported."""
    rows = ff.to_dict("records")
    verdict = [r for r in rows if str(r.get("comparison", "he vs she")) == "he vs she"]
    fails = [r for r in verdict if str(r["passes"]) == "False"]
    unusual = [r for r in verdict if number(_holm(r)) != "–" and float(_holm(r)) < 0.05]
    names = lambda rows: ", ".join(f"{r['rate'].upper()} ({number(r['ratio'], '{:.2f}')})" for r in rows)  # noqa: E731
    text = (f"Separation and sufficiency ({STERLIE.split(' (')[0]}), he against she as 001 compares them: "
            f"{len(fails)} of the 4 error rates fail the four-fifths rule{': ' + names(fails) if fails else ''}; "
            f"{len(unusual)} {'is' if len(unusual) == 1 else 'are'} lower than shuffling the answers between he and "
            f"she gives (p < 0.05, Holm-adjusted over the four rates){': ' + names(unusual) if unusual else ''}.")
    they = [r for r in rows if str(r.get("comparison", "")).startswith("they") and str(r["passes"]) == "False"]
    if they:
        text += (" They, reported apart (001 treats gender as binary), is below four fifths of "
                 + ", ".join(f"{r['comparison'].split(' vs ')[1]} in {r['rate'].upper()} ({number(r['ratio'], '{:.2f}')})"
                             for r in they) + ".")
    return text


def _cells(r: dict, columns: list[tuple[str, str]]) -> str:
    out = []
    for col, kind in columns:
        v = r.get(col, "")
        if kind == "pct":
            out.append(f'<td class="num">{esc(_pct(r, col))}</td>')
        elif kind in ("p", "q"):
            out.append(f'<td class="num">{_q(v)}</td>')
        elif kind == "num":
            out.append(f'<td class="num">{number(v)}</td>')
        elif kind == "ratio":
            out.append(f'<td class="num">{number(v, "{:.2f}")}</td>')
        elif kind == "int":
            out.append(f'<td class="num">{number(v, "{:.0f}")}</td>')
        else:
            out.append(f"<td>{esc(v)}</td>")
    return "".join(out)


def _table(df: Any, columns: list[tuple[str, str, str]], caption: str) -> str:
    if not len(df):
        return ""
    head = "".join(f'<th scope="col">{esc(label)}</th>' for _, label, _ in columns)
    spec = [(c, k) for c, _, k in columns]
    body = "".join(f"<tr>{_cells(r, spec)}</tr>" for r in df.to_dict("records"))
    return f"<table><caption>{esc(caption)}</caption><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _anchor(d: int, template: str) -> str:
    return f"t{int(d)}-" + "".join(c if c.isalnum() else "-" for c in template)


def table3_html(t3: Any, d: int, meta: dict[str, Any] | None = None) -> str:
    """000's Table 3 for this run (prefix ``d``); Marin & Eger's own rows under each scene only
    where ``marin_eger_paper.reason`` allows (a published run, their unit), else one line why not."""
    from stereoprobe.studies.coreference import marin_eger_paper as paper

    meta = meta or {}
    theirs = paper.table3(meta, d)
    head = ('<tr><th scope="col">scene</th><th scope="col">incorrect</th><th scope="col">inconsistent</th>'
            '<th scope="col">binary (he/she)</th><th scope="col">inconsistent triples</th>'
            '<th scope="col">refused</th><th scope="col">unclear (U)</th></tr>')
    rows = []
    for r in t3.to_dict("records"):
        k = int(r["inconsistent_k"])
        link = (f'<a href="triples.html#{_anchor(d, r["template"])}">{k} of {int(r["inconsistent_n"])}</a>'
                if k and r["template"] != "Overall" else f"{k} of {int(r['inconsistent_n'])}")
        rows.append(f"<tr><th scope=\"row\">{esc(r['template'])}</th>"
                    + "".join(f'<td class="num">{esc(_pct(r, m))}</td>'
                              for m in ("incorrect", "inconsistent", "binary_inconsistent"))
                    + f'<td class="num">{link}</td><td class="num">{int(r["refused"])}</td>'
                      f'<td class="num">{int(r["unknown"])}</td></tr>')
        rows += [f'<tr class="paper"><td>{esc(model)} (Marin &amp; Eger)</td>'
                 + "".join(f'<td class="num">{number(values.get(m), "{:g}")}%</td>' for m in paper.METRICS)
                 + '<td colspan="3"></td></tr>' for (template, model), values in theirs.items()
                 if template == r["template"]]
    why = paper.reason(meta, d)
    line = esc(why) if why else ("Marin &amp; Eger's rows (under each scene of this run): their Table 3, ChatGPT 3.5 "
                                 "and 4o in 2024, counted the same way.")
    return (f"<table><caption>Wrong answers and answers that change with the pronoun ({esc(prefix_label(d))}), "
            f"laid out as Marin &amp; Eger's Table 3; 95% intervals in brackets</caption><thead>{head}</thead>"
            f'<tbody>{"".join(rows)}</tbody></table><p class="small">{line}</p>')


def _gendered(t: dict[str, Any], d: int) -> bool:
    """Whether any answered prompt pairs a women- with a men-dominated job (the stereotype measures need one)."""
    crit = _sel(t["criteria"], d)
    return bool(len(crit)) and crit[["tp", "fn", "fp", "tn"]].to_numpy().sum() > 0


def _sections(t: dict[str, Any], d: int) -> list[str]:
    body = [table3_html(_sel(t["table3"], d), d, t["meta"])]
    if not _gendered(t, d):
        body.append("<p>No prompt pairs a women-dominated with a men-dominated job, so the stereotype measures "
                    "(accuracy on pro- and anti-stereotypical prompts, separation, sufficiency, the four-fifths rule) "
                    "have nothing to count; pronouns.csv still compares the pronouns' shares of wrong answers.</p>")
        return body + _professions(t, d)
    body.append("<h2>Is the model right more often when the pronoun fits the stereotype?</h2>")
    body.append(_table(_sel(t["winobias"], d), [
        ("pronoun", "pronoun", ""), ("pro", "right, pro-stereotypical", "pct"),
        ("anti", "right, anti-stereotypical", "pct"), ("gap", "gap (points)", "num"), ("gap_low", "95% low", "num"),
        ("gap_high", "95% high", "num"), ("q", "q", "q")],
        "Accuracy on pro- and anti-stereotypical prompts (WinoBias-style: labelled by whom the pronoun refers to; "
        "he+she: both pooled, WinoBias' own gap; book owner left out); q: Benjamini-Hochberg over the rows"))
    body.append("<h2>Separation and sufficiency (Sterlie et al.)</h2>")
    body.append(_table(_sel(t["criteria"], d), [
        ("pronoun", "pronoun", ""), ("tp", "TP", "int"), ("fn", "FN", "int"), ("fp", "FP", "int"), ("tn", "TN", "int"),
        ("unknown", "U", "int"), ("fnr", "FNR", "pct"), ("fpr", "FPR", "pct"), ("ppv", "PPV", "pct"),
        ("npv", "NPV", "pct")],
        "Per pronoun, with the right answer as ground truth; positive: the women-dominated job is right (001's "
        "nurse). FNR and FPR equal across pronouns: separation; PPV and NPV equal: sufficiency. Book owner is left "
        "out: 001's criteria assume the pronoun refers to the right answer, and there it refers to the other job"))
    ff = _sel(t["four_fifths"], d)
    if len(ff):
        ff = ff.assign(rate=ff.rate.str.upper(), verdict=[
            ("lower than chance (Holm)" if number(_holm(r._asdict())) != "–" and _holm(r._asdict()) < 0.05
             else "within what chance gives") for r in ff.itertuples()], passes=[("yes" if str(p) == "True" else "no" if str(p) == "False" else "–")
                                               for p in ff.passes])
        body.append(_table(ff, [("comparison", "pronouns", ""), ("rate", "rate", ""), ("lowest", "lower", ""),
                                ("highest", "higher", ""),
                                ("ratio", "lowest / highest", "ratio"), ("passes", "≥ 0.8?", ""),
                                ("null_p05", "chance's 5th percentile", "ratio"), ("p", "p", "p"),
                                *([("p_holm", "p, Holm over the 4 rates", "p")] if "p_holm" in ff else []),
                                ("verdict", "against chance", "")],
                        "The four-fifths rule: he vs she decides (001 treats gender as binary); they is reported "
                        "against each, deciding nothing. Each ratio against its permutation null"))
    pdiff = _sel(t["pronouns"], d)
    if len(pdiff):
        pdiff = pdiff.assign(pair=pdiff.pronoun_1 + " vs " + pdiff.pronoun_2, measure=pdiff.measure.str.upper())
        body.append("<details><summary>Pronouns compared: every rate, paired, with Benjamini-Hochberg q</summary>"
                    + _table(pdiff, [("measure", "rate", ""), ("pair", "pronouns", ""), ("pct_1", "first, %", "num"),
                                     ("pct_2", "second, %", "num"), ("difference", "difference", "num"),
                                     ("low", "95% low", "num"), ("high", "95% high", "num"), ("q", "q", "q")],
                             "First minus second pronoun, in points") + "</details>")
    return body + _professions(t, d)


def _professions(t: dict[str, Any], d: int) -> list[str]:
    body = []
    pro = _sel(t["professions"], d)
    if len(pro) and (pro.inconsistent > 0).any():
        body.append("<h2>Professions in inconsistent triples</h2>")
        body.append(_table(pro[pro.inconsistent > 0].head(15), [
            ("profession", "profession", ""), ("inconsistent", "inconsistent triples", "int"),
            ("triples", "triples", "int"), ("pct", "%", "num")],
            "Each inconsistent triple counts once for each of its two professions (Marin & Eger's count); "
            "all: professions.csv"))
    return body


def build_page(run_dir: str | Path, out: str | Path | None = None) -> Path:
    """Write ``report/`` (index.html, triples.html, figures/, data/) under ``out`` (default the
    run) and return index.html."""
    from stereoprobe.page.figures import to_png
    from stereoprobe.page.folder import write_report
    from stereoprobe.studies.coreference import figures
    from stereoprobe.studies.coreference.triples import triples_page

    run = Path(run_dir)
    if _template_set(run) == "sterlie":  # Sterlie et al.'s own prompts: their tables (sterlie_page.py)
        return _sterlie_page(run, out)
    t = _read(run)
    meta = t["meta"]
    d = _first(t)
    t3 = _sel(t["table3"], d)
    png = to_png(figures.overview(t3, _sel(t["criteria"], d), f"{prefix_label(d).capitalize()}. Run: "
                                  f"{meta.get('model')}; {', '.join(meta.get('method', []))} mode."))

    import base64

    uri = "data:image/png;base64," + base64.b64encode(png).decode("ascii")
    body = ['<p class="small">Data behind this page: ' + ", ".join(
        f'<a href="data/{n}.csv">{n}.csv</a>' for n in TABLES) + ' (docs/coreference.md describes every column). '
        'The prompts and answers of every inconsistent triple: <a href="triples.html">triples.html</a>.</p>']
    body.append(f'<figure class="big"><img src="{uri}" alt="Table 3 per scene and the four rates per pronoun, with '
                f'intervals ({esc(prefix_label(d))})" width="1000"></figure>')
    body.append(f"<h2>Wrong and inconsistent answers ({esc(prefix_label(d))})</h2>")
    body += _sections(t, d)
    others = [p for p in meta.get("prefixes", []) if int(p) != d]
    if others:
        body.append("<h2>Debiasing prefixes</h2>")
        px = t["prefixes"]
        if len(px):
            main = px[(px.template.isin(["Overall", "all"])) & px.measure.isin(
                ["incorrect", "inconsistent", "binary_inconsistent", "winobias_gap", "fnr", "fpr"])]
            main = main[(main.template == "Overall") | (main.measure != "incorrect")]
            body.append(_table(main, [("debias", "prefix", ""), ("measure", "measure", ""), ("pronoun", "pronoun", ""),
                                      ("pct_a", "no prefix", "num"), ("pct_b", "with prefix", "num"),
                                      ("difference", "difference", "num"), ("low", "95% low", "num"),
                                      ("high", "95% high", "num"), ("q", "q", "q")],
                              "Each prefix against none, paired by prompt (points; q: BH over prefixes.csv)"))
        for p in others:
            body.append(f"<details><summary>All tables with {esc(prefix_label(p))}</summary>"
                        + "".join(_sections(t, int(p))) + "</details>")
    settings = [("model", str(meta.get("model"))), ("method", "; ".join(meta.get("estimate", []))),
                ("samples", f"{meta.get('samples')} ({meta.get('samples_rule')})"), ("pairs", str(meta.get("catalog"))),
                ("prefixes", ", ".join(prefix_label(p) for p in meta.get("prefixes", []))),
                ("parser version", str(meta.get("parser_version"))), ("statistics", json.dumps(meta.get("statistics"))),
                ("run", str(meta.get("run")))]
    html = fill_shell("Does the pronoun change the answer?",
                      meta_line(meta, f"{', '.join(meta.get('method', []))} mode",
                                f"{int(meta['counts']['probes_answered']):,} prompts answered"),
                      key_findings(t, d), model_note(meta), "\n".join(body), NOTE, settings)
    return write_report(Path(out or run) / "report", html, run / "coreference", TABLES, {"overview": png},
                        {"triples.html": triples_page(t)})


def _holm(row: dict) -> Any:
    """A four-fifths row's Holm-adjusted p (``p`` for scores written before it existed)."""
    return row.get("p_holm", row.get("p"))
