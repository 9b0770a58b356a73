"""Briefings: one self-contained HTML page per category, an index, a PNG per group.

HTML is built with string.Template and html.escape only; every piece of text from the
data (group names include slurs and quotes) goes through :func:`esc`. Images are
embedded as data: URIs, there is no external CSS, JS or font, so a page works offline.
"""

from __future__ import annotations

import html
import math
from dataclasses import dataclass
from string import Template
from typing import TYPE_CHECKING, Sequence

from stereoprobe.report.clouds import LEGEND, compose_png, fit_text, font, colour_of
from stereoprobe.report.data import LEFT_OUT, Word

if TYPE_CHECKING:  # pragma: no cover
    from PIL import Image

NOTE = (
    "<p><strong>What the numbers mean.</strong> The model was asked to complete probes such as "
    "“why are &lt;group&gt; so …” (questions) and “&lt;group&gt; are so …” (statements). The probes "
    "are shaped like stereotypes on purpose, to bring out the associations the model holds. Each "
    "returned word was looked up in the NRC Emotion Lexicon (EmoLex): directly, by its lemma, or "
    "through WordNet synonyms. A <em>negative share</em> is the percentage of labelled words "
    "(positive or negative) that are negative; neutral words, words marked both positive and "
    "negative, and words not found are left out of it and counted separately.</p>"
    "<p><strong>What they do not mean.</strong> A lexicon's labels are context-free: “radical” is "
    "positive in NRC whatever group it describes, and a word can be harmless about one group and "
    "hurtful about another. The shares describe one model's completions on one date with the "
    "settings below, not what people think of a group. With few labelled words, a difference of "
    "a few points between groups is noise.</p>"
)


def esc(value: object) -> str:
    """HTML-escape text and attribute values (quotes too).

    >>> esc('"faggots" & <b>')
    '&quot;faggots&quot; &amp; &lt;b&gt;'
    """
    return html.escape(str(value), quote=True)


def pct(value: float) -> str:
    """A share as text: one decimal and a percent sign, or a dash when there is none.

    >>> pct(42.06), pct(float("nan"))
    ('42.1%', '–')
    """
    return "–" if value is None or math.isnan(value) else f"{value:.1f}%"


def attr(value: float) -> str:
    """A share as an attribute value: the full number, or empty when there is none."""
    return "" if value is None or math.isnan(value) else repr(float(value))


@dataclass
class GroupPage:
    """Everything one group's section shows."""

    category: str
    category_slug: str
    group: str
    slug: str
    mine: dict[str, float]
    cat: dict[str, float]
    everyone: dict[str, float]
    words: list[Word]
    question_png: bytes
    statement_png: bytes
    bars_png: bytes

    def top(self, label: str, n: int = 10) -> list[Word]:
        return [w for w in self.words if w.label == label][:n]

    def left_out(self) -> dict[str, int]:
        return {k: sum(w.count for w in self.words if w.label == k) for k in LEFT_OUT}

    @property
    def total(self) -> int:
        return sum(w.count for w in self.words)

    def summary(self) -> str:
        labelled = self.total - sum(self.left_out().values())
        if not labelled:
            return f"None of the {self.total} words returned for {self.group} has a positive or negative label."
        q, s = self.mine["question_negative"], self.mine["statement_negative"]
        return (
            f"{labelled} of the {self.total} words returned for {self.group} carry a positive or negative "
            f"label. Of those, {pct(q)} were negative when the probe was a question and {pct(s)} when it "
            f"was a statement (all {self.category} groups: {pct(self.cat['question_negative'])} and "
            f"{pct(self.cat['statement_negative'])})."
        )


# -- the per-group PNG for slides ------------------------------------------------------

