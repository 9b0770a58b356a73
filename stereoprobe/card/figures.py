"""The forest plot of the card's differences: each model minus the first, per metric, with
its 95% interval; a difference the card flags (Holm over the card) drawn filled in the
palette's vermilion, the others open and grey, so the flag is read by shape as well as
colour (``page/palette.py``). Shares and gaps are in points; NMI and correlations, on
another scale, get a panel of their own."""

from __future__ import annotations

from typing import Any, Sequence

from stereoprobe.card.records import Difference

MARKERS = ("o", "s", "D", "^", "v", "P")
#: a row's label is wrapped at this many characters, so the longest ("how much the name's gender
#: depends on the job (NMI) (story names)") fits left of the panel on two lines
LABEL_WIDTH = 48
PANELS = (("points", ("share", "gap"), "{who}, in percentage points"),
          ("other", ("nmi", "correlation"), "{who}, in NMI or correlation"))


def _scale(d: Difference) -> float:
    return 100.0 if d.kind in ("share", "gap") else 1.0


def forest(differences: Sequence[Difference], study_names: dict[str, str]) -> Any:
    """The forest plot (a matplotlib Figure), or None without differences."""
    import textwrap

    import numpy as np

    from stereoprobe.page.figures import figure, tex_safe
    from stereoprobe.page.palette import colour

    panels = [(name, [d for d in differences if d.kind in kinds], axis) for name, kinds, axis in PANELS]
    panels = [p for p in panels if p[1]]
    if not panels:
        return None
    models = list(dict.fromkeys(d.model for d in differences))
    who = f"{models[0]} minus {differences[0].baseline}" if len(models) == 1 else f"each model minus {differences[0].baseline}"
    rows_of = [list(dict.fromkeys((d.key, d.metric, d.scope, d.label) for d in ds)) for _, ds, _ in panels]
    heights = [0.32 * len(r) * max(1.0, len(models) / 2) + 0.9 for r in rows_of]
    total = sum(heights) + 0.5
    fig = figure(8.6, total)
    top = 1.0 - 0.25 / total
    for (name, ds, axis), rows, h in zip(panels, rows_of, heights):
        bottom = top - h / total
        ax = fig.add_axes((0.45, bottom + 0.62 / total, 0.52, h / total - 0.72 / total))
        top = bottom
        y_of = {r: len(rows) - 1 - i for i, r in enumerate(rows)}
        step = min(0.3, 0.7 / len(models)) if len(models) > 1 else 0.0
        for j, model in enumerate(models):
            for d in (x for x in ds if x.model == model):
                y = y_of[(d.key, d.metric, d.scope, d.label)] + (len(models) - 1) / 2 * step - j * step
                s = _scale(d)
                c = colour("negative") if d.flagged else colour("other")
                if d.low == d.low and d.high == d.high:
                    ax.plot([s * d.low, s * d.high], [y, y], color=c, lw=2.2 if d.flagged else 1.4)
                ax.plot([s * d.difference], [y], marker=MARKERS[j % len(MARKERS)], ms=7, color=c,
                        markerfacecolor=c if d.flagged else "white", markeredgewidth=1.5, linestyle="none")
        ax.axvline(0, color="#222222", lw=0.8)
        ax.set_yticks(np.arange(len(rows)))
        ax.set_yticklabels([tex_safe(textwrap.fill(f"{label} ({study_names.get(k, k)})", LABEL_WIDTH))
                            for k, _, _, label in reversed(rows)], fontsize=9, linespacing=0.95)
        ax.set_ylim(-0.7, len(rows) - 0.3)
        ax.set_xlabel(tex_safe(axis.format(who=who)), fontsize=9)
        ax.tick_params(axis="x", labelsize=8)
        for side in ("top", "right"):
            ax.spines[side].set_visible(False)
        ax.grid(axis="x", color="#e6e6e6", lw=0.6)
    if len(models) > 1:  # which marker is which model
        from matplotlib.lines import Line2D

        handles = [Line2D([], [], marker=MARKERS[j % len(MARKERS)], color="#444444", markerfacecolor="white",
                          linestyle="none", label=tex_safe(m)) for j, m in enumerate(models)]
        fig.axes[0].legend(handles=handles, loc="lower left", bbox_to_anchor=(0.0, 1.0), ncol=len(models), fontsize=8,
                           frameon=False)
    fig.text(0.02, 0.12 / total, "filled, vermilion: flagged (Holm over the card); open, grey: not flagged",
             fontsize=8, color="#444444")
    return fig
