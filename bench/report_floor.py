"""How far the fill-in report could fall if its group clouds cost less, in cal (issue 35's 3 cal).

    PYTHONPATH=. python bench/report_floor.py --run RUN [--rounds 5]

RUN: a full fill-in run scored by `stereoprobe sentiment` (bench/study_runs.py and
bench_steps.py make one: 2,292 probes, 381 groups). Each round, in one minute: the
calibration (../shared/tools/calibrate.py), then, each a fresh interpreter on a fresh copy of
RUN, the report three ways:

- ``report``: `stereoprobe report`, as a user runs it;
- ``clouds laid out only``: the same, but each group's two clouds are only laid out
  (cloud_layout.layout: wordcloud's placement), not drawn, quantised or PNG-encoded: what
  the report would cost if the pages' group clouds were drawn by the browser (SVG text) at
  no cost at all;
- ``no group clouds``: the group clouds not made at all (the category figures, category
  clouds, data files and pages as usual).

The last two write pages without group clouds: they are bounds, not reports. Prints wall
seconds in cal (wall / that round's calibration) and CPU seconds in CPU-cal, medians over the
rounds, and the load.
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
_VARIANT = """
import sys
from stereoprobe.studies.fillin.report import build, clouds, cloud_layout, draw

def laid_out(job):
    for fmt in ("question", "statement"):
        words = job.page.words_by_format[fmt]
        if words:
            w, h = (round(s / clouds.LAYOUT_SCALE) for s in clouds.CLOUD_SIZE)
            cloud_layout.layout({x.word: x.count for x in words[:clouds.MAX_WORDS]}, w, h, max(8, h // 3),
                                clouds.MAX_WORDS, clouds.font_path())
    job.page.question_png = job.page.statement_png = b""
    return job.page, []

def nothing(job):
    job.page.question_png = job.page.statement_png = b""
    return job.page, []

draw.render_group = {"laid": laid_out, "none": nothing}[sys.argv[1]]
build.build_report(sys.argv[2])
"""
VARIANTS = {"report": None, "clouds laid out only": "laid", "no group clouds": "none"}


def main() -> None:
    args = floor_options(__doc__, "a full fill-in run, scored")
    if not (args.run / "sentiment").is_dir():
        sys.exit(f"{args.run} holds no sentiment/: run `stereoprobe sentiment {args.run}` first.")
    cal_path = find_calibrate(args.calibrate)
    walls: dict[str, list[float]] = {name: [] for name in VARIANTS}
    cpus: dict[str, list[float]] = {name: [] for name in VARIANTS}
    cals, loads = [], []
    with tempfile.TemporaryDirectory() as tmp:
        for _ in range(args.rounds):
            loads.append(os.getloadavg()[0])
            cal, cal_cpu = calibrate(cal_path)
            cals.append(cal)
            for name, variant in VARIANTS.items():
                copy = Path(tmp) / "run"
                shutil.rmtree(copy, ignore_errors=True)
                shutil.copytree(args.run, copy, ignore=shutil.ignore_patterns("figures", "briefing"))
                argv = ([sys.executable, "-m", "stereoprobe", "report", str(copy)] if variant is None
                        else [sys.executable, "-c", _VARIANT, variant, str(copy)])
                wall, cpu, _ = run_child(argv, ROOT)
                walls[name].append(wall / cal)
                cpus[name].append(cpu / cal_cpu)
    print(f"calibration {min(cals):.2f}-{max(cals):.2f} s; load average {min(loads):.1f}-{max(loads):.1f}; "
          f"{args.rounds} rounds\n")
    print("| report | cal (median) | range | CPU-cal (median) |\n|---|---:|---|---:|")
    for name in VARIANTS:
        print(f"| {name} | {statistics.median(walls[name]):.2f} | {min(walls[name]):.2f}-{max(walls[name]):.2f} "
              f"| {statistics.median(cpus[name]):.2f} |")


if __name__ == "__main__":
    main()
