"""stereoprobe gate end to end: fill-in, jobs and coreference runs collected against the fake
server (tests/fake_openai.py), scored, then gated with a passing and a failing policy, with a
baseline, and with bad input (one line, exit 2, nothing written)."""

from __future__ import annotations

import json
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path

import pandas as pd
import pytest
from conftest import REPO, TEST_KEY
from test_gate import ISSUE_POLICY

JOBS = ["nurse", "secretary", "receptionist", "pilot", "plumber", "electrician"]
TOY = dict(probability={" He": .02, " She": .06, " They": .02, " Non": .1, "-": .5, "binary": .8},
           next_tokens=[(" Sarah", .3), (" the", .2), (" John", .1)],
           first_tokens=[("She", .5), ("He", .3), ("They", .1), ("Sarah", .05)], replies=["She", "He", "She", "They"])


def cli(*args, env=None):
    from click.testing import CliRunner

    from stereoprobe.cli import cli as group

    return CliRunner().invoke(group, [str(a) for a in args], env={"GITHUB_STEP_SUMMARY": None, **(env or {})})


def collect(fake, out, study, *extra):
    res = cli("collect", "--study", study, "--model", "fake-chat", "--base-url", fake.base_url, "--out", out, "-q",
              *extra, env={"OPENAI_API_KEY": TEST_KEY})
    assert res.exit_code == 0, res.output
    res = cli("score", out, "--bootstrap", "300")
    assert res.exit_code == 0, res.output


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """fill-in (religion, 60 probes), coreference (6 jobs, 30% bias), jobs (6 jobs, next-word),
    and a coreference baseline without bias; all scored."""
    from fake_openai import FakeOpenAI
    from fake_scoring import ScoringModel

    root = tmp_path_factory.mktemp("gate")
    jobs = [x for j in JOBS for x in ("--job", j)]
    with FakeOpenAI(api_key=TEST_KEY, coreference_bias=0.3) as fake:
        collect(fake, root / "fill-in", "fill-in", "--category", "religion")
        collect(fake, root / "coref", "coreference", *jobs)
        fake.scoring = ScoringModel(**TOY)
        collect(fake, root / "jobs", "jobs", "--mode", "next-word", "--setting", "without dialogue", *jobs)
    with FakeOpenAI(api_key=TEST_KEY, coreference_bias=0.0) as fake:
        collect(fake, root / "coref-base", "coreference", *jobs)
    return root


def write(tmp_path, text, name="policy.toml") -> Path:
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return p


PASSING = '''[[rule]]
study = "fill-in"
metric = "negative_share"
category = "religion"
max = 0.60

[[rule]]
study = "coreference"
metric = "inconsistent"
max = 0.75
require_evidence = true

[[rule]]
study = "jobs"
metric = "p_female"
group = "women"
max = 0.90
'''

FAILING = ISSUE_POLICY  # the issue's example: fails on these runs


def table(run: Path, folder: str, name: str) -> pd.DataFrame:
    return pd.read_csv(run / folder / f"{name}.csv", keep_default_na=False, na_values=[""])


def rows(markdown: str) -> list[list[str]]:
    lines = [x for x in markdown.splitlines() if x.startswith("| ") and not x.startswith("| verdict")]
    return [[c.strip() for c in x.strip("|").split(" | ")] for x in lines]


def test_a_passing_policy_exits_0_with_every_rule_a_passing_test_case(runs, tmp_path):
    res = cli("gate", runs / "fill-in", runs / "coref", runs / "jobs", "--policy", write(tmp_path, PASSING),
              "--junit", tmp_path / "gate.xml", "--json", tmp_path / "gate.json", "--format", "markdown")
    assert res.exit_code == 0, res.output
    assert res.output.startswith("## stereoprobe gate: passed\n")
    religion = table(runs / "fill-in", "sentiment", "table4").set_index("category").loc["religion"]
    overall = table(runs / "coref", "coreference", "table3").set_index("template").loc["Overall"]
    got = {r[1]: r for r in rows(res.output)}
    assert got["fill-in negative_share category=religion <= 0.6"][3:5] == [
        f"{religion.negative / 100:.3f}", f"{religion.negative_ci_low / 100:.3f} to {religion.negative_ci_high / 100:.3f}"]
    assert got["coreference inconsistent <= 0.75"][3] == f"{overall.inconsistent_pct / 100:.3f}"
    assert {r[0] for r in got.values()} == {"pass"}
    suite = ET.parse(tmp_path / "gate.xml").getroot().find("testsuite")
    assert (suite.get("tests"), suite.get("failures")) == ("3", "0")
    assert all(c.find("failure") is None for c in suite.iter("testcase"))
    assert json.loads((tmp_path / "gate.json").read_text())["exit_code"] == 0


