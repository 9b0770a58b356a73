"""Briefings: one self-contained HTML page per category, an index, a PNG slide per group.

HTML is built with string.Template and html.escape only; every piece of text from the
data (group names include slurs and quotes) goes through :func:`esc`. Images are
embedded as data: URIs, charts of shares are inline SVG, there is no external CSS, JS or
font, so a page works offline and the folder can be zipped and e-mailed.

Order of a page: key findings in words, which model (and what it is not), coverage, the
table of shares with their probes, figures, one section per group (chart, clouds, top
words, the probes with the model's words), the words labelled through synonyms, and the
settings, collapsed, at the end.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Sequence

from stereoprobe.studies.fillin.report.clouds import colour_of, compose_png, fit_text, font, legend
from stereoprobe.studies.fillin.report.data import LEFT_OUT
from stereoprobe.page.numbers import Share
from stereoprobe.page.shell import CSS, PAGE, esc, settings_html  # noqa: F401  (the shared page shell)
from stereoprobe.studies.fillin.report.words import Word

if TYPE_CHECKING:  # pragma: no cover
    from PIL import Image

NOTE = (
    "<p><strong>What the numbers mean.</strong> The model was asked to complete probes such as "
    "“why are &lt;group&gt; so …” (questions) and “&lt;group&gt; are so …” (statements). The probes "
    "are shaped like stereotypes on purpose, to bring out the associations the model holds. Each "
    "returned word was looked up in the NRC Emotion Lexicon (EmoLex): directly, by its lemma, or "
    "through WordNet synonyms (marked *). A <em>negative share</em> is the percentage of labelled "
    "words (positive or negative) that are negative; neutral words, words marked both positive and "
    "negative, and words not found are left out of it and counted separately.</p>"
    "<p><strong>What they do not mean.</strong> A lexicon's labels are context-free: “radical” is "
    "positive in NRC whatever group it describes, and a word can be harmless about one group and "
    "hurtful about another. The shares describe one model's completions on one date with the "
    "settings at the end of this page, not what people think of a group.</p>"
)
KEYS = (("question_negative", "question probes"), ("statement_negative", "statement probes"),
        ("negative", "both formats"))


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
    mine: dict[str, Share]
    cat: dict[str, Share]
    everyone: dict[str, Share]
    words: list[Word]
    counts: dict[str, int | None] = field(default_factory=dict)  # asked/answered/refused/failed
    probes: list[dict[str, Any]] = field(default_factory=list)
    evidence: dict[str, tuple[str, str, bool]] = field(default_factory=dict)
    vs_category: str = ""
    words_by_format: dict[str, list[Word]] = field(default_factory=dict)  # question / statement
    question_png: bytes = b""
    statement_png: bytes = b""
    slide: bool = False

    def top(self, label: str, n: int = 10) -> list[Word]:
        return [w for w in self.words if w.label == label][:n]

    def left_out(self) -> dict[str, int]:
        return {k: sum(w.count for w in self.words if w.label == k) for k in LEFT_OUT}

    @property
    def total(self) -> int:
        return sum(w.count for w in self.words)

    @property
    def labelled(self) -> int:
        return self.total - sum(self.left_out().values())

    def answered_text(self) -> str:
        """``answered 4 of 6 probes (1 refused, 1 failed)``."""
        c = self.counts
        if c.get("asked") is None:
            return f"answered {c.get('answered', 0)} probes"
        extra = [f"{c[k]} {k}" for k in ("refused", "failed") if c.get(k)]
        return f"answered {c['answered']} of {c['asked']} probes" + (f" ({', '.join(extra)})" if extra else "")

    def summary(self) -> str:
        if not self.labelled:
            return f"None of the {self.total} words returned for {self.group} has a positive or negative label."
        q, s = self.mine["question_negative"], self.mine["statement_negative"]
        return (
            f"{self.labelled} of the {self.total} words returned for {self.group} carry a positive or negative "
            f"label. Negative share after a question: {q.text()}; after a statement: {s.text()} "
            f"(all {self.category} groups: {self.cat['question_negative'].text()} and "
            f"{self.cat['statement_negative'].text()})."
        )

    def alt(self, fmt: str) -> str:
        """Alt text of a cloud: the share and the top words."""
        key = f"{fmt}_negative"
        words = self.words_by_format.get(fmt, [])[:8]
        listed = ", ".join(f"{w.word} ({w.label}, {w.count})" for w in words) or "no words"
        return f"Word cloud, {fmt} probes, {self.group}: negative share {self.mine[key].text()}. Top words: {listed}."


# -- the per-group PNG for slides (--figures all) ---------------------------------------

def group_slide(page: GroupPage, question: "Image.Image", statement: "Image.Image", bars: "Image.Image",
                caption: str) -> "Image.Image":
    """A 1600x900 slide: title, bar chart, top words, question | statement clouds, note."""
    from PIL import Image, ImageDraw

    W, H = 1600, 900
    img = Image.new("RGB", (W, H), "white")
    d = ImageDraw.Draw(img)
    d.text((40, 24), fit_text(page.group, font(40, True), W - 80), fill="black", font=font(40, True))
    d.text((40, 72), fit_text(f"category: {page.category} · {page.answered_text()}", font(18), W - 80),
           fill="#444", font=font(18))
    d.text((40, 98), fit_text(caption, font(15), W - 80), fill="#555", font=font(15))
    bars = bars.resize((int(bars.width * 315 / bars.height), 315))
    img.paste(bars, (30, 122))
    x0 = 40 + bars.width + 30
    colw = (W - x0 - 40) // 2
    for k, label in enumerate(("negative", "positive")):
        x = x0 + k * colw
        d.text((x, 126), f"Most frequent {label} words", fill=colour_of(label), font=font(20, True))
        words = page.top(label, 9)
        for i, w in enumerate(words):
            mark = "*" if page.evidence.get(w.word, ("",))[0] == "synonyms" else ""
            d.text((x, 158 + 29 * i), fit_text(f"{w.word}{mark}  ({w.count})", font(19), colw - 10), fill="#222",
                   font=font(19))
        if not words:
            d.text((x, 152), "none", fill="#666", font=font(19))
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
    note = ("Shares are % of words with a positive or negative NRC label (* = via WordNet synonyms). Labels are "
            "context-free; the probes are stereotype-shaped on purpose; see the HTML briefing for details.")
    d.text((40, H - 34), fit_text(note, font(15), W - 80), fill="#555", font=font(15))
    return img


# -- HTML ------------------------------------------------------------------------------

def page(title: str, nav: str, meta: str, findings: Sequence[str], model: str, body: str, settings: str) -> str:
    from stereoprobe.page import palette

    return PAGE.substitute(
        title=esc(title), nav=nav, meta=meta, findings="".join(f"<li>{esc(f)}</li>" for f in findings),
        model=esc(model), body=body, note=NOTE, settings=settings, css=CSS,
        pos=palette.colour("positive"), neg=palette.colour("negative"),
    )


def legend_html() -> str:
    return '<p class="legend">Word colours:' + "".join(
        f'<span style="background:{c}"></span>{esc(t)}' for c, t in legend()
    ) + ". Word size: how often the model returned it. * labelled only through WordNet synonyms.</p>"


def word_html(word: str, label: str, evidence: dict[str, tuple[str, str, bool]]) -> str:
    """A word coloured by its label; ``hard*`` with the synonym voters on hover."""
    cls = {"positive": "p", "negative": "n"}.get(label, "o")
    source, voters, single = evidence.get(word, ("", "", False))
    if source == "synonyms":
        tip = f"{label} through WordNet synonyms: {voters}" + (" (decided by one vote)" if single else "")
        flag = "<sup>1</sup>" if single else ""
        return f'<span class="{cls}" title="{esc(tip)}">{esc(word)}*{flag}</span>'
    return f'<span class="{cls}">{esc(word)}</span>'


def bars_svg(page_: GroupPage) -> str:
    """The group's negative shares beside its category's and all groups', with intervals,
    as an inline SVG (text 12 px; a share resting on too few probes is not drawn)."""
    from stereoprobe.studies.fillin.report.figures import CATEGORY, EVERYONE, GROUP

    W, H, left, top, bottom = 470, 210, 44, 34, 36
    plot_h = H - top - bottom
    sets = ((page_.mine, GROUP, page_.group), (page_.cat, CATEGORY, f"all {page_.category}"),
            (page_.everyone, EVERYONE, "all groups"))
    cluster = (W - left - 10) / len(KEYS)
    bw = cluster / 4
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" viewBox="0 0 {W} {H}" role="img" '
           f'aria-labelledby="t-{esc(page_.slug)}" font-family="DejaVu Sans, Verdana, sans-serif" font-size="12">',
           f'<title id="t-{esc(page_.slug)}">{esc(_bars_alt(page_))}</title>']
    for v in (0, 50, 100):
        y = top + plot_h * (1 - v / 100)
        out.append(f'<line x1="{left}" x2="{W - 8}" y1="{y:.1f}" y2="{y:.1f}" stroke="#ddd"/>'
                   f'<text x="{left - 4}" y="{y + 4:.1f}" text-anchor="end" fill="#444">{v}%</text>')
    for i, (key, name) in enumerate(KEYS):
        x0 = left + i * cluster + bw / 2
        for k, (shares, colour, _) in enumerate(sets):
            s = shares[key]
            x = x0 + k * bw
            if s.shown:
                h = plot_h * s.value / 100
                out.append(f'<rect x="{x:.1f}" y="{top + plot_h - h:.1f}" width="{bw - 2:.1f}" height="{h:.1f}" '
                           f'fill="{colour}"/>')
                if s.has_interval:
                    y1, y2 = top + plot_h * (1 - s.high / 100), top + plot_h * (1 - s.low / 100)
                    cx = x + (bw - 2) / 2
                    out.append(f'<path d="M{cx:.1f} {y1:.1f}V{y2:.1f}M{cx - 4:.1f} {y1:.1f}h8M{cx - 4:.1f} {y2:.1f}h8" '
                               'stroke="#111" stroke-width="1.3"/>')
            else:
                out.append(f'<text x="{x + bw / 2:.1f}" y="{top + plot_h - 4}" text-anchor="middle" fill="#555" '
                           'font-size="12">n/a</text>')
        out.append(f'<text x="{left + i * cluster + cluster / 2:.1f}" y="{H - bottom + 16}" text-anchor="middle" '
                   f'fill="#222">{esc(name)}</text>')
    x = left
    for _, colour, name in sets:
        short = name if len(name) <= 22 else name[:21] + "…"
        out.append(f'<rect x="{x}" y="8" width="12" height="12" fill="{colour}"/>'
                   f'<text x="{x + 16}" y="18" fill="#222">{esc(short)}</text>')
        x += 30 + int(7.2 * len(short))
    out.append(f'<text x="{left}" y="{H - 4}" fill="#444" font-size="12">negative words, % of labelled words'
               f'{"; whiskers: interval" if page_.mine["negative"].has_interval else ""}</text>')
    out.append("</svg>")
    return "".join(out)


def _bars_alt(p: GroupPage) -> str:
    parts = [f"{name}: {p.group} {p.mine[key].text()}, all {p.category} {p.cat[key].text()}, "
             f"all groups {p.everyone[key].text()}" for key, name in KEYS]
    return "Negative share. " + "; ".join(parts) + "."


def _share_td(s: Share, field_name: str = "") -> str:
    data = f' data-field="{field_name}"' if field_name else ""
    return f'<td class="num"{data}>{esc(s.text())}</td>'


def group_section(p: GroupPage, data_uri: Callable[[bytes], str]) -> str:
    rows = "".join(
        f'<tr><th scope="row">{name}</th>{_share_td(p.mine[key], key)}{_share_td(p.cat[key])}'
        f'{_share_td(p.everyone[key])}</tr>'
        for key, name in KEYS
    )
    lists = ""
    for label in ("negative", "positive"):
        items = "".join(
            f'<li>{word_html(w.word, w.label, p.evidence)} <span class="c">({w.count})</span></li>' for w in p.top(label)
        ) or "<li>none</li>"
        lists += f'<div><h3 class="w-{label}">Most frequent {label} words</h3><ol>{items}</ol></div>'
    out = p.left_out()
    vs = f' <span class="flag">({esc(p.vs_category)} than the category)</span>' if p.vs_category in (
        "more negative", "less negative") else (
        ' <span class="flag">(not distinguishable from its category)</span>' if p.vs_category == "not distinguishable" else "")
    slide = (f' · <a href="png/{esc(p.category_slug)}/{esc(p.slug)}.png">slide (PNG)</a>' if p.slide else "")
    return f"""
