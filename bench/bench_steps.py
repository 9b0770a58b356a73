"""Whole-process times of the scoring and report steps in calibration units: this checkout
against an earlier revision, interleaved in one run (issue 35; docs/benchmarks.md).

    PYTHONPATH=. python bench/bench_steps.py --base b6db1f1 [--runs DIR] [--repeat 3]
        [--steps "fill-in report,jobs score"] [--calibrate PATH] [--out bench/results/steps.md]

Every study's run on its default design (bench/study_runs.py, made in ``--runs`` unless it is
there) is scored and reported by both versions: ``--base REV``'s ``stereoprobe/``, ``groups/``
and ``lexicons/`` exported with ``git archive``, and this checkout, each as its own process
(``python -c`` with the version's folder first on the path, from an empty working folder), on
a fresh copy of the run (this checkout copied when the bench starts): the scoring steps (`sentiment`, `score`) on the records alone, the
report steps on the run with its scores (written once by this checkout).

The calibration (``python3 ../shared/tools/calibrate.py``: a fixed single-core workload,
its best of three, in seconds) is measured before and after each pair of old and new
processes; a step's time divided by the mean of the two is its time in "cal". Its CPU
seconds (a run's, from ``wait4``) are kept too: CPU seconds over them ("CPU cal") vary
less on a busy machine than wall times do. The two versions alternate which goes first. Per process: wall and CPU seconds (its own and its
workers', from ``wait4``), peak RSS (the largest process of its tree) and the 1-minute load
average before it. Then, per step, medians over the repetitions and the median of the
pairs' ratios new / old, and whether the two versions wrote the same files (byte for byte;
PNG images and the images inside HTML pages compared by pixels where the bytes differ).
"""

from __future__ import annotations

import argparse
import base64
import io
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]

from study_runs import make  # noqa: E402

#: step -> (study, command, what the copy holds: "records" or "scored")
STEPS = {
    "fill-in sentiment": ("fill-in", "sentiment", "records"),
    "fill-in report": ("fill-in", "report", "scored"),
    "jobs score": ("jobs", "score", "records"),
    "jobs report": ("jobs", "report", "scored"),
    "coreference score": ("coreference", "score", "records"),
    "coreference report": ("coreference", "report", "scored"),
    "anecdotes score": ("anecdotes", "score", "records"),
    "anecdotes report": ("anecdotes", "report", "scored"),
    "stories score": ("stories", "score", "records"),
    "stories report": ("stories", "report", "scored"),
    "hobbies score": ("hobbies", "score", "records"),
    "hobbies report": ("hobbies", "report", "scored"),
}
RECORDS = ("completions.jsonl", "manifest.json")
REPORT_OUTPUTS = ("figures", "briefing", "report")  # what a report step writes (left out of its copy)
VOLATILE = re.compile(r"(meta\.json|\.svg)$")  # carry the time they were written (compared loosely)


@dataclass
class Measure:
    step: str
    version: str
    rep: int
    load: float
    wall: float
    cpu: float
    rss_mb: float
    cal: float = 0.0  # the calibration's seconds around the pair (mean of before and after)
    cal_cpu: float = 0.0  # its CPU seconds a run, around the pair


def find_calibrate(given: str | None) -> Path:
    if given:
        return Path(given)
    for parent in ROOT.parents:
        path = parent / "shared" / "tools" / "calibrate.py"
        if path.is_file():
            return path
    sys.exit("calibrate.py not found: give --calibrate PATH (the shared tools' calibrate.py).")


def floor_options(doc: str, run_help: str) -> argparse.Namespace:
    """The floor benches' command line (report_floor.py, sentiment_floor.py): --run, --rounds, --calibrate."""
    ap = argparse.ArgumentParser(description=doc.splitlines()[0])
    ap.add_argument("--run", type=Path, required=True, help=run_help)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--calibrate", help="path of calibrate.py")
    args = ap.parse_args()
    if not args.run.is_dir():
        ap.error(f"{args.run} is no run directory: give a full fill-in run (bench/study_runs.py makes one)")
    return args


def calibrate(path: Path) -> tuple[float, float]:
    """(the calibration's seconds: its best of three; the CPU seconds of one of its four runs,
    a warm-up and three, on average)."""
    with tempfile.TemporaryFile("w+") as out:
        proc = subprocess.Popen([sys.executable, str(path)], stdout=out, text=True)
        _, status, usage = os.wait4(proc.pid, 0)
        if os.waitstatus_to_exitcode(status) != 0:
            sys.exit(f"{path} failed")
        out.seek(0)
        return float(out.read().split()[-1]), (usage.ru_utime + usage.ru_stime) / 4


