"""DIR/index.html: one self-contained, offline page (figures embedded, no scripts fetched).

Sections: what was compared (runs, labeller, alignment); per category a dot-and-interval
plot; the group x pair heatmaps; a sortable table of every category and group
difference; against people, amplification and recall; per group a drill-down with each
probe and every run's words side by side, coloured by label.
"""

from __future__ import annotations

import base64
import html
import math
from typing import Any, Sequence

from stereoprobe.studies.fillin.compare.figures import LABEL_COLOURS, OTHER_COLOUR, run_colour

CSS_EXTRA = """
.w{padding:0 2px}.w.n{color:%(neg)s;font-weight:bold}.w.p{color:%(pos)s;font-weight:bold}.w.o{color:%(other)s}
table.sort th{cursor:pointer;background:#f3f3f3;position:sticky;top:0}table.sort th:after{content:" \\2195";color:#aaa}
details{margin:4px 0;border-bottom:1px solid #eee}summary{cursor:pointer;padding:3px 0}
td.words{max-width:260px;font-size:13px}.sig{font-weight:bold}.key span{font-weight:bold;margin-right:10px}
.scroll{max-height:520px;overflow:auto;border:1px solid #ddd}img.fig{max-width:100%%;border:1px solid #eee}
""" % {"neg": LABEL_COLOURS["negative"], "pos": LABEL_COLOURS["positive"], "other": OTHER_COLOUR}

SORT_JS = """
document.querySelectorAll('table.sort').forEach(function(t){
  t.querySelectorAll('th').forEach(function(th,i){th.addEventListener('click',function(){
    var rows=Array.from(t.tBodies[0].rows), asc=th.dataset.asc!=='1'; th.dataset.asc=asc?'1':'0';
    rows.sort(function(a,b){var x=a.cells[i].dataset.v||a.cells[i].textContent, y=b.cells[i].dataset.v||b.cells[i].textContent;
      var nx=parseFloat(x), ny=parseFloat(y); if(!isNaN(nx)&&!isNaN(ny)){return asc?nx-ny:ny-nx;}
      return asc?x.localeCompare(y):y.localeCompare(x);});
    rows.forEach(function(r){t.tBodies[0].appendChild(r);});});});});
"""

esc = html.escape


def _uri(png: bytes) -> str:
    return "data:image/png;base64," + base64.b64encode(png).decode("ascii")


def _num(x: Any, signed: bool = False) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return ""
    return f"{x:+.1f}" if signed else f"{x:.1f}"


def _q(x: Any) -> str:
    return "" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.3g}"


def _table(df: Any, columns: Sequence[tuple[str, str]], sortable: bool = True, cls: str = "") -> str:
    head = "".join(f"<th>{esc(label)}</th>" for _, label in columns)
    body = []
    for r in df.itertuples(index=False):
        cells = []
        for col, _ in columns:
            v = getattr(r, col)
            if isinstance(v, float):
                text = _q(v) if col in ("p", "q") else _num(v, signed=col in ("difference", "amplification"))
                cells.append(f'<td class="num" data-v="{"" if math.isnan(v) else v}">{text}</td>')
            elif isinstance(v, int) and not isinstance(v, bool):  # counts: right-aligned, 2,292 (it read 2292)
                cells.append(f'<td class="num" data-v="{v}">{v:,}</td>')
            else:
                cells.append(f"<td>{esc(str(v))}</td>")
        body.append("<tr>" + "".join(cells) + "</tr>")
    klass = " ".join(x for x in ("sort" if sortable else "", cls) if x)
    return f'<table class="{klass}"><thead><tr>{head}</tr></thead><tbody>{"".join(body)}</tbody></table>'


def _words(words: Sequence[tuple[str, str]]) -> str:
    cls = {"negative": "n", "positive": "p"}
    return " ".join(f'<span class="w {cls.get(lab, "o")}">{esc(w)}</span>' for w, lab in words)


def drilldown(loaded: Sequence[Any], differences: Any) -> str:
    """Per group a <details>: each probe, every run's words coloured by label."""
    import pandas as pd

    names = [r.name for r in loaded]
    words: dict[tuple[str, str], list[tuple[str, str]]] = {}
    for r in loaded:
        occ = r.occurrences
        for pid, w, lab in zip(occ["probe_id"], occ["word"], occ["label"]):
            words.setdefault((r.name, pid), []).append((w, lab))
    probes = pd.concat([r.probes.assign(run=r.name) for r in loaded], ignore_index=True)
    texts = probes.drop_duplicates("probe_id").set_index("probe_id")["text"]
    d = differences[(differences.level == "group") & (differences.format == "all")]
    verdicts = {(r.category, r.group): [] for r in d.itertuples()}
    for r in d.itertuples():
        if r.verdict != "not distinguishable":
            verdicts[(r.category, r.group)].append(f"{r.run_a} vs {r.run_b}: {r.verdict} ({_num(r.difference, True)})")
    out = []
    head = "".join(f'<th style="color:{run_colour(i)}">{esc(n)}</th>' for i, n in enumerate(names))
    for (cat, grp), sub in probes.groupby(["category", "group"], sort=True):
        ids = list(dict.fromkeys(sub.sort_values(["format", "template"]).probe_id))
        rows = []
        for pid in ids:
            cells = "".join(f'<td class="words">{_words(words.get((n, pid), []))}</td>' for n in names)
            rows.append(f"<tr><td>{esc(str(texts.get(pid, pid)))}</td>{cells}</tr>")
        found = verdicts.get((cat, grp)) or []
        note = f' <span class="sig">{esc("; ".join(found))}</span>' if found else ""
        out.append(
            f"<details><summary>{esc(cat)} / {esc(grp)}{note}</summary>"
            f"<table><thead><tr><th>probe</th>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table></details>"
        )
    return "".join(out)


