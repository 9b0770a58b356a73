"""Where the Word2Vec comparison's variance comes from, against what the tool's se rule sees (issue 34).

The cross-fitted d is the mean of k fold d's, fold j scored by the model of fold j + 1. Over a simulation's
runs (bench/sim_w2v_null.py's raw rows, ``--raw``), k^2 var(d) splits into the folds' own variances and
their covariances; the name bootstrap (models held fixed) gives each fold's sd, and the tool's rule adds, per
fold, cov(via_model, via_other) (what retraining the fold's model moves) and 2 cov(own, via_model) (a
fold's names moving its own d and, through the model they train, the previous fold's). This prints each
part as the runs measure it beside what the rule's replicates estimate, and the replicates' mean shifts
(a model retrained on a resample of names scores d lower than the fold's own model when the shift is < 0).

``--seeds REP``: one run of the topic family at 107 + 107 x 20 (texts seeded 1000 + REP, the real
difference when REP >= 100, as sim_w2v_null.py), its folds held, the three models trained again with
``--n`` seeds, either one seed for all three (as the tool does) or a seed each: how far Word2Vec's own
randomness moves the folds' d and their mean, and whether a shared seed correlates the folds.

    python bench/w2v_parts.py --raw bench/results/w2v-topics-107-null.csv bench/results/w2v-topics-107-real.csv
    python bench/w2v_parts.py --seeds 100 --n 16
    python bench/w2v_parts.py --fresh 100 --n 16

``--fresh REP``: the same run's fold 2 scored by a model of fold 0's names trained ``--n`` times, those names
drawn four ways: *fresh* (the generator's texts for the same names with another seed: new names from the
same population, what the sd of d across runs sees), *bootstrap* (the fold's names with replacement, as the
tool's retraining), *twostage* (the bootstrap's names, each copy's texts drawn again with replacement) and
*half* (half the names without replacement); a Word2Vec seed per draw, shared by the four.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests"), str(ROOT / "bench")]


def _cov(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Sample covariances along the last axis."""
    return ((x - x.mean(-1, keepdims=True)) * (y - y.mean(-1, keepdims=True))).sum(-1) / (x.shape[-1] - 1)


def parts(path: Path) -> list[str]:
    import pandas as pd

    f = pd.read_csv(path, keep_default_na=False, na_values=[""])  # the truth "null" is a word here
    k = sum(c.startswith("own") for c in f.columns)

    def shifts(name: str) -> np.ndarray:  # runs x folds x replicates
        return np.stack([np.array([[float(x) for x in str(s).split()] for s in f[f"{name}{j}"]]) for j in range(k)], 1)

    own, via, other = shifts("own"), shifts("via"), shifts("other")
    ds = f[[f"d{j}" for j in range(k)]].to_numpy()
    sds = f[[f"sd{j}" for j in range(k)]].to_numpy()
    c = np.cov(ds.T)
    corr = np.corrcoef(ds.T)
    fold_var, fold_cov = float(np.trace(c)), float(c.sum() - np.trace(c))
    boot = float((sds**2).sum(1).mean())
    rule_model, rule_cross = float(_cov(via, other).sum(1).mean()), float(2 * _cov(own, via).sum(1).mean())
    pairs = ", ".join(f"{corr[i, j]:+.2f}" for i in range(k) for j in range(i + 1, k))
    name = f"{f['family'][0]} {f['names'][0]} + {f['names'][0]} x {f['samples'][0]}, {f['truth'][0]}"
    return [
        f"| {name} | {len(f)} | {k * k * f['d'].var(ddof=1):.3f} | {fold_var:.3f} | {boot:.3f} | "
        f"{fold_var - boot:.3f} | {rule_model:.3f} | {fold_cov:.3f} | {rule_cross:.3f} | {pairs} | "
        f"{via.mean():+.3f}, {other.mean():+.3f} |"
    ]