<section class="group" id="{esc(p.slug)}" data-category="{esc(p.category)}" data-group="{esc(p.group)}"
 data-negative="{attr(p.mine['negative'].value)}" data-question-negative="{attr(p.mine['question_negative'].value)}"
 data-statement-negative="{attr(p.mine['statement_negative'].value)}" data-words="{p.total}"
 data-unlabelled="{sum(out.values())}" data-answered="{p.counts.get('answered', '')}">
<div class="head">
<h2>{esc(p.group)}{vs}</h2>
<p><strong>{esc(p.answered_text().capitalize())}.</strong> {esc(p.summary())}</p>
<div class="row">{bars_svg(p)}
<table class="shares"><caption>Negative share, {esc(p.group)}</caption><tr><th scope="col">probes</th>
<th scope="col" class="num">{esc(p.group)}</th><th scope="col" class="num">all {esc(p.category)}</th>
<th scope="col" class="num">all groups</th></tr>{rows}</table></div></div>
<div class="clouds">
<figure><img alt="{esc(p.alt('question'))}" src="{data_uri(p.question_png)}">
<figcaption>Question probes</figcaption></figure>
<figure><img alt="{esc(p.alt('statement'))}" src="{data_uri(p.statement_png)}">
<figcaption>Statement probes</figcaption></figure>
<div class="words">{lists}</div></div>
{legend_html()}
<p class="small">Not counted in the shares: {sum(out.values())} of {p.total} words
({out['neutral']} neutral, {out['both']} both positive and negative, {out['unassigned']} not in the lexicon).</p>
{probes_table(p)}
<p class="small toplink"><a href="#top">top</a>{slide}</p>
</section>"""


def probes_table(p: GroupPage) -> str:
    rows = []
    for probe in p.probes:
        if probe["status"] == "ok" or probe["words"]:
            words = ", ".join(word_html(w, lab, p.evidence) for w, lab in probe["words"]) or "(no words counted)"
        else:
            words = f"<em>{esc(probe['status'])}</em>"
        rows.append(f'<tr><td>{esc(probe["prompt"])}</td><td>{esc(probe["format"])}</td><td>{words}</td></tr>')
    if not rows:
        return ""
    return (f'<details class="probes"><summary>The {len(rows)} probes and the model\'s words</summary>'
            f'<table class="probes"><caption>Probes for {esc(p.group)}: the words as counted, coloured by label '
            '(positive, negative, grey: not counted; group-name words left out)</caption><tr><th scope="col">probe</th><th scope="col">format</th>'
            f'<th scope="col">words</th></tr>{"".join(rows)}</table></details>')


def shares_table(pages: Sequence[GroupPage], files: dict[str, str] | None, caption: str) -> str:
    """The groups with their shares, answered probes and comparison with their category."""
    rows = "".join(
        f'<tr data-category="{esc(p.category)}" data-group="{esc(p.group)}" data-negative="{attr(p.mine["negative"].value)}">'
        f'<th scope="row"><a href="{esc((files or {}).get(p.category, "") + "#" + p.slug)}">{esc(p.group)}</a></th>'
        + (f'<td><a href="{esc(files[p.category])}">{esc(p.category)}</a></td>' if files else "")
        + f'{_share_td(p.mine["negative"])}{_share_td(p.mine["question_negative"])}{_share_td(p.mine["statement_negative"])}'
        f'<td class="num">{esc(_answered_cell(p))}</td><td>{esc(p.vs_category or "not tested")}</td></tr>'
        for p in pages
    )
    head = ('<tr><th scope="col">group</th>' + ('<th scope="col">category</th>' if files else "")
            + '<th scope="col" class="num">negative</th><th scope="col" class="num">after a question</th>'
            '<th scope="col" class="num">after a statement</th><th scope="col" class="num">answered probes</th>'
            '<th scope="col">vs its category</th></tr>')
    return f'<table class="ranking"><caption>{esc(caption)}</caption>{head}{rows}</table>'


def _answered_cell(p: GroupPage) -> str:
    c = p.counts
    return f"{c.get('answered', 0)} of {c['asked']}" if c.get("asked") is not None else str(c.get("answered", 0))


ORDER = {"more negative": 0, "not distinguishable": 1, "": 1, "less negative": 2, "too few probes": 3}


def display_order(pages: Sequence[GroupPage]) -> list[GroupPage]:
    """Groups that stand out first, then the others by point estimate, too-few last.
    Not a ranking: the page says so."""
    return sorted(pages, key=lambda p: (p.mine["negative"].too_few or not p.mine["negative"].shown,
                                        ORDER.get(p.vs_category, 1), _rank_key(p.mine["negative"].value, p.group)))


def category_page(category: str, pages: Sequence[GroupPage], ctx: dict[str, Any], figures: str,
                  synonyms: str, data_uri) -> str:
    body = (
        '<h2>Groups</h2><p class="small">Groups that differ from their category come first; within that, by '
        'negative share. The order is not a ranking: neighbouring shares are not distinguishable.</p>'
        + shares_table(display_order(pages), None, f"Negative share per group, {category}")
        + figures
        + "".join(group_section(p, data_uri) for p in sorted(pages, key=lambda p: _sort_name(p.group)))
        + synonyms
    )
    return page(f"Stereotype briefing: {category}", '<a href="index.html">all categories and groups</a>',
                ctx["meta"], ctx["findings"], ctx["model"], body, ctx["settings"])


def index_page(pages: Sequence[GroupPage], files: dict[str, str], categories: Sequence[dict[str, Any]],
               ctx: dict[str, Any], figures: str, paper: dict[str, dict[str, float]] | None = None,
               paper_line: str = "") -> str:
    """The briefing's index; ``paper``: Busker et al.'s negative shares per category, shown under
    each category's row (only what ``studies/fillin/paper.py`` allows), ``paper_line``: the line
    under the table (what those rows are, or why they are not there)."""
    def theirs(category: str) -> str:
        row = (paper or {}).get(category)
        if not row:
            return ""
        cells = "".join(f'<td class="num">{row[k]:.1f}%</td>' for k in ("all", "question", "statement"))
        return f'<tr class="paper"><td>Busker et al. (2023)</td>{cells}<td></td></tr>'

    cats = "".join(
        f'<tr><th scope="row">{_cat_link(r["category"], files)}</th>{_share_td(r["negative"])}'
        f'{_share_td(r["question_negative"])}{_share_td(r["statement_negative"])}<td class="num">{r["probes"]}</td></tr>'
        + theirs(r["category"])
        for r in categories
    )
    body = (
        '<h2>Categories</h2><table class="cats"><caption>Negative share per category</caption><tr>'
        '<th scope="col">category</th><th scope="col" class="num">negative</th><th scope="col" class="num">after a question</th>'
        '<th scope="col" class="num">after a statement</th><th scope="col" class="num">answered probes with a labelled word</th>'
        f'</tr>{cats}</table>'
        + (f'<p class="small">{esc(paper_line)}</p>' if paper_line else "")
        + figures
        + '<h2>All groups</h2><p class="small">Groups that differ from their category come first; within that, by '
        'negative share. The order is not a ranking.</p>'
        + shares_table(display_order(pages), files, "Negative share per group, all categories")
    )
    return page("Stereotype briefings: all groups", "", ctx["meta"], ctx["findings"], ctx["model"], body,
                ctx["settings"])


def figure_html(title: str, png: bytes, alt: str, caption: str, links: Sequence[tuple[str, str]], data_uri,
                kind: str = "") -> str:
    link = " · ".join(f'<a href="{esc(href)}">{esc(text)}</a>' for text, href in links)
    return (f'<figure class="big {kind}"><img alt="{esc(alt)}" src="{data_uri(png)}">'
            f'<figcaption><strong>{esc(title)}.</strong> {esc(caption)} {link}</figcaption></figure>')


def synonyms_html(rows: Sequence[tuple[str, str, int, str, bool]]) -> str:
    """Words of a category labelled only through WordNet synonyms: word, label, count, voters."""
    if not rows:
        return ""
    body = "".join(
        f'<tr><th scope="row" class="w-{esc(lab)}">{esc(w)}*{"<sup>1</sup>" if single else ""}</th><td>{esc(lab)}</td>'
        f'<td class="num">{n}</td><td>{esc(voters)}{" — decided by one vote" if single else ""}</td></tr>'
        for w, lab, n, voters, single in rows
    )
    return ('<h2 id="synonyms">Words labelled through WordNet synonyms</h2><details class="syn" open><summary>'
            f'{len(rows)} words (marked * on this page; <sup>1</sup> = one synonym decided)</summary>'
            '<table><caption>Words not in the lexicon, labelled by the majority of their synonyms</caption><tr>'
            '<th scope="col">word</th><th scope="col">label</th><th scope="col" class="num">occurrences</th>'
            f'<th scope="col">voters (synonym: its label)</th></tr>{body}</table></details>')


def _cat_link(category: str, pages: dict[str, str]) -> str:
    if category in pages:
        return f'<a href="{esc(pages[category])}">{esc(category)}</a>'
    return esc("all categories" if category == "all" else category)


def _sort_name(name: str) -> str:
    return "".join(ch for ch in name.lower() if ch.isalnum() or ch == " ").strip()


def _rank_key(value: float, name: str) -> tuple:
    return (math.isnan(value), -value if not math.isnan(value) else 0, name.lower())
