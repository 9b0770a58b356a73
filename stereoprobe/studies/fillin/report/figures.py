"""Charts drawn with matplotlib (Agg): the paper's Figures 2 and 3 and a group's bar chart.

Every function returns a ``matplotlib.figure.Figure`` (no pyplot state), so a notebook
can show it and the report can save it with :func:`save`.
"""

from __future__ import annotations

import math
import textwrap
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from stereoprobe.page import palette
from stereoprobe.studies.fillin.report.data import ALL, SentimentData
from stereoprobe.page.figures import figure as _figure, row_labels, save, tex_safe, texts, to_image, to_png  # noqa: F401
from stereoprobe.page.numbers import Share

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.figure import Figure

QUESTION, STATEMENT = "#b35806", "#5e3c99"  # orange / purple: not the sentiment colours
GROUP, CATEGORY, EVERYONE = "#2b5c8a", "#8fb3d9", "#c8c8c8"


def _caption(fig: "Figure", text: str) -> None:
    fig.text(0.01, 0.005, tex_safe(text), fontsize=9, color="#555555", ha="left", va="bottom", wrap=True)


def _bars(ax, x, shares: list[Share], width: float, colour: str, label: str) -> None:
    """Bars of shares with interval whiskers and a rounded label; too-few shares drawn as n/a."""
    import numpy as np

    values = [s.value if s.shown else math.nan for s in shares]
    bars = ax.bar(x, np.nan_to_num(values), width, color=colour, label=tex_safe(label))
    lo = [s.value - s.low if s.has_interval else 0 for s in shares]
    hi = [s.high - s.value if s.has_interval else 0 for s in shares]
    if any(lo) or any(hi):
        ax.errorbar(x, np.nan_to_num(values), yerr=[lo, hi], fmt="none", ecolor="#111111", elinewidth=1.2,
                    capsize=3)
    for bar, s in zip(bars, shares):
        cx = bar.get_x() + bar.get_width() / 2
        if not s.shown:
            ax.text(cx, 1, "n/a", ha="center", va="bottom", fontsize=9, color="#555555")
        else:
            top = s.high if s.has_interval else s.value
            ax.text(cx, top + 1, s.short().rstrip("%"), ha="center", va="bottom", fontsize=9)


def figure_formats(data: SentimentData) -> "Figure":
    """Figure 2 of the paper: negative share per category, question vs statement, with
    interval whiskers when the tables carry intervals."""
    import numpy as np

    cats = [c for c in data.table4["category"] if c != ALL] + [c for c in data.table4["category"] if c == ALL]
    names = [("all categories" if c == ALL else tex_safe(c)) for c in cats]
    x = np.arange(len(cats), dtype=float)
    if cats and cats[-1] == ALL and len(cats) > 1:
        x[-1] += 0.5  # set the overall bars apart
    width = max(8.0, 1.5 + 0.9 * len(cats))
    fig = _figure(width, 4.8)
    ax = fig.add_axes((0.8 / width, 0.16, 1 - 1.0 / width, 0.66))
    w = 0.38
    _bars(ax, x - w / 2, [data.share(c, None, "question_negative") for c in cats], w, QUESTION, "question probes")
    _bars(ax, x + w / 2, [data.share(c, None, "statement_negative") for c in cats], w, STATEMENT, "statement probes")
    ax.set_xticks(x, names, fontsize=9)
    ax.tick_params(axis="y", labelsize=9)
    ax.set_ylim(0, 112)
    ax.set_ylabel("negative words (% of labelled words)", fontsize=10)
    ax.set_xlabel("category of social groups", fontsize=10)
    ax.legend(loc="lower center", bbox_to_anchor=(0.5, 1.0), frameon=False, fontsize=10, ncols=2)
    ax.spines[["top", "right"]].set_visible(False)
    fig.suptitle("Negative share per category: question vs statement probes", fontsize=12, y=0.98)
    _caption(fig, data.caption())
    return fig


def _columns(data: SentimentData, category: str) -> list[tuple[str, str, str]]:
    """(template, format, label) in order: questions first, catalog order within a format."""
    known = data.template_texts()
    order = list(known)
    tpl = data.templates[data.templates["category"] == category]
    seen = set(zip(tpl["template"].tolist(), tpl["format"].tolist()))
    occ = data.occurrences[data.occurrences["category"] == category]
    seen |= set(zip(occ["template"], occ["format"]))
    cols = sorted(seen, key=lambda tf: (tf[1] != "question", order.index(tf[0]) if tf[0] in order else 99, tf[0]))
    return [(t, f, known.get(t, (f, t.replace("_", " ")))[1]) for t, f in cols]


