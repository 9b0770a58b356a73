"""Simulations of the coreference and jobs studies' statistics at a known truth (crossed designs).

Run through ``python bench/simulate_stats.py --study coreference,jobs`` (or this file).
Generators with the real designs' structure: tests/coref_synth.py (women- x men-dominated
jobs crossed, every job with a difficulty drawn afresh in every run, pairs and triples
correlated; rare rates; a planted bias) and tests/jobs_synth.py (the BLS shares' two
clusters); jobs' group means and prefix effects with jobs as the sampled unit, some jobs
exactly at 0 (zero variance). Every number comes from the package's own functions. The
oracle width is ``2 x 1.96 x`` the sd of the estimate across runs, per cell.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

COREF = {  # name: (jobs per side, Model kwargs, description)
    "coref-20": (20, {}, "default design 20 x 20 jobs, job sd 0.5, pair sd 1 (logit), 24% hard triples"),
    "coref-10": (10, {}, "10 x 10 jobs, as coref-20"),
    "coref-10-nojobs": (10, {"job_sd": 0.0}, "10 x 10 jobs, jobs do not differ (pair sd 1)"),
    "coref-10-rare": (10, {"hard": 0.01, "easy": 0.002, "job_sd": 1.0}, "10 x 10, wrong about 1.9%, job sd 1"),
    "coref-20-rare": (20, {"hard": 0.008, "easy": 0.002}, "default design 20 x 20, wrong about 1.0%, job sd 0.5 (the review's case)"),
    "coref-10-bias": (10, {"bias": 0.25}, "10 x 10, anti-stereotypical answers 25% more often wrong"),
}


class Tally:
    """Coverage hits, widths and estimates per cell; flags per test."""

    def __init__(self) -> None:
        self.cells: dict[str, list[tuple[Any, Any, Any]]] = {}
        self.tests: dict[str, list[Any]] = {}

    def cover(self, cell: str, est: Any, low: Any, high: Any, true: Any) -> None:
        est, low, high = (np.atleast_1d(np.asarray(v, float)) for v in (est, low, high))
        self.cells.setdefault(cell, []).append((est, (low <= true) & (true <= high), high - low))

    def flag(self, test: str, p: Any) -> None:
        self.tests.setdefault(test, []).append(np.atleast_1d(np.asarray(p, float)) < 0.05)

    def rows(self) -> list[dict[str, Any]]:
        out = []
        for cell, runs in self.cells.items():
            est = np.stack([r[0] for r in runs])
            hit = np.stack([r[1] for r in runs])
            width = np.stack([r[2] for r in runs])
            ok = ~np.isnan(width)
            oracle = 3.92 * np.nanstd(est, axis=0)
            with np.errstate(invalid="ignore", divide="ignore"):
                mean_width = np.nanmean(np.where(ok, width, np.nan), axis=0)
                ratio = np.nanmean(np.where(oracle > 1e-6, mean_width / np.where(oracle > 1e-6, oracle, 1), np.nan))
            n = int(ok.sum())
            cov = float(hit[ok].mean()) if n else float("nan")
            out.append({"cell": cell, "kind": "coverage", "value": cov, "mc_se": float(np.sqrt(cov * (1 - cov) / max(len(runs), 1))),
                        "n": n, "runs": len(runs), "width": float(ratio)})
        for test, runs in self.tests.items():
            f = np.concatenate(runs)
            rate = float(f.mean())
            out.append({"cell": test, "kind": "rate", "value": rate, "mc_se": float(np.sqrt(rate * (1 - rate) / len(f))),
                        "n": len(f), "runs": len(runs), "width": float("nan")})
        return out


def coref_scenario(name: str, reps: int, boot: int, perms: int, seed: int = 0) -> list[dict[str, Any]]:
    from coref_synth import Model, design, simulate, simulate_pair, truth

    from stereoprobe.studies.coreference.criteria import four_fifths, pronoun_differences, sterlie
    from stereoprobe.studies.coreference.inference import plan_for
    from stereoprobe.studies.coreference.paired import align, paired_differences
    from stereoprobe.studies.coreference.tables import table3, winobias

    k, kwargs, _ = COREF[name]
    d, model = design(k), Model(**kwargs)
    true = truth(model)
    null = model.bias == 0
    rng = np.random.default_rng(sum(map(ord, name)) + 1000 * seed)  # a fixed seed per scenario (and --seed)
    t = Tally()
    for r in range(reps):
        frame = simulate(d, model, rng)
        plan = plan_for(frame, boot, seed=r)
        t3 = table3(frame, plan).set_index("template")
        for m in ("incorrect", "inconsistent", "binary_inconsistent"):
            t.cover(f"{m}, overall", t3[f"{m}_pct"].iloc[-1], t3[f"{m}_low"].iloc[-1], t3[f"{m}_high"].iloc[-1], true[m])
            t.cover(f"{m}, per scene", t3[f"{m}_pct"].iloc[:-1], t3[f"{m}_low"].iloc[:-1], t3[f"{m}_high"].iloc[:-1], true[m])
        st = sterlie(frame, plan).set_index("pronoun")
        for rate in ("fnr", "fpr", "ppv", "npv"):
            tr = np.array([true[f"{p}_{rate}"] for p in st.index])
            t.cover(f"Sterlie {rate.upper()} (3 pronouns)", st[f"{rate}_pct"], st[f"{rate}_low"], st[f"{rate}_high"], tr)
        wb = winobias(frame, plan).set_index("pronoun")
        t.cover("WinoBias gap (he, she)", wb["gap"], wb["gap_low"], wb["gap_high"], true["he_gap"])
        if null:
            t.flag("WinoBias gap test (he, she)", wb["p"])
            pdiff = pronoun_differences(frame, plan)
            t.cover("pronoun differences (15)", pdiff["difference"], pdiff["low"], pdiff["high"], 0.0)
            t.flag("pronoun differences (15)", pdiff["p"])
            t.flag("pronoun differences: any q < 0.05", [0.0 if (pdiff["q"] < 0.05).any() else 1.0])
            ff = four_fifths(frame, n_perm=perms, seed=r)
            ff = ff[ff["decides"]]  # he vs she: the four rates Holm adjusts together (the others are reported)
            t.flag("four-fifths, each rate", ff["p"])
            t.flag("four-fifths, any of 4 (raw)", [ff["p"].min()])
            t.flag("four-fifths, any of 4 (Holm)", [ff["p_holm"].min()])
            if r % 2 == 0:  # prefix effects / compare (every other run): two runs of one model, paired by prompt
                fa, fb = align(*simulate_pair(d, model, model, rng))
                out = paired_differences(fa, fb, plan_for(fa, boot, seed=r))
                t.cover("prefix effects / compare (41)", out["difference"], out["low"], out["high"], 0.0)
                t.flag("prefix effects / compare (41)", out["p"])
        else:
            t.flag("power: WinoBias gap (he, she)", wb["p"])
    return t.rows()


def _two_prompts(rng: Any, n: int) -> tuple[Any, Any, Any]:
    """BLS-like shares, and P(female) under an explicit prompt (noise sd 1.2) and an implicit one (0.6)."""
    share = np.concatenate([rng.uniform(1, 16, n), rng.uniform(83, 98, n)])
    base = 0.5 * np.log(share / (100 - share))
    implicit = 1 / (1 + np.exp(-(base + rng.normal(0, 0.6, 2 * n))))
    explicit = 1 / (1 + np.exp(-(base + rng.normal(0, 1.2, 2 * n))))
    return share, explicit, implicit


def _gap_truth() -> tuple[float, float]:
    """Spearman(explicit) - Spearman(implicit), and the separations' difference (points), by a large draw."""
    from scipy import stats

    share, y1, y2 = _two_prompts(np.random.default_rng(0), 200_000)
    women = share > 50
    sep = lambda y: 100 * (y[women].mean() - y[~women].mean())  # noqa: E731
    return (float(stats.spearmanr(share, y1).statistic - stats.spearmanr(share, y2).statistic), sep(y2) - sep(y1))


