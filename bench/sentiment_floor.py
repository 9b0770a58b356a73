"""How much of `stereoprobe sentiment`'s time is the libraries it must import, in cal.

    PYTHONPATH=. python bench/sentiment_floor.py --run RUN [--rounds 5]

RUN: a full fill-in run (bench/study_runs.py makes one; 2,292 probes). Each round, in one
minute: the calibration (../shared/tools/calibrate.py), then, each a fresh interpreter,
``python -c pass``, ``import pandas, scipy.special`` (what the command imports since
2026-11-29: the tables, and the intervals' t and beta quantiles), ``import pandas,
scipy.stats, nltk`` (what it imported before: scipy.stats for the quantiles and betabinom,
nltk for WordNet's reader), and ``stereoprobe sentiment`` on a fresh copy of RUN. Prints wall
seconds and cal (wall / that round's calibration), medians over the rounds, and the load.
"""

from __future__ import annotations

import os
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_steps import calibrate, find_calibrate, floor_options, run_child  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
STEPS = {
    "python -c pass": [sys.executable, "-c", "pass"],
    "import pandas, scipy.special": [sys.executable, "-c", "import pandas, scipy.special"],
    "import pandas, scipy.stats, nltk": [sys.executable, "-c", "import pandas, scipy.stats, nltk"],
}


def main() -> None:
    args = floor_options(__doc__, "a full fill-in run")
    cal_path = find_calibrate(args.calibrate)
    walls: dict[str, list[float]] = {name: [] for name in [*STEPS, "stereoprobe sentiment"]}
    cals: list[float] = []
    loads: list[float] = []
    with tempfile.TemporaryDirectory() as tmp:
        for _ in range(args.rounds):
            loads.append(os.getloadavg()[0])
            cal, _ = calibrate(cal_path)
            cals.append(cal)
            for name, argv in STEPS.items():
                walls[name].append(run_child(argv, ROOT)[0] / cal)
            copy = Path(tmp) / "run"
            shutil.rmtree(copy, ignore_errors=True)
            shutil.copytree(args.run, copy, ignore=shutil.ignore_patterns("sentiment", "figures", "briefing"))
            argv = [sys.executable, "-m", "stereoprobe", "sentiment", str(copy)]
            walls["stereoprobe sentiment"].append(run_child(argv, ROOT)[0] / cal)
    print(f"calibration {min(cals):.2f}-{max(cals):.2f} s; load average {min(loads):.1f}-{max(loads):.1f}; "
          f"{args.rounds} rounds\n")
    print("| step | cal (median) | range |\n|---|---:|---|")
    for name, values in walls.items():
        print(f"| {name} | {statistics.median(values):.2f} | {min(values):.2f}-{max(values):.2f} |")


if __name__ == "__main__":
    main()
