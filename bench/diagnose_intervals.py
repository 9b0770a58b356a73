"""Why two cells of bench/results/simulate_crossed.md miss 93-97%, and what the alternatives give.

1. ``rare``: the coreference study's overall incorrect rate at about 1.9% wrong with job
   effects of sd 1 on the logit (tests/coref_synth.py, ``k`` x ``k`` jobs). Per run: the
   estimate, its two-way variance and degrees of freedom (the library's plan); then,
   across runs: whether the variance is biased, on which side the intervals miss, how the
   variance moves with the estimate, and the coverage of alternative intervals at the same
   variance (Clopper-Pearson at the effective size, a t interval on the logit, degrees of
   freedom from the kurtosis of the jobs' contributions).
2. ``rates``: every rate of the coreference tables (Table 3 per scene and overall, the
   Sterlie rates) in one scenario of bench/sim_crossed.py: the inputs the library gives
   :func:`stereoprobe.stats.share_interval` (estimate, two-way variance, degrees of freedom,
   answers, the table's pooled design effect) are recorded per run, and the library's
   interval is compared with candidates at the same inputs: Korn-Graubard's
   Clopper-Pearson, a t interval on the logit (delta-method se at the effective size, t
   with the plan's df), Wilson's score interval at the effective size with z = t(df), and
   the library's with the pooled design-effect floor only where the variance says nothing.
3. ``pearson``: the jobs study's correlation with the BLS shares on the two-cluster design
   (tests/jobs_synth.py), vectorised over runs: the library's jackknife and variants.
4. ``paired``: why the null prefix-effect / compare tests flag under 5%: two runs of one model
   (tests/coref_synth.py ``simulate_pair``, ``k`` x ``k`` jobs), every contrast of
   :func:`stereoprobe.studies.coreference.paired.paired_differences`, with the plan's variance
   parts recorded; the library's p-value against the pairs' variance alone, the two-way one
   without its floor (members' or Satterthwaite's degrees of freedom), and the floor with
   Satterthwaite's.

Usage: ``python bench/diagnose_intervals.py rare --jobs 10 --runs 300``,
``python bench/diagnose_intervals.py rates --scenario coref-10-rare --runs 400``,
``python bench/diagnose_intervals.py pearson --runs 4000`` or
``python bench/diagnose_intervals.py paired --jobs 20 --runs 150 --seed 5``. Monte-Carlo se of a coverage c
over R runs: sqrt(c (1 - c) / R).
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np
from scipy import stats

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests"), str(ROOT / "bench")]


def _cover(name: str, low, high, true, est) -> None:
    """Coverage (se over runs: axis 0), misses on each side, mean width / (3.92 sd of the estimate), per cell (axis 1)."""
    low, high, est = np.asarray(low), np.asarray(high), np.asarray(est)
    c = float(((low <= true) & (true <= high)).mean())
    width = np.mean(np.mean(high - low, axis=0) / (3.92 * np.std(est, axis=0)))
    print(f"  {name:<44} coverage {c:.3f} (se {math.sqrt(c * (1 - c) / len(low)):.3f}), truth below {np.mean(true < low):.3f}, "
          f"above {np.mean(true > high):.3f}, width / oracle {width:.2f}")


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


def _candidate(method: str, pct, var, df, n, deff, level: float = 0.95):
    """(low, high) % of one candidate interval at the library's inputs (see the module docstring)."""
    from stereoprobe.stats import share_interval

    p, v = pct / 100, var / 1e4
    informative = (v > 0) & (p > 0) & (p < 1)
    if method == "jeffreys, floor where var says nothing":
        method, deff = "jeffreys", np.where(informative, 1.0, deff)
    if method in ("jeffreys", "beta"):
        return share_interval(pct, None, 1, n, level=level, variance=var, df=df, deff_floor=deff, method=method)
    floor = n / np.maximum(deff, 1.0)
    m = np.where(informative, np.minimum(p * (1 - p) / np.where(informative, v, 1), floor), floor)  # n_eff
    t = stats.t.ppf(0.5 + level / 2, np.maximum(df, 1))
    if method == "wilson":
        c = (p + t**2 / (2 * m)) / (1 + t**2 / m)
        h = t / (1 + t**2 / m) * np.sqrt(p * (1 - p) / m + t**2 / (4 * m**2))
        return 100 * np.clip(c - h, 0, 1), 100 * np.clip(c + h, 0, 1)
    pt = np.clip(p, 0.5 / (m + 1), 1 - 0.5 / (m + 1))  # logit: a count of 0 taken as 1/2
    lg, se = np.log(pt / (1 - pt)), 1 / np.sqrt(m * pt * (1 - pt))
    low, high = 100 / (1 + np.exp(-(lg - t * se))), 100 / (1 + np.exp(-(lg + t * se)))
    return np.where(p <= 0, 0.0, low), np.where(p >= 1, 100.0, high)


CANDIDATES = ("jeffreys", "beta", "logit", "wilson", "jeffreys, floor where var says nothing")


