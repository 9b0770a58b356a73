"""The card as one self-contained HTML page (``card/index.html``) in the core's page shell
(``page/shell.py``: findings first, the model note, the body, how to read it, the settings
at the end). The forest plot is embedded as a data: URI and there is no external CSS, JS or
font, so the page can be zipped and sent as it is (as the fill-in briefing); the links to
each study's own page are relative, and work while the card stays in its suite folder."""

from __future__ import annotations

import base64
import os
from pathlib import Path
from stereoprobe.card import words
from stereoprobe.card.records import Card, CardValue, Model, StudyRun
from stereoprobe.page.shell import CSS, esc

EXTRA_CSS = """
td.flag{font-weight:bold;color:var(--neg)}td.quiet{color:#555}.why{font-size:13px;color:#444;margin:2px 0 6px}
table.card td.sentence{font-size:13px;color:#333;max-width:520px}table.card th{background:#f4f4f0}
.paper{font-size:12px;color:#444}.demo{background:#fff6e0;border-left:4px solid #8a5a00;padding:4px 12px;font-size:14px}
"""

NOTE = (
    "<p><strong>The numbers.</strong> Each number on this card is the value the study hands the release gate "
    "(<code>stereoprobe gate</code>) and prints on its own page, with its 95% interval: the range that would cover "
    "the model's true value in 95 of 100 repetitions of the same questions. Shares are in percent, differences of "
    "shares in percentage points. A wide interval means few answers, not a small effect.</p>"
    "<p><strong>Comparing models.</strong> A difference is the second model minus the first, measured on the same "
    "probes and paired by probe (each study's own comparison, as <code>stereoprobe compare</code> makes it). With "
    "many comparisons some look clear by chance alone, so the card adjusts for all of them together (Holm's "
    "method): it flags a difference only when it stays clear after that adjustment, so that a card comparing two "
    "models that do not differ flags nothing in at least 95 of 100 cards. An unflagged difference is not proof "
    "that the models are alike: its interval says how large it could still be.</p>"
    "<p><strong>What they do not mean.</strong> The probes are built to bring out stereotypes; the numbers describe "
    "one model's answers to them on one date, with the settings below, not what the model does in every use, nor "
    "what people think.</p>"
)


def _link(target: Path | None, out: Path) -> str | None:
    if target is None:
        return None
    return os.path.relpath(target.resolve(), out.resolve())


def _cell(v: CardValue | None) -> str:
    if v is None:
        return '<td class="num quiet">–</td>'
    return f'<td class="num">{esc(words.shown(v.value, v.low, v.high, v.kind))}</td>'


def _paper(v: CardValue) -> str:
    if v.paper:
        return f'<div class="paper">Published: {esc(v.paper)}</div>'
    if v.paper_note:
        return f'<div class="paper">{esc(v.paper_note)}</div>'
    return ""


def _study_head(key: str, runs: list[tuple[Model, StudyRun]], out: Path) -> str:
    run = runs[0][1]
    links = []
    for m, r in runs:
        href = _link(r.page, out)
        who = f" ({m.name})" if len(runs) > 1 else ""
        links.append(f'<a href="{esc(href)}">the study\'s own page{esc(who)}</a>' if href else
                     f"no page yet{esc(who)}: run <code>stereoprobe report {esc(r.run)}</code>")
    title = run.title if key == run.study else words.SUBTITLES.get(key, run.title)
    parts = [f'<h2 id="{esc(key)}">{esc(words.HEADINGS.get(key, run.title))}</h2>',
             f'<p class="small">{esc(title)} · {" · ".join(links)}</p>']
    costs = [r.cost for _, r in runs if r.cost]
    if costs and len(costs) == len(runs) and len(set(costs)) == 1:  # one line for all
        parts.append(f'<p class="why">{esc(("Every model: " if len(runs) > 1 else "") + costs[0])}</p>')
        costs = []
    for m, r in runs:
        who = f"{m.name}: " if len(runs) > 1 else ""
        if r.demonstration:
            parts.append(f'<p class="demo"><strong>A demonstration on {esc(m.name)}.</strong> {esc(r.demonstration)}</p>')
        if r.error:
            parts.append(f'<p class="demo"><strong>Failed on {esc(m.name)}:</strong> {esc(r.error)}</p>')
        if r.cost and costs:
            parts.append(f'<p class="why">{esc(who)}{esc(r.cost)}</p>')
    return "".join(parts)


def _one_table(card: Card, key: str) -> str:
    rows = [r for r in card.rows if r[0] == key]
    if not rows:
        return ""
    model = card.models[0].name
    body = []
    for row in rows:
        v = card.value(model, row)
        assert v is not None
        n = f"{v.n:,} {v.counted}" if v.n else "–"
        body.append(f'<tr><th scope="row">{esc(v.label)}</th>{_cell(v)}<td class="num">{n}</td>'
                    f'<td class="sentence">{esc(v.sentence)}{_paper(v)}</td></tr>')
    return ('<table class="card"><tr><th scope="col">metric</th><th scope="col" class="num">value (95% interval)</th>'
            '<th scope="col" class="num">based on</th><th scope="col">what it means</th></tr>' + "".join(body) + "</table>")


