"""The jobs study's charts (matplotlib, no pyplot state; colours from page/palette.py).

- ``scatter``: one prompt: x the share of women in the job (BLS), y the model's
  P(female), every job labelled, the diagonal where the model would match the labour
  statistics, Spearman's rho in the title;
- ``debias_chart``: each prefix's mean P(diverse), P(female) and P(male) for women- and
  men-dominated jobs (prompts 2-4), without and with dialogue.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from stereoprobe.page import palette
from stereoprobe.page.figures import figure as _figure, tex_safe

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.figure import Figure


def group_colours() -> dict[str, str]:
    """Women- and men-dominated jobs: the report's colour-blind-safe pair (Okabe & Ito)."""
    return {"women": palette.colour("negative"), "men": palette.colour("positive"), "": palette.colour("other")}


def scatter(jobs: Any, title: str, rho: Any, caption: str) -> "Figure":
    """P(female) against the share of women per job (``jobs``: score.per_job's table)."""
    fig = _figure(6.4, 5.6)
    ax = fig.add_axes((0.11, 0.17, 0.86, 0.73))
    colours = group_colours()
    ax.plot([0, 100], [0, 100], color="#999999", lw=0.8, ls="--", zorder=1)
    ax.text(97, 93, "model = labour statistics", fontsize=7.5, color="#777777", ha="right", rotation=38)
    for group, label in (("women", "dominated by women"), ("men", "dominated by men"), ("", "other jobs")):
        sel = jobs[jobs.dominated_by == group]
        if len(sel):
            ax.scatter(sel.female_share, 100 * sel.p_female, s=22, color=colours[group], label=label, zorder=3,
                       edgecolor="white", linewidth=0.5)
    for side in (jobs[jobs.female_share < 50], jobs[jobs.female_share >= 50]):
        _labels(ax, side, towards_right=bool(len(side)) and float(side.female_share.mean()) < 50)
    ax.set_xlim(-3, 103)
    ax.set_ylim(-3, 103)
    ax.set_xlabel("share of women in the job, % (US BLS 2021, Mattern et al. Table 6)", fontsize=9)
    ax.set_ylabel("model's P(female), %", fontsize=9)
    ax.tick_params(labelsize=8)
    ax.grid(color="#eeeeee", lw=0.6)
    ax.legend(fontsize=8, loc="lower right", frameon=False)
    rho_text = "" if rho is None else f"  (Spearman rho {rho.r:.2f}, {rho.low:.2f} to {rho.high:.2f}; {rho.n} jobs)"
    ax.set_title(tex_safe(title + rho_text), fontsize=10, loc="left")
    fig.text(0.01, 0.01, tex_safe(caption), fontsize=7.5, color="#555555", ha="left", va="bottom", wrap=True)
    return fig


def _labels(ax: Any, jobs: Any, towards_right: bool, gap: float = 2.7) -> None:
    """Label every job, pointing into the plot, spread vertically so no two labels overlap
    (each label at least ``gap`` points of y apart, joined to its dot by a thin line)."""
    rows = jobs.assign(y=100 * jobs.p_female).sort_values("y")
    placed: list[float] = []
    for row in rows.itertuples():
        y = row.y if not placed else max(row.y, placed[-1] + gap)
        placed.append(y)
    shift = max(0.0, placed[-1] - 101) if placed else 0.0  # keep the top label inside the plot
    x_text = (rows.female_share.max() + 6) if towards_right else (rows.female_share.min() - 6)
    for row, y in zip(rows.itertuples(), placed):
        ax.annotate(tex_safe(row.job), (row.female_share, row.y), xytext=(x_text, y - shift), textcoords="data",
                    fontsize=6.3, color="#333333", ha="left" if towards_right else "right", va="center",
                    arrowprops={"arrowstyle": "-", "color": "#bbbbbb", "lw": 0.5, "shrinkA": 0, "shrinkB": 2})


def debias_chart(groups: Any, setting_names: tuple[str, str], caption: str) -> "Figure":
    """Prompts 2-4: stacked bars of mean P(male), P(female), P(diverse) per prefix, per
    group and setting (``groups``: score's groups table)."""
    import numpy as np

    colours = {"male": palette.colour("positive"), "female": palette.colour("negative"), "diverse": "#8a8a8a"}
    fig = _figure(9.6, 4.4)
    sel_all = groups[groups.prompts == "2-4"]
    panels = [(s, g) for s in setting_names for g in ("women", "men")]
    width = 0.86 / len(panels)
    for k, (setting, group) in enumerate(panels):
        ax = fig.add_axes((0.06 + k * (width + 0.02), 0.22, width, 0.64))
        sel = sel_all[(sel_all.setting == setting) & (sel_all.group == group)].sort_values("debias")
        x = np.arange(len(sel))
        bottom = np.zeros(len(sel))
        for gender in ("male", "female", "diverse"):
            values = sel[gender].to_numpy()
            ax.bar(x, values, bottom=bottom, color=colours[gender], width=0.75, label=f"P({gender})")
            bottom += values
        ax.set_xticks(x, ["none" if d == 0 else str(d) for d in sel.debias], fontsize=8)
        ax.set_ylim(0, 100)
        ax.tick_params(labelsize=8)
        ax.set_title(f"{group}-dominated jobs\n{setting}", fontsize=9)
        ax.set_xlabel("prefix", fontsize=8)
        if k:
            ax.set_yticklabels([])
        else:
            ax.set_ylabel("mean probability, %", fontsize=9)
    fig.legend(*fig.axes[0].get_legend_handles_labels(), loc="upper center", ncol=3, fontsize=8, frameon=False)
    fig.text(0.01, 0.01, tex_safe(caption), fontsize=7.5, color="#555555", ha="left", va="bottom", wrap=True)
    return fig
