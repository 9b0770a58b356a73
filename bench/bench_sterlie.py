"""Coverage and size of the sterlie tables' statistics on synthetic answers (tests/sterlie_synth.py).

    python bench/bench_sterlie.py            # 300 runs of the sector design, 50 samples, 500 replicates
    python bench/bench_sterlie.py --runs 50  # quicker

Prints, for the null model (each prompt its own error rate, the same for he and she) and a
planted bias (+0.25 on the anti-stereotypical prompts): the coverage of the 95% intervals
of FNR and FPR per pronoun and of each Table 6 cell, their mean width, and the share of
four-fifths permutation tests flagged at 5%, with the load average.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))


def main() -> None:
    import numpy as np

    from sterlie_synth import NULL, planted, simulate, true_rates
    from stereoprobe.studies.coreference.criteria import four_fifths
    from stereoprobe.studies.coreference.sterlie_score import separation, table6

    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=300)
    parser.add_argument("--boot", type=int, default=500)
    args = parser.parse_args()
    print(f"load average before: {os.getloadavg()[0]:.1f}")
    for name, p in (("null", NULL), ("bias +0.25", planted(0.25))):
        rng, truth, start = np.random.default_rng(2026), true_rates(p), time.time()
        rates, cells, widths, flags = [], [], [], []
        for r in range(args.runs):
            frame = simulate(rng, p)
            st = separation(frame, args.boot, r, 0.95).set_index("pronoun")
            for (pr, rate), v in truth.items():
                rates.append(st.loc[pr, f"{rate}_low"] <= v <= st.loc[pr, f"{rate}_high"])
                widths.append(st.loc[pr, f"{rate}_high"] - st.loc[pr, f"{rate}_low"])
            cells += [row.error_low <= 100 * p[(row.template, row.pronoun)] <= row.error_high
                      for row in table6(frame, args.boot, r, 0.95).itertuples()]
            flags.append(four_fifths(frame, pronouns=("he", "she"), n_perm=199, seed=r)["p"].to_numpy() < 0.05)
        f = np.mean(flags, axis=0)
        print(f"| {name} | {np.mean(rates):.3f} ({len(rates)}) | {np.mean(widths):.1f} points | "
              f"{np.mean(cells):.3f} ({len(cells)}) | FNR {f[0]:.3f}, FPR {f[1]:.3f}, PPV {f[2]:.3f}, NPV {f[3]:.3f} | "
              f"{time.time() - start:.0f} s |")
    print(f"load average after: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
