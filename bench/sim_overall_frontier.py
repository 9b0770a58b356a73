"""Which monotone rules can give an overall coreference rate 93-97% coverage at <= 1.3x the oracle width? (issue 36)

Issue 36 asks the overall rate's interval for three things at once: coverage 93-97% in two generator families
(bench/sim_overall_rates.py's ``normal`` and ``mixture``) at 10 x 10 and 20 x 20 jobs and rates of 1-20%, a
mean width at most 1.3 times the oracle, and monotone (one more wrong answer never lowers the upper limit). A
rule is monotone by construction when its limits are quantiles of replicates ``sum w k / sum w n`` whose weights
``w >= 0`` do not depend on the counts (the tool's rule, ``inference.overall_interval``). This bench compares
such rules on the same simulated runs, from each run's pair sums alone (what the rules read), so a grid of
rules costs seconds a cell:

- ``pig``: the tool's weights, a pair's weight the product of its two jobs' bootstrap counts (the pigeonhole
  bootstrap; the pairs' own noise counted about three times);
- ``sub``: a pair's weight the *sum* of its jobs' weights, each side an m-out-of-k draw (m = k/4, counts scaled
  to a sum of k/2, so a job's weight has the bootstrap's variance and the sides' totals are fixed): the pairs'
  noise counted twice;
- ``pig-eb`` / ``sub-eb``: as above, with each pair's rate drawn from Beta(k + c p, n - k + c (1 - p)), ``p`` the
  run's rate, ``c`` = 1 as the tool's, or ``--concentration`` (a draw that is monotone in the counts when made by
  its quantile function);
- ``pig-jeffreys``: the pairs' rates drawn from their Jeffreys posteriors Beta(k + 1/2, n - k + 1/2);
- ``tool``: the tool's pairing, the lower limit from ``pig``'s replicates and the upper from ``pig-eb``'s;
- ``low/high``: any pairing, the lower limit from ``low``'s replicates and the upper from ``high``'s.

``--deflate LOW:HIGH`` divides the two reaches by ``sqrt(1 + m share)``, ``share`` the pairs' binomial noise's
share of the rate's variance at the run's rate for job effects of sd 1 a side (:func:`binomial_share`).

Each rule is read at several lower/upper reaches: limits at the ``Phi(-l t)`` and ``Phi(s t)`` quantiles of its
replicates, ``t`` the 97.5% point of t on the smaller side's jobs minus 1, never inside the counts' Jeffreys
interval (the tool: ``tool`` at l = 0.8, s = 1.2; the rule of 2026-11-27: ``pig`` at l = 1, s = 1.4). Runs are
the bench's own (``--seed`` 36 and each scenario's stream), so a rule's row here and ``sim_overall_rates.py``'s
for the tool's rule come from the same runs.

    python bench/sim_overall_frontier.py --scenarios normal-10-1,coref-10 --runs 200 \\
        --rules pig:1:1.4,sub:0.8:1.4 --out frontier.json
    python bench/sim_overall_frontier.py --report frontier.json > bench/results/overall-frontier.md
"""

from __future__ import annotations

import json
import math
import sys
import time
from pathlib import Path

import numpy as np
from scipy import stats

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests"), str(ROOT / "bench")]


def side_weights(kind: str, k: int, rows: int, rng) -> np.ndarray:
    """(rows, k) weights of one side's jobs: bootstrap counts (``pig``) or scaled m-out-of-k counts (``sub``)."""
    if kind == "pig":
        return rng.multinomial(k, np.full(k, 1 / k), size=rows).astype(float)
    m = k / 4
    lo = int(math.floor(m))
    p_lo = (1 / m - 1 / (lo + 1)) / (1 / lo - 1 / (lo + 1))  # a mix of m = lo and lo + 1 with E[1/m] = 4/k
    draws = np.where(rng.random(rows) < p_lo, lo, lo + 1)
    out = np.zeros((rows, k))
    for mm in (lo, lo + 1):
        sel = draws == mm
        out[sel] = rng.multinomial(mm, np.full(k, 1 / k), size=int(sel.sum())) * (k / (2 * mm))
    return out


CONCENTRATION = 1.0  # c of the ``-eb`` posteriors (the tool's inference.CONCENTRATION; --concentration)


