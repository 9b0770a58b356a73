"""Benchmark the jobs study on the embedded model, as a ratio to one evaluation per prompt.

    python bench/bench_jobs.py                 # the full study (--debias all, both settings, stories)
    python bench/bench_jobs.py --jobs 10       # the first 10 jobs only
    python bench/bench_jobs.py --out DIR       # keep collect's run directory (to compare runs)

Runs, one after the other, each in its own process (so wall time, CPU time and peak
memory are each its own):

- ``floor``: every probe's text evaluated once (its last token's logits, with the same
  workers, callers, shared starts, batching and decodes), nothing else: no way of
  measuring a prompt costs less;
- ``collect``: ``stereoprobe collect --study jobs --debias all`` into a new directory,
  as a user runs it (every expression, the continuation trie, story names' word ends,
  the store, the manifest).

Prints a Markdown table (wall, CPU, peak RSS, ratio to the floor) with the machine's
1-minute load average before and after each, for docs/jobs.md.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import tempfile
from pathlib import Path

from timing import timed  # bench/timing.py (bench/ is on the path when run as a script)

FLOOR = """
import sys, time
from concurrent.futures import ThreadPoolExecutor
from stereoprobe.backends.scoring import EmbeddedScorer
from stereoprobe.studies.jobs.catalog import load_jobs_catalog
cat = load_jobs_catalog()
jobs = [j.job for j in cat.jobs][: int(sys.argv[1]) or None]
probes = cat.select(jobs=jobs, debias=range(7))
scorer = EmbeddedScorer(workers=2)
scorer._load()
def one(p):
    if p.kind == "gender":
        first = next(c for _, c in p.expressions if len(scorer.tokenize(p.text + c)) == len(scorer.tokenize(p.text)) + 1)
        scorer.logprobs(p.text, [first], shared=p.shared)
    else:
        scorer.next_tokens(p.text, 10, shared=p.shared)
with ThreadPoolExecutor(scorer.max_concurrency) as pool:
    list(pool.map(one, probes))
print(len(probes))
"""




def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--jobs", type=int, default=0, help="only the first N jobs (0: all 40)")
    parser.add_argument("--out", type=Path, default=None, help="collect into this (new) directory and keep it")
    args = parser.parse_args()
    if args.out is not None and args.out.exists():
        sys.exit(f"{args.out} exists: give a new directory")
    python = sys.executable
    floor = timed([python, "-c", FLOOR, str(args.jobs)])
    with tempfile.TemporaryDirectory() as tmp:
        run = args.out.resolve() if args.out is not None else Path(tmp) / "run"
        argv = [python, "-m", "stereoprobe", "collect", "--study", "jobs", "--debias", "all", "--out", str(run), "-q"]
        if args.jobs:
            from stereoprobe.studies.jobs.catalog import load_jobs_catalog

            for job in [j.job for j in load_jobs_catalog().jobs][: args.jobs]:
                argv += ["--job", job]
        full = timed(argv)
    print(f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}; "
          f"probes: {floor['output']}; peak RSS is ru_maxrss of the largest child so far\n")
    print("| run | wall | CPU | peak RSS | wall / floor | CPU / floor | load before, after |")
    print("|---|---|---|---|---|---|---|")
    for name, r in (("floor: each prompt evaluated once", floor), ("collect --study jobs --debias all", full)):
        print(f"| {name} | {r['wall']:.0f} s | {r['cpu']:.0f} s | {r['rss_mb']:.0f} MB | "
              f"{r['wall'] / floor['wall']:.2f} | {r['cpu'] / floor['cpu']:.2f} | "
              f"{r['load_before']:.1f}, {r['load_after']:.1f} |")


if __name__ == "__main__":
    main()
