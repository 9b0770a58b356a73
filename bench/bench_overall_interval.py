"""What the overall rates' interval (issue 36) costs ``stereoprobe score``, in one process.

Table 3's three overall rates get their interval from the crossed logistic model
(:func:`stereoprobe.studies.coreference.inference.overall_interval`: one model fit each, then the observed rate's
variance by quadrature). Before issue 36 only rates under 5% fitted it; a default run's rates (10-30%) took the
Jeffreys interval at the two-way variance. This bench times, interleaved so the machine's load falls on both alike:

- ``score``: :func:`stereoprobe.studies.coreference.score.score` (every table and meta.json, as ``stereoprobe
  score`` computes them; nothing written) of a default-design chat run (bench/bench_coreference.py's
  ``chat_run``: 20 x 20 jobs, 16,800 answers of the fake biased model, about 10% wrong), with the overall
  interval as it is and with it replaced by the Jeffreys interval at the two-way variance (the rule before
  issue 36 at these rates);
- ``table3``: :func:`stereoprobe.studies.coreference.tables.table3` of rare simulated runs (tests/coref_synth.py,
  about 1-2% wrong: every overall rate under 5%) with and without the model (before issue 36 these fitted it too).

BLAS on one thread (the library's fit does that itself; the rest of score does not). Prints medians and their ratio
and the 1-minute load average before and after; divide by ``python3 /work/shared/tools/calibrate.py`` run in the
same minute for cal.

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
    times: dict[str, list[float]] = {"model": [], "two-way": []}
    for r in range(runs):
        for name in (("model", "two-way") if r % 2 == 0 else ("two-way", "model")):
            switch(name == "model")
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

    def switch(model: bool) -> None:
        inference.overall_interval = original if model else (lambda *a: a[-1])  # the fallback: two-way Jeffreys

    print(f"load average before: {os.getloadavg()[0]:.1f}")
    with tempfile.TemporaryDirectory() as tmp:
        run = chat_run(Path(tmp) / "chat", 16_800)
        score(run, n_boot=args.boot)  # imports and caches warm
        t = _interleaved(args.runs, lambda r: score(run, n_boot=args.boot, seed=r), switch)
        a, b = np.median(t["model"]), np.median(t["two-way"])
        print(f"score, default 20 x 20 run (16,800 answers, {args.boot} replicates per block), {args.runs} each: "
              f"{a:.2f} s with the model, {b:.2f} s without (medians): {a / b:.2f} times")
    for k, model in ((10, Model(hard=0.01, easy=0.002, job_sd=1.0)), (20, Model(hard=0.008, easy=0.002))):
        d, rng = design(k), np.random.default_rng(k)
        frames = [simulate(d, model, rng) for _ in range(args.runs)]
        plans = [inference.plan_for(f, 1000, seed=r) for r, f in enumerate(frames)]
        t = _interleaved(args.runs, lambda r: table3(frames[r], plans[r]), switch)
        a, b = np.median(t["model"]), np.median(t["two-way"])
        print(f"table3, rare {k} x {k} run (1,000 replicates per block), {args.runs} each: {a:.2f} s with the model, "
              f"{b:.2f} s without: {a / b:.1f} times")
    print(f"load average after: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
