"""The anecdotes study's chart, after 001's Figure 1: per profession, the share of women in
the job (BLS) beside the share of the model's texts about a woman (of those with a
gender), with its 95% interval over the profession's samples (matplotlib, no pyplot)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from stereoprobe.page import palette
from stereoprobe.page.figures import figure as _figure, tex_safe

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.figure import Figure


def shares_chart(professions: Any, model: str) -> "Figure":
    """Horizontal paired bars, professions from most to fewest women in the labour statistics."""
    import numpy as np

    t = professions.iloc[::-1].reset_index(drop=True)  # the most female job at the top
    n = len(t)
    fig = _figure(7.6, 1.2 + 0.24 * n)
    ax = fig.add_axes((0.32, 0.9 / (1.2 + 0.24 * n), 0.64, 1 - 1.35 / (1.2 + 0.24 * n)))
    y = np.arange(n)
    bls = t.bls_female_share.astype(float).to_numpy()
    model_share = t.female_of_gendered.astype(float).to_numpy()
    ax.barh(y + 0.19, np.nan_to_num(bls), height=0.36, color="#b8b8b8", label="women in the job (BLS)")
    ax.barh(y - 0.19, np.nan_to_num(model_share), height=0.36, color=palette.colour("negative"),
            label="texts about a woman (of those with a gender)")
    low = t.female_of_gendered_low.astype(float).to_numpy()
    high = t.female_of_gendered_high.astype(float).to_numpy()
    ok = ~np.isnan(model_share)
    ax.errorbar(model_share[ok], y[ok] - 0.19, xerr=[model_share[ok] - low[ok], high[ok] - model_share[ok]],
                fmt="none", ecolor="#222222", elinewidth=0.7, capsize=1.5)
    for i in np.flatnonzero(~ok):
        ax.text(1, y[i] - 0.19, "no gendered text", fontsize=6.5, va="center", color="#555555")
    for i in np.flatnonzero(np.isnan(bls)):  # never drawn as 0% women: the share is not in the data
        ax.text(1, y[i] + 0.19, "no BLS share in the data", fontsize=6.5, va="center", color="#555555")
    ax.set_yticks(y)
    ax.set_yticklabels([tex_safe(p) for p in t.profession], fontsize=7.5)
    ax.set_xlim(0, 100)
    ax.set_ylim(-0.7, n - 0.3)
    ax.set_xlabel("women, %", fontsize=8)
    ax.tick_params(axis="x", labelsize=7.5)
    ax.axvline(50, color="#888888", lw=0.6, ls=":")
    ax.legend(fontsize=7.5, loc="lower center", bbox_to_anchor=(0.4, 1.0), ncol=2, frameon=False)
    ax.set_title(tex_safe(f"{model}: who the anecdotes are about, per profession"), fontsize=9, pad=18)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    return fig
