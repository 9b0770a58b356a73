"""Verdicts: a rule against a value's 95% interval, every check of a gate in one family (docs/gate.md).

- **pass**: the whole interval on the good side of the threshold (``max``: high <= max);
- **fail**: the excess over the threshold is clear after the family's adjustment: the
  check's one-sided p-value of "within the threshold" (``stereoprobe.gate.pvalues``, from
  the interval with its own tails and degrees of freedom) adjusted across every check of
  the gate, absolute and regression rules of every run alike, is below 0.025 (the level at
  which one 95% interval alone lies wholly beyond the threshold);
- **inconclusive**: anything else (the interval straddles the threshold; it lies beyond it,
  but not clearly enough for the number of checks; there is none), counted as the rule
  says (``inconclusive``; ``require_evidence``: fail).

The family (the policy's ``family``):

- ``holm`` (the default): Holm's step-down adjustment; a check whose truth is within its
  threshold is marked fail in at most 2.5% of gates, whatever else the gate checks and
  however the checks depend on each other (checks of one run share its data);
- ``global``: one verdict for the release: Benjamini-Hochberg q-values, a check fails at
  q < 0.025, so the release fails when Simes' test of "every check within" rejects at 2.5%
  (valid for independent or positively dependent checks); more fails when several checks
  are a little beyond, but a check marked fail is only a finding at a false-discovery
  rate of 2.5%, not a verdict on that check alone.

Checks without an interval have no p-value and are not counted in the family.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

from stereoprobe.gate import pvalues
from stereoprobe.gate.policy import FAMILIES, Rule
from stereoprobe.gate.values import Value

ALPHA = 0.025  # one-sided: the 95% interval's level
_WORDS = {"max": "the maximum", "min": "the minimum", "max_increase": "the allowed rise",
          "max_decrease": "the allowed fall"}
_ADJUSTED = {"holm": "Holm", "global": "Benjamini-Hochberg"}


@dataclass(frozen=True)
class Check:
    """One rule judged on one run in one scope. ``p``: the one-sided p-value of "within the
    threshold"; ``p_adjusted``: after the family's adjustment (Holm, or BH's q), over
    ``family_size`` checks."""

    rule: Rule
    run: str
    scope: tuple[tuple[str, str], ...]
    value: Value
    verdict: str  # pass, fail, inconclusive
    passed: bool  # the verdict, inconclusive counted as the rule says
    why: str
    p: float = math.nan
    p_adjusted: float = math.nan
    family: str = "holm"
    family_size: int = 1

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


def within_p(rule: Rule, v: Value) -> float:
    """The one-sided p-value of "the truth is within the threshold" (small: clearly beyond it),
    from ``v``'s interval with its own tails (:mod:`stereoprobe.gate.pvalues`)."""
    if rule.kind in ("max", "max_increase"):
        return pvalues.above(v, rule.threshold)
    return pvalues.below(v, rule.threshold if rule.kind == "min" else -rule.threshold)


def adjust(p: Sequence[float], family: str) -> list[float]:
    """The family's adjusted p-values (Holm's, or BH's q for ``global``); NaN stays NaN and is
    not counted."""
    import numpy as np

    from stereoprobe.stats import bh, holm

    arr = np.asarray(p, dtype=float)
    out = np.full(len(arr), np.nan)
    ok = ~np.isnan(arr)
    if ok.any():
        out[ok] = (holm if family == "holm" else bh)(arr[ok])
    return [float(x) for x in out]


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


def _p_text(p: float, adjusted: float, family: str, size: int) -> str:
    if size <= 1:
        return f"p = {p:.2g}"
    return f"p = {p:.2g}, {_ADJUSTED[family]} over {size} checks {adjusted:.2g}"


def judge(rule: Rule, run: str, v: Value, p_adjusted: float | None = None, family: str = "holm",
          family_size: int = 1, p: float | None = None) -> Check:
    """The verdict of one value (a difference for a regression rule). ``p_adjusted``: its
    p-value after the family's adjustment (None: the check alone, its own p); ``p``: its
    :func:`within_p`, if known."""
    bound = f"{_WORDS[rule.kind]} {fmt(rule.threshold)}"
    worst, best = sorted((_bad(rule, v.low), _bad(rule, v.high)), reverse=True)
    p = within_p(rule, v) if p is None else p
    adjusted = p if p_adjusted is None else p_adjusted
    beyond = "exceeds" if rule.regression else "is beyond"
    if any(map(math.isnan, (v.low, v.high))):
        verdict, reason = "inconclusive", f"no interval (too few answers) for {fmt(v.estimate, rule.regression)}"
    elif worst <= 0:
        verdict, reason = "pass", f"{_interval_text(rule, v)} {'stays within' if rule.regression else 'is within'} {bound}"
    elif best > 0 and adjusted < ALPHA:
        verdict, reason = "fail", f"{_interval_text(rule, v)} {beyond} {bound} ({_p_text(p, adjusted, family, family_size)})"
    elif best > 0:
        verdict, reason = "inconclusive", (f"{_interval_text(rule, v)} {beyond} {bound} alone, but not after "
                                           f"{_ADJUSTED[family]} over {family_size} checks (adjusted p = {adjusted:.2g})")
    else:
        verdict, reason = "inconclusive", f"{_interval_text(rule, v)} straddles {bound}"
    passed, why = _counted(rule, verdict, reason)
    return Check(rule, run, v.scope, v, verdict, passed, why, p, adjusted, family, family_size)


def judge_family(items: Sequence[tuple[Rule, str, Value]], family: str = "holm") -> list[Check]:
    """Every check of a gate, ``(rule, run, value)``, judged as one family (module docstring)."""
    if family not in FAMILIES:
        raise ValueError(f"family must be one of {FAMILIES}, not {family!r}")
    p = [within_p(rule, v) for rule, _, v in items]
    adjusted = adjust(p, family)
    size = sum(not math.isnan(x) for x in p)
    return [judge(rule, run, v, None if math.isnan(a) else a, family, size, pi)
            for (rule, run, v), a, pi in zip(items, adjusted, p)]