def group_slide(page: GroupPage, question: "Image.Image", statement: "Image.Image", bars: "Image.Image",
                caption: str) -> "Image.Image":
    """A 1600x900 slide: title, bar chart, top words, question | statement clouds, note."""
    from PIL import Image, ImageDraw

    W, H = 1600, 900
    img = Image.new("RGB", (W, H), "white")
    d = ImageDraw.Draw(img)
    d.text((40, 24), fit_text(page.group, font(40, True), W - 80), fill="black", font=font(40, True))
    d.text((40, 76), fit_text(f"category: {page.category} · {caption}", font(17), W - 80), fill="#555", font=font(17))
    bars = bars.resize((int(bars.width * 330 / bars.height), 330))
    img.paste(bars, (30, 110))
    x0 = 40 + bars.width + 30
    colw = (W - x0 - 40) // 2
    for k, label in enumerate(("negative", "positive")):
        x = x0 + k * colw
        d.text((x, 118), f"Most frequent {label} words", fill=colour_of(label), font=font(20, True))
        words = page.top(label, 9)
        for i, w in enumerate(words):
            d.text((x, 152 + 30 * i), fit_text(f"{w.word}  ({w.count})", font(19), colw - 10), fill="#222", font=font(19))
        if not words:
            d.text((x, 152), "none", fill="#888", font=font(19))
    out = page.left_out()
    d.text(
        (x0, 432),
        f"Not counted: {sum(out.values())} of {page.total} words "
        f"({out['neutral']} neutral, {out['both']} both, {out['unassigned']} not in the lexicon)",
        fill="#555",
        font=font(16),
    )
    clouds = compose_png("", [("question probes", question), ("statement probes", statement)], "")
    clouds = clouds.crop((0, 40, clouds.width, clouds.height - 40))
    scale = min((W - 40) / clouds.width, (H - 470 - 50) / clouds.height)
    clouds = clouds.resize((int(clouds.width * scale), int(clouds.height * scale)))
    img.paste(clouds, ((W - clouds.width) // 2, 462))
    note = (
        "Shares are % of words with a positive or negative NRC label. Labels are context-free; "
        "the probes are stereotype-shaped on purpose; see the HTML briefing for details."
    )
    d.text((40, H - 34), fit_text(note, font(15), W - 80), fill="#666", font=font(15))
    return img


# -- HTML ------------------------------------------------------------------------------

CSS = """
body{font-family:"DejaVu Sans",Verdana,Arial,sans-serif;margin:0 auto;max-width:1180px;padding:16px 28px;color:#222;line-height:1.4}
h1{font-size:26px;margin:8px 0 4px}h2{font-size:22px;margin:0 0 6px}h3{font-size:15px;margin:6px 0}
.meta{color:#555;font-size:14px}.note{background:#f6f6f2;border-left:4px solid #999;padding:8px 14px;font-size:14px}
dl.settings{display:grid;grid-template-columns:max-content 1fr;gap:2px 14px;font-size:13px;color:#444}
dl.settings dt{font-weight:bold}dl.settings dd{margin:0}
table{border-collapse:collapse;font-size:14px}th,td{padding:3px 9px;border-bottom:1px solid #ddd;text-align:left}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}
section.group{border-top:2px solid #333;margin-top:28px;padding-top:12px}
.row{display:flex;gap:24px;align-items:flex-start;flex-wrap:wrap}.row img{max-width:100%}
.clouds{display:flex;gap:14px;flex-wrap:wrap}.clouds figure{margin:0;flex:1;min-width:300px;max-width:520px}
.clouds img{width:100%;border:1px solid #e3e3e3}figcaption{font-size:13px;color:#444}
.legend span{display:inline-block;width:12px;height:12px;margin:0 4px 0 12px;vertical-align:-1px}
.legend{font-size:13px;color:#444;margin:4px 0}
.words{display:flex;gap:40px}.words ol{margin:0;padding-left:22px;font-size:14px}
.neg h3{color:#cf222e}.pos h3{color:#1a7f37}.small{font-size:13px;color:#555}
"""

PAGE = Template(
    """<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>$title</title><style>$css</style></head>
<body id="top">
<p class="small">$nav</p>
<h1>$title</h1>
<p class="meta">$meta</p>
<div class="note" id="about">$note</div>
$body
</body></html>
"""
)


def settings_html(settings: Sequence[tuple[str, str]]) -> str:
    items = "".join(f"<dt>{esc(k)}</dt><dd>{esc(v)}</dd>" for k, v in settings)
    return f'<h3>Model, date and probe settings</h3><dl class="settings">{items}</dl>'


def legend_html() -> str:
    return '<p class="legend">Word colours:' + "".join(
        f'<span style="background:{c}"></span>{esc(t)}' for c, t in LEGEND
    ) + ". Word size: how often the model returned it.</p>"


def group_section(page: GroupPage, data_uri) -> str:
    m, c, e = page.mine, page.cat, page.everyone
    rows = "".join(
        f'<tr><th>{name}</th><td class="num" data-field="{key}">{pct(m[key])}</td>'
        f'<td class="num">{pct(c[key])}</td><td class="num">{pct(e[key])}</td></tr>'
        for key, name in (("question_negative", "question probes"), ("statement_negative", "statement probes"),
                          ("negative", "both formats"))
    )
    lists = ""
    for label, cls in (("negative", "neg"), ("positive", "pos")):
        items = "".join(
            f'<li><span class="w">{esc(w.word)}</span> <span class="c">({w.count})</span></li>' for w in page.top(label)
        ) or "<li>none</li>"
        lists += f'<div class="{cls}"><h3>Most frequent {label} words</h3><ol>{items}</ol></div>'
    out = page.left_out()
    return f"""
<section class="group" id="{esc(page.slug)}" data-category="{esc(page.category)}" data-group="{esc(page.group)}"
 data-negative="{attr(m['negative'])}" data-question-negative="{attr(m['question_negative'])}"
 data-statement-negative="{attr(m['statement_negative'])}" data-words="{page.total}"
 data-unlabelled="{sum(out.values())}">
<h2>{esc(page.group)}</h2>
<p>{esc(page.summary())}</p>
<div class="row"><img alt="bar chart of negative shares for {esc(page.group)}" width="480" src="{data_uri(page.bars_png)}">
<table class="shares"><tr><th>negative share</th><th class="num">{esc(page.group)}</th>
<th class="num">all {esc(page.category)}</th><th class="num">all groups</th></tr>{rows}</table></div>
<div class="clouds">
<figure><img alt="word cloud, question probes, {esc(page.group)}" src="{data_uri(page.question_png)}">
<figcaption>Question probes</figcaption></figure>
<figure><img alt="word cloud, statement probes, {esc(page.group)}" src="{data_uri(page.statement_png)}">
<figcaption>Statement probes</figcaption></figure></div>
{legend_html()}
<div class="words">{lists}</div>
<p class="small">Not counted in the shares: {sum(out.values())} of {page.total} words
({out['neutral']} neutral, {out['both']} both positive and negative, {out['unassigned']} not in the lexicon).
<a href="png/{esc(page.category_slug)}/{esc(page.slug)}.png">Slide (PNG)</a> · <a href="#top">top</a></p>
</section>"""


def category_page(category: str, pages: Sequence[GroupPage], meta: str, settings: str, data_uri) -> str:
    ranked = sorted(pages, key=lambda p: _rank_key(p.mine["negative"], p.group))
    toc = "".join(
        f'<tr><td><a href="#{esc(p.slug)}">{esc(p.group)}</a></td><td class="num">{pct(p.mine["negative"])}</td>'
        f'<td class="num">{pct(p.mine["question_negative"])}</td><td class="num">{pct(p.mine["statement_negative"])}</td></tr>'
        for p in ranked
    )
    body = (
        settings
        + f'<h2>Groups, most negative first</h2><table class="toc"><tr><th>group</th><th class="num">negative</th>'
        f'<th class="num">question</th><th class="num">statement</th></tr>{toc}</table>'
        + "".join(group_section(p, data_uri) for p in sorted(pages, key=lambda p: _sort_name(p.group)))
    )
    return PAGE.substitute(
        title=esc(f"Stereotype briefing: {category}"),
        css=CSS,
        nav='<a href="index.html">all categories and groups</a>',
        meta=meta,
        note=NOTE,
        body=body,
    )


def index_page(pages: Sequence[GroupPage], categories: dict[str, str], table4: Sequence[dict], figure_uri: str,
               meta: str, settings: str) -> str:
    ranked = sorted(pages, key=lambda p: _rank_key(p.mine["negative"], p.group))
    rows = "".join(
        f'<tr data-category="{esc(p.category)}" data-group="{esc(p.group)}" data-negative="{attr(p.mine["negative"])}">'
        f'<td class="num">{i}</td><td><a href="{esc(categories[p.category])}#{esc(p.slug)}">{esc(p.group)}</a></td>'
        f'<td><a href="{esc(categories[p.category])}">{esc(p.category)}</a></td><td class="num">{pct(p.mine["negative"])}</td>'
        f'<td class="num">{pct(p.mine["question_negative"])}</td><td class="num">{pct(p.mine["statement_negative"])}</td>'
        f'<td class="num">{p.total - sum(p.left_out().values())}</td></tr>'
        for i, p in enumerate(ranked, 1)
    )
    cats = "".join(
        f'<tr><td>{_cat_link(r["category"], categories)}</td><td class="num">{pct(r["negative"])}</td>'
        f'<td class="num">{pct(r["question_negative"])}</td><td class="num">{pct(r["statement_negative"])}</td></tr>'
        for r in table4
    )
    body = (
        settings
        + '<h2>Categories</h2><table class="cats"><tr><th>category</th><th class="num">negative</th>'
        f'<th class="num">question</th><th class="num">statement</th></tr>{cats}</table>'
        + (f'<p><img alt="negative share per category, question vs statement" style="max-width:100%" src="{figure_uri}"></p>'
           if figure_uri else "")
        + '<h2>All groups ranked by negative share</h2><table class="ranking"><tr><th class="num">#</th><th>group</th>'
        '<th>category</th><th class="num">negative</th><th class="num">question</th><th class="num">statement</th>'
        f'<th class="num">labelled words</th></tr>{rows}</table>'
    )
    return PAGE.substitute(
        title="Stereotype briefings: all groups", css=CSS, nav="", meta=meta, note=NOTE, body=body
    )


def _cat_link(category: str, pages: dict[str, str]) -> str:
    if category in pages:
        return f'<a href="{esc(pages[category])}">{esc(category)}</a>'
    return esc("all categories" if category == "all" else category)


def _sort_name(name: str) -> str:
    return "".join(ch for ch in name.lower() if ch.isalnum() or ch == " ").strip()


def _rank_key(value: float, name: str) -> tuple:
    return (math.isnan(value), -value if not math.isnan(value) else 0, name.lower())