def _people(result: Any) -> list[str]:
    """The sections on a model against people (a baseline run): amplification and recall."""
    parts: list[str] = []
    if len(result.amplification):
        amp = result.amplification[(result.amplification.level != "group") & (result.amplification.format == "all")]
        parts += ["<h2>Model against people</h2>",
                  "<p>Amplification: the model's negative share minus people's, on the probes both have, every "
                  "common probe counted once in both runs (people's queries carry many completions, a model's probes "
                  "ten words). These are shares on the common probes only, not Table 4's.</p>",
                  _table(amp, [("model", "model"), ("baseline", "people"), ("level", "level"), ("category", "category"),
                               ("model_negative", "model neg % (common probes)"),
                               ("human_negative", "people neg % (common probes)"),
                               ("amplification", "amplification"), ("q", "q"), ("verdict", "verdict")])]
    if len(result.recall):
        parts += ["<p>Recall: the share of people's distinct words for a group that the model also gave for it.</p>",
                  _table(result.recall, [("model", "model"), ("baseline", "people"), ("category", "category"),
                                         ("groups", "groups"), ("human_words", "people's words"), ("found", "found"),
                                         ("recall", "recall %"), ("recall_mean_group", "mean over groups %")])]
    return parts


def render(result: Any, figures: dict[str, bytes], heatmaps: list[tuple[str, bytes]]) -> str:
    """The whole page as a string."""
    from stereoprobe.page.shell import CSS

    meta = result.meta
    runs = result.runs
    key = " ".join(f'<span style="color:{run_colour(i)}">&#9679; {esc(n)}</span>' for i, n in enumerate(runs.run))
    people = runs.assign(baseline=["yes" if b else "no" for b in runs.baseline])  # it printed True / False
    run_rows = _table(people, [("run", "run"), ("model", "model"), ("baseline", "people?"), ("records", "records"),
                             ("probes", "probes"), ("missing_vs_others", "missing (others have)")], sortable=False)
    pair_rows = _table(result.pairs, [("run_a", "run A"), ("run_b", "run B"), ("common", "common probes"),
                                      ("only_a", "only in A"), ("only_b", "only in B")], sortable=False)
    stats = meta["statistics"]
    d = result.differences
    main = d[(d.level != "group") | (d.format == "all")].copy()
    main["interval"] = [f"{_num(a, True)} to {_num(b, True)}" if not math.isnan(a) else "" for a, b in zip(main.ci_low, main.ci_high)]
    table = _table(main, [("run_a", "A"), ("run_b", "B"), ("level", "level"), ("category", "category"), ("group", "group"),
                          ("format", "format"), ("negative_a", "A neg %"), ("negative_b", "B neg %"),
                          ("difference", "A - B"), ("interval", "95% interval"), ("q", "q"), ("verdict", "verdict")])
    parts = [
        f'<p class="meta">{esc(meta["labeller"]["description"])}. Statistics: {esc(stats["method"])}; '
        f'level {stats["level"]:g}. stereoprobe {esc(meta["stereoprobe_version"])}, {esc(meta["created_at"])}.</p>',
        '<div class="note">A difference is run A\'s negative share minus run B\'s, in points, on the probes both '
        'runs answered. Intervals and tests are paired: each probe\'s contribution is A\'s minus B\'s, so what a '
        'group or a template does to both runs cancels. Estimand: <b>these templates</b> (the wordings are fixed); '
        'category and overall cells generalise over groups like these, a group\'s cells are that group at these '
        'templates. q is the Benjamini-Hochberg adjusted p-value within each pair and level; a verdict other '
        f'than "not distinguishable" needs q &lt; {stats["alpha"]:g}. Against people (a baseline run) the '
        'difference is the amplification, with every common probe counted once in both runs (people\'s queries '
        'carry tens of completions, a model\'s probes ten words). See docs/compare.md.</div>',
        "<h2>Runs and alignment</h2>", run_rows, "<h3>Pairs</h3>", pair_rows,
        "<h2>Negative share per category</h2>", f'<p class="key">{key}</p>',
        f'<img class="fig" alt="negative share per category and run, with intervals" src="{_uri(figures["categories"])}">',
    ]
    if result.lexicon_band is not None:
        band = result.lexicon_band.copy()
        parts += ["<h3>Across lexicons</h3>",
                  '<p class="small">The grey band spans the shares the lexicons give ('
                  + esc(", ".join(meta["lexicons"])) + "); the dot is the comparison's own labeller.</p>",
                  _table(band, [("run", "run"), ("category", "category"), ("reference", "this labeller %"),
                                ("band_low", "lowest %"), ("band_high", "highest %")])]
    parts.append("<h2>Groups: differences per pair</h2>")
    for cat, png in heatmaps:
        parts.append(f'<h3>{esc(cat)}</h3><img class="fig" alt="heatmap of group differences, {esc(cat)}" src="{_uri(png)}">')
    parts += ["<h2>All differences</h2>", '<p class="small">Click a column to sort.</p>',
              f'<div class="scroll">{table}</div>']
    parts += _people(result)
    parts += ["<h2>Per group: every probe, every run's words</h2>",
              '<p class="legend"><span class="w n">negative</span> <span class="w p">positive</span> '
              '<span class="w o">neutral, both or not in the lexicon (not counted)</span></p>',
              drilldown(result.loaded, d)]
    title = "Comparison: " + " vs ".join(runs.run)
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{esc(title)}</title><style>{CSS}{CSS_EXTRA}</style></head><body>"
        f"<h1>{esc(title)}</h1>{''.join(parts)}<script>{SORT_JS}</script></body></html>"
    )