def figure_templates(data: SentimentData, category: str) -> "Figure":
    """Figure 3 of the paper as a heatmap: negative share per group (rows) and template.

    Rows are the category's groups in the briefing's order (most negative first) under
    the category as a whole; a heatmap stays readable for 116 professions where grouped
    bars would not. Each cell shows the share and, when it is not the usual one, the
    number of answered probes behind it (n); the subtitle gives the usual n. A cell
    resting on fewer probes than a share needs (stats.shares.MIN_PROBES; in a one-sample
    run every group cell is one probe) shows its word counts instead, e.g. ``3/4``
    (negative of labelled words), and only its colour shows the share.
    """
    import numpy as np
    from matplotlib import colormaps

    cols = _columns(data, category)
    grid = _template_grid(data, category, cols)
    n, m = len(grid.names), max(len(cols), 1)
    names = [tex_safe(name if len(name) <= 40 else name[:39] + "…") for name in grid.names]
    left, cell, row, top, bottom = 0.3 + 0.07 * max(map(len, names)), 0.95, 0.27, 1.75, 0.5
    width = max(7.5, left + cell * m + 1.4)
    height = top + bottom + row * n
    fig = _figure(width, height)
    ax = fig.add_axes((left / width, bottom / height, cell * m / width, row * n / height))
    cmap = colormaps[palette.cmap_name()].with_extremes(bad="#eeeeee")
    im = ax.imshow(np.ma.masked_invalid(grid.values), cmap=cmap, vmin=0, vmax=100, aspect="auto",
                   interpolation="nearest")
    _template_cells(ax, grid, cmap)
    _template_axes(ax, names, cols)
    bar_h = min(row * n, 2.5)  # the colour key sits beside the first rows, where readers start
    cax = fig.add_axes(((left + cell * m + 0.25) / width, (bottom + row * n - bar_h) / height, 0.15 / width, bar_h / height))
    fig.colorbar(im, cax=cax).set_label("negative words (%)", fontsize=9)
    cax.tick_params(labelsize=9)
    fig.text(0.5, 1 - 0.1 / height, tex_safe(f"Negative share per template: {category}"), fontsize=12, ha="center",
             va="top")
    fig.text(0.5, 1 - 0.42 / height, textwrap.fill(_template_subtitle(grid.usual), int(width * 13)), fontsize=9,
             color="#444444", ha="center", va="top")
    _caption(fig, data.caption())
    return fig


@dataclass(frozen=True)
class _TemplateGrid:
    """Figure 3's cells: the category's row on top, then its groups, one column per template."""

    names: list[str]  # row labels, before shortening
    values: Any  # negative share (%) per cell, NaN without labelled words (numpy array)
    n_cells: Any  # answered probes per cell (numpy array)
    word_counts: list[list[tuple[int, int]]]  # (negative, labelled) words per cell
    usual: int  # the most common number of answered probes in a group cell


def _template_grid(data: SentimentData, category: str, cols: list[tuple[str, str, str]]) -> _TemplateGrid:
    """The heatmap's numbers: shares, probe counts and word counts per row and template."""
    import numpy as np

    shares = data.template_shares(category)
    counts = data.template_probes(category)
    neg_words, polar_words = data.template_counts(category)
    g = data.groups[data.groups["category"] == category].sort_values("negative", ascending=False, na_position="last")
    tpl = data.templates[data.templates["category"] == category]
    cat_row = [
        float(tpl.loc[(tpl["template"] == t) & (tpl["format"] == f), "negative"].iloc[0])
        if ((tpl["template"] == t) & (tpl["format"] == f)).any()
        else math.nan
        for t, f, _ in cols
    ]
    cat_n = [int(counts[t].sum()) if t in counts.columns else 0 for t, _, _ in cols]
    names = [f"all {category} groups"] + list(g["group"])
    groups, templates = list(g["group"]), [t for t, _, _ in cols]

    def cells(table, fill):  # a value per group (rows, in g's order) and column; ``fill`` where none
        return table.reindex(index=groups, columns=templates).to_numpy(dtype=float, na_value=fill)

    grid = [cat_row] + cells(shares, math.nan).tolist()
    ns = [cat_n] + cells(counts, 0).astype(int).tolist()
    neg, polar = cells(neg_words, 0).astype(int).tolist(), cells(polar_words, 0).astype(int).tolist()
    word_counts = [[(int(neg_words[t].sum()) if t in neg_words.columns else 0,
                     int(polar_words[t].sum()) if t in polar_words.columns else 0) for t, _, _ in cols]]
    word_counts += [list(zip(n_row, p_row)) for n_row, p_row in zip(neg, polar)]
    group_ns = [v for row in ns[1:] for v in row if v]
    return _TemplateGrid(
        names=names,
        values=np.array(grid, dtype=float).reshape(len(names), len(cols)),
        n_cells=np.array(ns, dtype=int).reshape(len(names), len(cols)),
        word_counts=word_counts,
        usual=max(set(group_ns), key=group_ns.count) if group_ns else 1,
    )


