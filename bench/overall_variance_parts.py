"""How much of an overall coreference rate's variance is the pairs' own noise? (issue 36)

An overall rate ``sum k / sum n`` over the pairs of ``k`` women- x ``k`` men-dominated jobs varies across runs for
two reasons: which jobs were drawn (each job's difficulty), and each pair's own noise given its jobs (the binomial
noise of its 42 answers; in the mixture family also the pair's own difficulty and the hard triples). Replicates
that draw both sides' jobs (the pigeonhole bootstrap, ``pig`` in bench/sim_overall_frontier.py) count the second
part about three times, and a pair weight that sums its jobs' weights (``sub``) about twice; no replicate whose
weights are drawn for the two sides independently counts it once (a pair's weight then varies at least as much as
its row's and its column's weights together). So the share of that part says how much wider such replicates
spread than the rate does: ``sqrt((jobs + 3 pairs) / (jobs + pairs))`` for ``pig``.

Both parts are exact given the jobs (no answers are drawn): the normal family's pair rate is
``logistic(beta + a + b)`` with 42 binomial answers; the mixture's (tests/coref_synth.py) integrates the pair
effect by Gauss-Hermite quadrature, and its 14 triples are hard with probability ``q`` (each answer wrong with
probability 1/2) or easy. The jobs part is the variance over ``--runs`` draws of the jobs of the mean expected
rate; the pairs part the mean over those draws of the variance given the jobs.

    python bench/overall_variance_parts.py --runs 4000 --seed 1
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests"), str(ROOT / "bench")]

CELLS = ["normal-10-1", "normal-10-2", "normal-10-5", "normal-10-10", "normal-10-20", "coref-10-rare", "coref-10",
         "normal-20-1", "normal-20-2", "normal-20-5", "normal-20-10", "normal-20-20", "coref-20-rare-sd1", "coref-20"]
ANSWERS, TRIPLES = 42, 14  # a pair's answers: 7 scenes x 2 roles = 14 triples of 3 pronouns


def parts(name: str, runs: int, rng) -> tuple[float, float, float]:
    """(mean rate, variance from the jobs, mean variance given the jobs) of the overall rate of scenario ``name``."""
    from scipy.special import expit, logit

    from coref_synth import Model
    from sim_overall_rates import SCENARIOS, normal_beta

    family, k, params = SCENARIOS[name]
    nodes, w = np.polynomial.hermite_e.hermegauss(40)
    w = w / w.sum()
    model = None if family == "normal" else Model(**params)
    sd = params["sd"] if family == "normal" else model.job_sd
    beta = normal_beta(params["rate"], params["sd"]) if family == "normal" else logit(model.hard)
    means, given = np.empty(runs), np.empty(runs)
    for r in range(runs):
        base = beta + rng.normal(0, sd, k)[:, None] + rng.normal(0, sd, k)[None, :]
        if model is None:
            p = expit(base)
            mean, var = p, p * (1 - p) / ANSWERS
        else:
            q = expit(base[..., None] + model.pair_sd * nodes)  # over the pair's own effect
            e = model.easy
            rate = q * 0.5 + (1 - q) * e  # a triple's expected share of wrong answers
            square = q * (0.25 + 0.25 / 3) + (1 - q) * (e * e + e * (1 - e) / 3)  # E[(wrong / 3)^2]
            mean = rate @ w
            var = (rate**2 @ w - mean**2) + ((square - rate**2) / TRIPLES) @ w
        means[r], given[r] = mean.mean(), var.sum() / (k * k) ** 2
    return float(means.mean()), float(means.var()), float(given.mean())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=4000, help="draws of the jobs a cell")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--cells", default=",".join(CELLS))
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    print("| cell | rate | pairs' share of the variance | pig's spread / the rate's | sub's |")
    print("|---|---|---|---|---|")
    for name in args.cells.split(","):
        rate, jobs, pairs = parts(name, args.runs, rng)
        share = pairs / (jobs + pairs)
        print(f"| {name} | {100 * rate:.2f}% | {share:.3f} | {np.sqrt(1 + 2 * share):.3f} | {np.sqrt(1 + share):.3f} |")


if __name__ == "__main__":
    main()
