"""stereoprobe gate without a model: the policy (the issue's example as written, one-line
errors naming the line and what exists), verdicts by intervals with hand-made values, the
family's adjustment (Holm, or BH for one global verdict) by hand, and the three outputs
(tests/test_gate_e2e.py runs it on real runs; tests/test_gate_family.py the error rates)."""

from __future__ import annotations

import json
import math
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from stereoprobe.errors import DataError
from stereoprobe.gate import GateResult
from stereoprobe.gate.judge import judge, judge_family, within_p
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
    return read_policy(policy(tmp_path, text), specs_of).rules


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
    read = read_policy(Path(__file__).parents[1] / "docs" / "gate.toml", specs_of)
    found = read.rules
    assert {r.study for r in found} == {"fill-in", "jobs", "coreference"}
    assert [r.kind for r in found].count("max_increase") == 2
    assert read.family == "holm"  # written out in the example, the default's value


def test_family_is_holm_unless_the_policy_says_global(tmp_path):
    body = '[[rule]]\nstudy = "coreference"\nmetric = "inconsistent"\nmax = 0.10\n'
    assert read_policy(policy(tmp_path, body), specs_of).family == "holm"
    assert read_policy(policy(tmp_path, 'family = "global"\n\n' + body), specs_of).family == "global"


@pytest.mark.parametrize("text, expected", [
    ("[[rule]\nstudy = 1", "policy.toml is not TOML: "),
    (ISSUE_POLICY.replace('"inconsistent"', '"inconsistency"'),
     "policy.toml line 9: the coreference study has no metric 'inconsistency'; it has incorrect, inconsistent, "
     "binary_inconsistent, fnr, fpr, ppv, npv, winobias_gap, sterlie_error, sterlie_fnr, sterlie_fpr, sterlie_ppv, "
     "sterlie_npv, sterlie_gap."),
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
    ('[[rule]]\nstudy = "coreference"\nmetric = "inconsistent"\nmax = 0.1\nrequire_evidence = true\n'
     'inconclusive = "pass"\n',
     "policy.toml line 6: require_evidence = true counts an inconclusive verdict as a failure, and "
     "inconclusive = \"pass\" as a pass: keep one of the two."),
    ('rules = 3\n', "policy.toml: unknown top-level key 'rules'; a policy holds [[rule]] tables and, above them, "
                    "family."),
    ('# the family\nfamily = "bonferroni"\n[[rule]]\nstudy = "jobs"\nmetric = "spearman"\nmax = 0.5\n',
     'policy.toml line 2: family is "holm" or "global", not \'bonferroni\''),
])
def test_bad_policies_are_one_line_naming_the_line_and_what_exists(tmp_path, text, expected):
    assert error(tmp_path, text).startswith(expected)



def test_a_policy_not_in_utf8_is_one_line_and_a_byte_order_mark_is_read(tmp_path):
    """A policy saved in Latin-1 (name = "\xe9t\xe9") ended in a UnicodeDecodeError traceback, exit 1
    (a failed gate to a pipeline); one saved as UTF-8 with a byte-order mark was "not TOML:
    Invalid statement (at line 1, column 1)"."""
    body = '[[rule]]\nstudy = "fill-in"\nmetric = "negative_share"\nname = "\u00e9t\u00e9"\nmax = 0.40\n'
    p = tmp_path / "policy.toml"
    p.write_bytes(body.encode("latin-1"))
    with pytest.raises(DataError) as exc:
        read_policy(p, specs_of)
    assert str(exc.value) == (f"{p} line 4 is not UTF-8 text (byte 0xe9); save the policy as UTF-8 (TOML's "
                              "encoding).")
    p.write_bytes(b"\xef\xbb\xbf" + body.encode("utf-8"))
    (rule,) = read_policy(p, specs_of).rules
    assert (rule.name, rule.threshold, rule.line) == ("\u00e9t\u00e9", 0.40, 1)

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
    """A difference whose normal interval puts its one-sided p at the given z (se from the half-width)."""
    se = estimate / p_one_sided_target_z
    return value(estimate, estimate - 1.959964 * se, estimate + 1.959964 * se)


