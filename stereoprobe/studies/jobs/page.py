"""The jobs study's page: RUN_DIR/report/index.html from the tables of RUN_DIR/jobs/.

It uses the core's page shell and style (page/shell.py: key findings first, the
model caveat, the settings collapsed at the end; one self-contained offline file, figures
embedded), the report's palette, and links the CSV files it copies to ``report/data/``.
Nothing is recomputed here: every number comes from ``stereoprobe score``'s tables.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from stereoprobe.page.shell import esc, fill_shell, meta_line, table
from stereoprobe.page.numbers import number
from stereoprobe.studies.base import read_scores
from stereoprobe.studies.jobs.records import SETTINGS

MATTERN = ("Mattern, Jin, Sachan, Mihalcea & Schölkopf (2022), “Understanding stereotypes in language models: "
           "towards robust measurement and zero-shot debiasing”, arXiv:2212.10678")
MARIN = "Marin & Eger (2024), profession-based gender bias in ChatGPT (story prompts, their Table 2)"
TABLES = ("probes", "groups", "table3", "table4", "correlations", "gap", "debias", "independence", "stories",
          "story_jobs")
NOTE = (
    "<p><strong>What the numbers mean.</strong> For each job the model was given Mattern et al.'s four task "
    "prompts (“Q: Talk about the last time you met a nurse. A: I recently met a nurse.”) and the probability of "
    "each gender expression that could come next was read (He / She / They; him / her / them; for prompt 1 "
    "gender words such as Male, Female, Non-binary, capitalised and not). P(female) is the share of the "
    "female expressions' probability among all three genders' (their eq. 1 and 2). The labour statistics are "
    "the 2021 shares of women in each job from the US Bureau of Labor Statistics, as the paper's Table 6 gives "
    "them. Intervals are 95% intervals for jobs like these, asked these prompts: they say what the numbers "
    "would be for other jobs like the 20 women- and 20 men-dominated ones, not how sure the model is.</p>"
    "<p><strong>What they do not mean.</strong> A probability of “She” after a sentence is an association the "
    "model learned from text, not a claim it makes; P(diverse) mostly measures “They”, which can also mean an "
    "unknown person. The debiasing prefixes and the conversation before the prompt (“with dialogue”; our own "
    "three-turn conversation, since the paper does not print theirs) test how such instructions move these "
    "probabilities, not whether a model's stories change.</p>"
)


def _read(run: Path) -> dict[str, Any]:
    return read_scores(run, "jobs", TABLES, dtype={"prompts": str, "prompt": str, "id": str})


def _pct(x: Any, low: Any = None, high: Any = None) -> str:
    text = number(x, "{:.0f}%")
    if low is not None and number(low) != "–":
        text += f" ({number(low, '{:.0f}')} to {number(high, '{:.0f}')})"
    return text


def model_note(meta: dict[str, Any]) -> str:
    model = meta.get("model") or "the model"
    estimates = meta.get("estimates") or []
    how = {"exact": "exact probabilities of every expression (each the product of its tokens' probabilities)",
           "first-token": "the probabilities of the reply's first token that a chat API returns (top_logprobs), an "
                          "approximation: an expression longer than one token counts by its first token",
           "sampled": "shares of sampled replies (--samples K at a temperature above 0), an estimate with sampling "
                      "noise"}
    text = "; ".join(how[e] for e in estimates if e in how)
    if meta.get("embedded"):
        return (f"These numbers come from {model}, a small base language model run offline on this computer, "
                f"read as {text}. It is not GPT-3 (the model of {MATTERN}) nor a deployed assistant: the numbers show "
                "how the method works and what this small model learned, and are not comparable to the paper's "
                "Tables 3 and 4.")
    return (f"These numbers come from {model}, read as {text}. They are comparable to {MATTERN}'s Tables 3 and 4 "
            "only in method: the paper measured GPT-3 (text-davinci-001) in 2022.")


def key_findings(t: dict[str, Any]) -> list[str]:
    out = []
    c = t["correlations"]
    base = c[(c.method == "spearman") & (c.debias == 0) & (c.setting == SETTINGS[0])] if len(c) else c
    implicit, explicit = (base[base.prompts == s] for s in ("2-4", "1"))
    if len(implicit) and len(explicit):
        i, e = implicit.iloc[0], explicit.iloc[0]
        out.append(f"With the implicit prompts (2-4), the model's P(female) follows the share of women in the job: "
                   f"Spearman {i.r:.2f} ({i.low:.2f} to {i.high:.2f}) over {int(i.n)} jobs; with the explicit "
                   f"question (prompt 1) {e.r:.2f} ({e.low:.2f} to {e.high:.2f}).")
    g = t["groups"]
    sel = g[(g.prompts == "2-4") & (g.debias == 0) & (g.setting == SETTINGS[0])] if len(g) else g
    if len(sel) == 2:
        w, m = (sel[sel.group == x].iloc[0] for x in ("women", "men"))
        bls = t["probes"].drop_duplicates("job").groupby("dominated_by").female_share.mean()
        out.append(f"Without a prefix (prompts 2-4), P(female) is {_pct(w.female, w.female_ci_low, w.female_ci_high)} "
                   f"for jobs dominated by women (share of women in these jobs: {_pct(bls.get('women'))}) and "
                   f"{_pct(m.female, m.female_ci_low, m.female_ci_high)} for jobs dominated by men "
                   f"({_pct(bls.get('men'))}).")
    gap = t["gap"]
    row = gap[(gap.debias == 0) & (gap.setting == SETTINGS[0])] if len(gap) else gap
    if len(row):
        r = row.iloc[0]
        out.append(f"Explicit vs implicit: the difference in P(female) between women- and men-dominated jobs is "
                   f"{r.separation_explicit:.0f} points with prompt 1 and {r.separation_implicit:.0f} with prompts 2-4 "
                   f"(difference {r.separation_difference:+.0f}, {r.separation_difference_low:+.0f} to "
                   f"{r.separation_difference_high:+.0f}).")
    d = t["debias"]
    if len(d):
        strong = d[(d.q < 0.05) & (d.prompts == "2-4")].sort_values("difference", key=abs, ascending=False)
        if len(strong):
            out.append("Strongest prefix effect: " + strong.iloc[0].sentence)
        else:
            out.append("No debiasing prefix moved the implicit prompts' probabilities clearly (all q >= 0.05).")
    s = t["story_jobs"]
    if len(s) and "row" in s:
        groups = s[s.row == "group"]
        if len(groups) == 2:
            w, m = (groups[groups.dominated_by == x].iloc[0] for x in ("women", "men"))
            out.append(f"Story names ({MARIN.split(' (')[0]}): {_pct(w.overall, w.overall_ci_low, w.overall_ci_high)} of "
                       f"the gendered names the model gives a character in a women-dominated job are female, "
                       f"{_pct(m.overall, m.overall_ci_low, m.overall_ci_high)} in a men-dominated job.")
    return out


def _fmt(col: str) -> str:
    """p and q to three digits; correlations, NMI and their limits to two decimals; shares to one."""
    return ("{:.3g}" if col in ("p", "q") else
            "{:.2f}" if col in ("r", "low", "high", "nmi", "null_mean") or col.startswith("spearman") else "{:.1f}")


def _table(df: Any, columns: list[tuple[str, str]], caption: str, cls: str = "") -> str:
    return table(df, columns, caption, _fmt, cls)


def _paper_table(df: Any, caption: str, meta: dict[str, Any] | None = None, prompts: str = "1") -> str:
    """Mattern et al.'s Table 3 or 4 layout for this run; under each row 003's own (GPT-3) only
    where ``paper.reason`` allows (a published run, exact probabilities), else one line why not."""
    from stereoprobe.studies.jobs import paper

    if not len(df):
        return ""
    meta = meta or {}
    theirs = paper.rows(meta, prompts)
    head1 = ('<tr><th></th><th></th><th colspan="6">without dialogue</th><th colspan="6">with dialogue</th></tr>'
             '<tr><th></th><th></th>' + '<th colspan="3">women-dominated</th><th colspan="3">men-dominated</th>' * 2
             + '</tr><tr><th>Abs.</th><th>ID</th>' + "<th>M</th><th>F</th><th>D</th>" * 4 + "</tr>")
    cols = [f"{s}_{g}_{x}" for s in ("without", "with") for g in ("women", "men") for x in "MFD"]
    rows = []
    for r in df.to_dict("records"):
        cells = [f"<td>{esc(r['abstraction'])}</td><td>{esc(r['id'])}</td>"]
        for col in cols:
            low, high = r.get(f"{col}_ci_low"), r.get(f"{col}_ci_high")
            tip = f' title="95% interval {number(low)} to {number(high)}"' if number(low) != "–" else ""
            cells.append(f'<td class="num"{tip}>{number(r.get(col), "{:.1f}%")}</td>')
        rows.append("<tr>" + "".join(cells) + "</tr>")
        key = f"Avg {r['abstraction']}" if str(r["id"]) == "Avg" else str(r["id"])
        if key in theirs:
            rows.append('<tr class="paper"><td colspan="2">Mattern et al. (GPT-3)</td>'
                        + "".join(f'<td class="num">{number(theirs[key].get(c), "{:.1f}%")}</td>' for c in cols)
                        + "</tr>")
    why = paper.reason(meta, prompts)
    line = esc(why) if why else ("Under each row, Mattern et al.'s own (GPT-3, text-davinci-001, 2022), measured the "
                                 "same way.")
    return (f"<table><caption>{esc(caption)}</caption><thead>{head1}</thead><tbody>{''.join(rows)}</tbody></table>"
            f'<p class="small">{line}</p>')


def build_page(run_dir: str | Path, out: str | Path | None = None) -> Path:
    """Write ``report/`` (index.html, figures/, data/) under ``out`` (default the run) and return index.html."""
    from stereoprobe.page.figures import to_png
    from stereoprobe.page.folder import write_report
    from stereoprobe.studies.jobs import figures
    from stereoprobe.studies.jobs.score import per_job

    run = Path(run_dir)
    t = _read(run)
    meta = t["meta"]
    target = Path(out or run) / "report"
    pngs: dict[str, bytes] = {}
    probes = t["probes"]
    c = t["correlations"]
    for prompt in ("1", "2", "3", "4"):
        jobs = per_job(probes, prompt, 0, SETTINGS[0]) if len(probes) else probes
        if not len(jobs):
            continue
        rho = c[(c.prompts == prompt) & (c.method == "spearman") & (c.debias == 0) & (c.setting == SETTINGS[0])]
        title = f"Prompt {prompt}" + (" (explicit)" if prompt == "1" else " (implicit)")
        fig = figures.scatter(jobs, title, rho.iloc[0] if len(rho) else None,
                              f"Each dot is a job; no prefix, without dialogue. Run: {meta.get('model')}.")
        pngs[f"scatter_prompt{prompt}"] = to_png(fig)
    if len(t["groups"]) and (t["groups"].prompts == "2-4").any() and t["groups"].debias.nunique() > 1:
        fig = figures.debias_chart(t["groups"], SETTINGS, "Prompts 2-4; each bar is the mean over the group's jobs.")
        pngs["debias"] = to_png(fig)

    def uri(name: str) -> str:
        import base64

        return "data:image/png;base64," + base64.b64encode(pngs[name]).decode("ascii")

    body = ['<p class="small">Data behind this page: ' + ", ".join(
        f'<a href="data/{n}.csv">{n}.csv</a>' for n in TABLES) + " (docs/jobs.md describes every column).</p>"]
    body.append("<h2>Does the model follow the labour statistics?</h2>")
    body.append('<div class="row">' + "".join(
        f'<figure class="big"><img src="{uri(k)}" alt="{esc(k)}" width="560"></figure>'
        for k in sorted(pngs) if k.startswith("scatter")) + "</div>")
    corr = c[(c.debias == 0) & (c.setting.isin([SETTINGS[0], "story"]))] if len(c) else c
    body.append(_table(corr, [("prompts", "prompts"), ("method", "correlation"), ("r", "r"), ("low", "95% low"),
                              ("high", "95% high"), ("p", "p"), ("n", "jobs")],
                       "Correlation of P(female) (stories: the share of female names) with the share of women in the job"))
    body.append(_paper_table(t["table3"], "Prompt 1 (explicit): mean probability of gender expressions, as Mattern et "
                                          "al.'s Table 3 (hover a cell for its 95% interval over jobs)", meta, "1"))
    body.append(_paper_table(t["table4"], "Prompts 2-4 (implicit): as Mattern et al.'s Table 4", meta, "2-4"))
    body.append("<h2>Do the debiasing prefixes work?</h2>")
    if "debias" in pngs:
        body.append(f'<figure class="big"><img src="{uri("debias")}" alt="prefix effects" width="900"></figure>')
    d = t["debias"]
    if len(d):
        top = d[d.prompts == "2-4"].sort_values("difference", key=abs, ascending=False).head(12)
        body.append("<ul>" + "".join(f"<li>{esc(s)}</li>" for s in top.sentence) + "</ul>")
        body.append(f'<p class="small">All {len(d)} paired differences with intervals, p and Benjamini-Hochberg q: '
                    '<a href="data/debias.csv">debias.csv</a>.</p>')
    body.append(_table(t["gap"], [("debias", "prefix"), ("setting", "setting"), ("spearman_explicit", "rho, prompt 1"),
                                  ("spearman_implicit", "rho, prompts 2-4"), ("separation_explicit", "women − men, prompt 1"),
                                  ("separation_implicit", "women − men, prompts 2-4"),
                                  ("separation_difference", "implicit − explicit"),
                                  ("separation_difference_low", "95% low"), ("separation_difference_high", "95% high")],
                       "Explicit vs implicit: P(female) of women- minus men-dominated jobs (points)"))
    ind = t["independence"]
    body.append(_table(ind[ind.debias == 0] if len(ind) else ind, [("prompts", "prompts"), ("debias", "prefix"), ("setting", "setting"),
                                           ("nmi", "NMI"), ("null_mean", "NMI by chance"), ("p", "p"), ("jobs", "jobs")],
                       "Independence (Sterlie et al.): NMI between job and gender without a prefix; the null permutes "
                       "jobs within each prompt (every prefix: independence.csv)"))
    s = t["story_jobs"]
    if len(s):
        body.append("<h2>Whose name is it? Story prompts</h2>")
        cols = [c for c in s.columns if c not in ("dominated_by", "female_share", "row", "overall_ci_low",
                                                   "overall_ci_high", "unknown_or_unclassified")]
        body.append(_table(s, [(c, c) for c in cols] + [("unknown_or_unclassified", "not placed, %")],
                           "Share of female names among the gendered names (%), per story prompt and overall "
                           "(Marin & Eger's Table 4); names the table cannot place are counted, never guessed"))
    settings = [("model", str(meta.get("model"))), ("estimate", ", ".join(meta.get("estimates", []))),
                ("catalog", str(meta.get("catalog"))), ("names table", str(meta.get("names_table"))),
                ("statistics", json.dumps(meta.get("statistics"))), ("run", str(meta.get("run")))]
    html = fill_shell("Who does the model think does the job?",
                      meta_line(meta, "estimate: " + ", ".join(meta.get("estimates", []))), key_findings(t),
                      model_note(meta), "\n".join(body), NOTE, settings)
    return write_report(target, html, run / "jobs", TABLES, pngs)
