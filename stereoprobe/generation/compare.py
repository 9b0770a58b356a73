"""Generation runs of one study side by side (`stereoprobe compare RUN RUN ...`).

Each run is scored again with the same settings (the study's ``score``), so nothing stale
is read; per run its ``summary`` rows (one per statistic, with interval), and per group
each run's share of one column with its interval, in one table."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Sequence


@dataclass
class Comparison:
    study: str
    runs: Any  # one row per run and statistic
    groups: Any  # one row per group, columns per run

    def summary(self) -> str:
        return "\n".join(f"{r.run}: {r.statistic} {r.value:.3g} ({r.low:.3g} to {r.high:.3g})"
                         for r in self.runs.itertuples())


def compare_runs(study: str, score: Callable[..., Any], runs: Sequence[Path], share: str, table: str = "professions",
                 key: str = "profession", n_boot: int = 2000, seed: int = 2023) -> Comparison:
    import pandas as pd

    from stereoprobe.errors import DataError

    if len(runs) < 2:
        raise DataError(f"compare needs two or more {study} runs.")
    summaries, shares = [], None
    for run in runs:
        name = Path(run).name
        result = score(run, n_boot=n_boot, seed=seed)
        summaries.append(result.summary.assign(run=name, model=result.meta.get("model")))
        cols = getattr(result, table)[[key, share, f"{share}_low", f"{share}_high"]]
        cols = cols.rename(columns=lambda c: c if c == key else f"{name}:{c}")
        shares = cols if shares is None else shares.merge(cols, on=key, how="outer")
    runs_table = pd.concat(summaries, ignore_index=True)
    first = ["run", "model"]
    return Comparison(study, runs_table[first + [c for c in runs_table.columns if c not in first]], shares)


def write_comparison(result: Comparison, out: Path, mark: str) -> Path:
    from stereoprobe.generation.frame import write_folder
    from stereoprobe.page.shell import esc

    folder = write_folder(Path(out), {"runs": result.runs, "groups": result.groups},
                          {"study": result.study, "runs": sorted(set(result.runs.run))}, mark)
    rows = "".join(f"<tr><td>{esc(r.run)}</td><td>{esc(r.model)}</td><td>{esc(r.statistic)}</td><td>{r.value:.3g}</td>"
                   f"<td>{r.low:.3g} to {r.high:.3g}</td></tr>" for r in result.runs.itertuples())
    title = f"{result.study} runs compared"
    (folder / "index.html").write_text(
        f"<!doctype html><meta charset='utf-8'><title>{esc(title)}</title><h1>{esc(title)}</h1>"
        "<table><tr><th>run</th><th>model</th><th>statistic</th><th>value</th><th>95% interval</th></tr>"
        f"{rows}</table><p>Per group and run: <a href='groups.csv'>groups.csv</a>; all rows: "
        "<a href='runs.csv'>runs.csv</a>.</p>", encoding="utf-8")
    return folder
