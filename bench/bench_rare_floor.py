"""What the rare-rate floor costs: Table 3 of a simulated coreference run, with and without it.

An overall rate under 5% has its variance floored at the crossed logistic model's
(:func:`stereoprobe.studies.coreference.inference.rare_floor`), which fits the model once
per such rate. This bench times :func:`stereoprobe.studies.coreference.tables.table3` on
rare runs (tests/coref_synth.py, about 1-2% wrong, so all three overall rates take the
floor) with the floor and with it switched off (``RARE_PCT = 0``), interleaved in one
process so the machine's load falls on both alike, and reports the ratio.

    python bench/bench_rare_floor.py                 # 10 x 10 and 20 x 20 jobs, 6 runs each
    python bench/bench_rare_floor.py --jobs 20 --runs 10
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]


def main() -> None:
    import numpy as np
    from coref_synth import Model, design, simulate

    import stereoprobe.studies.coreference.inference as inference
    from stereoprobe.studies.coreference.tables import table3

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--jobs", type=int, nargs="+", default=[10, 20])
    ap.add_argument("--runs", type=int, default=6)
    ap.add_argument("--boot", type=int, default=1000, help="replicates per block (the tool's default)")
    args = ap.parse_args()
    print(f"load average before: {os.getloadavg()[0]:.1f}")
    for k in args.jobs:
        d, rng = design(k), np.random.default_rng(k)
        model = Model(hard=0.01, easy=0.002, job_sd=1.0) if k <= 10 else Model(hard=0.008, easy=0.002)
        times = {"with the floor": [], "without": []}
        for r in range(args.runs):
            frame = simulate(d, model, rng)
            plan = inference.plan_for(frame, args.boot, seed=r)
            for name, rare in (("with the floor", 5.0), ("without", 0.0)) if r % 2 == 0 else \
                    (("without", 0.0), ("with the floor", 5.0)):
                inference.RARE_PCT = rare
                start = time.perf_counter()
                table3(frame, plan)
                times[name].append(time.perf_counter() - start)
        inference.RARE_PCT = 5.0
        a, b = np.median(times["with the floor"]), np.median(times["without"])
        print(f"{k} x {k} jobs ({k * k} pairs), {args.runs} runs, {args.boot} replicates per block: Table 3 "
              f"{a:.2f} s with the floor, {b:.2f} s without (medians): {a / b:.1f} times")
    print(f"load average after: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
