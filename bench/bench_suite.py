"""The embedded `stereoprobe suite` against the sum of the studies' own commands, and both
designs' sizes (docs/suite.md, docs/benchmarks.md).

    python bench/bench_suite.py                 # the suite, then each study's own collect, score, report
    python bench/bench_suite.py --fresh         # first a fresh clone and the README's install
    python bench/bench_suite.py --sizes         # only the designs' sizes (requests, tokens): seconds

1. `--fresh`: `git clone` of this repository's HEAD into a temporary folder, then the README's
   install (`python3 -m venv .venv && .venv/bin/pip install '.[local]'`), timed apart;
2. `stereoprobe suite` with no arguments (the embedded model, the quick design) in that clone
   (else in this checkout's environment), as a process: wall, CPU (user + system), peak RSS;
3. each study's own `stereoprobe collect --study S --design quick` (sterlie: `--templates
   sterlie`), `score` and `report`, each as a process, into another folder;
4. `python3 ../shared/tools/calibrate.py`-style calibration around each (``--calibrate PATH``:
   the script printing a fixed workload's seconds), so times can be given in cal;
5. both designs' sizes per study on the embedded model and on a served one (`plan_suite`'s
   estimates: answers, requests, prompt and completion tokens; asks nothing).

Prints Markdown tables and writes bench/results/suite-<time>.json.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
KEYS = ["fill-in", "jobs", "coreference", "sterlie", "anecdotes", "stories", "hobbies"]


def load() -> float:
    return os.getloadavg()[0]


def timed(argv: list[str], cwd: Path, env: dict | None = None) -> dict:
    """``argv`` as a child under /usr/bin/time: wall s, CPU s, peak RSS MiB, loads around it."""
    before, start = load(), time.perf_counter()
    out = subprocess.run(["/usr/bin/time", "-f", "TIME %e %U %S %M", *argv], cwd=cwd, capture_output=True, text=True,
                         env={**os.environ, **(env or {})})
    line = [x for x in out.stderr.splitlines() if x.startswith("TIME ")][-1].split()
    if out.returncode != 0:
        sys.exit(f"{' '.join(argv)} failed ({out.returncode}):\n{out.stderr[-3000:]}")
    return {"wall": float(line[1]), "cpu": float(line[2]) + float(line[3]), "rss_mb": int(line[4]) / 1024,
            "load_before": before, "load_after": load(), "measured_wall": time.perf_counter() - start}


def calibrate(script: Path | None, python: str) -> float | None:
    if script is None or not script.is_file():
        return None
    out = subprocess.run([python, str(script)], capture_output=True, text=True)
    return float(out.stdout.strip().splitlines()[-1]) if out.returncode == 0 else None


def fresh_clone(where: Path) -> tuple[Path, dict]:
    """A clone of HEAD with the README's install; the clone and the install's timing."""
    clone = where / "clone"
    subprocess.run(["git", "clone", "--quiet", str(ROOT), str(clone)], check=True)
    install = timed(["sh", "-c", "python3 -m venv .venv && .venv/bin/pip install --quiet '.[local]'"], clone)
    return clone, install


def own_commands(key: str, run: Path) -> list[tuple[str, list[str]]]:
    study = "coreference" if key == "sterlie" else key
    extra = ["--templates", "sterlie"] if key == "sterlie" else []
    return [("collect", ["collect", "--study", study, *extra, "--design", "quick", "--out", str(run), "-q"]),
            ("score", ["score", str(run)]), ("report", ["report", str(run)])]


def sizes() -> list[dict]:
    """Both designs' sizes per study, on the embedded model and a served one (asks nothing)."""
    sys.path.insert(0, str(ROOT))
    from stereoprobe.errors import DataError
    from stereoprobe.suite.plan import ModelSpec, plan_suite

    out = []
    for model in (ModelSpec(), ModelSpec(model="gpt-4o-mini")):
        for design in ("quick", "default", "published"):
            try:
                plan = plan_suite(model, "all", design, Path(tempfile.mkdtemp()) / "s")
            except DataError as exc:  # a design some study lacks (published: issue 34)
                out.append({"model": model.name(), "design": design, "error": str(exc)})
                continue
            for p in plan.studies:
                e = p.estimate
                out.append({"model": model.name(), "design": design, "study": p.key, "answers": e.answers,
                            "requests": e.requests, "prompt_tokens": e.prompt_tokens,
                            "completion_tokens": e.completion_tokens, "what": p.design.what})
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--fresh", action="store_true", help="a fresh clone and the README's install first")
    parser.add_argument("--sizes", action="store_true", help="only the designs' sizes")
    parser.add_argument("--calibrate", type=Path, default=ROOT.parent / "shared" / "tools" / "calibrate.py")
    parser.add_argument("--keep", type=Path, default=None, help="keep the folders here")
    args = parser.parse_args()
    result: dict = {"sizes": sizes(), "date": time.strftime("%Y-%m-%d %H:%M")}
    if not args.sizes:
        where = args.keep or Path(tempfile.mkdtemp(prefix="bench-suite-"))
        where.mkdir(parents=True, exist_ok=True)
        cwd, python = ROOT, sys.executable
        if args.fresh:
            cwd, result["install"] = fresh_clone(where)
            python = str(cwd / ".venv" / "bin" / "python")
        bin_ = Path(python).parent / "stereoprobe"
        result["cal_before"] = calibrate(args.calibrate, python)
        result["suite"] = timed([str(bin_), "suite", "--out", str(where / "suite"), "-q"], cwd)
        result["cal_after_suite"] = calibrate(args.calibrate, python)
        record = json.loads((where / "suite" / "suite.json").read_text())
        result["suite_steps"] = {e["key"]: e["seconds"] for e in record["studies"]}
        result["own"] = {}
        for key in KEYS:
            result["own"][key] = {step: timed([str(bin_), *argv], cwd)
                                  for step, argv in own_commands(key, where / "own" / key)}
        result["cal_after"] = calibrate(args.calibrate, python)
        if args.keep is None:
            shutil.rmtree(where, ignore_errors=True)
    report(result)
    folder = ROOT / "bench" / "results"
    folder.mkdir(exist_ok=True)
    (folder / f"suite-{time.strftime('%Y%m%d-%H%M')}.json").write_text(json.dumps(result, indent=1) + "\n")


