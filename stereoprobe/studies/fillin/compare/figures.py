"""Figures of a comparison (matplotlib, bare Figures; colour-blind-safe Okabe-Ito colours).

- :func:`figure_categories`: per category one row per run, a dot at its negative share
  and a line for its interval; with several lexicons, a grey band behind each dot spans
  the shares the lexicons give.
- :func:`figure_heatmap`: groups of one category x run pairs, coloured by the difference
  (orange: run A more negative, purple: run B more negative); a dot marks a significant
  cell (q below alpha).
"""

from __future__ import annotations

import math
from typing import Any, Sequence

from stereoprobe.page.palette import PALETTES

# Okabe & Ito (2008): distinguishable with the common colour-vision deficiencies.
RUN_COLOURS = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000")
# Word labels and the heatmap take the report's colour-blind-safe palette (page/palette.py).
_SAFE = PALETTES["safe"]
LABEL_COLOURS = {"negative": _SAFE["negative"], "positive": _SAFE["positive"]}
OTHER_COLOUR = _SAFE["other"]
HEATMAP = _SAFE["cmap"]  # diverging purple-orange, colour-blind safe


def run_colour(i: int) -> str:
    return RUN_COLOURS[i % len(RUN_COLOURS)]


def _figure(width: float, height: float) -> Any:
    from matplotlib.figure import Figure

    return Figure(figsize=(width, height), dpi=100)


def figure_categories(shares: Any, runs: Sequence[str], band: Any | None = None, title: str = "") -> Any:
    """Dot-and-interval per category (rows) and run (dots); see the module docstring."""
    rows = shares[(shares.level != "group") & (shares.format == "all")]
    cats = [c for c in dict.fromkeys(rows.sort_values(["level", "category"], ascending=[False, True]).category)]
    cats = [c for c in cats if c != "all"] + ["all"]
    n = len(runs)
    fig = _figure(8.5, 0.9 + 0.32 * n * len(cats) * 0.8 + 0.6)
    ax = fig.add_axes((0.16, 0.1, 0.8, 0.8))
    step = 0.7 / max(n, 1)
    for i, run in enumerate(runs):
        sub = rows[rows.run == run].set_index("category")
        for j, cat in enumerate(cats):
            y = len(cats) - 1 - j + 0.35 - (i + 0.5) * step
            if band is not None:
                b = band[(band.run == run) & (band.category == cat)]
                if len(b) and not math.isnan(b.band_low.iloc[0]):
                    ax.plot([b.band_low.iloc[0], b.band_high.iloc[0]], [y, y], color="#cfcfcf", lw=7,
                            solid_capstyle="butt", zorder=1)
            if cat not in sub.index or math.isnan(sub.loc[cat, "negative"]):
                continue
            r = sub.loc[cat]
            if not math.isnan(r.ci_low):
                ax.plot([r.ci_low, r.ci_high], [y, y], color=run_colour(i), lw=1.6, zorder=2)
            ax.plot([r.negative], [y], "o", color=run_colour(i), ms=5, zorder=3, label=run if j == 0 else None)
    ax.set_yticks(range(len(cats)), list(reversed(cats)))
    ax.set_xlim(0, 100)
    ax.set_ylim(-0.6, len(cats) - 0.4)
    ax.set_xlabel("negative words among positive and negative (%), with 95% interval")
    ax.grid(axis="x", color="#e5e5e5")
    ax.spines[["top", "right"]].set_visible(False)
    handles, labels = ax.get_legend_handles_labels()
    if band is not None:
        from matplotlib.lines import Line2D

        handles.append(Line2D([], [], color="#cfcfcf", lw=7))
        labels.append("range across lexicons: " + str(band.lexicons.iloc[0]).replace(",", ", "))
    ax.legend(handles, labels, loc="lower center", bbox_to_anchor=(0.45, 1.0), ncols=min(4, len(labels)),
              frameon=False, fontsize=8)
    if title:
        fig.suptitle(title, fontsize=11, y=0.995)
    return fig


def figure_heatmap(differences: Any, category: str, pair_labels: Sequence[tuple[str, str]], alpha: float,
                   limit: float | None = None) -> Any:
    """Groups of ``category`` x pairs: difference (points), significant cells marked.

    ``limit``: the colour scale's end (points); the same for every category keeps colours comparable.
    """
    import numpy as np
    from matplotlib import colormaps
    from matplotlib.colors import TwoSlopeNorm

    d = differences[(differences.level == "group") & (differences.format == "all") & (differences.category == category)]
    groups = sorted(d.group.unique(), key=str.lower)
    cols = [f"{a} - {b}" for a, b in pair_labels]
    grid = np.full((len(groups), len(cols)), np.nan)
    sig = np.zeros_like(grid, dtype=bool)
    gi = {g: i for i, g in enumerate(groups)}
    for j, (a, b) in enumerate(pair_labels):
        sub = d[(d.run_a == a) & (d.run_b == b)]
        for r in sub.itertuples():
            grid[gi[r.group], j] = r.difference
            sig[gi[r.group], j] = bool(r.q < alpha) if not math.isnan(r.q) else False
    lim = limit or max(10.0, float(np.nanmax(np.abs(grid))) if np.isfinite(grid).any() else 10.0)
    left, right, top, bottom = 2.3, 1.2, 1.3, 0.45  # inches
    width, height = left + 0.9 * len(cols) + right, top + 0.2 * len(groups) + bottom
    fig = _figure(width, height)
    ax = fig.add_axes((left / width, bottom / height, 0.9 * len(cols) / width, 0.2 * len(groups) / height))
    cax = fig.add_axes(((left + 0.9 * len(cols) + 0.2) / width, bottom / height, 0.15 / width,
                        min(0.2 * len(groups), 2.5) / height))
    cmap = colormaps[HEATMAP].with_extremes(bad="#f0f0f0")
    im = ax.imshow(np.ma.masked_invalid(grid), aspect="auto", cmap=cmap, norm=TwoSlopeNorm(0, -lim, lim))
    yy, xx = np.nonzero(sig)
    ax.plot(xx, yy, "o", ms=4, mfc="white", mec="black", mew=0.8, ls="none")
    ax.set_yticks(range(len(groups)), groups, fontsize=8)
    ax.set_xticks(range(len(cols)), cols, fontsize=8, rotation=30, ha="right")
    ax.xaxis.tick_top()
    ax.tick_params(axis="x", labeltop=True, labelbottom=False)
    fig.colorbar(im, cax=cax, label="A - B (points)")
    fig.text(0.01, 0.005, f"{category}: orange = A more negative, purple = B more negative;\n"
             f"o = significant (BH q < {alpha:g}); grey = too few probes", fontsize=7, color="#555")
    return fig


def save(fig: Any, stem: Any, tight: bool = True) -> list[Any]:
    """STEM.png and STEM.svg (SVG text kept as text: smaller and faster than outlined glyphs)."""
    import matplotlib

    stem.parent.mkdir(parents=True, exist_ok=True)
    out = []
    with matplotlib.rc_context({"svg.fonttype": "none"}):
        for ext in ("png", "svg"):
            path = stem.with_suffix(f".{ext}")
            fig.savefig(path, format=ext, facecolor="white", bbox_inches="tight" if tight else None)
            out.append(path)
    return out