def rates(scenario: str, runs: int, boot: int, seed: int) -> None:
    import stereoprobe.stats as library
    from coref_synth import Model, design, simulate, truth
    from sim_crossed import COREF

    from stereoprobe.studies.coreference.criteria import sterlie
    from stereoprobe.studies.coreference.inference import plan_for
    from stereoprobe.studies.coreference.tables import table3

    k, kwargs, note = COREF[scenario]
    d, true = design(k), truth(Model(**kwargs))
    calls, original = [], library.share_interval

    def recording(share, replicates, n_clusters, n_words, *args, **kw):
        calls.append([np.asarray(a, float).copy() for a in (share, kw["variance"], kw["df"], n_words)] + [kw["deff_floor"]])
        return original(share, replicates, n_clusters, n_words, *args, **kw)

    cells = [(f"{m}, {where}", i, sl, true[m]) for i, m in enumerate(("incorrect", "inconsistent", "binary_inconsistent"))
             for where, sl in (("overall", slice(-1, None)), ("per scene", slice(0, -1)))]
    cells += [(f"Sterlie {r.upper()} (3 pronouns)", 3 + i, slice(None), np.array([true[f"{p}_{r}"] for p in ("he", "she", "they")]))
              for i, r in enumerate(("fnr", "fpr", "ppv", "npv"))]
    rng, out = np.random.default_rng(seed), {c[0]: {m: [] for m in CANDIDATES} for c in cells}
    library.share_interval = recording
    try:
        for r in range(runs):
            frame = simulate(d, Model(**kwargs), rng)
            plan = plan_for(frame, boot, seed=r)
            calls.clear()
            table3(frame, plan), sterlie(frame, plan)
            for name, i, sl, t in cells:
                for m in CANDIDATES:
                    low, high = _candidate(m, *calls[i])
                    out[name][m].append((calls[i][0][sl], low[sl], high[sl], np.broadcast_to(t, calls[i][0][sl].shape)))
    finally:
        library.share_interval = original
    print(f"{scenario} ({note}), {runs} runs, {boot} replicates per block")
    for name, by in out.items():
        print(f" {name}")
        for m, rows in by.items():
            est, low, high, t = (np.stack([row[j] for row in rows]) for j in range(4))
            _cover(m, low, high, t, est)


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


def paired(k: int, runs: int, boot: int, seed: int) -> None:
    """Null paired contrasts (two runs of one model): the size of each variance rule at the same parts."""
    import stereoprobe.studies.coreference.inference as inference
    from coref_synth import Model, design, simulate_pair

    from stereoprobe.stats.crossed import CrossedPlan
    from stereoprobe.studies.coreference.paired import align, paired_differences

    seen, original = [], CrossedPlan.variance

    def recording(plan, replicates, contributing=None):
        reps = np.asarray(replicates, dtype=np.float64)
        blocks = reps.reshape(len(plan.factors), plan.n_boot, *reps.shape[1:])
        with np.errstate(all="ignore"):
            parts = np.stack([f * np.nanvar(b, axis=0, ddof=1) for f, b in zip(plan.factors, blocks)])
        var, df = original(plan, replicates, contributing)
        seen.append((parts, var, df, plan.df(contributing)))
        return var, df

    d, rng, rows = design(k), np.random.default_rng(seed), []
    CrossedPlan.variance = recording
    try:
        for r in range(runs):
            fa, fb = align(*simulate_pair(d, Model(), Model(), rng))
            plan = inference.plan_for(fa, boot, seed=r)
            seen.clear()
            out = paired_differences(fa, fb, plan)
            ones = [x for x in seen if np.ndim(x[1]) == 1 and len(x[1]) == 1][-len(out):]  # contrast(): one column each
            for (parts, var, df, members), (_, row) in zip(ones, out.iterrows()):
                if np.isfinite(row["p"]) and np.isfinite(row["difference"]):
                    rows.append([row["difference"], *parts[:, 0], var[0], df[0], float(np.ravel(members)[0]), row["p"]])
    finally:
        CrossedPlan.variance = original
    diff, v_women, v_men, v_pairs, var, df, members, p = np.array(rows).T
    pairs_df = float(len(plan.clusters) - 1)
    two = v_women + v_men - v_pairs
    satt = np.clip(two**2 / (v_women**2 / members + v_men**2 / members + v_pairs**2 / pairs_df), 1, None)

    def size(v, dof):
        return np.mean(2 * stats.t.sf(np.abs(diff) / np.sqrt(v), dof) < 0.05)

    print(f"{k} x {k} jobs, {runs} null paired runs, {len(diff)} contrasts, {boot} replicates per block")
    print(f"  the library (floor at the pairs' variance, used in {np.mean(two <= v_pairs):.0%}): {np.mean(p < 0.05):.3f}; "
          f"its mean variance {var.mean() / v_pairs.mean():.2f} x the pairs', the two-way's {two.mean() / v_pairs.mean():.2f} x")
    print(f"  the pairs' variance alone, t({pairs_df:.0f}): {size(v_pairs, pairs_df):.3f}")
    print(f"  two-way without the floor (the pairs' where it is not positive), members' df: "
          f"{size(np.where(two > 0, two, v_pairs), np.where(two > 0, members, pairs_df)):.3f}")
    print(f"  the same, Satterthwaite's df (median {np.median(satt[two > 0]):.1f}): "
          f"{size(np.where(two > 0, two, v_pairs), np.where(two > 0, satt, pairs_df)):.3f}")
    print(f"  the library's variance, Satterthwaite's df where the two-way is used: "
          f"{size(var, np.where(two > v_pairs, satt, pairs_df)):.3f}")


if __name__ == "__main__":
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("what", choices=["rare", "rates", "pearson", "paired"])
    parser.add_argument("--scenario", default="coref-10-rare", help="rates: a coreference scenario of bench/sim_crossed.py")
    parser.add_argument("--jobs", type=int, default=10)
    parser.add_argument("--runs", type=int, default=300)
    parser.add_argument("--boot", type=int, default=100)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--model", choices=sorted(MODELS), default="rare", help="rare: about 1.9%% wrong, job sd 1")
    args = parser.parse_args()
    if args.what == "rare":
        rare(args.jobs, args.runs, args.boot, args.seed, args.model)
    elif args.what == "rates":
        rates(args.scenario, args.runs, args.boot, args.seed)
    elif args.what == "paired":
        paired(args.jobs, args.runs, args.boot, args.seed)
    else:
        pearson(args.runs, args.seed)
