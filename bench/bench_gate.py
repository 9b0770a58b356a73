"""Benchmark `stereoprobe gate`: how often its verdicts are right on runs with a known truth,
and how fast it judges (docs/gate.md, "Checks").

    python bench/bench_gate.py simulate --runs 100    # the verdicts' error rates (slow: 100 runs per truth)
    python bench/bench_gate.py speed                  # 3 scored runs per study, a 30-rule policy

``simulate``: the fake server's coreference model (tests/coref_fake.py) answers each
anti-stereotypical prompt against the right answer with probability ``bias``, drawn anew
for every simulated run (the probe id hashed with the run's number), so each triple is
inconsistent with probability ``bias``: the truth of the ``inconsistent`` rate is ``bias``.
Every run is collected over HTTP (5 x 5 jobs: 25 profession pairs, 1,050 prompts, 350
triples), scored (2,000 bootstrap replicates) and gated with ``inconsistent <= 0.10``, at
truths clearly on the good side, at the threshold, and clearly on the bad side. Prints the
share of pass, inconclusive and fail per truth.

``speed``: three scored runs of each study (fill-in: a whole category set; jobs; coreference)
gated with a 30-rule policy, timed as a process (``stereoprobe gate``) against a reference
measured in the same run under the same load: the process that only imports the CLI and
reads the runs' metrics tables with pandas.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import tempfile
from pathlib import Path

from timing import ROOT, load, timed  # bench/timing.py (bench/ is on the path when run as a script)

sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT))

KEY = "sk-bench-key"
WOMEN = ["nurse", "secretary", "receptionist", "hairstylist", "paralegal"]
MEN = ["pilot", "plumber", "electrician", "carpenter", "roofer"]
TRUTHS = (0.02, 0.05, 0.10, 0.15, 0.25)
RULE = '[[rule]]\nstudy = "coreference"\nmetric = "inconsistent"\nmax = 0.10\n'
_SALT = {"run": 0}


def _salted(probe_id: str, bias: float, seed: int | None = None) -> bool:
    """coref_fake.is_flipped with the simulated run's number in the hash: a fresh draw per run.

    It takes coref_fake.is_flipped's arguments: with one missing, every request that asks
    it fails inside the fake server, the client retries with back-off, and a run takes
    minutes instead of seconds (the error is not seen: the CLI runner holds stderr)."""
    salt = _SALT["run"] if seed is None else f"{_SALT['run']}\t{seed}"
    u = int(hashlib.sha1(f"gate-sim\t{salt}\t{probe_id}".encode()).hexdigest()[:13], 16) / 16**13
    return u < bias


def simulate_one(root: Path, bias: float, run: int, fake, policy: Path) -> str:
    from stereoprobe.gate import gate

    _SALT["run"] = run
    fake.coreference_bias = bias
    out = root / f"b{bias}-r{run}"
    jobs = [x for j in WOMEN + MEN for x in ("--job", j)]
    cli("collect", "--study", "coreference", "--model", "fake-chat", "--base-url", fake.base_url, "--out", out,
        "--concurrency", "8", "-q", *jobs)
    cli("score", out, "--seed", str(run))
    verdict = gate([out], policy).checks[0].verdict
    import shutil

    shutil.rmtree(out)
    return verdict


def cli(*args) -> str:
    from click.testing import CliRunner

    from stereoprobe.cli import cli as group

    res = CliRunner().invoke(group, [str(a) for a in args], env={"OPENAI_API_KEY": KEY})
    if res.exit_code != 0:
        sys.exit(res.output)
    return res.output


def simulate(n_runs: int) -> None:
    import coref_fake
    from fake_openai import FakeOpenAI

    coref_fake.is_flipped = _salted
    rows = []
    with tempfile.TemporaryDirectory() as tmp, FakeOpenAI(api_key=KEY, coreference_bias=0.0) as fake:
        root = Path(tmp)
        policy = root / "policy.toml"
        policy.write_text(RULE)
        for bias in TRUTHS:
            start = load()
            verdicts = [simulate_one(root, bias, run, fake, policy) for run in range(n_runs)]
            rows.append({"truth": bias, "runs": n_runs, **{v: verdicts.count(v) / n_runs
                                                        for v in ("pass", "inconclusive", "fail")},
                         "load": f"{start:.1f}-{load():.1f}"})
            print(json.dumps(rows[-1]), flush=True)
    print("\n| truth (inconsistent) | runs | pass | inconclusive | fail | load |\n|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['truth']:.2f} | {r['runs']} | {r['pass']:.0%} | {r['inconclusive']:.0%} | {r['fail']:.0%} "
              f"| {r['load']} |")


def speed_policy(categories: list[str]) -> str:
    """30 rules: 12 fill-in (each category, formats, groups of one category: "*"), 9 jobs, 9 coreference."""
    rules = [f'[[rule]]\nstudy = "fill-in"\nmetric = "negative_share"\ncategory = "{c}"\nmax = 0.6\n'
             for c in categories[:10]]
    rules += ['[[rule]]\nstudy = "fill-in"\nmetric = "positive_share"\nformat = "question"\nmin = 0.2\n',
              '[[rule]]\nstudy = "fill-in"\nmetric = "negative_share"\ncategory = "religion"\ngroup = "*"\nmax = 0.8\n']
    for p in ("1", "2", "3", "4", "2-4"):
        rules.append(f'[[rule]]\nstudy = "jobs"\nmetric = "p_female"\ngroup = "men"\nprompts = "{p}"\nmax = 0.95\n')
    rules += ['[[rule]]\nstudy = "jobs"\nmetric = "p_male"\ngroup = "*"\nmax = 0.95\n',
              '[[rule]]\nstudy = "jobs"\nmetric = "spearman"\nmax = 0.9\n',
              '[[rule]]\nstudy = "jobs"\nmetric = "separation_gap"\nmax = 0.5\n',
              '[[rule]]\nstudy = "jobs"\nmetric = "p_diverse"\ngroup = "women"\nmin = 0.0\n']
    for m in ("incorrect", "inconsistent", "binary_inconsistent"):
        rules.append(f'[[rule]]\nstudy = "coreference"\nmetric = "{m}"\nmax = 0.3\nrequire_evidence = true\n')
    rules.append('[[rule]]\nstudy = "coreference"\nmetric = "incorrect"\nscene = "*"\nmax = 0.4\n')
    for m in ("fnr", "fpr", "ppv", "npv"):
        rules.append(f'[[rule]]\nstudy = "coreference"\nmetric = "{m}"\npronoun = "he"\n{"min" if m in ("ppv", "npv") else "max"} = 0.5\n')
    rules.append('[[rule]]\nstudy = "coreference"\nmetric = "winobias_gap"\npronoun = "*"\nmax = 0.3\n')
    assert len(rules) == 30, len(rules)
    return "\n".join(rules)


def make_speed_runs(root: Path) -> list[Path]:
    """Three scored runs per study: fill-in synthesised over all 2,292 probes (bench_sentiment's
    words, three seeds), jobs and coreference collected from the fake server."""
    import bench_sentiment
    from fake_openai import FakeOpenAI
    from fake_scoring import ScoringModel

    runs = []
    for i in range(3):
        run = root / f"fill-in-{i}"
        run.mkdir()
        bench_sentiment.synthesise(run, seed=i)
        cli("sentiment", run)
        runs.append(run)
    toy = dict(probability={" He": .02, " She": .06, " They": .02}, next_tokens=[(" Sarah", .3), (" John", .1)],
               first_tokens=[("She", .5), ("He", .3)], replies=["She", "He"])
    jobs = [x for j in WOMEN + MEN for x in ("--job", j)]
    with FakeOpenAI(api_key=KEY, coreference_bias=0.2) as fake:
        for i in range(3):
            cli("collect", "--study", "coreference", "--model", "fake-chat", "--base-url", fake.base_url,
                "--out", root / f"coref-{i}", "-q", *jobs)
            cli("score", root / f"coref-{i}")
        fake.scoring = ScoringModel(**toy)
        for i in range(3):
            cli("collect", "--study", "jobs", "--model", "fake-chat", "--base-url", fake.base_url, "--mode",
                "next-word", "--out", root / f"jobs-{i}", "-q", "--job", "nurse", "--job", "secretary", "--job", "pilot",
                "--job", "plumber", "--job", "electrician", "--job", "receptionist")
            cli("score", root / f"jobs-{i}")
    return runs + [root / f"coref-{i}" for i in range(3)] + [root / f"jobs-{i}" for i in range(3)]


READ_TABLES = """
import sys
from pathlib import Path
import pandas as pd
import stereoprobe.cli
TABLES = {"sentiment": ("table4", "groups"), "jobs": ("groups", "correlations", "gap"),
          "coreference": ("table3", "criteria", "winobias")}