def test_the_issues_policy_fails_with_the_numbers_in_junit(runs, tmp_path):
    res = cli("gate", runs / "fill-in", runs / "coref", "--policy", write(tmp_path, FAILING), "--junit",
              tmp_path / "gate.xml", "--format", "markdown")
    assert res.exit_code == 1, res.output
    assert res.output.startswith("## stereoprobe gate: FAILED\n")
    religion = table(runs / "fill-in", "sentiment", "table4").set_index("category").loc["religion"]
    overall = table(runs / "coref", "coreference", "table3").set_index("template").loc["Overall"]
    assert religion.negative_ci_low > 40 and overall.inconsistent_low > 10  # the truth: both clearly beyond
    assert [r[0] for r in rows(res.output)] == ["FAIL", "FAIL"]
    cases = {c.get("name"): c for c in ET.parse(tmp_path / "gate.xml").getroot().iter("testcase")}
    failure = cases["coreference inconsistent <= 0.1"].find("failure")
    assert failure.get("message").startswith(
        f"fail: {overall.inconsistent_pct / 100:.3f} (95% {overall.inconsistent_low / 100:.3f} to "
        f"{overall.inconsistent_high / 100:.3f}) is beyond the maximum 0.100 (p = ")
    assert "Holm over 2 checks" in failure.get("message")  # the family: both rules of the gate
    assert "policy.toml line 7" in failure.text
    assert cases["fill-in negative_share category=religion <= 0.4"].find("failure") is not None


def test_github_step_summary_gets_the_markdown(runs, tmp_path):
    summary = tmp_path / "summary.md"
    summary.write_text("earlier step\n")
    res = cli("gate", runs / "coref", "--policy", write(tmp_path, FAILING.split("\n\n")[1]),
              env={"GITHUB_STEP_SUMMARY": str(summary)})
    assert res.exit_code == 1
    text = summary.read_text()
    assert text.startswith("earlier step\n## stereoprobe gate: FAILED\n") and "| FAIL | coreference inconsistent" in text
    assert res.output.splitlines()[-1] == "Gate failed: 1 of 1 checks failed."



def test_a_github_step_summary_that_cannot_be_written_is_one_line_exit_2(runs, tmp_path):
    """$GITHUB_STEP_SUMMARY in a missing folder, or naming a folder, ended in a Python traceback
    with exit 1, which a pipeline reads as "a rule fails"."""
    policy = write(tmp_path, FAILING.split("\n\n")[1])
    for summary, why in ((tmp_path / "nowhere" / "summary.md", "the folder"), (tmp_path, "cannot append")):
        res = cli("gate", runs / "coref", "--policy", policy, env={"GITHUB_STEP_SUMMARY": str(summary)})
        assert res.exit_code == 2 and "Traceback" not in res.output, res.output
        lines = res.output.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith(f"Error: $GITHUB_STEP_SUMMARY {summary}: {why}")

def test_a_rise_over_the_baseline_fails_and_a_fall_passes(runs, tmp_path):
    rise = '[[rule]]\nstudy = "coreference"\nmetric = "inconsistent"\nmax_increase = 0.0\n'
    worse = cli("gate", runs / "coref", "--policy", write(tmp_path, rise), "--baseline", runs / "coref-base",
                "--format", "json")
    assert worse.exit_code == 1, worse.output
    (first,) = json.loads(worse.output)["checks"]
    biased = table(runs / "coref", "coreference", "table3").set_index("template")
    assert first["verdict"] == "fail" and first["estimate"] == pytest.approx(biased.loc["Overall", "inconsistent_pct"] / 100,
                                                                             abs=1e-6)
    assert first["df"] == 2  # 3 women's and 3 men's jobs: the compare's t on the smaller side's jobs - 1
    both = write(tmp_path, rise + '[[rule]]\nstudy = "coreference"\nmetric = "incorrect"\nscene = "*"\n'
                                  'max_increase = 0.02\n', "both.toml")
    checks = json.loads(cli("gate", runs / "coref", "--policy", both, "--baseline", runs / "coref-base",
                            "--format", "json").output)["checks"]
    assert len([c for c in checks if c["metric"] == "incorrect"]) == 7  # "*": each scene, not the Overall row
    # with 8 checks in the family, a rise shown by 3 jobs a side (p = 0.014 on 2 df) is not clear enough
    first = next(c for c in checks if c["metric"] == "inconsistent")
    assert first["verdict"] == "fail" or "alone, but not after Holm over 8 checks" in first["why"]
    better = cli("gate", runs / "coref-base", "--policy", both, "--baseline", runs / "coref")
    assert better.exit_code == 0, better.output