def replicates(rule: str, num, den, jobs, k: int, rows: int, rng) -> np.ndarray:
    """(rows,) replicates of the run's rate under ``rule`` (module docstring)."""
    base, _, post = rule.partition("-")
    u, v = side_weights(base, k, rows, rng), side_weights(base, k, rows, rng)
    w = u[:, jobs[:, 0]] * v[:, jobs[:, 1] - k] if base == "pig" else u[:, jobs[:, 0]] + v[:, jobs[:, 1] - k]
    if not post:
        return (w @ num) / (w @ den)
    p = num.sum() / den.sum()
    a, b = (0.5, 0.5) if post == "jeffreys" else (CONCENTRATION * p, CONCENTRATION * (1 - p))
    rates = rng.beta(num + a, den - num + b, size=w.shape)
    return ((w * rates) @ den) / (w @ den)


DEFLATE = (0.0, 0.0)  # (lower, upper) m of --deflate: reaches divided by sqrt(1 + m * binomial_share(p, k))


def binomial_share(p: float, k: int, sd: float = 1.0, answers: int = 42) -> float:
    """The pairs' binomial noise's share of an overall rate's variance at rate ``p``, ``k`` x ``k`` jobs whose
    effects are N(0, sd) on the logit a side, ``answers`` a pair (Hoeffding: rows, columns, their interaction)."""
    from scipy import optimize, special

    x, w = np.polynomial.hermite_e.hermegauss(40)
    w = w / w.sum()
    p = min(max(p, 1e-4), 0.5)
    beta = optimize.brentq(lambda b: w @ special.expit(b + math.sqrt(2) * sd * x) - p, -30, 30)
    f = special.expit(beta + sd * (x[:, None] + x[None, :]))
    g = f @ w
    rows_var, f_var = float(w @ g**2 - p**2), float(w @ (f**2 @ w) - p**2)
    jobs = 2 * rows_var / k + (f_var - 2 * rows_var) / k**2
    pairs = (p - float(w @ (f**2 @ w))) / (answers * k**2)
    return pairs / (jobs + pairs)


def run(name: str, runs: int, rules: list[tuple[str, float, float]], rows: int, seed: int, df: str = "smaller") -> dict:
    from coref_synth import Model, design, simulate, truth
    from sim_overall_rates import SCENARIOS, normal_beta, normal_truth, simulate_normal

    family, k, params = SCENARIOS[name]
    d = design(k)
    if family == "normal":
        beta, true = normal_beta(params["rate"], params["sd"]), normal_truth(params["rate"], params["sd"])["incorrect"]
    else:
        model = Model(**params)
        true = truth(model)["incorrect"]
    rng = np.random.default_rng([seed, sum(map(ord, name))])  # sim_overall_rates.py's stream: the same runs
    from stereoprobe.studies.coreference.inference import reading_df

    # smaller: as the tool reads it (the smaller side's jobs minus 1, twice that below 10 jobs, at most 9: the same
    # as k - 1 at 10 and 20 jobs); both: the two sides' jobs minus 2
    t = float(stats.t.ppf(0.975, reading_df(k - 1) if df == "smaller" else 2 * (k - 1)))
    pairs = len(d.cluster_jobs)
    est, limits = [], {r: [] for r in rules}
    start = time.process_time()
    for r in range(runs):
        frame = simulate_normal(d, beta, params["sd"], rng) if family == "normal" else simulate(d, model, rng)
        num = np.bincount(d.cluster, weights=(~frame["correct"].to_numpy()).astype(float), minlength=pairs)
        den = np.bincount(d.cluster, minlength=pairs).astype(float)
        kk, nn = num.sum(), den.sum()
        est.append(100 * kk / nn)
        j_lo = stats.beta.ppf(0.025, kk + 0.5, nn - kk + 0.5) if kk > 0 else 0.0
        j_hi = stats.beta.ppf(0.975, kk + 0.5, nn - kk + 0.5) if kk < nn else 1.0
        cache: dict[str, np.ndarray] = {}
        for rule in rules:
            # "tool": the lower limit from the observed rates (pig), the upper from the posterior draws (pig-eb)
            # "low/high": the lower limit from one rule's replicates, the upper from another's
            low_rule, high_rule = ("pig", "pig-eb") if rule[0] == "tool" else (rule[0].split("/") * 2)[:2]
            for name_ in (low_rule, high_rule):
                if name_ not in cache:
                    cache[name_] = replicates(name_, num, den, d.cluster_jobs, k, rows, np.random.default_rng([r, 7]))
            share = binomial_share(kk / nn, k) if any(DEFLATE) else 0.0
            lo = np.quantile(cache[low_rule], stats.norm.cdf(-rule[1] * t / math.sqrt(1 + DEFLATE[0] * share)))
            hi = np.quantile(cache[high_rule], stats.norm.cdf(rule[2] * t / math.sqrt(1 + DEFLATE[1] * share)))
            limits[rule].append((100 * min(lo, j_lo), 100 * max(hi, j_hi)))
    oracle = 3.92 * float(np.std(est))
    out = []
    for rule, v in limits.items():
        v = np.asarray(v)
        cover = float(((v[:, 0] <= true) & (true <= v[:, 1])).mean())
        out.append({"scenario": name, "family": family, "jobs": k, "truth": true, "runs": runs, "seed": seed,
                    "rule": rule[0], "lower": rule[1], "upper": rule[2], "coverage": cover,
                    "mc_se": math.sqrt(cover * (1 - cover) / runs), "below": float((true < v[:, 0]).mean()),
                    "above": float((true > v[:, 1]).mean()), "width": float((v[:, 1] - v[:, 0]).mean() / oracle)})
    print(f"{name}: {time.process_time() - start:.0f} CPU-s", file=sys.stderr, flush=True)
    return {"rows": out}


