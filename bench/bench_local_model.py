"""Benchmark the embedded next-word backend (Gemma 3 270M via llama-cpp-python).

    /work/venv/bin/python bench/bench_local_model.py            # all 2,292 probes
    /work/venv/bin/python bench/bench_local_model.py -n 200     # the first 200 probes

Asks the backend directly (no collect, no store) over the first N probes of the catalog,
one at a time as collect does (max_concurrency = 1). Reports model load time, seconds
per probe (mean, median, p95), model evaluations per probe (the probe plus one per word
completion step), the measured or projected time of a full 2,292-probe run, and peak
RSS. Prints a Markdown table for docs/nextword.md.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import stereoprobe  # noqa: E402
from stereoprobe.backends.local import LocalModelBackend  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", "--probes", type=int, default=None, help="number of probes (default: all)")
    parser.add_argument("--threads", type=int, default=None, help="llama.cpp threads (default: all cores)")
    args = parser.parse_args()

    probes = stereoprobe.load_probes()
    total = len(probes)
    probes = probes[: args.probes] if args.probes else probes

    backend = LocalModelBackend(n_threads=args.threads)
    start = time.perf_counter()
    backend.describe()  # assembles and checks the model file
    backend.ask(probes[0])  # loads the model
    load_s = time.perf_counter() - start

    times, evals, words = [], [], []
    load_before = os.getloadavg()[0]
    cpu_start = time.process_time()
    start = time.perf_counter()
    for i, probe in enumerate(probes, 1):
        t0 = time.perf_counter()
        answer = backend.ask(probe)
        times.append(time.perf_counter() - t0)
        candidates = json.loads(answer.raw)["candidates"]
        evals.append(1 + sum(len(c.get("tokens", [c["first"]])) for c in candidates))
        words.append(len(answer.words))
        if i % 50 == 0:
            print(f"  {i}/{len(probes)}  {statistics.mean(times):.3f} s/probe", file=sys.stderr)
    wall = time.perf_counter() - start
    cpu = time.process_time() - cpu_start
    load_after = os.getloadavg()[0]
    backend.close()

    per_probe = wall / len(probes)
    p95 = sorted(times)[int(0.95 * (len(times) - 1))]
    full = "measured" if len(probes) == total else "projected"
    rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    rows = [
        ("machine", f"{platform.machine()}, {os.cpu_count()} cores, {platform.python_version()}"),
        ("threads", str(backend.n_threads)),
        ("1-min load average before / after (other work on the machine)",
         f"{load_before:.1f} / {load_after:.1f}"),
        ("probes", f"{len(probes)} of {total}"),
        ("model file check + load + first probe", f"{load_s:.1f} s"),
        ("seconds per probe (mean / median / p95)",
         f"{per_probe:.3f} / {statistics.median(times):.3f} / {p95:.3f}"),
        ("CPU seconds per probe (this process, all threads)", f"{cpu / len(probes):.3f}"),
        ("model evaluations per probe (mean)", f"{statistics.mean(evals):.1f}"),
        ("words per probe (mean, min)", f"{statistics.mean(words):.1f}, {min(words)}"),
        (f"full run, {total} probes ({full})", f"{per_probe * total / 60:.1f} min"),
        ("peak RSS", f"{rss_mb:.0f} MB"),
    ]
    print("| measure | value |\n|---|---|")
    for name, value in rows:
        print(f"| {name} | {value} |")


if __name__ == "__main__":
    main()
