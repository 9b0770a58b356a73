"""Charts drawn with matplotlib (Agg): the paper's Figures 2 and 3 and a group's bar chart.

Every function returns a ``matplotlib.figure.Figure`` (no pyplot state), so a notebook
can show it and the report can save it with :func:`save`.
"""

from __future__ import annotations

import io
import math
import textwrap
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

from stereoprobe.report.data import ALL, SentimentData

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.figure import Figure

QUESTION, STATEMENT = "#b35806", "#5e3c99"  # orange / purple: not the sentiment colours
GROUP, CATEGORY, EVERYONE = "#2b5c8a", "#8fb3d9", "#c8c8c8"


def _figure(width: float, height: float) -> "Figure":
    # A bare Figure (no pyplot): it saves without a GUI backend and leaves a notebook's
    # backend alone.
    from matplotlib.figure import Figure

    return Figure(figsize=(width, height), dpi=100)


def _caption(fig: "Figure", text: str) -> None:
    fig.text(0.01, 0.005, text, fontsize=8, color="#555555", ha="left", va="bottom")


def _label_bars(ax, bars, values) -> None:
    for bar, v in zip(bars, values):
        if math.isnan(v):
            ax.text(bar.get_x() + bar.get_width() / 2, 1, "n/a", ha="center", va="bottom", fontsize=8, color="#777")
        else:
            ax.text(bar.get_x() + bar.get_width() / 2, v + 1, f"{v:.1f}", ha="center", va="bottom", fontsize=8)


def figure_formats(data: SentimentData) -> "Figure":
    """Figure 2 of the paper: negative share per category, question vs statement."""
    import numpy as np

    t4 = data.table4
    rows = [r for _, r in t4.iterrows() if r["category"] != ALL] + [r for _, r in t4.iterrows() if r["category"] == ALL]
    names = [("all categories" if r["category"] == ALL else r["category"]) for r in rows]
    x = np.arange(len(rows), dtype=float)
    if rows and rows[-1]["category"] == ALL and len(rows) > 1:
        x[-1] += 0.5  # set the overall bars apart
    q = [float(r["question_negative"]) for r in rows]
    s = [float(r["statement_negative"]) for r in rows]
    width = max(8.0, 1.5 + 0.9 * len(rows))
    fig = _figure(width, 4.8)
    ax = fig.add_axes((0.8 / width, 0.16, 1 - 1.0 / width, 0.66))
    w = 0.38
    _label_bars(ax, ax.bar(x - w / 2, np.nan_to_num(q), w, color=QUESTION, label="question probes"), q)
    _label_bars(ax, ax.bar(x + w / 2, np.nan_to_num(s), w, color=STATEMENT, label="statement probes"), s)
    ax.set_xticks(x, names)
    ax.set_ylim(0, 108)
    ax.set_ylabel("negative words (% of labelled words)")
    ax.set_xlabel("category of social groups")
    ax.legend(loc="lower center", bbox_to_anchor=(0.5, 1.0), frameon=False, fontsize=9, ncols=2)
    ax.spines[["top", "right"]].set_visible(False)
    fig.suptitle("Negative share per category: question vs statement probes", fontsize=12, y=0.98)
    _caption(fig, data.caption())
    return fig


@lru_cache(maxsize=1)
def template_texts() -> dict[str, tuple[str, str]]:
    """Template id -> (format, readable text) from the default catalog."""
    from stereoprobe.catalog import load_catalog

    out = {}
    for templates in load_catalog().templates.values():
        for t in templates:
            text = t.text.replace("<group>", "…").replace(" ...", "").strip()
            out[t.template] = (t.format, text)
    return out


def _columns(data: SentimentData, category: str) -> list[tuple[str, str, str]]:
    """(template, format, label) in order: questions first, catalog order within a format."""
    known = template_texts()
    order = list(known)
    tpl = data.templates[data.templates["category"] == category]
    seen = {(r["template"], r["format"]) for _, r in tpl.iterrows()}
    occ = data.occurrences[data.occurrences["category"] == category]
    seen |= set(zip(occ["template"], occ["format"]))
    cols = sorted(seen, key=lambda tf: (tf[1] != "question", order.index(tf[0]) if tf[0] in order else 99, tf[0]))
    return [(t, f, known.get(t, (f, t.replace("_", " ")))[1]) for t, f in cols]


