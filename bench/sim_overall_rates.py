"""Coreference Table 3 rates where jobs differ strongly (issue 36): coverage at a known truth, two generator families.

Every run is a simulated answer frame of the real design (``tests/coref_synth.design``: ``k`` women- x ``k``
men-dominated jobs, both roles, 7 scenes, 3 pronouns), scored by the library exactly as ``stereoprobe score``
does it: ``plan_for(frame, boot, seed=run)`` and ``table3`` (the Overall rows and the per-scene rows of
incorrect, inconsistent and binary inconsistent). Two families of truths:

- ``normal``: the crossed logistic model's own family (the third review's): every job an effect ``N(0, sd)`` on
  the logit, on each side; an answer is wrong with probability ``logistic(beta + a_woman + b_man)``,
  independently given the pair; ``beta`` is set so that the rate of jobs like these is ``rate``. Truths by
  quadrature: incorrect ``E F``, inconsistent ``E[1 - F^3 - (1 - F)^3]``, binary ``E[2 F (1 - F)]``,
  ``F = logistic(beta + sqrt(2) sd Z)``.
- ``mixture``: the project's generator (tests/coref_synth.py ``simulate`` and ``truth``): hard triples with
  probability ``logistic(logit(hard) + a + b + v)``, pair effects ``v`` of sd 1, hard answers wrong with
  probability 1/2, easy ones with probability ``easy``.

The same ``--seed`` gives the same runs whichever stereoprobe is imported, so the old intervals come from the
same runs with ``--library DIR`` (a plain export of an earlier version: ``git archive main | tar -x -C DIR``).
Coverage with its Monte-Carlo se (binomial over runs), the misses below and above, and the mean width over
``3.92 x`` the sd of the estimate across runs (the oracle width). Results as JSON (``--out``); ``--report``
merges JSON files into a markdown table.

    python bench/sim_overall_rates.py --scenarios normal-10-2,coref-10 --runs 200 --overall-only --metrics incorrect \\
        --out new.json                                  # docs/statistics.md's table: 200 runs at 10 x 10, 100 at 20 x 20
    python bench/sim_overall_rates.py --scenarios normal-10-2,coref-10-rare --runs 300 --out new.json
    python bench/sim_overall_rates.py --library /tmp/old --scenarios normal-20-2 --runs 1000 --overall-only \\
        --metrics incorrect --out old.json
    python bench/sim_overall_rates.py --report old.json new.json > bench/results/sim_overall_rates.md
"""

from __future__ import annotations

import json
import math
import sys
import time
from pathlib import Path
from typing import Any, Callable

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
METRICS = ("incorrect", "inconsistent", "binary_inconsistent")
SCENARIOS = {  # name: (family, jobs a side, parameters)
    **{f"normal-{k}-{r:g}": ("normal", k, {"rate": r, "sd": 1.0})
       for k in (3, 4, 5, 8, 10, 20) for r in (1, 2, 5, 10, 20)},
    # few jobs (docs/gate.md's served runs are 5 x 5; the quick design, stereoprobe suite's, is 8 x 8): with job
    # effects, and without (alike, as bench_gate's fake)
    **{f"normal-{k}-{r:g}-alike": ("normal", k, {"rate": r, "sd": 0.0}) for k in (3, 4, 5, 8) for r in (1, 2, 5, 10)},
    **{f"coref-{k}": ("mixture", k, {}) for k in (3, 4, 5, 8)},
    "coref-10-rare": ("mixture", 10, {"hard": 0.01, "easy": 0.002, "job_sd": 1.0}),
    "coref-20-rare": ("mixture", 20, {"hard": 0.008, "easy": 0.002}),
    "coref-20-rare-sd1": ("mixture", 20, {"hard": 0.01, "easy": 0.002, "job_sd": 1.0}),
    "coref-10": ("mixture", 10, {}),
    "coref-20": ("mixture", 20, {}),
    "coref-10-nojobs": ("mixture", 10, {"job_sd": 0.0}),
}


def _nodes():
    x, w = np.polynomial.hermite_e.hermegauss(80)
    return x, w / w.sum()


def normal_beta(rate: float, sd: float) -> float:
    """beta with E logistic(beta + sqrt(2) sd Z) = rate %."""
    from scipy import optimize, special

    x, w = _nodes()
    return float(optimize.brentq(lambda b: w @ special.expit(b + math.sqrt(2) * sd * x) - rate / 100, -20, 10))


def normal_truth(rate: float, sd: float) -> dict[str, float]:
    from scipy import special

    x, w = _nodes()
    f = special.expit(normal_beta(rate, sd) + math.sqrt(2) * sd * x)
    return {"incorrect": 100 * float(w @ f), "inconsistent": 100 * float(w @ (1 - f**3 - (1 - f) ** 3)),
            "binary_inconsistent": 100 * float(w @ (2 * f * (1 - f)))}


def simulate_normal(d, beta: float, sd: float, rng):
    """An answer frame: each pair's answers wrong independently with probability logistic(beta + a + b)."""
    from stereoprobe.studies.coreference.frame import with_answers

    jobs = rng.normal(0, sd, int(d.cluster_jobs.max()) + 1)
    p = 1 / (1 + np.exp(-(beta + jobs[d.cluster_jobs].sum(axis=1))))
    wrong = rng.random(len(d.probes)) < p[d.cluster]
    return with_answers(d.frame, np.where(wrong, d.wrong, d.right))


