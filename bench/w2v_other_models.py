"""Can the cross-fit's own three models give the Word2Vec se without retraining? (issue 34 §2; no)

The three models are trained on disjoint, independent thirds of the names: fresh draws of a model from the
same population, which the retraining bootstrap's models are not (docs/hobbies.md, "Where the shortfall
comes from"). Each fold is scored by the tool's model (fold j by the model of fold j + 1: ``d_j``) and also
by the third model, which did not see it either (the model of fold j - 1: ``e_j``); both with one name
bootstrap, models held fixed (``sd_j``, ``v_j`` = var of d_j - e_j, ``c_j`` = their covariance).

With d_j = mu + a_(j+1) + b_j (a model's effect, a fold's names' effect, each fold's pair independent of the
others') the tool's d has 9 var(d) = sum var(b_j) + 3 var(a) + 6 cov(a, b), and the six scores give an
estimate of the last two terms that is unbiased under that model: with g_j = d_j - e_j, u_k = (d_k + e_k)/2
less the mean of the six, w_k = (g_(k-1) - g_(k+1)) / 3,

    S = 3 (sum_k (u_k w_k + w_k^2) - 2/9 sum_j v_j),   se = sqrt(sum sd_j^2 + max(0, S)) / 3.

``--summary`` reads the raw rows and prints, per file, S's mean and sd against what the runs show (9 var(d)
less the name bootstrap's sum sd_j^2) and the interval's coverage with the name bootstrap alone and with S.
The answer (docs/hobbies.md; bench/results/w2v-other-models-*.csv): no. The folds are not additive: fold j
scored by the model of j + 1 and fold j + 1 by the model of j share the product of the two folds' chance
imbalances (their d correlate +0.52 to +0.81 across runs, with or without a real difference), so S is
+0.11 to +0.15 with no real difference, where it should be 0; and a sum over three folds has 2 degrees of
freedom (S's sd 0.33-0.51 a run, against about 0.18 for the name bootstrap's whole part).

    python bench/w2v_other_models.py --family topics --truth null --start 0 --reps 100 --raw out.csv
    python bench/w2v_other_models.py --summary out.csv [more.csv ...]

Seeds as bench/sim_w2v_null.py's: replicate r's texts 1000 + r, its folds and models r, fold j's name
bootstrap r + j (so d_j and sd_j are that bench's for the same r).
"""

from __future__ import annotations

import argparse
import csv
import os
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests"), str(ROOT / "bench")]


def one(family: str, truth: str, names: int, samples: int, rep: int, n_boot: int) -> dict:
    import sim_w2v_null as sim

    from stereoprobe.stats import cluster_weights
    from stereoprobe.studies.hobbies import w2v

    run = sim.run_texts(family, sim.truths(family)[truth], names, samples, seed=1000 + rep)
    split, models, _ = w2v.cross_fit([run], rep, 3)
    row: dict = {"family": family, "names": names, "samples": samples, "truth": truth, "rep": rep}
    for j in range(3):
        idx = np.flatnonzero(split[0] == j)
        coded = w2v.encode([run.words[i] for i in idx])
        names_j, genders_j = [run.names[i] for i in idx], [run.genders[i] for i in idx]
        tool, third = (w2v.name_means(names_j, genders_j, w2v.text_scores(models[m], coded=coded))
                       for m in ((j + 1) % 3, (j - 1) % 3))
        female = (tool["gender"] == "female").to_numpy()
        w = cluster_weights([tool["name"].to_numpy()], n_boot, seed=rep + j, strata=female).astype(np.float64)
        dt, de = (w2v.weighted_d(female, t["score"].to_numpy(float), w) for t in (tool, third))
        row.update({f"d{j}": w2v.cohens_d(*w2v._sides(tool)), f"e{j}": w2v.cohens_d(*w2v._sides(third)),
                    f"sd{j}": float(np.std(dt, ddof=1)), f"v{j}": float(np.var(dt - de, ddof=1)),
                    f"c{j}": float(np.cov(dt, de)[0, 1])})
    return row


def estimate(frame) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per run: (the tool's d, sum sd_j^2, S) from raw rows."""
    d, e, sd, v = (frame[[f"{c}{j}" for j in range(3)]].to_numpy(float) for c in ("d", "e", "sd", "v"))
    g = d - e
    u = (d + e) / 2
    u = u - u.mean(axis=1, keepdims=True)
    w = (np.roll(g, 1, axis=1) - np.roll(g, -1, axis=1)) / 3  # column k: (g_(k-1) - g_(k+1)) / 3
    s = 3 * ((u * w + w**2).sum(axis=1) - 2 / 9 * v.sum(axis=1))
    return d.mean(axis=1), (sd**2).sum(axis=1), s


def summary(paths: list[Path]) -> list[str]:
    import pandas as pd
    from scipy.stats import norm

    q = norm.isf(0.025)
    out = ["| family | names x texts | truth | runs | sd of d (oracle) | 9 var(d) - sum sd^2 (the runs) | mean S (sd) "
           "| corr(d_j, e_(j+1)) | name bootstrap: se / oracle, covers | with S: se / oracle, covers |",
           "|---|---|---|---:|---:|---:|---:|---|---|---|"]
    for path in paths:
        f = pd.read_csv(path, keep_default_na=False, na_values=[""])
        d, boot, s = estimate(f)
        target = 0.0 if f["truth"].iloc[0] == "null" else d.mean()
        oracle = d.std(ddof=1)
        corr = [np.corrcoef(f[f"d{j}"], f[f"e{(j + 1) % 3}"])[0, 1] for j in range(3)]
        cells = []
        for var in (boot, boot + np.maximum(s, 0)):
            se = np.sqrt(var) / 3
            cells.append(f"{se.mean() / oracle:.2f}, {np.mean(np.abs(d - target) <= q * se):.1%}")
        out.append(f"| {f['family'].iloc[0]} | {f['names'].iloc[0]}+{f['names'].iloc[0]} x {f['samples'].iloc[0]} | "
                   f"{f['truth'].iloc[0]} | {len(f)} | {oracle:.3f} | {9 * oracle**2 - boot.mean():+.3f} | "
                   f"{s.mean():+.3f} ({s.std(ddof=1):.3f}) | {', '.join(f'{c:+.2f}' for c in corr)} | "
                   f"{cells[0]} | {cells[1]} |")
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--family", choices=["synth", "topics"], default="topics")
    ap.add_argument("--truth", choices=["null", "real"], default="null")
    ap.add_argument("--names", type=int, default=107)
    ap.add_argument("--samples", type=int, default=20)
    ap.add_argument("--start", type=int, default=0)
    ap.add_argument("--reps", type=int, default=100)
    ap.add_argument("--bootstrap", type=int, default=500)
    ap.add_argument("--raw", type=Path, help="append one row per replicate to this CSV")
    ap.add_argument("--summary", type=Path, nargs="+", help="print the table of raw CSVs")
    args = ap.parse_args()
    if args.summary:
        print("\n".join(summary(args.summary)))
        return
    if args.raw is None:
        ap.error("give --raw CSV (or --summary)")
    for rep in range(args.start, args.start + args.reps):
        cpu = time.process_time()
        row = one(args.family, args.truth, args.names, args.samples, rep, args.bootstrap)
        row.update(cpu=round(time.process_time() - cpu, 2), load=os.getloadavg()[0])
        new = not args.raw.exists()
        with args.raw.open("a", newline="") as fh:
            writer = csv.DictWriter(fh, fieldnames=list(row))
            if new:
                writer.writeheader()
            writer.writerow(row)


if __name__ == "__main__":
    main()
