"""Anecdotes runs side by side (`stereoprobe compare RUN RUN ...`): per run the share that
follows the BLS majority, NMI and Spearman (summary.csv rows), and per profession each
run's share of texts about a woman with its interval (professions.csv). Each run is
scored first (``score.score``, the same settings), so nothing stale is read."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

MARK = "stereoprobe_anecdotes_comparison"


@dataclass
class AnecdotesComparison:
    runs: Any  # one row per run and statistic
    professions: Any  # one row per profession, columns per run

    def summary(self) -> str:
        rows = self.runs[self.runs.statistic.isin(["follows_majority", "nmi"])]
        return "\n".join(f"{r.run}: {r.statistic} {r.value:.3g} ({r.low:.3g} to {r.high:.3g})" for r in rows.itertuples())


def compare_runs(runs: Sequence[Path], n_boot: int = 2000, seed: int = 2023) -> AnecdotesComparison:
    import pandas as pd

    from stereoprobe.errors import DataError
    from stereoprobe.studies.anecdotes.score import score

    if len(runs) < 2:
        raise DataError("compare needs two or more anecdotes runs.")
    summaries, shares = [], None
    for run in runs:
        name = Path(run).name
        result = score(run, n_boot=n_boot, seed=seed)
        summaries.append(result.summary.assign(run=name, model=result.meta.get("model")))
        cols = result.professions[["profession", "female_of_gendered", "female_of_gendered_low",
                                   "female_of_gendered_high"]].rename(
            columns=lambda c: c if c == "profession" else f"{name}:{c}")
        shares = cols if shares is None else shares.merge(cols, on="profession", how="outer")
    table = pd.concat(summaries, ignore_index=True)
    return AnecdotesComparison(table[["run", "model", *[c for c in table.columns if c not in ("run", "model")]]],
                               shares)


def write_comparison(result: AnecdotesComparison, out: Path) -> Path:
    from stereoprobe.generation.frame import write_folder
    from stereoprobe.report.briefing import esc

    folder = write_folder(Path(out), {"runs": result.runs, "professions": result.professions},
                          {"runs": sorted(set(result.runs.run))}, MARK)
    rows = "".join(f"<tr><td>{esc(r.run)}</td><td>{esc(r.statistic)}</td><td>{r.value:.3g}</td>"
                   f"<td>{r.low:.3g} to {r.high:.3g}</td></tr>" for r in result.runs.itertuples())
    (folder / "index.html").write_text(
        "<!doctype html><meta charset='utf-8'><title>Anecdotes runs compared</title><h1>Anecdotes runs compared</h1>"
        f"<table><tr><th>run</th><th>statistic</th><th>value</th><th>95% interval</th></tr>{rows}</table>"
        "<p>Per profession: <a href='professions.csv'>professions.csv</a>; all rows: <a href='runs.csv'>runs.csv</a>.</p>",
        encoding="utf-8")
    return folder