def test_a_rise_is_tested_one_sided_from_the_compares_interval(tmp_path):
    rule = regression(tmp_path)
    assert within_p(rule, rise(0.05, 2.0537)) == pytest.approx(0.02, abs=1e-4)  # 1 - Phi(2.0537) = 0.0200
    shifted = regression(tmp_path, 0.05)
    assert within_p(shifted, rise(0.05, 2.0537)) == pytest.approx(0.5)  # exactly at the allowance


def test_a_t_interval_is_read_with_its_own_degrees_of_freedom(tmp_path):
    """A rise of 0.05 with se 0.02 on 4 df: the compare's interval is 0.05 +/- t(4) 0.02 =
    0.05 +/- 2.7764 x 0.02 = -0.0055 to 0.1055, and p of "no rise" is P(T4 > 2.5) = 0.0334
    (t tables: between 0.025 at 2.776 and 0.05 at 2.132). Read as a normal interval (se =
    half-width / 1.96 = 0.02833) it would be P(Z > 1.765) = 0.0388; the far tail is where
    they part: a rise of 0.12 is P(T4 > 6) = 0.0019, not the normal's P(Z > 4.24) = 1.1e-5."""
    rule = regression(tmp_path)
    half = 2.776445 * 0.02
    t4 = Value("inconsistent", (("scene", "Overall"), ("prefix", "0")), 0.05, 0.05 - half, 0.05 + half, 100,
               method="t", df=4)
    assert within_p(rule, t4) == pytest.approx(0.03338, abs=1e-5)
    assert within_p(rule, value(0.05, 0.05 - half, 0.05 + half)) == pytest.approx(0.0388, abs=1e-4)
    far = Value("inconsistent", t4.scope, 0.12, 0.12 - half, 0.12 + half, 100, method="t", df=4)
    assert within_p(rule, far) == pytest.approx(0.001942, abs=1e-5)
    assert within_p(rule, value(0.12, 0.12 - half, 0.12 + half)) == pytest.approx(1.1e-5, abs=2e-6)


def test_an_absolute_rule_gets_its_p_from_a_jeffreys_interval_by_hand(tmp_path):
    """3 of 30 texts: Jeffreys' interval is beta(3.5, 27.5)'s 2.5% and 97.5% quantiles,
    0.0286 to 0.2428 (generation.stats.jeffreys' doctest). The p of "at most 0.05" is that
    beta's probability below 0.05, I_0.05(3.5, 27.5) = 0.1102; of "at least 0.30" its
    probability above 0.30, 0.00464. The effective size (30) is solved from the interval."""
    from scipy.stats import beta

    from stereoprobe.generation.stats import jeffreys

    low, high = (float(x) for x in jeffreys(3, 30))
    v = Value("p_female", (("group", "men"),), 0.1, low, high, 30, method="jeffreys")
    at_most = one('[[rule]]\nstudy = "jobs"\nmetric = "p_female"\ngroup = "men"\nmax = 0.05\n', tmp_path)
    at_least = one('[[rule]]\nstudy = "jobs"\nmetric = "p_female"\ngroup = "men"\nmin = 0.30\n', tmp_path)
    assert within_p(at_most, v) == pytest.approx(beta.cdf(0.05, 3.5, 27.5), rel=1e-6) == pytest.approx(0.1102, abs=1e-4)
    assert within_p(at_least, v) == pytest.approx(beta.sf(0.30, 3.5, 27.5), rel=1e-6)
    assert within_p(at_least, v) == pytest.approx(0.00464, abs=1e-5)
    # at the interval's own limit the p is 0.025: one check alone fails exactly when the interval is beyond
    assert within_p(one('[[rule]]\nstudy = "jobs"\nmetric = "p_female"\ngroup = "men"\nmax = %r\n' % low,
                        tmp_path), v) == pytest.approx(0.025, abs=1e-6)


