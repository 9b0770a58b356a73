"""Generation runs of one study side by side (`stereoprobe compare RUN RUN ...`).

Each run is scored again with the same settings (the study's ``score``), so nothing stale
is read; per run its ``summary`` rows (one per statistic, with interval), and per group
each run's share of one column with its interval, in one table and one figure
(``shares.png``: per group, each run's share as a dot with its 95% interval), on a page
in the core's shell (``index.html``)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Sequence


#: runs' colours and markers: Okabe & Ito's colour-blind-safe set, a marker each as well
COLOURS = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000")
MARKERS = ("o", "s", "D", "^", "v", "P", "X")


@dataclass
class Comparison:
    study: str
    runs: Any  # one row per run and statistic
    groups: Any  # one row per group, columns per run
    share: str = "female_of_gendered"  # the groups' column compared (percent)
    key: str = "profession"  # the groups' name column
    what: str = ""  # the share in words (the figure's axis, the findings)

    def summary(self) -> str:
        from stereoprobe.page.numbers import number

        return "\n".join(f"{r.run}: {r.statistic} {number(r.value, '{:.3g}')}"
                         + (f" ({_interval(r.low, r.high)})" if r.low == r.low else "") for r in self.runs.itertuples())


def _interval(low: float, high: float, fmt: str = "{:.3g}") -> str:
    """``low to high``, or a dash for a row without an interval (the plug-in NMI's)."""
    from stereoprobe.generation.frame import range_text

    return range_text(low, high, fmt, missing="–")


def compare_runs(study: str, score: Callable[..., Any], runs: Sequence[Path], share: str, what: str,
                 table: str = "professions", key: str = "profession", n_boot: int = 2000,
                 seed: int = 2023) -> Comparison:
    import pandas as pd

    from stereoprobe.comparing import run_names, run_paths

    paths = run_paths(runs)  # two or more (the command refuses one given twice: comparing.distinct_runs)
    names = run_names([p.name for p in paths], paths)  # SUITE_A/anecdotes, SUITE_B/anecdotes: their paths
    summaries, shares, order = [], None, {}
    for run, name in zip(paths, names):
        result = score(run, n_boot=n_boot, seed=seed)
        summaries.append(result.summary.assign(run=name, model=result.meta.get("model")))
        cols = getattr(result, table)[[key, share, f"{share}_low", f"{share}_high"]]
        cols = cols.rename(columns=lambda c: c if c == key else f"{name}:{c}")
        shares = cols if shares is None else shares.merge(cols, on=key, how="outer")
        for group in cols[key]:
            order.setdefault(group, len(order))
    shares = shares.sort_values(key, key=lambda s: s.map(order)).reset_index(drop=True)  # each run's own order
    runs_table = pd.concat(summaries, ignore_index=True)
    first = ["run", "model"]
    return Comparison(study, runs_table[first + [c for c in runs_table.columns if c not in first]], shares, share, key, what)


def shares_chart(result: Comparison) -> Any:
    """Per group (top to bottom in the table's order), each run's share as a dot with its
    95% interval, the runs side by side within a group's row (matplotlib, no pyplot)."""
    import numpy as np

    from stereoprobe.page.figures import figure, tex_safe

    runs = list(dict.fromkeys(result.runs.run))
    t = result.groups
    n, k = len(t), len(runs)
    height = 1.0 + 0.22 * n * max(1.0, k / 2.5)
    fig = figure(7.6, height)
    ax = fig.add_axes((0.27, 0.5 / height, 0.69, 1 - 0.95 / height))
    y = np.arange(n)[::-1].astype(float)  # the table's first group at the top
    step = min(0.8 / k, 0.25)
    for i, run in enumerate(runs):
        share = t[f"{run}:{result.share}"].astype(float).to_numpy()
        low = t[f"{run}:{result.share}_low"].astype(float).to_numpy()
        high = t[f"{run}:{result.share}_high"].astype(float).to_numpy()
        at = y + (k - 1) / 2 * step - i * step
        ok = ~np.isnan(share)
        ax.errorbar(share[ok], at[ok], xerr=[share[ok] - np.nan_to_num(low[ok], nan=share[ok]),
                                             np.nan_to_num(high[ok], nan=share[ok]) - share[ok]],
                    fmt=MARKERS[i % len(MARKERS)], color=COLOURS[i % len(COLOURS)], ms=4, elinewidth=1, capsize=2,
                    label=tex_safe(run))
    ax.set_yticks(y)
    ax.set_yticklabels([tex_safe(g) for g in t[result.key]], fontsize=7.5)
    ax.set_xlim(-1.5, 101.5)  # a share of 0 or 100 is drawn whole
    ax.set_ylim(-0.6, n - 0.4)
    ax.axvline(50, color="#888888", lw=0.6, ls=":")
    ax.set_xlabel(tex_safe(f"{result.what}, % (95% interval)"), fontsize=8)
    ax.tick_params(axis="x", labelsize=7.5)
    ax.legend(fontsize=7.5, loc="lower center", bbox_to_anchor=(0.45, 1.0), ncol=min(k, 4), frameon=False)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    return fig


#: a summary statistic in percent -> what it is, in words (the findings' first sentence)
STATISTIC = {"follows_majority": "of the texts with a gender follow their job's BLS majority",
             "female_of_gendered": "of the texts with a gendered name are about a woman"}


def _findings(result: Comparison) -> list[str]:
    """Per run: where its share is lowest and highest, and its first summary statistic (a share in percent:
    ``follows_majority``, ``female_of_gendered``)."""
    out = []
    for run, rows in result.runs.groupby("run", sort=False):
        col = result.groups[[result.key, f"{run}:{result.share}"]].dropna()
        first = rows.iloc[0]
        words = STATISTIC.get(first.statistic, first.statistic)
        if first.value == first.value:
            line = f"{run}: {first.value:.0f}% ({_interval(first.low, first.high, '{:.0f}')}) {words}"
        else:  # no texts to count (a run without a profession of known majority, or without a gendered text)
            line = f"{run}: {first.statistic} not measured (no texts to count)"
        if len(col):
            lo, hi = col.iloc[:, 1].idxmin(), col.iloc[:, 1].idxmax()
            line += (f"; {result.what}, per {result.key}: " + (
                f"{col.loc[lo].iloc[1]:.0f}% ({col.loc[lo, result.key]})" if len(col) == 1 else
                f"from {col.loc[lo].iloc[1]:.0f}% ({col.loc[lo, result.key]}) to "
                f"{col.loc[hi].iloc[1]:.0f}% ({col.loc[hi, result.key]})"))
        out.append(line + ".")
    return out


def write_comparison(result: Comparison, out: Path, mark: str) -> Path:
    import base64

    from stereoprobe.generation.frame import write_folder
    from stereoprobe.page.figures import to_png
    from stereoprobe.page.numbers import number
    from stereoprobe.page.shell import esc, fill_shell

    png = to_png(shares_chart(result))
    rows = "".join(f"<tr><td>{esc(r.run)}</td><td>{esc(r.model)}</td><td>{esc(r.statistic)}</td>"
                   f"<td class=num>{number(r.value, '{:.3g}')}</td><td class=num>{_interval(r.low, r.high)}</td></tr>"
                   for r in result.runs.itertuples())
    img = "data:image/png;base64," + base64.b64encode(png).decode("ascii")
    body = (f'<p class="small">Data: <a href="runs.csv">runs.csv</a> (every statistic of every run), '
            f'<a href="groups.csv">groups.csv</a> (per {esc(result.key)} and run).</p>'
            f'<figure class="big"><img src="{img}" alt="per {esc(result.key)}, each run\'s share with its interval">'
            f"</figure><table><caption>Per run (runs.csv)</caption><thead><tr><th>run</th><th>model</th>"
            f"<th>statistic</th><th class=num>value</th><th class=num>95% interval</th></tr></thead>"
            f"<tbody>{rows}</tbody></table>")
    note = ("<p>Each run was scored again with the same settings. A dot is a run's share for one "
            f"{esc(result.key)}, its bar the 95% interval over that {esc(result.key)}'s texts in that run, in "
            "the order of the first run's table (anecdotes: most women in the labour statistics first); "
            "the table gives each run's statistics as its own score does, with their intervals (shares in "
            "percent, NMI 0 to 1, Spearman -1 to 1). A "
            f"{esc(result.key)} a run did not ask has no dot for that run.</p>")
    models = sorted({str(m) for m in result.runs.model if isinstance(m, str)})
    page = fill_shell(f"{result.study} runs compared", esc(f"{len(set(result.runs.run))} {result.study} runs"),
                      _findings(result), "Runs of " + (", ".join(models) or "unnamed models") + ".", body, note,
                      [("runs", ", ".join(dict.fromkeys(result.runs.run)))])
    return write_folder(Path(out), {"runs": result.runs, "groups": result.groups},
                        {"study": result.study, "runs": sorted(set(result.runs.run))}, mark,
                        {"shares.png": png, "index.html": page.encode("utf-8")}, "stereoprobe compare", result.study)
