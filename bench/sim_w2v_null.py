"""Is the hobbies comparison's Word2Vec d unbiased under the null? A simulation.

    python bench/sim_w2v_null.py --names 30 --samples 8 --reps 60
    python bench/sim_w2v_null.py --names 107 --samples 20 --reps 20   # 001's size

Each replicate: one synthetic hobbies run from tests/hobbies_synth.py ("Mary loves chess
and hiking. She also enjoys quiet weekends at home."), names nested in genders, each name's
label probabilities drawn around its gender's, seed = replicate), compared alone
(``w2v.compare``) two ways: ``in-sample`` (001's way: one model trained on the texts it
scores) and ``cross-fit`` (the default: each text scored by a model trained on the other
fold of names). Truths: ``null`` (one hobby distribution for both genders) and ``real``
(female-name texts name Art and Literature somewhat more, Sport and Technology less).

Per truth and method: mean d (with its Monte-Carlo se), the share of 95% intervals that
cover 0, and the share of Mann-Whitney p < 0.05 over texts and over name means (with se).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

#: A modest real difference (the null's shares moved by 0.05 to 0.1).
REAL = {"female": [0.15, 0.1, 0.2, 0.3, 0.15, 0.1], "male": [0.25, 0.1, 0.3, 0.1, 0.15, 0.1]}


def run_texts(truth: dict, names: int, samples: int, seed: int):
    import hobbies_synth as synth

    from stereoprobe.studies.hobbies.text import content_words, tokens
    from stereoprobe.studies.hobbies.w2v import RunTexts

    rows = synth.texts(truth, n_per_gender=names, samples=samples, seed=seed)
    return RunTexts("sim", [tokens(r[4]) for r in rows], [content_words(r[4], [r[0]]) for r in rows],
                    [r[1] for r in rows], [r[0] for r in rows])


def simulate(truth: dict, names: int, samples: int, reps: int, n_boot: int,
             methods: tuple[str, ...] = ("in-sample", "cross-fit"), start: int = 0) -> dict[str, np.ndarray]:
    from stereoprobe.studies.hobbies import w2v

    out: dict[str, list] = {m: [] for m in methods}
    for rep in range(start, start + reps):
        run = run_texts(truth, names, samples, seed=1000 + rep)
        for method in methods:
            cross = method == "cross-fit"
            r = w2v.compare([run], seed=rep, n_boot=n_boot, cross_fit=cross)[0]
            out[method].append((r.d, r.d_low, r.d_high, r.p_texts, r.p_names))
    return {k: np.array(v) for k, v in out.items()}


def share(x: np.ndarray) -> str:
    p = x.mean()
    return f"{100 * p:.0f}% ± {100 * np.sqrt(p * (1 - p) / len(x)):.0f}"


def main() -> None:
    import os

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--names", type=int, default=30, help="names per gender")
    parser.add_argument("--samples", type=int, default=8)
    parser.add_argument("--reps", type=int, default=60)
    parser.add_argument("--bootstrap", type=int, default=500)
    parser.add_argument("--truths", default="null,real")
    parser.add_argument("--methods", default="in-sample,cross-fit")
    parser.add_argument("--start", type=int, default=0, help="first replicate (its seeds)")
    args = parser.parse_args()
    import hobbies_synth as synth

    truths = {"null": synth.NULL, "real": REAL}
    t0 = time.perf_counter()
    print(f"{args.names}+{args.names} names x {args.samples} samples, {args.reps} replicates, "
          f"{args.bootstrap} bootstrap; load before {os.getloadavg()[0]:.2f}\n")
    print("| truth | method | mean d (± se) | interval covers 0 | MW p < 0.05 (texts) | MW p < 0.05 (names) |")
    print("|---|---|---:|---:|---:|---:|")
    for t in args.truths.split(","):
        res = simulate(truths[t], args.names, args.samples, args.reps, args.bootstrap,
                       tuple(args.methods.split(",")), args.start)
        for method, a in res.items():
            d, lo, hi, pt, pn = a.T
            print(f"| {t} | {method} | {d.mean():+.3f} ± {d.std(ddof=1) / np.sqrt(len(d)):.3f} | "
                  f"{share((lo <= 0) & (0 <= hi))} | {share(pt < 0.05)} | {share(pn < 0.05)} |", flush=True)
    print(f"\n{time.perf_counter() - t0:.0f} s; load after {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
