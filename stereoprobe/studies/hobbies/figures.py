"""The hobbies study's charts, after Sterlie et al.'s Figures 3-5 (matplotlib, no pyplot
state; female and male in the report's colour-blind-safe pair).

- ``words_chart`` (001 Figure 3): the most frequent content words, female- and male-name
  counts side by side;
- ``labels_chart`` (001 Figure 4): per label, each name's mean score (a dot; female names
  first, then male, in the names file's order) and each gender's mean with its interval;
- ``projection_chart`` (001 Figure 5): per compared run, each name's mean she-he score
  and each gender's mean, with Mann-Whitney p and Cohen's d in the panel's title.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence

from stereoprobe.page import palette
from stereoprobe.page.figures import figure as _figure, tex_safe

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.figure import Figure

LABELS = {"female": "female names", "male": "male names"}


def colours() -> dict[str, str]:
    return {"female": palette.colour("negative"), "male": palette.colour("positive")}


def words_chart(words: Any, top: int = 25, caption: str = "") -> "Figure":
    """Horizontal bars of the ``top`` most frequent words (``words``: stats.word_counts)."""
    rows = words.head(top).iloc[::-1]
    fig = _figure(7.5, 0.24 * len(rows) + 1.4)
    ax = fig.add_axes((0.2, 0.9 / (0.24 * len(rows) + 1.4), 0.76, 1 - 1.3 / (0.24 * len(rows) + 1.4)))
    y = range(len(rows))
    c = colours()
    ax.barh([i + 0.2 for i in y], rows["female"], height=0.4, color=c["female"], label=LABELS["female"])
    ax.barh([i - 0.2 for i in y], rows["male"], height=0.4, color=c["male"], label=LABELS["male"])
    ax.set_yticks(list(y), [tex_safe(w) for w in rows["word"]], fontsize=8)
    ax.set_xlabel("count in the texts (stop words, names and pronouns left out)")
    ax.legend(loc="lower right", fontsize=8, frameon=False)
    ax.spines[["top", "right"]].set_visible(False)
    if caption:
        fig.text(0.01, 0.01, tex_safe(caption), fontsize=7, color="#555555")
    return fig


def labels_chart(names: Any, means: Any, labels: Sequence[str], caption: str = "", level: str = "95%") -> "Figure":
    """One panel per label: each name's mean score (percent) against its index."""
    fig = _figure(12, 4.6)
    c = colours()
    ordered = names.assign(_g=names["gender"].map({"female": 0, "male": 1})).sort_values("_g", kind="stable")
    x = range(len(ordered))
    for i, label in enumerate(labels):
        ax = fig.add_axes((0.05 + i * 0.158, 0.2, 0.128, 0.66))
        ax.scatter(x, 100 * ordered[label], s=6, c=[c[g] for g in ordered["gender"]], linewidths=0)
        row = means[means["label"] == label].iloc[0]
        for g in ("female", "male"):
            sel = [j for j, gg in enumerate(ordered["gender"]) if gg == g]
            if sel:
                ax.hlines(row[f"{g}_mean"], sel[0], sel[-1], color=c[g], lw=2)
                ax.fill_between([sel[0], sel[-1]], row[f"{g}_low"], row[f"{g}_high"], color=c[g], alpha=0.2, lw=0)
        ax.set_title(tex_safe(label), fontsize=9)
        ax.set_ylim(-2, 102)
        ax.set_xlabel("name index", fontsize=7)
        ax.tick_params(labelsize=7)
        if i == 0:
            ax.set_ylabel("mean score of the name's texts (%)", fontsize=8)
        ax.spines[["top", "right"]].set_visible(False)
    fig.text(0.05, 0.93, "Dots: one name each (female, then male); lines and bands: the gender's mean over "
             f"names and its {tex_safe(level)} interval", fontsize=8)
    if caption:
        fig.text(0.01, 0.02, tex_safe(caption), fontsize=7, color="#555555")
    return fig


def projection_chart(runs: Sequence[Any], caption: str = "") -> "Figure":
    """``runs``: w2v.RunProjection per compared run."""
    import numpy as np
    import pandas as pd

    fig = _figure(4.2 * len(runs) + 0.6, 4.4)
    c = colours()
    width = 0.9 / len(runs)
    pers = []
    for r in runs:
        frame = pd.DataFrame({"name": r.names, "gender": r.genders, "score": r.scores}).dropna()
        per = frame.groupby(["gender", "name"], sort=False)["score"].mean().reset_index()
        pers.append(per.assign(_g=per["gender"].map({"female": 0, "male": 1})).sort_values("_g", kind="stable"))
    every = pd.concat(pers)["score"] if pers else pd.Series([0.0])
    pad = 0.05 * float(every.max() - every.min() or 1)
    for i, (r, per) in enumerate(zip(runs, pers)):
        ax = fig.add_axes((0.07 + i * width, 0.15, width - 0.05, 0.69))
        ax.set_ylim(float(every.min()) - pad, float(every.max()) + pad)  # one scale for every run
        ax.scatter(np.arange(len(per)), per["score"], s=7, c=[c[g] for g in per["gender"]], linewidths=0)
        ax.axhline(0, color="#999999", lw=0.6)
        for g, mean in (("female", r.mean_female), ("male", r.mean_male)):
            ax.axhline(mean, color=c[g], lw=1.5, ls="--", label=f"mean, {LABELS[g]}")
        p = "< 1e-300" if r.p_names < 1e-300 else f"= {r.p_names:.2g}"
        ax.set_title(f"{tex_safe(r.run)}\np {p} (name means), d = {r.d:.2f} ({r.d_low:.2f} to {r.d_high:.2f})",
                     fontsize=8.5)
        ax.set_xlabel("name index", fontsize=8)
        if i == 0:
            ax.set_ylabel("mean she-he projection of the name's texts", fontsize=8)
            ax.legend(fontsize=7, frameon=False, loc="lower left")
        ax.tick_params(labelsize=7)
        ax.spines[["top", "right"]].set_visible(False)
    if caption:
        fig.text(0.01, 0.02, tex_safe(caption), fontsize=7, color="#555555")
    return fig