def _gap_probes(share: Any, y1: Any, y2: Any) -> Any:
    """A probes table as tables.per_job reads it: prompt 1 (explicit) and prompt 2 (implicit) per job."""
    import pandas as pd

    rows = []
    for j, (s, a, b) in enumerate(zip(share, y1, y2)):
        for prompt, p in (("1", a), ("2", b)):
            rows.append({"job": f"job{j}", "dominated_by": "women" if s > 50 else "men", "female_share": s,
                         "prompt": prompt, "debias": 0, "setting": "without dialogue", "p_female": p,
                         "p_male": 1 - p, "p_diverse": 0.0})
    return pd.DataFrame(rows)


def jobs_scenarios(reps: int) -> dict[str, list[dict[str, Any]]]:
    from jobs_synth import draw, truth

    from stereoprobe.stats.correlation import correlation, correlation_difference
    from stereoprobe.studies.jobs.stats import group_means, independence, paired_differences
    from stereoprobe.studies.jobs.tables import gap

    out = {}
    rng = np.random.default_rng(23)
    t = Tally()
    for method in ("spearman", "pearson"):
        true = truth(method)
        for _ in range(reps):
            share, p = draw(rng)
            c = correlation(p, share, method)
            t.cover(f"{method} with the BLS shares", c.r, c.low, c.high, true)
    gap_truth, sep_truth = _gap_truth()
    for _ in range(reps // 2):
        share, y1, y2 = _two_prompts(rng, 20)
        d, low, high = correlation_difference(y1, share, y2, share, "spearman", 0.95, 1000, int(rng.integers(1 << 30)))
        t.cover("explicit - implicit Spearman (gap.csv)", d, low, high, gap_truth)
        probes = _gap_probes(share, y1, y2)
        g = gap(probes, 0.95, 1000, int(rng.integers(1 << 30))).iloc[0]
        t.cover("explicit - implicit separation (gap.csv)", g["separation_difference"], g["separation_difference_low"],
                g["separation_difference_high"], sep_truth)
    out["jobs-correlations"] = t.rows()
    jobs = [f"job{i}" for i in range(20)]
    t = Tally()
    for _ in range(reps):
        values = rng.beta(6, 4, size=(20, 1))  # a group's 20 jobs, mean 0.6
        zeros = np.where(rng.random((20, 1)) < 0.7, 0.0, rng.beta(2, 8, size=(20, 1)))  # most jobs exactly 0
        m = group_means(np.hstack([values, zeros]), jobs, 500, int(rng.integers(1 << 30)), 0.95)
        t.cover("group mean, 20 jobs", m["mean"][0], m["low"][0], m["high"][0], 60.0)
        t.cover("group mean, 70% of jobs at 0", m["mean"][1], m["low"][1], m["high"][1], 0.3 * 20.0)
        base = rng.uniform(0.1, 0.9, size=(20, 2))
        moved = base + np.column_stack([rng.normal(0, 0.05, 20), np.where(rng.random(20) < 0.7, 0.0,
                                                                          rng.normal(0, 0.05, 20))])
        r = paired_differences(moved, base, jobs, 500, int(rng.integers(1 << 30)), 0.95)
        t.cover("prefix effect, 20 jobs", r["difference"][0], r["low"][0], r["high"][0], 0.0)
        t.cover("prefix effect, 70% of jobs unchanged", r["difference"][1], r["low"][1], r["high"][1], 0.0)
        t.flag("prefix effect (sign flip), 20 jobs", r["p"][0])
        t.flag("prefix effect (sign flip), 70% unchanged", r["p"][1])
    out["jobs-groups-prefixes"] = t.rows()
    t = Tally()
    for k in range(reps // 2):
        lean_rows = []
        for prompt in range(3):
            f = np.clip(rng.uniform(0.05, 0.95, 40) + rng.uniform(-0.03, 0.03, 40), 0.01, 0.97)
            lean_rows.append(np.column_stack([1 - f - 0.02, f, np.full(40, 0.02)]))
        probs = np.vstack(lean_rows)
        names = [f"job{j}" for _ in range(3) for j in range(40)]
        strata = [p for p in range(3) for _ in range(40)]
        t.flag("independence (NMI), null", [independence(names, strata, probs, n_perm=199, seed=k)[2]])
    out["jobs-independence"] = t.rows()
    return out


def run(studies: list[str], reps: int, boot: int, perms: int, log: Any = print,
        scenarios: list[str] | None = None, out: Path | None = None, seed: int = 0) -> dict[str, list[dict[str, Any]]]:
    """Every scenario of ``studies``; with ``out``, the table so far is written after each one."""
    results: dict[str, list[dict[str, Any]]] = {}
    if "coreference" in studies:
        for name in [n for n in COREF if not scenarios or n in scenarios]:
            start = time.time()
            n = max(reps // 4, 2) if name == "coref-20" else reps
            results[name] = coref_scenario(name, n, boot, perms, seed)
            log(f"{name}: {n} runs, {time.time() - start:.0f} s")
            if out is not None:
                out.write_text(markdown(results, f"(partial: {name} done)"))
    if "jobs" in studies:
        start = time.time()
        results.update(jobs_scenarios(reps))
        log(f"jobs: {reps} runs, {time.time() - start:.0f} s")
    return results


def markdown(results: dict[str, list[dict[str, Any]]], header: str) -> str:
    lines = [header, "", "| scenario | model |", "|---|---|"]
    lines += [f"| {n} | {COREF[n][2]} |" for n in results if n in COREF]
    lines += ["", "| scenario | cell or test | coverage / rate | Monte-Carlo se | width / oracle | intervals or tests (runs) |",
              "|---|---|---:|---:|---:|---|"]
    for name, rows in results.items():
        for r in rows:
            width = "" if r["width"] != r["width"] else f"{r['width']:.2f}"
            kind = "" if r["kind"] == "coverage" else " (rate at p < 0.05)"
            lines.append(f"| {name} | {r['cell']}{kind} | {r['value']:.3f} | {r['mc_se']:.3f} | {width} | "
                         f"{r['n']:,} ({r['runs']}) |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--study", default="coreference,jobs")
    parser.add_argument("--reps", type=int, default=400)
    parser.add_argument("--boot", type=int, default=200)
    parser.add_argument("--perms", type=int, default=99)
    parser.add_argument("--scenarios", default="", help="coreference scenarios (default: all)")
    parser.add_argument("--seed", type=int, default=0, help="another random stream of the coreference scenarios")
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "simulate_crossed.md")
    args = parser.parse_args()
    t0 = time.time()
    res = run(args.study.split(","), args.reps, args.boot, args.perms, log=lambda s: print(s, flush=True),
              scenarios=[x for x in args.scenarios.split(",") if x], out=args.out, seed=args.seed)
    head = (f"Simulations: `python bench/sim_crossed.py --reps {args.reps} --boot {args.boot} --perms {args.perms}` "
            f"(coref-20: {args.reps // 4} runs); {(time.time() - t0) / 60:.1f} min.")
    args.out.write_text(markdown(res, head))
    print(args.out)