def report(paths: list[str], common: bool = False) -> str:
    """A markdown table of the rules in ``paths`` (JSON of :func:`run`). A cell run in several files (other seeds)
    is pooled: coverage over all its runs, width / oracle the runs-weighted mean of the files' ratios. ``common``:
    only the rules every file ran."""
    files = [[r for res in json.loads(Path(p).read_text()) for r in res["rows"]] for p in paths]
    rows = [r for f in files for r in f]
    rules = list(dict.fromkeys((r["rule"], r["lower"], r["upper"]) for r in rows))
    if common:
        rules = [u for u in rules if all(any((r["rule"], r["lower"], r["upper"]) == u for r in f) for f in files)]
    cells = list(dict.fromkeys(r["scenario"] for r in rows))
    lines = ["| rule (l, s) | cells in 93-97% at <= 1.3x | coverage, lowest-highest | width / oracle, highest | "
             + " | ".join(cells) + " |", "|---|---|---|---|" + "---|" * len(cells)]
    for rule in rules:
        mine = {}
        for c in cells:
            got = [r for r in rows if (r["rule"], r["lower"], r["upper"]) == rule and r["scenario"] == c]
            if got:
                runs = sum(r["runs"] for r in got)
                mine[c] = {k: sum(r[k] * r["runs"] for r in got) / runs for k in ("coverage", "width")}
        ok = sum(0.93 <= r["coverage"] <= 0.97 and r["width"] <= 1.3 for r in mine.values())
        covs, widths = [r["coverage"] for r in mine.values()], [r["width"] for r in mine.values()]
        lines.append(f"| {rule[0]} ({rule[1]:g}, {rule[2]:g}) | {ok} of {len(mine)} | {min(covs):.3f}-{max(covs):.3f} | "
                     f"{max(widths):.2f} | " + " | ".join(f"{mine[c]['coverage']:.3f}, {mine[c]['width']:.2f}"
                                                       if c in mine else "" for c in cells) + " |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    from sim_overall_rates import cli

    def options(parser):
        parser.add_argument("--rules", default="pig:1:1.4", help="rule:l:s,... (module docstring)")
        parser.add_argument("--replicates", type=int, default=20_000, help="replicates a run (the tool's 20,000)")
        parser.add_argument("--concentration", type=float, default=1.0, help="c of the -eb posteriors (the tool: 1)")
        parser.add_argument("--df", choices=["smaller", "both"], default="smaller",
                            help="t's degrees of freedom: the smaller side's jobs minus 1 (the tool), or both sides' minus 2")
        parser.add_argument("--common", action="store_true", help="--report: only the rules every file ran")
        parser.add_argument("--deflate", default="0:0", help="LOW:HIGH m: reaches over sqrt(1 + m binomial_share)")

    args = cli(__doc__, "normal-10-5", 200, options)
    if args.report:
        print(report(args.report, args.common), end="")
        raise SystemExit
    CONCENTRATION = args.concentration
    DEFLATE = tuple(float(v) for v in args.deflate.split(":"))
    rules = [(r.split(":")[0], float(r.split(":")[1]), float(r.split(":")[2])) for r in args.rules.split(",")]
    results = [run(s, args.runs, rules, args.replicates, args.seed, args.df) for s in args.scenarios.split(",")]
    if args.out:
        args.out.write_text(json.dumps(results))
    print(report([str(args.out)]) if args.out else json.dumps(results))