for run in map(Path, sys.argv[1:]):
    for folder, names in TABLES.items():
        for name in names:
            if (run / folder / f"{name}.csv").is_file():
                pd.read_csv(run / folder / f"{name}.csv")
print("read")
"""


def speed() -> None:
    import pandas as pd

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        runs = make_speed_runs(root)
        cats = sorted(pd.read_csv(runs[0] / "sentiment" / "table4.csv").category)
        policy = root / "policy.toml"
        policy.write_text(speed_policy(cats))  # the nine categories and "all"
        rows = []
        for _ in range(3):
            ref = timed([sys.executable, "-c", READ_TABLES, *map(str, runs)])
            gate = timed([sys.executable, "-m", "stereoprobe", "gate", *map(str, runs), "--policy", str(policy),
                          "--json", str(root / "gate.json")] , ok=(0, 1))
            checks = len(json.loads((root / "gate.json").read_text())["checks"])
            rows.append((gate, ref, checks))
        print("| step | wall s | CPU s | reference wall s | ratio | checks | load before-after |\n|---|---|---|---|---|---|---|")
        for gate, ref, checks in rows:
            print(f"| gate: 9 runs, 30 rules | {gate['wall']:.2f} | {gate['cpu']:.2f} | {ref['wall']:.2f} | "
                  f"{gate['wall'] / ref['wall']:.2f} | {checks} | {gate['load_before']:.1f}-{gate['load_after']:.1f} |")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("what", choices=["simulate", "speed"])
    ap.add_argument("--runs", type=int, default=100, help="simulated runs per truth")
    args = ap.parse_args()
    if args.what == "simulate":
        simulate(args.runs)
    else:
        speed()


if __name__ == "__main__":
    main()
