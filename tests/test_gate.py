"""stereoprobe gate without a model: the policy (the issue's example as written, one-line
errors naming the line and what exists), verdicts by intervals with hand-made values, BH
across regression rules, and the three outputs (tests/test_gate_e2e.py runs it on real runs)."""

from __future__ import annotations

import json
import math
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from stereoprobe.errors import DataError
from stereoprobe.gate import GateResult
from stereoprobe.gate.judge import excess_p, judge, judge_regressions
from stereoprobe.gate.output import junit, markdown, to_json
from stereoprobe.gate.policy import read_policy
from stereoprobe.gate.values import Value

ISSUE_POLICY = '''[[rule]]
study = "fill-in"
metric = "negative_share"        # the share of negative words, 0-1
category = "religion"            # leave out for all categories together
max = 0.40

[[rule]]
study = "coreference"
metric = "inconsistent"
max = 0.10
require_evidence = true
'''


def specs_of(study):
    from stereoprobe.studies import get_study

    return get_study(study).metrics().SPECS


def policy(tmp_path: Path, text: str) -> Path:
    p = tmp_path / "policy.toml"
    p.write_text(text, encoding="utf-8")
    return p


def rules(tmp_path, text):
    return read_policy(policy(tmp_path, text), specs_of)


def error(tmp_path, text) -> str:
    with pytest.raises(DataError) as exc:
        rules(tmp_path, text)
    msg = str(exc.value)
    assert "\n" not in msg
    return msg.replace(f"{tmp_path}/", "")


def test_the_issues_policy_reads_as_written(tmp_path):
    a, b = rules(tmp_path, ISSUE_POLICY)
    assert (a.study, a.metric, a.scope, a.kind, a.threshold, a.inconclusive, a.line) == (
        "fill-in", "negative_share", (("category", "religion"),), "max", 0.40, "pass", 1)
    assert (b.study, b.metric, b.scope, b.kind, b.threshold, b.inconclusive, b.line) == (
        "coreference", "inconsistent", (), "max", 0.10, "fail", 7)
    assert b.require_evidence and not a.require_evidence


def test_the_example_policy_in_docs_reads(tmp_path):
    found = read_policy(Path(__file__).parents[1] / "docs" / "gate.toml", specs_of)
    assert {r.study for r in found} == {"fill-in", "jobs", "coreference"}
    assert [r.kind for r in found].count("max_increase") == 2


@pytest.mark.parametrize("text, expected", [
    ("[[rule]\nstudy = 1", "policy.toml is not TOML: "),
    (ISSUE_POLICY.replace('"inconsistent"', '"inconsistency"'),
     "policy.toml line 9: the coreference study has no metric 'inconsistency'; it has incorrect, inconsistent, "
     "binary_inconsistent, fnr, fpr, ppv, npv, winobias_gap."),
    (ISSUE_POLICY.replace("max = 0.40", "max = 1.40"),
     "policy.toml line 5: max = 1.4 is outside 0 to 1: negative_share is a share, 0-1 (write 0.40 for 40%)."),
    (ISSUE_POLICY.replace('study = "coreference"', 'study = "tales"'),
     "policy.toml line 8: Unknown study 'tales': choose fill-in, jobs, coreference"),
    (ISSUE_POLICY.replace('category = "religion"', 'pronoun = "he"'),
     "policy.toml line 4: negative_share has no key 'pronoun'; a negative_share rule takes category, group, format, "
     "max, min, max_increase, max_decrease, require_evidence, inconclusive, name."),
    (ISSUE_POLICY.replace("max = 0.10", "min = 0.10\nmax = 0.2"), "policy.toml line 10: rule 2 needs exactly one threshold (max, min, max_increase, max_decrease); it has max, min."),
    ('[[rule]]\nstudy = "jobs"\nmetric = "spearman"\nmax_increase = 0.1\n',
     "policy.toml line 4: spearman has no paired difference against a baseline; max_increase works on p_male, "
     "p_female, p_diverse of the jobs study (or use max/min)."),
    ('[[rule]]\nstudy = "jobs"\nmetric = "spearman"\nmin = -1.5\n', "policy.toml line 4: min = -1.5 is outside -1 to 1"),
    ('[[rule]]\nstudy = "coreference"\nmetric = "inconsistent"\nmax = 0.1\ninconclusive = "maybe"\n',
     "policy.toml line 5: inconclusive is \"pass\" or \"fail\", not 'maybe'."),
    ('rules = 3\n', "policy.toml: unknown top-level key 'rules'; a policy holds only [[rule]] tables."),
])
def test_bad_policies_are_one_line_naming_the_line_and_what_exists(tmp_path, text, expected):
    assert error(tmp_path, text).startswith(expected)


