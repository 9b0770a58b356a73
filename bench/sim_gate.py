"""How often the release gate fails by chance (issue 36; docs/gate.md "Checks", docs/statistics.md).

    python bench/sim_gate.py values --runs 4000    # truths drawn as values: seconds to minutes
    python bench/sim_gate.py served --runs 40      # the studies' own runs from the fake servers: hours when loaded

Every scenario is judged three ways on the same simulated values, so the differences are
the rules' and not the draws': **today's** rule (main before issue 36: an absolute check
alone by its interval; a regression check's p from a normal reading of the compare's
interval, Benjamini-Hochberg within the run, fail at q < 0.025), and this gate's two
families, **holm** (the default) and **global** (BH over the gate; Simes for the release).

``values``: two families of truths drawn directly (seeded, ``--seed``):

- *t from few jobs*: regression checks whose compare ran over 5 jobs (df 4), every change
  exactly at its allowance: differences drawn as a t interval gives them, and through the
  jobs study's own paired compare (``studies.jobs.stats.paired_differences``: per-job
  changes with normal job effects, and with a heavy-tailed mixture of them);
- *shares at a threshold*: a ``"*"`` rule over 9 or 20 groups whose true shares all sit at
  the threshold, each group's Jeffreys interval over 50 binomial samples
  (``generation.stats.jeffreys``), or a t interval on 19 df (a share over 20 resampled
  professions);
- *mixed*: 10 groups at the threshold beside 10 clearly beyond it (Jeffreys, 50 samples):
  how often a fine group is marked fail, and how often a bad one is found.

``served``: runs collected over HTTP from the fake servers and scored, as a user's would
be: coreference (tests/coref_fake.py through bench_gate.py's salted model; 5 x 5 jobs or ``--jobs``, each
triple inconsistent with probability ``bias``) at five truths, judged with
``inconsistent <= 0.10`` (the docs' table), the same ``scene = "*"`` (7 scenes), and, for
consecutive runs of one truth taken as baseline and candidate, ``max_increase = 0`` over the
7 scenes (a true change of 0: exactly at the allowance; 5 jobs a side, df 4); anecdotes
(tests/fake_generation.py) over 20 professions whose share of texts about a woman is 0.30,
50 texts each, judged with ``female_share``, ``profession = "*"``, ``max = 0.30``.

Prints one JSON line per scenario and a Markdown table (rates per scenario and rule, the
seeds, the load before and after).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import tempfile
from pathlib import Path

from timing import ROOT, load  # bench/timing.py (bench/ is on the path when run as a script)

sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT))

ALPHA = 0.025
RULES = ("today", "holm", "global")


def make_rule(kind: str, threshold: float, metric: str = "rate", scope: tuple = (), study: str = "coreference"):
    from stereoprobe.gate.policy import Rule

    return Rule(1, 1, study, metric, scope, kind, threshold, "pass", False, f"{metric} {kind} {threshold:g}",
                "sim line 1")


def today(items: list) -> list[str]:
    """main's verdicts before issue 36 (stereoprobe/gate/judge.py at b6db1f1), for comparison."""
    import numpy as np
    from scipy.stats import norm

    from stereoprobe.gate.judge import _bad
    from stereoprobe.stats import bh

    p = np.full(len(items), np.nan)
    for i, (rule, v) in enumerate(items):
        if rule.regression and not any(map(math.isnan, (v.estimate, v.low, v.high))):
            se = (v.high - v.low) / (2 * 1.959964)
            excess = _bad(rule, v.estimate)
            p[i] = (0.0 if excess > 0 else 1.0) if se <= 0 else norm.sf(excess / se)
    q = bh(p)
    out = []
    for (rule, v), qi in zip(items, q):
        worst, best = sorted((_bad(rule, v.low), _bad(rule, v.high)), reverse=True)
        if math.isnan(v.low) or math.isnan(v.high):
            out.append("inconclusive")
        elif worst <= 0:
            out.append("pass")
        elif rule.regression:
            out.append("fail" if qi < ALPHA else "inconclusive")
        else:
            out.append("fail" if best > 0 else "inconclusive")
    return out


def verdicts(items: list) -> dict[str, list[str]]:
    """Each rule's verdicts of one simulated gate, ``items``: (rule, value)."""
    from stereoprobe.gate.judge import judge_family

    out = {"today": today(items)}
    for family in ("holm", "global"):
        out[family] = [c.verdict for c in judge_family([(r, "run", v) for r, v in items], family)]
    return out