def export(rev: str, into: Path) -> Path:
    data = subprocess.run(["git", "archive", rev, "stereoprobe", "groups", "lexicons"], cwd=ROOT,
                          capture_output=True, check=True).stdout
    tarfile.open(fileobj=io.BytesIO(data)).extractall(into, filter="data")
    return into


def snapshot(into: Path) -> Path:
    """This checkout's ``stereoprobe/``, ``groups/`` and ``lexicons/`` as they are now (edits made
    while the bench runs do not reach it)."""
    for name in ("stereoprobe", "groups", "lexicons"):
        shutil.copytree(ROOT / name, into / name, ignore=shutil.ignore_patterns("__pycache__"))
    return into


def command(code: Path, *args: str) -> list[str]:
    """``stereoprobe ARGS`` run with ``code``'s package first on the path."""
    run = (f"import runpy, sys; sys.path.insert(0, {str(code)!r}); sys.argv = ['stereoprobe', *{list(args)!r}]; "
           "runpy.run_module('stereoprobe', run_name='__main__', alter_sys=True)")
    return [sys.executable, "-c", run]


def run_child(argv: list[str], cwd: Path) -> tuple[float, float, float]:
    """(wall s, CPU s of the process and its reaped workers, peak RSS MB of the largest of them)."""
    with tempfile.TemporaryFile("w+") as err:
        start = time.perf_counter()
        proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=err, text=True, cwd=cwd)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        if proc.returncode != 0:
            err.seek(0)
            sys.exit(f"{' '.join(argv[-1:])} failed ({proc.returncode}): {err.read()[-2000:]}")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def fresh_copy(run: Path, holds: str, into: Path) -> Path:
    shutil.rmtree(into, ignore_errors=True)
    if holds == "records":
        into.mkdir(parents=True)
        for name in RECORDS:
            shutil.copy2(run / name, into / name)
    else:
        shutil.copytree(run, into, ignore=shutil.ignore_patterns(*REPORT_OUTPUTS))
    return into


def scored(run: Path, study: str) -> Path:
    """The run with its scores, written by this checkout when the bench starts (scores a kept
    run holds from another version are replaced: a report reads the files its own score writes)."""
    folder = "sentiment" if study == "fill-in" else study
    shutil.rmtree(run / folder, ignore_errors=True)
    run_child(command(ROOT, "sentiment" if study == "fill-in" else "score", str(run)), run)
    return run


# -- comparing what the two versions wrote ---------------------------------------------

def _pixels(data: bytes):
    import numpy as np
    from PIL import Image

    return np.asarray(Image.open(io.BytesIO(data)).convert("RGB")).astype(int)


def _image_diff(a: bytes, b: bytes) -> int:
    """The largest difference of one colour channel between two PNG images (999: other sizes)."""
    import numpy as np

    p, q = _pixels(a), _pixels(b)
    return int(np.abs(p - q).max()) if p.shape == q.shape else 999


URI = re.compile(r"data:image/png;base64,([A-Za-z0-9+/=]+)")


def compare(a: Path, b: Path) -> list[str]:
    """What differs between two output folders (empty: byte for byte the same, but for the
    dates in meta.json and SVG files)."""
    notes = []
    names = sorted({p.relative_to(a) for p in a.rglob("*") if p.is_file()}
                   | {p.relative_to(b) for p in b.rglob("*") if p.is_file()})
    for rel in names:
        x, y = a / rel, b / rel
        if not (x.is_file() and y.is_file()):
            notes.append(f"{rel}: only in {'old' if x.is_file() else 'new'}")
            continue
        bx, by = x.read_bytes(), y.read_bytes()
        if bx == by or VOLATILE.search(str(rel)):
            continue
        if rel.suffix == ".png":
            notes.append(f"{rel}: other bytes, pixels differ by at most {_image_diff(bx, by)}")
        elif rel.suffix == ".html":
            tx, ty = bx.decode(), by.decode()
            ux, uy = URI.findall(tx), URI.findall(ty)
            text_same = URI.sub("", tx) == URI.sub("", ty)
            worst = max([_image_diff(base64.b64decode(u), base64.b64decode(v)) for u, v in zip(ux, uy) if u != v]
                        or [0])
            notes.append(f"{rel}: text {'same' if text_same else 'differs'}, {sum(u != v for u, v in zip(ux, uy))} "
                         f"of {len(ux)} images other bytes, pixels differ by at most {worst}")
        else:
            notes.append(f"{rel}: differs")
    return notes


# -- the run --------------------------------------------------------------------------------

