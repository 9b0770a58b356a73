"""The coreference page's chart (matplotlib, no pyplot state; colours from page/palette.py).

``overview``: left, 000's Table 3 as bars per template (incorrect, inconsistent, binary
inconsistent, each with its interval); right, Sterlie et al.'s four rates per pronoun as
dots with interval whiskers (he, she, they: the palette's colour-blind-safe pair and grey,
and three marker shapes, so colour is never the only cue).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from stereoprobe.page import palette
from stereoprobe.page.figures import figure as _figure, tex_safe

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.figure import Figure

METRICS = (("incorrect", "incorrect"), ("inconsistent", "inconsistent"), ("binary_inconsistent", "binary (he/she)"))
MARKERS = {"he": "s", "she": "o", "they": "^"}


def pronoun_colours() -> dict[str, str]:
    return {"he": palette.colour("positive"), "she": palette.colour("negative"), "they": "#555555"}


def overview(table3: Any, criteria: Any, caption: str) -> "Figure":
    """``table3``: one prefix's rows of table3.csv; ``criteria``: its rows of criteria.csv."""
    import numpy as np

    fig = _figure(11.0, 4.6)
    ax = fig.add_axes((0.06, 0.26, 0.52, 0.62))
    rows = table3.reset_index(drop=True)
    x = np.arange(len(rows))
    shades = ("#3d3d3d", "#8a8a8a", "#c9c9c9")
    width = 0.26
    for k, ((m, label), shade) in enumerate(zip(METRICS, shades)):
        values = rows[f"{m}_pct"].to_numpy(float)
        low, high = rows[f"{m}_low"].to_numpy(float), rows[f"{m}_high"].to_numpy(float)
        pos = x + (k - 1) * width
        ax.bar(pos, np.nan_to_num(values), width, color=shade, label=label, edgecolor="white", linewidth=0.4)
        ok = ~np.isnan(low)
        ax.errorbar(pos[ok], values[ok], yerr=[values[ok] - low[ok], high[ok] - values[ok]], fmt="none",
                    ecolor="#111111", elinewidth=0.9, capsize=2)
    ax.axhline(50, color="#b0b0b0", lw=0.8, ls="--")
    ax.text(-0.45, 51.5, "50%: a coin toss", fontsize=7, color="#666666", ha="left")
    ax.set_xticks(x, [tex_safe(t) for t in rows["template"]], rotation=30, ha="right", fontsize=8)
    ax.set_ylim(0, 100)
    ax.set_ylabel("% of answers (incorrect) or triples", fontsize=8.5)
    ax.tick_params(labelsize=8)
    ax.legend(fontsize=7.5, frameon=False, ncol=3, loc="lower left", bbox_to_anchor=(0, 1.0))
    ax.set_title("Marin & Eger's Table 3, with 95% intervals", fontsize=9.5, loc="left", pad=18)
    bx = fig.add_axes((0.66, 0.26, 0.32, 0.62))
    rates = ("fnr", "fpr", "ppv", "npv")
    colours = pronoun_colours()
    crit = criteria.set_index("pronoun")
    for j, pronoun in enumerate(crit.index):
        for i, rate in enumerate(rates):
            v, lo, hi = (float(crit.loc[pronoun, f"{rate}_{c}"]) for c in ("pct", "low", "high"))
            xi = i + (j - 1) * 0.22
            if v == v:
                bx.plot([xi], [v], marker=MARKERS.get(pronoun, "D"), color=colours.get(pronoun, "#555555"),
                        ms=5.5, label=pronoun if i == 0 else None, linestyle="none")
            if lo == lo and hi == hi:
                bx.plot([xi, xi], [lo, hi], color=colours.get(pronoun, "#555555"), lw=1.1)
    bx.set_xticks(range(len(rates)), [r.upper() for r in rates], fontsize=8)
    bx.set_ylim(-2, 102)
    bx.set_xlim(-0.6, len(rates) - 0.4)
    bx.tick_params(labelsize=8)
    bx.grid(axis="y", color="#eeeeee", lw=0.6)
    if bx.get_legend_handles_labels()[0]:
        bx.legend(fontsize=7.5, frameon=False, ncol=3, loc="lower left", bbox_to_anchor=(0, 1.0))
    else:
        bx.text(1.5, 50, "no pair of a women- and a\nmen-dominated job", ha="center", va="center", fontsize=8,
                color="#555555")
    bx.set_title("Separation and sufficiency per pronoun, %", fontsize=9.5, loc="left", pad=18)
    fig.text(0.01, 0.01, tex_safe(caption), fontsize=7.5, color="#555555", ha="left", va="bottom", wrap=True)
    return fig