def seeds(rep: int, n: int) -> list[str]:
    import sim_w2v_null as sim

    from stereoprobe.studies.hobbies import w2v

    run = sim.run_texts("topics", sim.truths("topics")["real" if rep >= 100 else "null"], 107, 20, seed=1000 + rep)
    split = w2v.folds(run, rep, 3)
    texts = [w2v._fold_texts([run], [split], j) for j in range(3)]
    scored = []
    for j in range(3):
        ix = np.flatnonzero(split == j)
        scored.append((w2v.encode([run.words[i] for i in ix]), [run.names[i] for i in ix],
                       [run.genders[i] for i in ix]))
    out = []
    for mode in ("one seed", "a seed each"):
        rows = []
        for s in range(n):
            models = [w2v.train(texts[j], seed=s if mode == "one seed" else 3 * s + j + 1000) for j in range(3)]
            rows.append([w2v.cohens_d(*w2v._sides(w2v.name_means(names, genders, w2v.text_scores(
                models[(j + 1) % 3], coded=coded)))) for j, (coded, names, genders) in enumerate(scored)])
        d = np.asarray(rows)
        corr = np.corrcoef(d.T)
        out.append(f"| {rep} | {mode} | {n} | {d.mean():+.3f} | {d.mean(1).std(ddof=1):.3f} | "
                   + ", ".join(f"{x:.3f}" for x in d.std(0, ddof=1)) + " | "
                   + ", ".join(f"{corr[i, j]:+.2f}" for i in range(3) for j in range(i + 1, 3)) + " |")
    return out


def fresh(rep: int, n: int) -> list[str]:
    import sim_w2v_null as sim

    from stereoprobe.studies.hobbies import w2v

    truth = sim.truths("topics")["real" if rep >= 100 else "null"]
    run = sim.run_texts("topics", truth, 107, 20, seed=1000 + rep)
    split = w2v.folds(run, rep, 3)
    ix = np.flatnonzero(split == 2)
    coded = w2v.encode([run.words[i] for i in ix])
    names, genders = [run.names[i] for i in ix], [run.genders[i] for i in ix]

    def scored(wv) -> float:
        return w2v.cohens_d(*w2v._sides(w2v.name_means(names, genders, w2v.text_scores(wv, coded=coded))))

    fold0 = sorted({(nm, g) for nm, g, f in zip(run.names, run.genders, split) if f == 0})
    texts: dict[str, list] = {}
    for s, nm, f in zip(run.sentences, run.names, split):
        if f == 0:
            texts.setdefault(nm, []).append(s)
    rng = np.random.default_rng(rep + 99)
    ways = ("fresh", "bootstrap", "twostage", "half")
    d: dict[str, list[float]] = {w: [] for w in ways}
    for b in range(n):
        for way in ways:
            if way == "fresh":
                other = sim.run_texts("topics", truth, 107, 20, seed=50000 + 1000 * rep + b)
                keep = {nm for nm, _ in fold0}
                sents = [s for s, nm in zip(other.sentences, other.names) if nm in keep]
            else:
                sents = []
                for g in ("female", "male"):
                    pool = [nm for nm, gg in fold0 if gg == g]
                    drawn = (rng.choice(pool, size=len(pool) // 2, replace=False) if way == "half"
                             else rng.choice(pool, size=len(pool), replace=True))
                    for nm in drawn:
                        mine = texts[nm]
                        sents += [mine[i] for i in rng.integers(len(mine), size=len(mine))] if way == "twostage" else mine
            d[way].append(scored(w2v.train(sents, seed=9000 + b)))
    base = scored(w2v.train(w2v._fold_texts([run], [split], 0), seed=rep))
    return [f"| {rep} | {way} | {n} | {base:+.3f} | {np.mean(d[way]):+.3f} | {np.std(d[way], ddof=1):.3f} |"
            for way in ways]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--raw", nargs="*", type=Path, default=[])
    parser.add_argument("--seeds", type=int, help="a replicate's corpus to retrain with other seeds")
    parser.add_argument("--fresh", type=int, help="a replicate's corpus whose fold 0 names are drawn four ways")
    parser.add_argument("--n", type=int, default=16, help="seeds (--seeds) or draws (--fresh)")
    args = parser.parse_args()
    if args.raw:
        print("| cell | runs | k^2 var(d) | sum var(d_j) | name bootstrap, sum sd_j^2 | models' part | rule: "
              "sum cov(via, other) | 2 sum cov(d_i, d_j) | rule: 2 sum cov(own, via) | folds' correlations | "
              "mean via, other shift |")
        print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---|")
        for path in args.raw:
            print("\n".join(parts(path)))
    if args.seeds is not None:
        print("| replicate | seeds | n | mean fold d | sd of d | sd of each fold's d | folds' correlations |")
        print("|---|---|---:|---:|---:|---|---|")
        print("\n".join(seeds(args.seeds, args.n)))
    if args.fresh is not None:
        print("| replicate | fold 0's names | draws | d of the fold's own model | mean d | sd of d |")
        print("|---|---|---:|---:|---:|---:|")
        print("\n".join(fresh(args.fresh, args.n)))


if __name__ == "__main__":
    main()