def test_not_toml_names_the_parsers_line(tmp_path):
    assert "line 3" in error(tmp_path, '[[rule]]\nstudy = "jobs"\nmetric = = 2\n')


def one(text, tmp_path, **kw):
    return rules(tmp_path, text)[0]


def value(est, low, high, p=None, **scope):
    return Value("inconsistent", tuple(scope.items()) or (("scene", "Overall"), ("prefix", "0")), est, low, high, 100, p)


@pytest.mark.parametrize("interval, verdict", [
    ((0.05, 0.02, 0.08), "pass"), ((0.08, 0.06, 0.10), "pass"),  # the whole interval at or below the maximum
    ((0.14, 0.11, 0.17), "fail"), ((0.09, 0.07, 0.12), "inconclusive"), ((0.1, math.nan, math.nan), "inconclusive"),
])
def test_a_maximum_is_judged_by_the_whole_interval(tmp_path, interval, verdict):
    rule = one('[[rule]]\nstudy = "coreference"\nmetric = "inconsistent"\nmax = 0.10\n', tmp_path)
    check = judge(rule, "run", value(*interval))
    assert check.verdict == verdict and check.passed == (verdict != "fail")


def test_inconclusive_counts_as_the_rule_says(tmp_path):
    straddles = value(0.09, 0.07, 0.12)
    base = '[[rule]]\nstudy = "coreference"\nmetric = "inconsistent"\nmax = 0.10\n'
    evidence = judge(one(base + "require_evidence = true\n", tmp_path), "run", straddles)
    assert (evidence.verdict, evidence.passed) == ("inconclusive", False)
    assert evidence.why == ("0.090 (95% 0.070 to 0.120) straddles the maximum 0.100; counted as fail "
                            "(require_evidence = true)")
    lenient = judge(one(base, tmp_path), "run", straddles)
    assert lenient.passed and lenient.why.endswith("counted as pass (the default)")
    told = judge(one(base + 'inconclusive = "fail"\n', tmp_path), "run", straddles)
    assert not told.passed and told.why.endswith('counted as fail (inconclusive = "fail")')


def test_a_minimum_mirrors_a_maximum(tmp_path):
    rule = one('[[rule]]\nstudy = "jobs"\nmetric = "p_female"\ngroup = "men"\nmin = 0.10\n', tmp_path)
    assert [judge(rule, "r", value(*iv)).verdict for iv in ((0.2, 0.1, 0.3), (0.05, 0.01, 0.09), (0.1, 0.05, 0.15))] \
        == ["pass", "fail", "inconclusive"]


def regression(tmp_path, allowance=0.0):
    return one(f'[[rule]]\nstudy = "coreference"\nmetric = "inconsistent"\nmax_increase = {allowance}\n', tmp_path)


def rise(estimate, p_one_sided_target_z):
    """A difference whose interval puts its one-sided p at the given z (se from the half-width)."""
    se = estimate / p_one_sided_target_z
    return value(estimate, estimate - 1.959964 * se, estimate + 1.959964 * se)


def test_a_rise_is_tested_one_sided_from_the_compares_interval(tmp_path):
    rule = regression(tmp_path)
    assert excess_p(rule, rise(0.05, 2.0537)) == pytest.approx(0.02, abs=1e-4)
    shifted = regression(tmp_path, 0.05)
    assert excess_p(shifted, rise(0.05, 2.0537)) == pytest.approx(0.5)  # exactly at the allowance


