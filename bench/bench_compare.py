"""Benchmark `stereoprobe compare` on five full 2,292-probe runs (not a test).

    python bench/bench_compare.py [--repeat N]

Synthesises five runs as bench/bench_sentiment.py does (every probe of the catalog
answered with ten Zipf-weighted WordNet adjectives, 57% of them EmoLex words, about 1%
refused and 0.5% failed; a different seed, and so a different vocabulary, per run), then
times in fresh processes:

- the reference: `python -m stereoprobe sentiment RUN` on the first run;
- `python -m stereoprobe compare R1 ... R5 --out DIR` (10 pairs; intervals, tests,
  figures, page) when no run has sentiment/ yet (compare writes it), and again when they
  all have it.

Each command runs in its own child; its wall time, CPU time and peak RSS (the child's
ru_maxrss) are printed, with the ratio to the reference and the machine's load average.
Results are recorded in docs/compare.md.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from bench_sentiment import synthesise  # noqa: E402

# Runs a command and reports its own peak RSS (the grandchild's, not ours).
WRAP = (
    "import json, resource, subprocess, sys, time\n"
    "t = time.perf_counter(); p = subprocess.run(sys.argv[1:], capture_output=True, text=True)\n"
    "w = time.perf_counter() - t; r = resource.getrusage(resource.RUSAGE_CHILDREN)\n"
    "print(json.dumps({'rc': p.returncode, 'wall_s': w, 'cpu_s': r.ru_utime + r.ru_stime,\n"
    "                  'peak_rss_mb': r.ru_maxrss / 1024, 'stderr': p.stderr[-500:], 'stdout': p.stdout}))\n"
)


def measure(args: list[str]) -> dict:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.run([sys.executable, "-c", WRAP, sys.executable, "-m", "stereoprobe", *args],
                          capture_output=True, text=True, env=env, check=True)
    out = json.loads(proc.stdout)
    if out["rc"] != 0:
        raise SystemExit(f"{' '.join(args)} failed: {out['stderr']}")
    return out


def main(argv: list[str]) -> None:
    repeat = int(argv[argv.index("--repeat") + 1]) if "--repeat" in argv else 2
    print(f"machine: {os.cpu_count()} cores, python {sys.version.split()[0]}; load before: {os.getloadavg()}")
    with tempfile.TemporaryDirectory() as tmp:
        runs = []
        for i in range(5):
            run = Path(tmp) / f"run{i + 1}"
            run.mkdir()
            synthesise(run, seed=2023 + i)
            runs.append(run)
        rows = []
        for k in range(repeat):
            for run in runs:
                shutil.rmtree(run / "sentiment", ignore_errors=True)
            ref = measure(["sentiment", str(runs[0])])
            shutil.rmtree(runs[0] / "sentiment")
            cold = measure(["compare", *map(str, runs), "--out", str(Path(tmp) / f"cmp{k}a")])
            warm = measure(["compare", *map(str, runs), "--out", str(Path(tmp) / f"cmp{k}b")])
            for name, m in (("sentiment, 1 run (reference)", ref), ("compare 5 runs, writes sentiment/", cold),
                            ("compare 5 runs, sentiment/ present", warm)):
                rows.append((name, m["wall_s"], m["cpu_s"], m["peak_rss_mb"], m["wall_s"] / ref["wall_s"]))
                print(f"{name:38s} wall {m['wall_s']:6.2f} s  cpu {m['cpu_s']:6.2f} s  "
                      f"peak RSS {m['peak_rss_mb']:7.1f} MB  x{m['wall_s'] / ref['wall_s']:.2f} of reference")
            print(f"load average: {os.getloadavg()}")
        print(cold["stdout"])
        html = Path(tmp) / f"cmp{repeat - 1}b" / "index.html"
        print(f"index.html: {html.stat().st_size / 1e6:.1f} MB")


if __name__ == "__main__":
    main(sys.argv[1:])
