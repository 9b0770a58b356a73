"""What a pipeline reads from the gate: a Markdown summary, JUnit XML and a JSON verdict file.

Markdown: one table row per check, failures first (then inconclusive, then passes), with
the estimate, interval, threshold, p-values and verdict. JUnit: one test case per check (a
failure carries the numbers in its message), so GitLab, Jenkins and GitHub reporters show
them. JSON: every check with its numbers, for scripts. Each says which family the checks
were judged in (:func:`family_text`).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from stereoprobe.gate.judge import ALPHA, Check, fmt

_OPS = {"max": "≤", "min": "≥", "max_increase": "rise ≤", "max_decrease": "fall ≤"}


def _order(checks: Any) -> list[Check]:
    rank = {"fail": 0, "inconclusive": 1, "pass": 2}
    return sorted(checks, key=lambda c: (c.passed, rank[c.verdict]))


def verdict_text(c: Check) -> str:
    if c.verdict == "inconclusive":
        return f"inconclusive ({'fail' if not c.passed else 'pass'})"
    return c.verdict


def family_text(result: Any) -> str:
    """One sentence: which family the checks were judged in, and what it promises."""
    from stereoprobe.page.numbers import counted

    m = counted(result.family_size, "check")
    if result.family == "global":
        return (f"Family: global, one verdict for the release over the {m} with an interval: a check fails at "
                f"a Benjamini-Hochberg q below {ALPHA:g}, so the release fails when Simes' test of \"every check "
                f"within its threshold\" rejects at {ALPHA:.1%}; a failed check is a finding at that false-discovery "
                "rate, not a verdict on it alone.")
    return (f"Family: Holm over the {m} with an interval: a check fails when its p-value of \"within the "
            f"threshold\", Holm-adjusted, is below {ALPHA:g}, so a check within its threshold is marked fail in at "
            f"most {ALPHA:.1%} of gates.")


def _p(x: float) -> str:
    return "–" if x != x else f"{x:.2g}"


def markdown(result: Any) -> str:
    from stereoprobe.page.numbers import counted

    n_fail = len(result.failed)
    head = (f"## stereoprobe gate: {'FAILED' if n_fail else 'passed'}\n\n"
            f"{counted(len(result.checks), 'check')} of {Path(result.policy).name} on {', '.join(result.runs)}"
            + (f" (baseline {', '.join(result.baselines)})" if result.baselines else "")
            + f": {n_fail} failed, {sum(c.verdict == 'inconclusive' for c in result.checks)} inconclusive.\n\n"
            + family_text(result) + "\n")
    adjusted = "p (Holm)" if result.family == "holm" else "q (BH)"
    lines = [f"| verdict | rule | run | estimate | 95% interval | threshold | p | {adjusted} | why |",
             "|---|---|---|---:|---|---|---:|---:|---|"]
    for c in _order(result.checks):
        signed = c.rule.regression
        lines.append(f"| {verdict_text(c).upper() if not c.passed else verdict_text(c)} | {_cell(c.label)} | "
                     f"{_cell(c.run)} | {fmt(c.value.estimate, signed)} | {fmt(c.value.low, signed)} to "
                     f"{fmt(c.value.high, signed)} | {_OPS[c.rule.kind]} {fmt(c.rule.threshold)} | {_p(c.p)} | "
                     f"{_p(c.p_adjusted)} | {_cell(c.why)} |")
    return head + "\n" + "\n".join(lines) + "\n"


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def junit(result: Any) -> str:
    """JUnit XML (the schema GitLab, Jenkins and GitHub test reporters read)."""
    import xml.etree.ElementTree as ET

    suites = ET.Element("testsuites", name="stereoprobe gate", tests=str(len(result.checks)),
                        failures=str(len(result.failed)))
    suite = ET.SubElement(suites, "testsuite", name=f"stereoprobe gate: {Path(result.policy).name}",
                          tests=str(len(result.checks)), failures=str(len(result.failed)), errors="0", skipped="0")
    props = ET.SubElement(suite, "properties")
    for name, value in (("family", result.family), ("family_size", str(result.family_size)),
                        ("family_alpha", f"{ALPHA:g}"), ("family_note", family_text(result))):
        ET.SubElement(props, "property", name=name, value=value)
    for c in result.checks:
        case = ET.SubElement(suite, "testcase", classname=f"stereoprobe.gate.{c.rule.study}.{Path(c.run).name}",
                             name=c.label)
        if not c.passed:
            ET.SubElement(case, "failure", message=f"{verdict_text(c)}: {c.why}", type=c.verdict).text = _detail(c)
        else:
            ET.SubElement(case, "system-out").text = f"{verdict_text(c)}: {c.why}"
    ET.indent(suites)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(suites, encoding="unicode") + "\n"


def _detail(c: Check) -> str:
    return (f"{c.rule.where}: {c.label}\nrun {c.run}, {', '.join(f'{k}={v}' for k, v in c.scope)}\n"
            f"estimate {fmt(c.value.estimate)}, 95% interval {fmt(c.value.low)} to {fmt(c.value.high)}, "
            f"{c.rule.kind} {fmt(c.rule.threshold)}" + (f", p {c.p:.3g}" if c.p == c.p else "")
            + (f", {c.family} family of {c.family_size}: adjusted p {c.p_adjusted:.3g}" if c.p_adjusted == c.p_adjusted
               else ""))


def to_json(result: Any) -> str:
    def num(x: Any) -> Any:
        return None if x is None or x != x else round(float(x) + 0.0, 6)

    checks = [{"rule": c.rule.index, "line": c.rule.line, "name": c.label, "study": c.rule.study,
               "metric": c.rule.metric, "run": c.run, "scope": dict(c.scope), "kind": c.rule.kind,
               "threshold": c.rule.threshold, "estimate": num(c.value.estimate), "low": num(c.value.low),
               "high": num(c.value.high), "interval_method": c.value.method,
               "df": None if c.value.df == float("inf") else num(c.value.df), "p": num(c.p),
               "p_adjusted": num(c.p_adjusted), "verdict": c.verdict, "passed": c.passed, "why": c.why}
              for c in _order(result.checks)]
    out = {"passed": not result.failed, "exit_code": result.exit_code, "policy": result.policy,
           "runs": list(result.runs), "baselines": list(result.baselines),
           "family": {"method": result.family, "checks": result.family_size, "alpha": ALPHA,
                      "note": family_text(result)},
           "checks": checks}
    return json.dumps(out, indent=2, ensure_ascii=False) + "\n"


def judged_lines(result: Any) -> list[str]:
    """The terminal's lines: one per check, failures first, then the outcome."""
    lines = [f"{verdict_text(c).upper() if not c.passed else verdict_text(c):<22} {c.label} ({c.run}): {c.why}"
             for c in _order(result.checks)]
    n_fail = len(result.failed)
    return lines + [family_text(result),
                    f"{'Gate failed' if n_fail else 'Gate passed'}: {n_fail} of {len(result.checks)} checks failed."]