def run(name: str, runs: int, boot: int, seed: int, metrics, overall_only: bool) -> dict:
    from coref_synth import Model, design, simulate, truth

    from stereoprobe.studies.coreference.inference import plan_for
    from stereoprobe.studies.coreference.tables import table3

    family, k, params = SCENARIOS[name]
    d = design(k)
    if family == "normal":
        beta, true = normal_beta(params["rate"], params["sd"]), normal_truth(params["rate"], params["sd"])
    else:
        model = Model(**params)
        true = {m: truth(model)[m] for m in METRICS}
    rng = np.random.default_rng([seed, sum(map(ord, name))])
    rows: dict[str, list] = {m: [] for m in metrics}
    start, cpu = time.time(), time.process_time()
    for r in range(runs):
        frame = simulate_normal(d, beta, params["sd"], rng) if family == "normal" else simulate(d, model, rng)
        plan = plan_for(frame, boot, seed=r)
        if overall_only:  # one rate_table per metric, as table3 builds it, without the triples it does not need
            from stereoprobe.studies.coreference.inference import rate_table

            t = rate_table(plan, frame["cluster"], ~frame["correct"], np.ones(len(frame)),
                           np.zeros(len(frame), np.int64), ["all"], total="Overall")
            rows["incorrect"].append([[t.loc["Overall", c] for c in ("pct", "low", "high")]])
            continue
        t3 = table3(frame, plan)
        for m in metrics:
            rows[m].append(t3[[f"{m}_pct", f"{m}_low", f"{m}_high"]].to_numpy().tolist())  # scenes..., Overall
    return {"scenario": name, "family": family, "jobs": k, "params": params, "truth": true, "runs": runs,
            "boot": boot, "seed": seed, "rows": rows, "seconds": time.time() - start,
            "cpu_seconds": time.process_time() - cpu}


def summarise(result: dict) -> list[dict]:
    out = []
    for m, runs in result["rows"].items():
        if not runs:  # --overall-only fills incorrect's rows alone
            continue
        a = np.asarray(runs, dtype=np.float64)  # (runs, cells, 3)
        true = result["truth"][m]
        for where, cells in (("overall", a[:, -1:]), ("per scene", a[:, :-1])):
            if cells.shape[1] == 0:
                continue
            est, low, high = cells[..., 0], cells[..., 1], cells[..., 2]
            ok = ~np.isnan(low)
            c = float(((low <= true) & (true <= high))[ok].mean())
            oracle = 3.92 * np.nanstd(est, axis=0)
            out.append({"metric": m, "where": where, "coverage": c, "mc_se": math.sqrt(c * (1 - c) / len(a)),
                        "below": float((true < low)[ok].mean()), "above": float((true > high)[ok].mean()),
                        "width": float(np.mean(np.nanmean(high - low, axis=0) / oracle)), "runs": len(a),
                        "truth": true, "mean": float(np.nanmean(est[:, 0]))})
    return out


def report(paths: list[str]) -> str:
    lines = ["| scenario | rate | cells | library | coverage (MC se) | misses below / above | width / oracle | runs | seed | load |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for path in paths:
        for res in json.loads(Path(path).read_text()):
            for s in summarise(res):
                lines.append(f"| {res['scenario']} | {s['metric']} {s['truth']:.2f}% | {s['where']} | {res['library']} | "
                             f"{s['coverage']:.3f} ({s['mc_se']:.3f}) | {s['below']:.3f} / {s['above']:.3f} | "
                             f"{s['width']:.2f} | {s['runs']} | {res['seed']} | {res.get('load', float('nan')):.0f} |")
    return "\n".join(lines) + "\n"


def cli(doc: str, scenarios: str, runs: int, extra: Callable[[Any], None]) -> Any:
    """The simulations' command line (this file's and sim_overall_frontier.py's): --scenarios, --runs, --seed
    (36), --out JSON, and --report JSON... (print ``report`` of earlier results and exit); ``extra(parser)``
    adds a script's own options."""
    import argparse

    parser = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    parser.add_argument("--scenarios", default=scenarios)
    parser.add_argument("--runs", type=int, default=runs)
    parser.add_argument("--seed", type=int, default=36)
    parser.add_argument("--out", type=Path)
    parser.add_argument("--report", nargs="*")
    extra(parser)
    return parser.parse_args()


if __name__ == "__main__":
    def options(parser):
        parser.add_argument("--boot", type=int, default=2000, help="replicates per block of the plan (score's default)")
        parser.add_argument("--metrics", default=",".join(METRICS))
        parser.add_argument("--overall-only", action="store_true", help="incorrect, Overall only (no per-scene rows)")
        parser.add_argument("--library", default="", help="a directory holding another version's stereoprobe package")
        parser.add_argument("--label", default="", help="the library's name in the results (default: new, or old)")

    args = cli(__doc__, "normal-10-2", 300, options)
    if args.report:
        print(report(args.report), end="")
        raise SystemExit
    sys.path[:0] = ([args.library] if args.library else []) + [str(ROOT), str(ROOT / "tests")]
    results = []
    for name in args.scenarios.split(","):
        res = run(name, args.runs, args.boot, args.seed, args.metrics.split(","), args.overall_only)
        res["library"] = args.label or ("old" if args.library else "new")
        import os

        res["load"] = os.getloadavg()[0]
        results.append(res)
        for s in summarise(res):
            print(f"{name} {s['metric']} {s['where']}: coverage {s['coverage']:.3f} ({s['mc_se']:.3f}), below "
                  f"{s['below']:.3f} above {s['above']:.3f}, width {s['width']:.2f}; {res['cpu_seconds']:.0f} s CPU, "
                  f"load {res['load']:.1f}", flush=True)
        if args.out:
            args.out.write_text(json.dumps(results))