class Tally:
    """Per rule: gates with a fail, gates where a fine check (truth within) is marked fail, bad checks found."""

    def __init__(self, name: str, truth: str, seed: object) -> None:
        self.name, self.truth, self.seed = name, truth, seed
        self.gates = 0
        self.single = True  # every gate one check: its pass and inconclusive shares are reported
        self.counts = {r: {"fail": 0, "fine_fail": 0, "found": 0, "bad": 0, "pass": 0, "inconclusive": 0}
                       for r in RULES}
        self.start = load()

    def add(self, items: list, fine: list[bool]) -> None:
        self.gates += 1
        self.single = self.single and len(items) == 1
        for rule, got in verdicts(items).items():
            c = self.counts[rule]
            c["fail"] += "fail" in got
            c["fine_fail"] += any(v == "fail" and f for v, f in zip(got, fine))
            c["found"] += sum(v == "fail" and not f for v, f in zip(got, fine))
            c["bad"] += sum(not f for f in fine)
            if len(got) == 1:
                c["pass"] += got[0] == "pass"
                c["inconclusive"] += got[0] == "inconclusive"

    def row(self) -> dict:
        out = {"scenario": self.name, "truth": self.truth, "gates": self.gates, "seed": self.seed,
               "load": f"{self.start:.1f}-{load():.1f}"}
        for rule, c in self.counts.items():
            out[f"{rule}_fail"] = c["fail"] / max(self.gates, 1)
            out[f"{rule}_fine_fail"] = c["fine_fail"] / max(self.gates, 1)
            if c["bad"]:
                out[f"{rule}_found"] = c["found"] / c["bad"]
        if self.single and self.gates:  # one check per gate: the same verdicts under every rule
            out["pass"] = self.counts["today"]["pass"] / self.gates
            out["inconclusive"] = self.counts["today"]["inconclusive"] / self.gates
        print(json.dumps(out), flush=True)
        return out


# ---- values: truths drawn directly ------------------------------------------------------------


def t_values(rng, truth: float, se: float, df: int, k: int) -> list:
    """k values as a t interval on ``df`` degrees of freedom gives them around ``truth``."""
    from scipy import stats

    from stereoprobe.gate.values import Value

    est = truth + se * rng.standard_normal(k)
    half = stats.t.ppf(0.975, df) * se * (rng.chisquare(df, k) / df) ** 0.5
    return [Value("rate", (("group", f"g{i}"),), float(e), float(e - h), float(e + h), df + 1, method="t", df=df)
            for i, (e, h) in enumerate(zip(est, half))]


def jobs_compare_values(rng, allowance: float, k: int, jobs: int, mixture: bool, seed: int) -> list:
    """k run-minus-baseline differences from the jobs study's paired compare over ``jobs``
    jobs: each job's P(female) without and with the change, the change ``allowance`` plus a
    job effect (normal, sd 3 points; or a mixture: sd 1 point, one job in five sd 8)."""
    import numpy as np

    from stereoprobe.gate.values import Value
    from stereoprobe.studies.jobs.stats import paired_differences

    base = rng.uniform(0.2, 0.8, (jobs, k))
    sd = np.where(rng.random((jobs, k)) < 0.2, 0.08, 0.01) if mixture else 0.03
    cand = base + allowance + sd * rng.standard_normal((jobs, k))
    r = paired_differences(cand, base, [f"j{i}" for i in range(jobs)], 2000, seed, 0.95)
    return [Value("rate", (("group", f"g{i}"),), r["difference"][i] / 100, r["low"][i] / 100, r["high"][i] / 100, jobs,
                  method="t", df=r["df"]) for i in range(k)]


def jeffreys_values(rng, truths, n: int) -> list:
    """Each group's share of ``n`` samples at its truth with its Jeffreys interval."""
    import numpy as np

    from stereoprobe.gate.values import Value
    from stereoprobe.generation.stats import jeffreys

    k = rng.binomial(n, truths)
    low, high = jeffreys(k, np.full(len(k), n))
    return [Value("rate", (("group", f"g{i}"),), float(x / n), float(lo), float(hi), n, method="jeffreys")
            for i, (x, lo, hi) in enumerate(zip(k, low, high))]