def figure_templates(data: SentimentData, category: str) -> "Figure":
    """Figure 3 of the paper as a heatmap: negative share per group (rows) and template.

    Rows are the category's groups, most negative first, under the category as a whole;
    a heatmap stays readable for 116 professions where grouped bars would not.
    """
    import numpy as np
    from matplotlib import colormaps

    cols = _columns(data, category)
    shares = data.template_shares(category)
    g = data.groups[data.groups["category"] == category].sort_values("negative", ascending=False, na_position="last")
    tpl = data.templates[data.templates["category"] == category]
    cat_row = [
        float(tpl.loc[(tpl["template"] == t) & (tpl["format"] == f), "negative"].iloc[0])
        if ((tpl["template"] == t) & (tpl["format"] == f)).any()
        else math.nan
        for t, f, _ in cols
    ]
    names = [f"all {category} groups"] + list(g["group"])
    grid = [cat_row] + [
        [float(shares.at[name, t]) if name in shares.index and t in shares.columns else math.nan for t, _, _ in cols]
        for name in g["group"]
    ]
    values = np.array(grid, dtype=float).reshape(len(names), len(cols))
    n, m = len(names), max(len(cols), 1)
    names = [name if len(name) <= 40 else name[:39] + "…" for name in names]
    left, cell, row, top, bottom = 0.3 + 0.062 * max(map(len, names)), 0.85, 0.24, 1.35, 0.45
    width = max(7.5, left + cell * m + 1.3)
    height = top + bottom + row * n
    fig = _figure(width, height)
    ax = fig.add_axes((left / width, bottom / height, cell * m / width, row * n / height))
    cmap = colormaps["RdYlGn_r"].with_extremes(bad="#eeeeee")
    im = ax.imshow(np.ma.masked_invalid(values), cmap=cmap, vmin=0, vmax=100, aspect="auto", interpolation="nearest")
    for i in range(n):
        for j in range(len(cols)):
            v = values[i, j]
            text, colour = ("–", "#888888") if math.isnan(v) else (f"{v:.0f}", "white" if v > 80 or v < 15 else "black")
            ax.text(j, i, text, ha="center", va="center", fontsize=8, color=colour, fontweight="bold" if i == 0 else None)
    ax.set_yticks(range(n), names, fontsize=8)
    ax.get_yticklabels()[0].set_fontweight("bold")
    ax.set_xticks(range(len(cols)), ["\n".join(textwrap.wrap(lbl, 14)) for _, _, lbl in cols], fontsize=8)
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
                        xytext=(0, 34), textcoords="offset points", ha="center", fontsize=9, fontweight="bold")
    bar_h = min(row * n, 2.5)  # the colour key sits beside the first rows, where readers start
    cax = fig.add_axes(((left + cell * m + 0.25) / width, (bottom + row * n - bar_h) / height, 0.15 / width, bar_h / height))
    fig.colorbar(im, cax=cax).set_label("negative words (%)", fontsize=8)
    cax.tick_params(labelsize=7)
    fig.text(0.5, 1 - 0.1 / height, f"Negative share per template: {category}", fontsize=12, ha="center", va="top")
    fig.text(0.5, 1 - 0.4 / height, "% of labelled words that are negative; groups sorted most negative first; "
             "– : no labelled words", fontsize=8, color="#444444", ha="center", va="top")
    _caption(fig, data.caption())
    return fig


def figure_group(data: SentimentData, category: str, group: str) -> "Figure":
    """A group's negative share beside its category's and all groups', per format."""
    return group_bars(
        group, category, data.group_row(category, group), data.category_row(category), data.category_row(ALL)
    )


def group_bars(group: str, category: str, mine: dict, cat: dict, everyone: dict) -> "Figure":
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
        vals = [float(rows[key]) for key, _ in keys]
        _label_bars(ax, ax.bar(x + (k - 1) * w, np.nan_to_num(vals), w, color=colour, label=name), vals)
    ax.set_xticks(x, [name for _, name in keys])
    ax.set_ylim(0, 112)
    ax.set_ylabel("negative words (%)")
    ax.spines[["top", "right"]].set_visible(False)
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, 1.2), ncols=3, frameon=False, fontsize=9)
    return fig


def save(fig: "Figure", stem: Path, formats: tuple[str, ...] = ("png", "svg")) -> list[Path]:
    """Save a figure as STEM.png and STEM.svg; return the paths."""
    stem.parent.mkdir(parents=True, exist_ok=True)
    paths = []
    for ext in formats:
        path = stem.with_suffix(f".{ext}")
        fig.savefig(path, format=ext, facecolor="white")
        paths.append(path)
    return paths


def to_image(fig: "Figure"):
    """Render a figure to an RGB Pillow image (no PNG round trip)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from PIL import Image

    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    return Image.frombuffer("RGBA", canvas.get_width_height(), canvas.buffer_rgba()).convert("RGB")


def to_png(fig: "Figure") -> bytes:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", facecolor="white")
    return buf.getvalue()
