"""Verdicts: a rule against a value's 95% interval (docs/gate.md).

- **pass**: the whole interval on the good side of the threshold (``max``: high <= max);
- **fail**: the whole interval on the bad side (``max``: low > max);
- **inconclusive**: the interval straddles the threshold, or there is none (too few
  answers); it counts as the rule says (``inconclusive``; ``require_evidence``: fail).

Regression rules (``max_increase``/``max_decrease``) judge the run-minus-baseline difference
the study's compare computes: pass when its interval stays within the allowance, fail when
the excess over the allowance is clear after Benjamini-Hochberg across the run's regression
checks (one-sided q < 0.025, the level at which the 95% interval lies wholly beyond it),
inconclusive otherwise.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

from stereoprobe.gate.policy import Rule
from stereoprobe.gate.values import Value

ALPHA = 0.025  # one-sided: the 95% interval's level
_WORDS = {"max": "the maximum", "min": "the minimum", "max_increase": "the allowed rise",
          "max_decrease": "the allowed fall"}


@dataclass(frozen=True)
class Check:
    """One rule judged on one run in one scope."""

    rule: Rule
    run: str
    scope: tuple[tuple[str, str], ...]
    value: Value
    verdict: str  # pass, fail, inconclusive
    passed: bool  # the verdict, inconclusive counted as the rule says
    why: str
    q: float | None = None

    @property
    def label(self) -> str:
        stars = [f"{k}={v}" for k, v in self.scope if dict(self.rule.scope).get(k) == "*"]
        return self.rule.name + (f" [{', '.join(stars)}]" if stars else "")


def fmt(x: float, signed: bool = False) -> str:
    if x != x:
        return "–"
    x = x + 0.0  # no -0
    return f"{x:+.3f}" if signed else f"{x:.3f}"


def _bad(rule: Rule, x: float) -> float:
    """How far ``x`` is beyond the threshold on the bad side (negative: on the good side)."""
    if rule.kind == "max":
        return x - rule.threshold
    if rule.kind == "min":
        return rule.threshold - x
    if rule.kind == "max_increase":
        return x - rule.threshold
    return -x - rule.threshold  # max_decrease


def _interval_text(rule: Rule, v: Value) -> str:
    signed = rule.regression
    lead = "change vs baseline " if signed else ""
    return f"{lead}{fmt(v.estimate, signed)} (95% {fmt(v.low, signed)} to {fmt(v.high, signed)})"


def _counted(rule: Rule, verdict: str, reason: str) -> tuple[bool, str]:
    if verdict != "inconclusive":
        return verdict == "pass", reason
    why = "require_evidence = true" if rule.require_evidence and rule.inconclusive == "fail" else \
        f"inconclusive = \"{rule.inconclusive}\"" if "inconclusive" in dict(rule.key_lines) else "the default"
    return rule.inconclusive == "pass", f"{reason}; counted as {rule.inconclusive} ({why})"


def judge(rule: Rule, run: str, v: Value, q: float | None = None) -> Check:
    """The verdict of one value (a difference for a regression rule, with its BH ``q``)."""
    bound = f"{_WORDS[rule.kind]} {fmt(rule.threshold)}"
    worst, best = sorted((_bad(rule, v.low), _bad(rule, v.high)), reverse=True)
    if any(map(math.isnan, (v.low, v.high))):
        verdict, reason = "inconclusive", f"no interval (too few answers) for {fmt(v.estimate, rule.regression)}"
    elif rule.regression:
        if worst <= 0:
            verdict, reason = "pass", f"{_interval_text(rule, v)} stays within {bound}"
        elif q is not None and q < ALPHA:
            verdict, reason = "fail", f"{_interval_text(rule, v)} exceeds {bound} (q = {q:.2g})"
        else:
            verdict, reason = "inconclusive", f"{_interval_text(rule, v)} straddles {bound}" + (
                f" (q = {q:.2g})" if q is not None and q == q else "")
    elif worst <= 0:
        verdict, reason = "pass", f"{_interval_text(rule, v)} is within {bound}"
    elif best > 0:
        verdict, reason = "fail", f"{_interval_text(rule, v)} is beyond {bound}"
    else:
        verdict, reason = "inconclusive", f"{_interval_text(rule, v)} straddles {bound}"
    passed, why = _counted(rule, verdict, reason)
    return Check(rule, run, v.scope, v, verdict, passed, why, q)


def excess_p(rule: Rule, v: Value) -> float:
    """One-sided p of "the change is within the allowance", from the compare's difference
    and 95% interval (its standard error: the interval's half-width / 1.96)."""
    from scipy.stats import norm

    if any(map(math.isnan, (v.estimate, v.low, v.high))):
        return math.nan
    se = (v.high - v.low) / (2 * 1.959964)
    excess = _bad(rule, v.estimate)
    if se <= 0:
        return 0.0 if excess > 0 else 1.0
    return float(norm.sf(excess / se))


def judge_regressions(pairs: Sequence[tuple[Rule, str, Value]]) -> list[Check]:
    """The regression checks of one run, with BH q-values across them."""
    import numpy as np

    from stereoprobe.stats import bh

    if not pairs:
        return []
    p = np.array([excess_p(rule, v) for rule, _, v in pairs], dtype=float)
    q = np.full(len(p), np.nan)
    ok = ~np.isnan(p)
    if ok.any():
        q[ok] = bh(p[ok])
    return [judge(rule, run, v, float(qi)) for (rule, run, v), qi in zip(pairs, q)]
