"""What the overall rates' interval (issue 36) costs ``stereoprobe score``, in one process.

Table 3's three overall rates get their interval from quantiles of 20,000 replicates with both sides' jobs drawn at
once (:func:`stereoprobe.studies.coreference.inference.overall_interval`,
:meth:`stereoprobe.stats.crossed.CrossedPlan.joint_ratio`). This bench times, interleaved so the machine's load
falls on both alike, with the interval as it is ("with") and with it left out (NaN, "without"):

- ``score``: :func:`stereoprobe.studies.coreference.score.score` (every table and meta.json, as ``stereoprobe
  score`` computes them; nothing written) of a default-design chat run (bench/bench_coreference.py's
  ``chat_run``: 20 x 20 jobs, 16,800 answers of the fake biased model, about 10% wrong);
- ``table3``: :func:`stereoprobe.studies.coreference.tables.table3` of rare simulated runs (tests/coref_synth.py,
  about 1-2% wrong) of 10 x 10 and 20 x 20 jobs.

Prints medians and their ratio and the 1-minute load average before and after; divide by ``python3
/work/shared/tools/calibrate.py`` run in the same minute for cal.

    python bench/bench_overall_interval.py                  # 5 pairs of each
    python bench/bench_overall_interval.py --runs 3 --boot 2000
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests"), str(ROOT / "bench")]


def _interleaved(runs: int, call, switch) -> dict[str, list[float]]:
    times: dict[str, list[float]] = {"with": [], "without": []}
    for r in range(runs):
        for name in (("with", "without") if r % 2 == 0 else ("without", "with")):
            switch(name == "with")
            start = time.perf_counter()
            call(r)
            times[name].append(time.perf_counter() - start)
    switch(True)
    return times


def main() -> None:
    import numpy as np
    from bench_coreference import chat_run
    from coref_synth import Model, design, simulate

    import stereoprobe.studies.coreference.inference as inference
    from stereoprobe.studies.coreference.score import score
    from stereoprobe.studies.coreference.tables import table3

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--boot", type=int, default=2000, help="score's replicates per block (the tool's default)")
    args = ap.parse_args()
    original = inference.overall_interval

    def switch(on: bool) -> None:
        inference.overall_interval = original if on else (lambda *a: (float("nan"), float("nan")))

    print(f"load average before: {os.getloadavg()[0]:.1f}")
    with tempfile.TemporaryDirectory() as tmp:
        run = chat_run(Path(tmp) / "chat", 16_800)
        score(run, n_boot=args.boot)  # imports and caches warm
        t = _interleaved(args.runs, lambda r: score(run, n_boot=args.boot, seed=r), switch)
        a, b = np.median(t["with"]), np.median(t["without"])
        print(f"score, default 20 x 20 run (16,800 answers, {args.boot} replicates per block), {args.runs} each: "
              f"{a:.2f} s with the overall interval, {b:.2f} s without (medians): {a / b:.2f} times")
    for k, model in ((10, Model(hard=0.01, easy=0.002, job_sd=1.0)), (20, Model(hard=0.008, easy=0.002))):
        d, rng = design(k), np.random.default_rng(k)
        frames = [simulate(d, model, rng) for _ in range(args.runs)]
        plans = [inference.plan_for(f, 1000, seed=r) for r, f in enumerate(frames)]
        t = _interleaved(args.runs, lambda r: table3(frames[r], plans[r]), switch)
        a, b = np.median(t["with"]), np.median(t["without"])
        print(f"table3, rare {k} x {k} run (1,000 replicates per block), {args.runs} each: {a:.2f} s with the overall interval, "
              f"{b:.2f} s without: {a / b:.1f} times")
    print(f"load average after: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