def _many_table(card: Card, key: str) -> str:
    rows = [r for r in card.rows if r[0] == key]
    if not rows:
        return ""
    base, others = card.models[0], card.models[1:]
    head = ('<tr><th scope="col">metric</th>' + "".join(f'<th scope="col" class="num">{esc(m.name)}</th>'
                                                         for m in card.models)
            + "".join(f'<th scope="col" class="num">{esc(m.name)} minus {esc(base.name)}</th>'
                      '<th scope="col" class="num">adjusted p</th>' for m in others) + "</tr>")
    body = []
    for row in rows:
        label = next(v.label for v in card.values if v.row == row)
        cells = "".join(_cell(card.value(m.name, row)) for m in card.models)
        for m in others:
            d = card.difference(m.name, row)
            p = card.pairing(m.name, key)
            if d is not None:
                mark = "flag" if d.flagged else "quiet"
                cells += (f'<td class="num {mark}">{esc(words.difference_text(d))}{" ◆ flagged" if d.flagged else ""}'
                          f'</td><td class="num {mark}">{esc(words.p_text(d.p_adjusted))}</td>')
            else:
                why = "not paired" if p is None or not p.paired else "no paired difference for this metric"
                cells += f'<td class="num quiet" colspan="2">{why}</td>'
        body.append(f'<tr><th scope="row">{esc(label)}</th>{cells}</tr>')
    reasons = "".join(f'<p class="why">{esc(p.model)}: {esc(p.reason)}</p>' for p in card.pairings
                      if p.key == key and not p.paired)
    said = "".join(f"<li>{esc(words.difference_sentence(d, card.family.size))}</li>" for d in card.differences
                   if d.key == key and (d.flagged or d.p < 0.05))
    return ('<table class="card">' + head + "".join(body) + "</table>" + reasons
            + (f'<ul class="small">{said}</ul>' if said else ""))


def _sentences(card: Card, key: str) -> str:
    """Under a comparison's table: the first model's sentences, so the numbers can be read."""
    items = "".join(f"<li>{esc(v.sentence)}{_paper(v)}</li>" for v in card.values
                    if v.key == key and v.model == card.models[0].name)
    return (f'<details><summary>What these metrics mean (in {esc(card.models[0].name)}\'s numbers)</summary>'
            f'<ul class="small">{items}</ul></details>') if items else ""


def _model_note(card: Card) -> str:
    parts = []
    for m in card.models:
        b = m.backend
        how = (f"the model file {b['model_file']}" if b.get("model_file") else
               f"{b['model']} at {b['base_url']}" if b.get("base_url") else
               "the embedded offline model (a small base model)" if not b.get("model") else str(b.get("model")))
        demos = [words.STUDY_NAMES.get(s.key, s.key) for s in m.studies if s.demonstration]
        parts.append(f"{m.name}: {how}, the {m.design} design"
                     + (f"; demonstrations only on this model: {words.listing(demos)}" if demos else "") + ".")
    return " ".join(parts)


def _settings(card: Card) -> list[tuple[str, str]]:
    out = []
    for m in card.models:
        out.append((f"{m.name}: suite", str(m.folder)))
        out.append((f"{m.name}: design", m.design))
        for s in m.studies:
            out.append((f"{m.name}: {s.key}", f"{s.run} ({s.state}, {s.design or '–'} design)"))
    out += [("family", f"Holm over {card.family.size} paired differences, alpha {card.family.alpha:g}"),
            ("made", f"{card.created_at} with stereoprobe {card.stereoprobe_version}")]
    return out


def page_html(card: Card, out: Path, forest_png: bytes | None) -> str:
    """The card's ``index.html`` (to be written into ``out``)."""
    from stereoprobe.page.shell import fill_shell

    names = [m.name for m in card.models]
    title = "Bias card: " + words.listing(names)
    designs = sorted({m.design for m in card.models})
    made = card.created_at[:16].replace("T", " ") + (" UTC" if card.created_at.endswith("+00:00") else "")
    meta = esc(" · ".join([f"{'design' if len(designs) == 1 else 'designs'} {', '.join(designs)}",
                           f"{len(card.keys)} studies", f"made {made}"]))
    body = []
    if forest_png is not None:
        uri = "data:image/png;base64," + base64.b64encode(forest_png).decode("ascii")
        body.append('<h2 id="differences">Differences at a glance</h2><figure class="big"><img alt="Forest plot of '
                    f'each difference with its 95% interval" src="{uri}"><figcaption>Each model minus '
                    f'{esc(names[0])}, with its 95% interval; filled and vermilion where the card flags it (Holm over '
                    f'all {card.family.size} differences on the card).</figcaption></figure>')
    for key in card.keys:
        runs = [(m, m.study(key)) for m in card.models if m.study(key) is not None]
        body.append(_study_head(key, runs, out))  # type: ignore[arg-type]
        body.append(_one_table(card, key) if len(names) == 1 else _many_table(card, key) + _sentences(card, key))
    nav = " · ".join(f'<a href="#{esc(k)}">{esc(words.STUDY_NAMES.get(k, k))}</a>' for k in card.keys)
    return fill_shell(title, meta, words.summary(card), _model_note(card), "".join(body), NOTE, _settings(card),
                      css=CSS + EXTRA_CSS, nav=nav)


def study_names() -> dict[str, str]:
    return dict(words.STUDY_NAMES)