def test_each_interval_family_is_turned_back_by_hand(tmp_path):
    """The other families (stereoprobe/gate/pvalues.py), each worked out by hand:

    - jackknife on atanh r, 9 df: r = 0.6 from z = atanh(0.6) = 0.6931 +/- t(9) 0.2 =
      2.2622 x 0.2 = 0.4524, i.e. tanh(0.2407) = 0.2362 to tanh(1.1455) = 0.8164; "at most
      0.2" has p = P(T9 > (0.6931 - atanh(0.2) = 0.2027) / 0.2 = 2.452) = 0.0183;
    - bootstrap percentiles 0.2 to 0.5 around 0.3: below the estimate a normal of sd 0.1 /
      1.96 = 0.0510, so "at most 0.25" has p = P(Z > 0.05 / 0.0510 = 0.98) = 0.1635; above
      it sd 0.2 / 1.96 = 0.1020, "at least 0.45" p = P(Z > 0.15 / 0.1020 = 1.47) = 0.0708;
    - a t interval clipped at 0: 0.01 with (0, 0.05), df inf: the unclipped half 0.04 gives
      se 0.0204, and "at least 0.06" (min) p = P(Z > 0.05 / 0.0204 = 2.45) = 0.0071;
    - ``max_decrease = 0.02`` on a change of -0.05 (-0.09 to -0.01, normal): p of "falls
      by at most 0.02" = P(Z > 0.03 / 0.0204 = 1.47) = 0.0708."""
    from stereoprobe.gate import pvalues

    def v(est, low, high, **how):
        return Value("spearman", (), est, low, high, 10, **how)

    atanh = v(0.6, 0.23617, 0.81638, method="atanh", df=9)
    assert pvalues.above(atanh, 0.2) == pytest.approx(0.0183, abs=2e-4)
    assert pvalues.above(atanh, 0.23617) == pytest.approx(0.025, abs=2e-4)  # at its own limit
    pct = v(0.3, 0.2, 0.5, method="percentile")
    assert pvalues.above(pct, 0.25) == pytest.approx(0.1635, abs=2e-4)
    assert pvalues.below(pct, 0.45) == pytest.approx(0.0708, abs=2e-4)
    clipped = v(0.01, 0.0, 0.05)
    at_least = one('[[rule]]\nstudy = "jobs"\nmetric = "p_female"\ngroup = "men"\nmin = 0.06\n', tmp_path)
    assert within_p(at_least, clipped) == pytest.approx(0.0071, abs=2e-4)
    fall = one('[[rule]]\nstudy = "coreference"\nmetric = "inconsistent"\nmax_decrease = 0.02\n', tmp_path)
    assert within_p(fall, value(-0.05, -0.09, -0.01)) == pytest.approx(0.0708, abs=2e-4)
    assert within_p(fall, value(0.05, 0.01, 0.09)) > 0.99  # a rise is no fall


def test_holm_across_the_gates_checks_decides_a_failure(tmp_path):
    rule = regression(tmp_path)
    alone = judge_family([(rule, "run", rise(0.05, 2.0537))])
    assert alone[0].verdict == "fail" and alone[0].p_adjusted == pytest.approx(0.02, abs=1e-4)
    noise = value(0.0, -0.05, 0.05)  # p = 0.5
    three = judge_family([(rule, "run", rise(0.05, 2.0537)), (rule, "run", noise), (rule, "run", noise)])
    assert three[0].p_adjusted == pytest.approx(0.06, abs=3e-4)  # Holm: 0.02 x 3 checks
    assert three[0].verdict == "inconclusive" and three[0].value.low > 0  # the interval alone would fail it
    assert "alone, but not after Holm over 3 checks (adjusted p = 0.06)" in three[0].why
    assert [c.verdict for c in three[1:]] == ["inconclusive", "inconclusive"]
    assert {c.family_size for c in three} == {3}
    within = judge_family([(regression(tmp_path, 0.03), "run", value(0.01, -0.01, 0.03))])
    assert within[0].verdict == "pass"


def at_z(z):
    """A rise of 1 whose normal interval gives p = 1 - Phi(z) of "no rise"."""
    return rise(1.0, z)