def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--base", required=True, help="the revision to compare with (e.g. b6db1f1)")
    ap.add_argument("--runs", type=Path, help="folder of the studies' runs (made there if missing)")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--steps", default=",".join(STEPS), help="comma-separated, from: " + ", ".join(STEPS))
    ap.add_argument("--calibrate", help="path of calibrate.py (default: shared/tools/calibrate.py above the repo)")
    ap.add_argument("--out", type=Path, help="also write the tables to this Markdown file")
    args = ap.parse_args()
    steps = [s.strip() for s in args.steps.split(",") if s.strip()]
    unknown = [s for s in steps if s not in STEPS]
    if unknown:
        sys.exit(f"unknown steps {unknown}; known: {', '.join(STEPS)}")
    cal_path = find_calibrate(args.calibrate)
    lines: list[str] = []

    def say(text: str = "") -> None:
        print(text, flush=True)
        lines.append(text)

    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        runs_dir = args.runs or tmp / "runs"
        head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True,
                              text=True).stdout.strip()
        versions = {"old": export(args.base, tmp / "old"), "new": snapshot(tmp / "new")}
        runs = {}
        for step in steps:
            study, _, holds = STEPS[step]
            if study not in runs:
                runs[study] = make(runs_dir, study)
            if holds == "scored":
                scored(runs[study], study)
        say(f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}; "
            f"old = {args.base}, new = {head} (working tree); calibration: {cal_path.name}, best of 3")
        say()
        say("| step | rep | version | load | cal s (CPU s) | wall s | wall cal | CPU s | CPU / cal CPU | peak RSS MB |")
        say("|---|---|---|---|---|---|---|---|---|---|")
        measures: list[Measure] = []
        outputs: dict[str, list[str]] = {}
        cal = calibrate(cal_path)
        for rep in range(args.repeat):
            for i, step in enumerate(steps):
                study, cmd, holds = STEPS[step]
                order = ["old", "new"] if (rep + i) % 2 == 0 else ["new", "old"]
                pair = []
                for version in order:
                    copy = fresh_copy(runs[study], holds, tmp / "work" / version)
                    load = os.getloadavg()[0]
                    wall, cpu, rss = run_child(command(versions[version], cmd, str(copy)), tmp)
                    pair.append(Measure(step, version, rep, load, wall, cpu, rss))
                if rep == 0:
                    outputs[step] = compare(tmp / "work" / "old", tmp / "work" / "new")
                after = calibrate(cal_path)
                for m in pair:
                    m.cal, m.cal_cpu = (cal[0] + after[0]) / 2, (cal[1] + after[1]) / 2
                    say(f"| {m.step} | {m.rep + 1} | {m.version} | {m.load:.1f} | {m.cal:.2f} ({m.cal_cpu:.2f}) | "
                        f"{m.wall:.1f} | {m.wall / m.cal:.2f} | {m.cpu:.1f} | {m.cpu / m.cal_cpu:.2f} | {m.rss_mb:.0f} |")
                measures += pair
                cal = after
        say()
        say("Medians over the repetitions. wall cal: wall seconds / the calibration's seconds measured around "
            "the pair; CPU cal: CPU seconds (the process and its workers) / the calibration's CPU seconds a run, "
            "which a busy machine disturbs less. Ratios: median of the pairs' new / old.")
        say()
        say("| step | old wall cal | new wall cal | wall new/old | old CPU cal | new CPU cal | CPU new/old | "
            "peak RSS MB old, new | load | outputs |")
        say("|---|---|---|---|---|---|---|---|---|---|")
        med = statistics.median
        for step in steps:
            old = [m for m in measures if m.step == step and m.version == "old"]
            new = [m for m in measures if m.step == step and m.version == "new"]
            ratio_w = med(n.wall / o.wall for o, n in zip(old, new))
            ratio_c = med(n.cpu / o.cpu for o, n in zip(old, new))
            loads = [m.load for m in old + new]
            diff = outputs.get(step, [])
            say(f"| {step} | {med(m.wall / m.cal for m in old):.2f} | {med(m.wall / m.cal for m in new):.2f} | "
                f"{ratio_w:.2f} | {med(m.cpu / m.cal_cpu for m in old):.2f} | {med(m.cpu / m.cal_cpu for m in new):.2f} | "
                f"{ratio_c:.2f} | {max(m.rss_mb for m in old):.0f}, {max(m.rss_mb for m in new):.0f} | "
                f"{min(loads):.1f}-{max(loads):.1f} | {'same' if not diff else f'{len(diff)} differ'} |")
        for step in steps:
            for note in outputs.get(step, [])[:20]:
                say(f"- {step}: {note}")
        say()
        say(f"Calibration over the run: {min(m.cal for m in measures):.2f}-{max(m.cal for m in measures):.2f} s, "
            f"{min(m.cal_cpu for m in measures):.2f}-{max(m.cal_cpu for m in measures):.2f} CPU s a run; "
            f"1-minute load average {min(m.load for m in measures):.1f}-{max(m.load for m in measures):.1f}.")
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text("\n".join(lines) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
