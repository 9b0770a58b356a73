"""Stories runs side by side (`stereoprobe compare RUN RUN ...`, generation/compare.py):
per run the female and unknown shares and NMI (summary rows); per profession each run's
share of female names (of the gendered ones)."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Sequence

MARK = "stereoprobe_stories_comparison"


def compare_runs(runs: Sequence[Path], n_boot: int = 2000, seed: int = 2023) -> Any:
    from stereoprobe.generation.compare import compare_runs as compare
    from stereoprobe.studies.stories.score import score

    return compare("stories", score, runs, "female_of_gendered", "female names, of the stories with a gendered name",
                   n_boot=n_boot, seed=seed)


def write_comparison(result: Any, out: Path) -> Path:
    from stereoprobe.generation.compare import write_comparison as write

    return write(result, out, MARK)