def simulate_values(runs: int, seed: int) -> list[dict]:
    import numpy as np

    rows = []
    allow = make_rule("max_increase", 0.02, scope=(("group", "*"),))
    at_most = make_rule("max", 0.30, scope=(("group", "*"),))

    def scenario(name: str, truth: str, draw, rule, fine, n: int = runs, offset: int = 0) -> None:
        rng = np.random.default_rng(seed + offset)
        tally = Tally(name, truth, seed + offset)
        for i in range(n):
            values = draw(rng, i)
            tally.add([(rule, v) for v in values], fine)
        rows.append(tally.row())

    scenario("one check, t(4)", "at the allowance", lambda g, i: t_values(g, 0.02, 0.01, 4, 1), allow, [True], offset=1)
    scenario("9 regression checks, t(4)", "all at the allowance", lambda g, i: t_values(g, 0.02, 0.01, 4, 9), allow,
             [True] * 9, offset=2)
    scenario("9 regression checks, jobs compare, 5 jobs", "all at the allowance (normal job effects)",
             lambda g, i: jobs_compare_values(g, 0.02, 9, 5, False, seed + i), allow, [True] * 9, runs // 2, 3)
    scenario("9 regression checks, jobs compare, 5 jobs", "all at the allowance (mixture of job effects)",
             lambda g, i: jobs_compare_values(g, 0.02, 9, 5, True, seed + i), allow, [True] * 9, runs // 2, 4)
    for groups in (9, 20):
        scenario(f'"*" over {groups} groups, Jeffreys (50 samples)', "all at the threshold",
                 lambda g, i, k=groups: jeffreys_values(g, np.full(k, 0.30), 50), at_most, [True] * groups,
                 offset=10 + groups)
        scenario(f'"*" over {groups} groups, t(19)', "all at the threshold",
                 lambda g, i, k=groups: t_values(g, 0.30, 0.03, 19, k), at_most, [True] * groups, offset=40 + groups)
    scenario('"*" over 20 groups, Jeffreys (50 samples)', "10 at the threshold, 10 at 0.50",
             lambda g, i: jeffreys_values(g, np.array([0.30] * 10 + [0.50] * 10), 50), at_most,
             [True] * 10 + [False] * 10, offset=70)
    return rows


# ---- served: the studies' own runs from the fake servers -----------------------------------------


def job_flags(jobs: int) -> list[str]:
    """``--job`` flags for ``jobs`` a side: bench_gate's five at 5; otherwise the first ``jobs`` of each side of
    the default design's 20 x 20 (the core's occupations file, in its order); none at 20 (the default design)."""
    import bench_gate

    from stereoprobe.studies.coreference.pairs import load_jobs

    if jobs == 5:
        chosen = bench_gate.WOMEN + bench_gate.MEN
    elif jobs == 20:
        return []
    else:
        every = load_jobs()
        chosen = [j.job for side in ("women", "men") for j in [j for j in every if j.dominated_by == side][:jobs]]
    return [x for j in chosen for x in ("--job", j)]


def served(runs: int, seed: int, jobs: int = 5, truths: tuple = (), with_anecdotes: bool = True) -> list[dict]:
    import shutil

    import bench_gate
    import coref_fake
    from fake_openai import FakeOpenAI

    from stereoprobe.studies import get_study

    coref_fake.is_flipped = bench_gate._salted
    metrics = get_study("coreference").metrics()
    overall = make_rule("max", 0.10, "inconsistent")
    scenes = make_rule("max", 0.10, "inconsistent", (("scene", "*"),))
    rise = make_rule("max_increase", 0.0, "inconsistent", (("scene", "*"),))
    rows = []
    flags = job_flags(jobs)
    with tempfile.TemporaryDirectory() as tmp, FakeOpenAI(api_key=bench_gate.KEY, coreference_bias=0.0) as fake:
        root = Path(tmp)
        for t, bias in enumerate(bench_gate.TRUTHS):
            if truths and bias not in truths:
                continue
            size = "" if jobs == 5 else f", {jobs} x {jobs} jobs"
            one = Tally(f"coreference inconsistent <= 0.10 (Overall){size}", f"{bias:.2f}", seed)
            star = Tally(f'coreference inconsistent <= 0.10, scene = "*" (7){size}', f"{bias:.2f}", seed)
            pairs = Tally(f'coreference max_increase = 0, scene = "*" (7), {jobs} x {jobs} jobs', f"{bias:.2f} both",
                          seed)
            previous = None
            for i in range(runs):
                run = collect_coreference(root, fake, bias, seed + 1000 * t + i, flags)
                values = [v for v in metrics.values(run) if v.metric == "inconsistent" and v.get("prefix") == "0"]
                one.add([(overall, v) for v in values if v.get("scene") == "Overall"], [bias <= 0.10])
                star.add([(scenes, v) for v in values if v.get("scene") != "Overall"], [bias <= 0.10] * 7)
                if i % 2 == 1:
                    diffs = [v for v in metrics.differences(previous, run, seed=seed + i)
                             if v.metric == "inconsistent" and v.get("scene") != "Overall" and v.get("prefix") == "0"]
                    pairs.add([(rise, v) for v in diffs], [True] * len(diffs))
                    shutil.rmtree(previous)
                    shutil.rmtree(run)
                previous = run
            rows += [one.row(), star.row(), pairs.row()]
        if with_anecdotes:
            rows.append(anecdotes(root, fake, runs, seed))
    return rows


def collect_coreference(root: Path, fake, bias: float, number: int, jobs: list[str]) -> Path:
    import bench_gate

    bench_gate._SALT["run"] = number
    fake.coreference_bias = bias
    out = root / f"coref-{number}"
    bench_gate.cli("collect", "--study", "coreference", "--model", "fake-chat", "--base-url", fake.base_url, "--out",
                   out, "--concurrency", "8", "-q", *jobs)
    bench_gate.cli("score", out, "--seed", str(number))
    return out


def anecdotes(root: Path, fake, runs: int, seed: int) -> dict:
    import shutil

    import bench_gate
    from fake_generation import GenerationModel

    from stereoprobe.studies import get_study

    jobs = [f"job{i:02d}" for i in range(20)]
    catalog = root / "jobs.csv"
    catalog.write_text("job,female_share\n" + "".join(f"{j},{30 + i}\n" for i, j in enumerate(jobs)), encoding="utf-8")
    metrics = get_study("anecdotes").metrics()
    rule = make_rule("max", 0.30, "female_share", (("profession", "*"),), "anecdotes")
    tally = Tally('anecdotes female_share <= 0.30, profession = "*" (20), 50 texts each', "0.30 each", seed)
    for i in range(runs):
        fake.generation = GenerationModel({j: 0.30 for j in jobs}, seed=seed + i)
        out = root / f"anecdotes-{i}"
        bench_gate.cli("collect", "--study", "anecdotes", "--model", "fake-chat", "--base-url", fake.base_url,
                       "--out", out, "--catalog", catalog, "--samples", "50", "-q")
        bench_gate.cli("score", out, "--bootstrap", "100", "--seed", str(seed + i))
        values = [v for v in metrics.values(out) if v.metric == "female_share"]
        tally.add([(rule, v) for v in values], [True] * len(values))
        shutil.rmtree(out)
    fake.generation = None
    return tally.row()


def table(rows: list[dict]) -> None:
    print("\n| scenario | truth | gates | today: any fail | holm: any fail | global: any fail | fine check marked "
          "fail (today / holm / global) | bad checks found (today / holm / global) | one check: pass / inconclusive "
          "| seed | load |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        found = " / ".join(f"{r[x + '_found']:.1%}" for x in RULES) if "holm_found" in r else ""
        fine = " / ".join(f"{r[x + '_fine_fail']:.1%}" for x in RULES)
        single = f"{r['pass']:.1%} / {r['inconclusive']:.1%}" if "pass" in r else ""
        print(f"| {r['scenario']} | {r['truth']} | {r['gates']} | {r['today_fail']:.1%} | {r['holm_fail']:.1%} | "
              f"{r['global_fail']:.1%} | {fine} | {found} | {single} | {r['seed']} | {r['load']} |")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("what", choices=["values", "served"])
    ap.add_argument("--runs", type=int, default=4000, help="simulated gates per scenario (served: runs per truth)")
    ap.add_argument("--seed", type=int, default=36)
    ap.add_argument("--jobs", type=int, default=5, choices=range(2, 21), metavar="2-20",
                    help="served: coreference jobs a side (5: the docs' table; 20: the default design)")
    ap.add_argument("--truths", default="", help="served: only these coreference truths, e.g. 0.02,0.05")
    ap.add_argument("--anecdotes", action=argparse.BooleanOptionalAction, default=True,
                    help="served: also the anecdotes scenario")
    args = ap.parse_args()
    import bench_gate

    if args.what == "values":
        table(simulate_values(args.runs, args.seed))
        return
    truths = tuple(float(x) for x in args.truths.split(",") if x)
    if not set(truths) <= set(bench_gate.TRUTHS):
        ap.error(f"--truths: choose among {', '.join(f'{t:g}' for t in bench_gate.TRUTHS)}")
    table(served(args.runs, args.seed, args.jobs, truths, args.anecdotes))


if __name__ == "__main__":
    main()