def report(r: dict) -> None:
    print("| model | design | study | answers | requests | prompt tokens | completion tokens |")
    print("|---|---|---|---:|---:|---:|---:|")
    for s in r["sizes"]:
        if "error" in s:
            print(f"| {s['model']} | {s['design']} | - | {s['error']} | | | |")
            continue
        print(f"| {s['model']} | {s['design']} | {s['study']} | {s['answers']:,} | {s['requests']:,} | "
              f"{s['prompt_tokens']:,} | {s['completion_tokens']:,} |")
    if "suite" not in r:
        return
    cal = [c for c in (r.get("cal_before"), r.get("cal_after_suite"), r.get("cal_after")) if c]
    print(f"\ncalibration: {', '.join(f'{c:.2f} s' for c in cal)}")
    s = r["suite"]
    print("\n| what | wall s | CPU s | peak RSS MiB | load before, after |")
    print("|---|---:|---:|---:|---|")
    if "install" in r:
        i = r["install"]
        print(f"| README install | {i['wall']:.0f} | {i['cpu']:.0f} | {i['rss_mb']:.0f} | "
              f"{i['load_before']:.1f}, {i['load_after']:.1f} |")
    print(f"| `stereoprobe suite` | {s['wall']:.0f} | {s['cpu']:.0f} | {s['rss_mb']:.0f} | "
          f"{s['load_before']:.1f}, {s['load_after']:.1f} |")
    total = {"wall": 0.0, "cpu": 0.0}
    collects = {"wall": 0.0, "cpu": 0.0}
    for key, steps in r["own"].items():
        for step, t in steps.items():
            print(f"| {key} {step} | {t['wall']:.0f} | {t['cpu']:.0f} | {t['rss_mb']:.0f} | "
                  f"{t['load_before']:.1f}, {t['load_after']:.1f} |")
            for k in total:
                total[k] += t[k]
                if step == "collect":
                    collects[k] += t[k]
    print(f"| sum of the studies' own collects | {collects['wall']:.0f} | {collects['cpu']:.0f} | | |")
    print(f"| sum of their collects, scores and reports | {total['wall']:.0f} | {total['cpu']:.0f} | | |")
    print(f"\nsuite / own collects: wall {s['wall'] / collects['wall']:.2f}, CPU {s['cpu'] / collects['cpu']:.2f}; "
          f"suite / own collects, scores, reports: wall {s['wall'] / total['wall']:.2f}, "
          f"CPU {s['cpu'] / total['cpu']:.2f}")
    if cal:
        print(f"suite: {s['wall'] / cal[0]:.0f} cal (wall / the calibration before it)")


if __name__ == "__main__":
    main()