def _template_cells(ax, grid: _TemplateGrid, cmap) -> None:
    """Each cell's text: the share, or its word counts when too few probes; (n=…) when unusual."""
    from stereoprobe.stats.shares import MIN_PROBES

    items = []
    n_rows, n_cols = grid.values.shape
    for i in range(n_rows):
        for j in range(n_cols):
            v, k = grid.values[i, j], grid.n_cells[i, j]
            n_note = "" if (i > 0 and k == grid.usual) else f" (n={k})"
            if math.isnan(v):
                text, colour = "–", "#555555"
            else:
                if k < MIN_PROBES:  # too few probes for a share: the word counts it rests on
                    text = "{}/{}".format(*grid.word_counts[i][j]) + n_note
                else:
                    text = f"{math.floor(v + 0.5):.0f}" + n_note
                colour = _text_on(cmap(v / 100))
            items.append((j, i, text, colour, "bold" if i == 0 else "normal"))
    texts(ax, items, ha="center", va="center", fontsize=9, label="cells")


def _template_axes(ax, names: list[str], cols: list[tuple[str, str, str]]) -> None:
    """Row and column labels, the white rules under the category row and between the formats,
    and the 'question probes' / 'statement probes' headings."""
    n = len(names)
    row_labels(ax, [(name, "bold" if i == 0 else "normal") for i, name in enumerate(names)], fontsize=9)
    ax.set_xticks(range(len(cols)), ["\n".join(textwrap.wrap(tex_safe(lbl), 14)) for _, _, lbl in cols], fontsize=9)
    ax.xaxis.tick_top()
    ax.tick_params(length=0)
    if n > 1:
        ax.axhline(0.5, color="white", lw=3)
    nq = sum(1 for _, f, _ in cols if f == "question")
    if 0 < nq < len(cols):
        ax.axvline(nq - 0.5, color="white", lw=3)
    for start, count, label in ((0, nq, "question probes"), (nq, len(cols) - nq, "statement probes")):
        if count:
            ax.annotate(label, xy=(start + count / 2 - 0.5, 1), xycoords=("data", "axes fraction"),
                        xytext=(0, 38), textcoords="offset points", ha="center", fontsize=10, fontweight="bold")


def _template_subtitle(usual: int) -> str:
    from stereoprobe.stats.shares import MIN_PROBES

    probe_word = "probe" if usual == 1 else "probes"
    if usual < MIN_PROBES:
        return (f"Colour: % of labelled words that are negative. A group cell is {usual} answered {probe_word}, too few "
                "for a share, so it shows negative / labelled words. Top row: % negative over n probes; "
                "– : no labelled words.")
    return (f"% of labelled words that are negative; each group cell rests on {usual} answered {probe_word} "
            "unless (n=…) says otherwise; – : no labelled words")


def _text_on(rgba) -> str:
    """Black or white, whichever contrasts more with a cell's colour (WCAG luminance)."""
    lin = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in rgba[:3]]
    lum = 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]
    return "black" if (lum + 0.05) / 0.05 >= 1.05 / (lum + 0.05) else "white"


def figure_group(data: SentimentData, category: str, group: str) -> "Figure":
    """A group's negative share beside its category's and all groups', per format, with intervals."""
    keys = ("negative", "question_negative", "statement_negative")
    mine = {k: data.share(category, group, k) for k in keys}
    cat = {k: data.share(category, None, k) for k in keys}
    everyone = {k: data.share(ALL, None, k) for k in keys}
    return group_bars(group, category, mine, cat, everyone)


def group_bars(group: str, category: str, mine: dict, cat: dict, everyone: dict) -> "Figure":
    """Bars of Shares (page/numbers.py) for a group, its category and all groups."""
    import numpy as np

    keys = (("question_negative", "question"), ("statement_negative", "statement"), ("negative", "both formats"))
    fig = _figure(6.4, 3.2)
    ax = fig.add_axes((0.1, 0.14, 0.88, 0.7))
    x = np.arange(len(keys))
    w = 0.27
    short = group if len(group) <= 28 else group[:27] + "…"
    for k, (rows, colour, name) in enumerate(
        ((mine, GROUP, short), (cat, CATEGORY, f"all {category}"), (everyone, EVERYONE, "all groups"))
    ):
        _bars(ax, x + (k - 1) * w, [rows[key] for key, _ in keys], w, colour, name)
    ax.set_xticks(x, [name for _, name in keys], fontsize=10)
    ax.tick_params(axis="y", labelsize=9)
    ax.set_ylim(0, 112)
    ax.set_ylabel("negative words (%)", fontsize=10)
    ax.spines[["top", "right"]].set_visible(False)
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, 1.2), ncols=3, frameon=False, fontsize=9)
    return fig