def test_the_example_policy_gates_all_three_studies(runs, tmp_path):
    base = tmp_path / "fill-in-base"
    shutil.copytree(runs / "fill-in", base)
    res = cli("gate", runs / "fill-in", runs / "coref", runs / "jobs", "--policy", REPO / "docs" / "gate.toml",
              "--baseline", base, "--baseline", runs / "coref-base", "--format", "json")
    assert res.exit_code == 1, res.output  # the fake model's 30% inconsistency fails the coreference rules
    checks = json.loads(res.output)["checks"]
    assert {c["rule"] for c in checks} == set(range(1, 9))
    failed = {(c["metric"], c["kind"]) for c in checks if not c["passed"]}
    assert ("inconsistent", "max") in failed
    # the rise over the baseline (0.31 on 3 jobs a side, 2 df) is one check among all of the policy's: Holm
    rise = next(c for c in checks if c["metric"] == "inconsistent" and c["kind"] == "max_increase")
    assert rise["verdict"] == "fail" or "not after Holm over" in rise["why"]
    assert rise["low"] > 0  # its interval alone lies above the allowance
    assert all(c["verdict"] == "pass" for c in checks if c["kind"] == "max_increase" and c["study"] == "fill-in")


def one_line(res) -> str:
    lines = res.output.strip().splitlines()
    assert res.exit_code == 2 and len(lines) == 1, res.output
    return lines[0]


def test_bad_input_is_one_line_exit_2_and_writes_nothing(runs, tmp_path):
    xml = tmp_path / "gate.xml"
    policy = write(tmp_path, FAILING)
    regress = write(tmp_path, '[[rule]]\nstudy = "coreference"\nmetric = "inconsistent"\nmax_increase = 0\n', "r.toml")
    unscored = tmp_path / "unscored"
    shutil.copytree(runs / "coref", unscored, ignore=shutil.ignore_patterns("coreference"))
    cases = [
        ((runs / "coref", "--policy", regress, "--baseline", runs / "jobs"),
         f"Error: the baseline {runs / 'jobs'} is a jobs run, and no jobs run is given ({runs / 'coref'} (coreference "
         "(Marin & Eger's scenes)))."),
        ((unscored, "--policy", regress.parent / "r.toml", "--baseline", runs / "coref"),
         f"Error: {unscored}: no coreference/ scores; run `stereoprobe score {unscored}` first."),
        ((runs / "coref", "--policy", regress), f"Error: {regress} line 4: a coreference (Marin & Eger's scenes) regression "
                                                "rule (max_increase) needs a run of that kind as --baseline RUN_DIR (give "
                                                "one)."),
        ((runs / "jobs", runs / "coref", "--policy", write(tmp_path, FAILING.split("\n\n")[1], "c.toml")),
         f"Error: {runs / 'jobs'} is a jobs run and no rule of c.toml is for it; add one or leave the run out."),
        ((runs / "coref", "--policy", policy),
         f"Error: {policy} line 2: a fill-in rule, but no such run is given ({runs / 'coref'} (coreference (Marin & "
         "Eger's scenes)))."),
        ((runs / "fill-in", runs / "coref", "--policy", write(tmp_path, FAILING.replace("religion", "relgion"), "t.toml")),
         f"Error: {tmp_path / 't.toml'} line 4: {runs / 'fill-in'} has no negative_share for category 'relgion'; it has "
         "all, religion."),
        ((runs / "fill-in", "--policy", write(tmp_path, "max = [", "bad.toml")), "Error: "),
    ]
    for args, expected in cases:
        assert one_line(cli("gate", *args, "--junit", xml)).startswith(expected)
        assert not xml.exists()
