"""Why two cells of bench/results/simulate_crossed.md miss 93-97%, and what the alternatives give.

1. ``rare``: the coreference study's overall incorrect rate at about 1.9% wrong with job
   effects of sd 1 on the logit (tests/coref_synth.py, ``k`` x ``k`` jobs). Per run: the
   estimate, its two-way variance and degrees of freedom (the library's plan); then,
   across runs: whether the variance is biased, on which side the intervals miss, how the
   variance moves with the estimate, and the coverage of alternative intervals at the same
   variance (Clopper-Pearson at the effective size, a t interval on the logit, degrees of
   freedom from the kurtosis of the jobs' contributions).
2. ``pearson``: the jobs study's correlation with the BLS shares on the two-cluster design
   (tests/jobs_synth.py), vectorised over runs: the library's jackknife and variants.

Usage: ``python bench/diagnose_intervals.py rare --jobs 10 --runs 300`` or
``python bench/diagnose_intervals.py pearson --runs 4000``. Monte-Carlo se of a coverage c
over R runs: sqrt(c (1 - c) / R).
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np
from scipy import stats

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]


def _cover(name: str, low, high, true, est) -> None:
    low, high = np.asarray(low), np.asarray(high)
    c = float(((low <= true) & (true <= high)).mean())
    print(f"  {name:<44} coverage {c:.3f} (se {math.sqrt(c * (1 - c) / len(low)):.3f}), truth below {np.mean(true < low):.3f}, "
          f"above {np.mean(true > high):.3f}, width / oracle {np.mean(high - low) / (3.92 * np.std(est)):.2f}")


MODELS = {"rare": {"hard": 0.01, "easy": 0.002, "job_sd": 1.0}, "default": {}}  # coref-*-rare; coref-20's


def rare(k: int, runs: int, boot: int, seed: int, model_name: str = "rare") -> None:
    from coref_synth import Model, design, simulate, truth

    from stereoprobe.stats import share_interval
    from stereoprobe.studies.coreference.inference import plan_for, replicates

    d, model = design(k), Model(**MODELS[model_name])
    true = truth(model)["incorrect"]
    rng = np.random.default_rng(seed)
    rows = []
    for r in range(runs):
        frame = simulate(d, model, rng)
        plan = plan_for(frame, boot, seed=r)
        cp = plan.crossed
        est, reps, mnum, mden = replicates(plan, frame["cluster"], ~frame["correct"], np.ones(len(frame)),
                                           np.zeros(len(frame), int), 1)
        var, df = cp.variance(reps, mden > 0)
        jobs = cp.incidence.astype(float) @ (mnum[:, 0] - est[0] / 100 * mden[:, 0])  # each job's residual total
        dfs = []
        for s in range(cp.sides):
            u = jobs[cp.member_side == s]
            dfs.append(2 / (2 / (len(u) - 1) + max(stats.kurtosis(u, bias=False), 0) / len(u)))
        rows.append((est[0], var[0], df[0], min(sum(dfs), float(df[0])), mden.sum()))
    est, var, df, df_kurt, n = np.array(rows).T
    print(f"{model_name} model, {k} x {k} jobs, {runs} runs, {boot} replicates per block; truth {true:.3f}%")
    print(f"  estimate mean {est.mean():.3f} (median {np.median(est):.3f}), sd {est.std():.3f}; "
          f"sqrt(mean variance) / sd {math.sqrt(var.mean()) / est.std():.2f}; corr(estimate, variance) "
          f"{np.corrcoef(est, var)[0, 1]:.2f}; df {sorted(set(df.tolist()))}")
    for method in ("jeffreys", "beta"):
        low, high = share_interval(est, None, k * k, n, variance=var, df=df, method=method)
        _cover(f"Korn-Graubard, {method} (library: jeffreys)", low, high, true, est)
    low, high = share_interval(est, None, k * k, n, variance=var, df=df_kurt, method="jeffreys")
    _cover("jeffreys, df from the jobs' kurtosis", low, high, true, est)
    t = stats.t.ppf(0.975, df)
    logit, se = np.log(est / (100 - est)), np.sqrt(var) * 100 / (est * (100 - est))
    _cover("t interval on the logit", 100 / (1 + np.exp(-(logit - t * se))), 100 / (1 + np.exp(-(logit + t * se))),
           true, est)
    studentised = (est - true) / np.sqrt(var)
    print(f"  studentised estimate: 2.5% and 97.5% quantiles {np.quantile(studentised, [0.025, 0.975]).round(2)}, "
          f"t: +/-{stats.t.ppf(0.975, np.median(df)):.2f}")


def pearson(runs: int, seed: int) -> None:
    from jobs_synth import draw, truth

    from stereoprobe.stats.correlation import _r

    for method in ("pearson", "spearman"):
        true = truth(method)
        share, p = draw(np.random.default_rng(seed), size=runs)
        n = share.shape[1]
        idx = np.nonzero(~np.eye(n, dtype=bool))[1].reshape(n, n - 1)
        r = _r(p, share, method)
        z, z_loo = np.arctanh(r), np.arctanh(_r(p[:, idx], share[:, idx], method))
        pseudo = n * z[:, None] - (n - 1) * z_loo
        centre, se = pseudo.mean(1), pseudo.std(1, ddof=1) / math.sqrt(n)
        t = stats.t.ppf(0.975, n - 1)
        print(f"{method}, two-cluster BLS design, {runs} runs; truth {true:.4f}, mean r {r.mean():.4f}, skewness of "
              f"atanh r {stats.skew(z):.2f}, median excess kurtosis of the pseudo-values "
              f"{np.median(stats.kurtosis(pseudo, axis=1, bias=False)):.1f}")
        _cover("jackknife, bias-corrected centre, t(n-1) (library)", np.tanh(centre - t * se), np.tanh(centre + t * se), true, r)
        _cover("jackknife, centre atanh r, t(n-1)", np.tanh(z - t * se), np.tanh(z + t * se), true, r)
        strata = share[:, :] > 50
        v = np.zeros(runs)
        for h in (False, True):
            zh = np.where(strata == h, z_loo, np.nan)
            nh = (strata == h).sum(1)
            v += (nh - 1) / nh * np.nansum((zh - np.nanmean(zh, 1, keepdims=True)) ** 2, 1)
        _cover("jackknife stratified by side, t(n-1)", np.tanh(centre - t * np.sqrt(v)), np.tanh(centre + t * np.sqrt(v)),
               true, r)
        dd = z_loo.mean(1, keepdims=True) - z_loo
        a = (dd**3).sum(1) / (6 * ((dd**2).sum(1)) ** 1.5)
        _cover("jackknife + BCa acceleration on the t ends", np.tanh(centre - se * t / (1 + a * t)),
               np.tanh(centre + se * t / (1 - a * t)), true, r)
        kurt = np.maximum(stats.kurtosis(pseudo, axis=1, bias=False), 0)
        tk = stats.t.ppf(0.975, np.clip(2 / (2 / (n - 1) + kurt / n), 1, n - 1))
        _cover("jackknife, df from the pseudo-values' kurtosis", np.tanh(centre - tk * se), np.tanh(centre + tk * se),
               true, r)
        b = 999 if runs <= 1000 else 199
        rng = np.random.default_rng(seed + 1)
        half = n // 2
        lows, highs = [], []
        for i in range(runs):  # bootstrap stratified by women/men-dominated (the draw's first and second halves)
            pick = np.concatenate([rng.integers(0, half, (b, half)), half + rng.integers(0, half, (b, half))], axis=1)
            lo, hi = np.quantile(_r(p[i][pick], share[i][pick], method), [0.025, 0.975])
            lows.append(lo)
            highs.append(hi)
        _cover(f"bootstrap stratified by side, percentile ({b})", lows, highs, true, r)


if __name__ == "__main__":
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("what", choices=["rare", "pearson"])
    parser.add_argument("--jobs", type=int, default=10)
    parser.add_argument("--runs", type=int, default=300)
    parser.add_argument("--boot", type=int, default=100)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--model", choices=sorted(MODELS), default="rare", help="rare: about 1.9%% wrong, job sd 1")
    args = parser.parse_args()
    rare(args.jobs, args.runs, args.boot, args.seed, args.model) if args.what == "rare" else pearson(args.runs, args.seed)