def test_holm_and_global_differ_by_hand(tmp_path):
    """p = 0.005, 0.012, 0.018, 0.5 (z = 2.5758, 2.2571, 2.0969, 0). Holm: the smallest
    times 4 = 0.02 (fail), the next times 3 = 0.036 (not), so one fails. BH: q = p x 4 / rank,
    made monotone from the top: 0.5, 0.024, 0.024, 0.02: three fail, and the release's
    global verdict (Simes: min q = 0.02 < 0.025) is the same fail."""
    rule = regression(tmp_path)
    items = [(rule, "run", at_z(z)) for z in (2.5758, 2.2571, 2.0969)] + [(rule, "run", value(0.0, -0.05, 0.05))]
    p = [round(c.p, 3) for c in judge_family(items, "holm")]
    assert p == [0.005, 0.012, 0.018, 0.5]
    holm = judge_family(items, "holm")
    assert [round(c.p_adjusted, 3) for c in holm] == [0.02, 0.036, 0.036, 0.5]
    assert [c.verdict for c in holm] == ["fail", "inconclusive", "inconclusive", "inconclusive"]
    bh = judge_family(items, "global")
    assert [round(c.p_adjusted, 3) for c in bh] == [0.02, 0.024, 0.024, 0.5]
    assert [c.verdict for c in bh] == ["fail", "fail", "fail", "inconclusive"]
    assert "Benjamini-Hochberg over 4 checks 0.024" in bh[1].why


def test_a_check_without_an_interval_is_not_counted(tmp_path):
    rule = regression(tmp_path)
    checks = judge_family([(rule, "run", rise(0.05, 2.0537)), (rule, "run", value(0.1, math.nan, math.nan))])
    assert [c.verdict for c in checks] == ["fail", "inconclusive"]
    assert checks[0].family_size == 1 and checks[0].p_adjusted == pytest.approx(0.02, abs=1e-4)


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
    # a normal interval: se = 0.03 / 1.96, p = 1 - Phi(0.04 / se) = 1 - Phi(2.613) = 0.0045
    assert failure[0].get("message") == "fail: 0.140 (95% 0.110 to 0.170) is beyond the maximum 0.100 (p = 0.0045)"
    props = {p.get("name"): p.get("value") for p in suite.iter("property")}
    assert props["family"] == "holm" and props["family_size"] == "2"
    assert "Family: Holm over the 2 checks with an interval" in markdown(result)
    data = json.loads(to_json(result))
    assert (data["passed"], data["exit_code"], data["checks"][0]["run"], data["checks"][0]["low"]) == (
        False, 1, "runs/b", 0.11)
    assert data["family"]["method"] == "holm" and data["family"]["checks"] == 2
    assert data["checks"][0]["p"] == pytest.approx(0.004484, abs=1e-6)



def test_one_check_is_said_in_the_singular(tmp_path):
    """A policy of one rule on one run: "Holm over the 1 checks" and "1 checks of policy.toml" read wrong."""
    from stereoprobe.gate.output import family_text, judged_lines

    rule = one('[[rule]]\nstudy = "coreference"\nmetric = "inconsistent"\nmax = 0.10\n', tmp_path)
    result = GateResult((judge(rule, "runs/a", value(0.05, 0.02, 0.08)),), "policy.toml", ("runs/a",), ())
    assert family_text(result).startswith("Family: Holm over the 1 check with an interval: ")
    assert "1 check of policy.toml on runs/a: 0 failed" in markdown(result)
    # (the last line, "Gate passed: 0 of 1 checks failed.", is N of M checks and stays as tests/test_gate_e2e.py has it)
    assert "1 checks" not in "\n".join([markdown(result), to_json(result), junit(result), *judged_lines(result)[:-1]])
    global_ = GateResult(result.checks, "policy.toml", ("runs/a",), (), family="global")
    assert "over the 1 check with an interval" in family_text(global_)


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
    assert [len(rules(tmp_path, b)) for b in blocks] == [2, 2, 1]
    assert read_policy(policy(tmp_path, blocks[2]), specs_of).family == "global"  # "One family"