def test_bh_across_the_runs_regression_rules_decides_a_failure(tmp_path):
    rule = regression(tmp_path)
    alone = judge_regressions([(rule, "run", rise(0.05, 2.0537))])
    assert alone[0].verdict == "fail" and alone[0].q == pytest.approx(0.02, abs=1e-4)
    noise = value(0.0, -0.05, 0.05)  # p = 0.5
    three = judge_regressions([(rule, "run", rise(0.05, 2.0537)), (rule, "run", noise), (rule, "run", noise)])
    assert three[0].q == pytest.approx(0.06, abs=3e-4)  # 0.02 * 3 / 1
    assert three[0].verdict == "inconclusive" and three[0].value.low > 0  # the interval alone would fail it
    assert [c.verdict for c in three[1:]] == ["inconclusive", "inconclusive"]
    within = judge_regressions([(regression(tmp_path, 0.03), "run", value(0.01, -0.01, 0.03))])
    assert within[0].verdict == "pass"


def result_of(tmp_path):
    rule = one('[[rule]]\nstudy = "coreference"\nmetric = "inconsistent"\nmax = 0.10\n', tmp_path)
    checks = (judge(rule, "runs/a", value(0.05, 0.02, 0.08)), judge(rule, "runs/b", value(0.14, 0.11, 0.17)))
    return GateResult(checks, "policy.toml", ("runs/a", "runs/b"), ())


def test_outputs_put_failures_first_with_their_numbers(tmp_path):
    result = result_of(tmp_path)
    assert result.exit_code == 1
    rows = [line for line in markdown(result).splitlines() if line.startswith("| ") and "---" not in line][1:]
    assert rows[0].startswith("| FAIL | coreference inconsistent <= 0.1 | runs/b | 0.140 | 0.110 to 0.170 | ≤ 0.100 |")
    assert rows[1].startswith("| pass | coreference inconsistent <= 0.1 | runs/a | 0.050 | 0.020 to 0.080 |")
    suite = ET.fromstring(junit(result)).find("testsuite")
    assert (suite.get("tests"), suite.get("failures")) == ("2", "1")
    failure = [c.find("failure") for c in suite.iter("testcase") if c.find("failure") is not None]
    assert failure[0].get("message") == "fail: 0.140 (95% 0.110 to 0.170) is beyond the maximum 0.100"
    data = json.loads(to_json(result))
    assert (data["passed"], data["exit_code"], data["checks"][0]["run"], data["checks"][0]["low"]) == (
        False, 1, "runs/b", 0.11)


def test_docs_gate_md_ci_examples_parse_and_use_real_options():
    import re
    import shlex

    import click
    import yaml

    from stereoprobe.cli import cli

    text = (Path(__file__).parents[1] / "docs" / "gate.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```yaml\n(.*?)```", text, re.S)
    assert len(blocks) == 2  # GitHub Actions, GitLab CI
    commands = []
    for block in blocks:
        yaml.safe_load(block)
        commands += [line.split("- ", 1)[-1].split("run: ", 1)[-1].strip() for line in block.splitlines()
                     if "stereoprobe " in line and "pip install" not in line]
    assert {shlex.split(c)[1] for c in commands} == {"collect", "sentiment", "score", "gate"}
    for command in commands:
        name, *args = shlex.split(command)[1:]
        with click.Context(cli) as ctx:
            cli.get_command(ctx, name).make_context(name, args)  # an unknown option raises


def test_docs_gate_md_policies_read(tmp_path):
    import re

    text = (Path(__file__).parents[1] / "docs" / "gate.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```toml\n(.*?)```", text, re.S)
    assert blocks[0] == ISSUE_POLICY  # the issue's policy, as written
    assert [len(rules(tmp_path, b)) for b in blocks] == [2, 2]
