"""Holm's adjustment: statsmodels' ``multipletests(method="holm")`` against
:func:`stereoprobe.stats.holm`, in a process whose heap is as large as a test session's.

statsmodels runs ``gc.collect()`` on every Holm call, so its cost grows with everything
else the process holds; the coreference null-coverage test calls it 600 times (200 runs x
3 comparisons) and spent most of its 267 s there in a full suite run. This bench times
both, interleaved in one process (so the machine's load falls on both alike), first with a
small heap, then with ``--objects`` small objects kept alive (a pytest session with the
studies, pandas frames and the model backends loaded holds a few million).

    python bench/bench_holm.py                  # 200 calls each, 0 and 3 million objects
    python bench/bench_holm.py --calls 600 --objects 5000000
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def per_call(fn, p, calls: int) -> float:
    start = time.perf_counter()
    for _ in range(calls):
        fn(p)
    return (time.perf_counter() - start) / calls


def main() -> None:
    import numpy as np
    from statsmodels.stats.multitest import multipletests

    from stereoprobe.stats import holm

    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--objects", type=int, default=3_000_000)
    args = parser.parse_args()
    p = np.random.default_rng(0).uniform(0, 1, 4)  # one prefix's four rates
    statsmodels = lambda x: multipletests(x, method="holm")[1]  # noqa: E731
    assert np.allclose(statsmodels(p), holm(p))
    print(f"load average before: {os.getloadavg()[0]:.2f}")
    keep = []
    for size in (0, args.objects):
        keep.extend([i, str(i)] for i in range(size - len(keep)))  # lists and strings: objects gc tracks
        ours, theirs = [], []
        for _ in range(3):  # interleaved rounds
            ours.append(per_call(holm, p, args.calls))
            theirs.append(per_call(statsmodels, p, args.calls))
        a, b = min(ours), min(theirs)
        print(f"heap of {len(keep):,} extra objects: stereoprobe.stats.holm {a * 1e6:.0f} us per call, "
              f"statsmodels {b * 1e3:.2f} ms per call: {b / a:,.0f} times ours ({args.calls} calls, best of 3)")
    print(f"load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
