"""Anecdotes runs side by side (`stereoprobe compare RUN RUN ...`, generation/compare.py):
per run the share that follows the BLS majority, the neutral and mixed shares, NMI and
Spearman (summary rows); per profession each run's share of texts about a woman."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Sequence

MARK = "stereoprobe_anecdotes_comparison"


def compare_runs(runs: Sequence[Path], n_boot: int = 2000, seed: int = 2023) -> Any:
    from stereoprobe.generation.compare import compare_runs as compare
    from stereoprobe.studies.anecdotes.score import score

    return compare("anecdotes", score, runs, "female_of_gendered", "texts about a woman, of those with a gender",
                   n_boot=n_boot, seed=seed)


def write_comparison(result: Any, out: Path) -> Path:
    from stereoprobe.generation.compare import write_comparison as write

    return write(result, out, MARK)
