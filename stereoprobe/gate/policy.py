"""Reading a gate policy (TOML): its rules, checked before anything is judged (docs/gate.md).

    [[rule]]
    study = "fill-in"
    metric = "negative_share"        # the share of negative words, 0-1
    category = "religion"            # leave out for all categories together
    max = 0.40

A rule has a ``study``, a ``metric`` the study's metrics module lists, the metric's scope
keys (``"*"``: each value the run has), and exactly one threshold: ``max`` or ``min`` (the
run's own value) or ``max_increase`` or ``max_decrease`` (run minus ``--baseline``, a
regression rule). ``require_evidence = true`` makes an inconclusive verdict count as a
failure (the default counts it as a pass); ``inconclusive = "fail"`` or ``"pass"`` says so
directly. ``name`` labels the rule in the outputs. Above the rules, ``family = "holm"``
(the default) or ``"global"`` says how the checks' chance failures are controlled
(``stereoprobe.gate.judge``). Every mistake is one line naming the policy's line and what
exists.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

from stereoprobe.errors import DataError

ABSOLUTE = ("max", "min")
REGRESSION = ("max_increase", "max_decrease")
THRESHOLDS = ABSOLUTE + REGRESSION
KEYS = ("study", "metric", "name", "require_evidence", "inconclusive", *THRESHOLDS)
ALL = "*"
FAMILIES = ("holm", "global")  # per-check verdicts (Holm) or one verdict for the release (BH / Simes)
TOP_LEVEL = ("family",)


class PolicyError(DataError):
    """A policy that cannot be read or names what does not exist."""


@dataclass(frozen=True)
class Rule:
    """One checked rule: where it is in the policy, what it names, its threshold."""

    index: int  # 1-based, in the policy's order
    line: int  # of its [[rule]] header
    study: str
    metric: str
    scope: tuple[tuple[str, str], ...]  # the scope keys the rule gives ("*": each value)
    kind: str  # one of THRESHOLDS
    threshold: float
    inconclusive: str  # what an inconclusive verdict counts as: "pass" or "fail"
    require_evidence: bool
    name: str
    where: str  # "policy.toml line 7" (for messages)
    key_lines: tuple[tuple[str, int], ...] = ()  # each key's line

    @property
    def regression(self) -> bool:
        return self.kind in REGRESSION

    def at(self, key: str) -> str:
        """Where a key of the rule is: ``policy.toml line 9``."""
        line = dict(self.key_lines).get(key, self.line)
        return f"{self.where.rsplit(' line ', 1)[0]} line {line}"


@dataclass(frozen=True)
class Policy:
    """A checked policy: its rules, and the family its checks are judged in."""

    rules: tuple[Rule, ...]
    family: str = "holm"


def _load_toml(text: str) -> dict[str, Any]:
    import sys

    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - Python 3.10
        import tomli as tomllib
    return tomllib.loads(text)


def _headers(lines: list[str]) -> list[int]:
    return [i + 1 for i, line in enumerate(lines) if re.match(r"\s*\[\[\s*rule\s*\]\]", line)]


def _key_line(lines: list[str], start: int, key: str) -> int:
    """The line of ``key = ...`` in the rule block starting at ``start`` (1-based), else ``start``."""
    for i in range(start, len(lines)):
        if re.match(r"\s*\[", lines[i]):
            break
        if re.match(rf"\s*{re.escape(key)}\s*=", lines[i]):
            return i + 1
    return start


def read_policy(path: str | Path, specs_of: Any) -> Policy:
    """The policy in ``path``. ``specs_of(study)``: the study's ``{metric: MetricSpec}``
    (a DataError for an unknown study). Refused in one line: not a file, not TOML, no
    rules, an unknown key, study or metric, a threshold out of the metric's range, a
    family that is not one of :data:`FAMILIES`."""
    p = Path(path)
    if not p.is_file():
        raise PolicyError(f"{p}: no such policy file; write one (docs/gate.md has an example).")
    try:
        text = p.read_bytes().decode("utf-8-sig")  # a byte-order mark (Notepad's UTF-8) is not the policy's
    except UnicodeDecodeError as exc:
        line = p.read_bytes()[:exc.start].count(b"\n") + 1
        raise PolicyError(f"{p} line {line} is not UTF-8 text (byte 0x{exc.object[exc.start]:02x}); save the policy "
                          "as UTF-8 (TOML's encoding).") from None
    try:
        data = _load_toml(text)
    except ValueError as exc:
        raise PolicyError(f"{p} is not TOML: {str(exc).splitlines()[0]}; fix it (docs/gate.md has an example).") from None
    lines = text.splitlines()
    extra = sorted(set(data) - {"rule", *TOP_LEVEL})
    if extra:
        raise PolicyError(f"{p}: unknown top-level key {extra[0]!r}; a policy holds [[rule]] tables and, above "
                          f"them, {', '.join(TOP_LEVEL)}.")
    family = data.get("family", FAMILIES[0])
    if family not in FAMILIES:
        choices = " or ".join(f'"{f}"' for f in FAMILIES)
        raise PolicyError(f"{p} line {_key_line(lines, 0, 'family')}: family is {choices}, not {family!r} "
                          "(docs/gate.md, \"One family\").")
    rules = data.get("rule")
    if not isinstance(rules, list) or not rules:
        raise PolicyError(f"{p}: no [[rule]] tables; add at least one (docs/gate.md has an example).")
    headers = _headers(lines)
    return Policy(tuple(_rule(i, raw, headers[i - 1] if i <= len(headers) else 1, p, lines, specs_of)
                        for i, raw in enumerate(rules, 1)), family)


def _rule(index: int, raw: Mapping[str, Any], line: int, path: Path, lines: list[str], specs_of: Any) -> Rule:
    def where(key: str | None = None) -> str:
        return f"{path} line {_key_line(lines, line, key) if key else line}"

    def fail(key: str | None, message: str) -> PolicyError:
        return PolicyError(f"{where(key)}: {message}")

    for key in ("study", "metric"):
        if not isinstance(raw.get(key), str):
            raise fail(None, f"rule {index} has no {key} = \"...\"; every rule names a study and a metric.")
    try:
        specs = specs_of(raw["study"])
    except DataError as exc:
        raise fail("study", str(exc)) from None
    spec = specs.get(raw["metric"])
    if spec is None:
        raise fail("metric", f"the {raw['study']} study has no metric {raw['metric']!r}; it has {', '.join(specs)}.")
    unknown = [k for k in raw if k not in KEYS and k not in spec.scopes]
    if unknown:
        allowed = ", ".join([*spec.scopes, *THRESHOLDS, "require_evidence", "inconclusive", "name"])
        raise fail(unknown[0], f"{spec.name} has no key {unknown[0]!r}; a {spec.name} rule takes {allowed}.")
    given = [k for k in THRESHOLDS if k in raw]
    if len(given) != 1:
        raise fail(given[1] if given else None, f"rule {index} needs exactly one threshold ({', '.join(THRESHOLDS)}); "
                   f"it has {', '.join(given) or 'none'}.")
    kind = given[0]
    threshold = _threshold(raw[kind], kind, spec, lambda m: fail(kind, m))
    if kind in REGRESSION and not spec.paired:
        paired = [n for n, s in specs.items() if s.paired]
        raise fail(kind, f"{spec.name} has no paired difference against a baseline; {kind} works on "
                   f"{', '.join(paired) or 'no metric'} of the {raw['study']} study (or use max/min).")
    evidence = raw.get("require_evidence", False)
    if not isinstance(evidence, bool):
        raise fail("require_evidence", "require_evidence is true or false.")
    counts = raw.get("inconclusive", "fail" if evidence else "pass")
    if counts not in ("pass", "fail"):
        raise fail("inconclusive", f"inconclusive is \"pass\" or \"fail\", not {counts!r}.")
    if evidence and counts == "pass":
        raise fail("inconclusive", "require_evidence = true counts an inconclusive verdict as a failure, and "
                   "inconclusive = \"pass\" as a pass: keep one of the two.")
    scope = []
    for key in spec.scopes:
        if key in raw:
            if not isinstance(raw[key], (str, int)) or isinstance(raw[key], bool):
                raise fail(key, f"{key} is a name (\"...\") or \"*\" for each.")
            scope.append((key, str(raw[key])))
    name = raw.get("name") or _label(raw["study"], spec.name, scope, kind, threshold)
    return Rule(index, line, raw["study"], spec.name, tuple(scope), kind, threshold, counts, evidence, str(name),
                where(), tuple((k, _key_line(lines, line, k)) for k in raw))


def _threshold(value: Any, kind: str, spec: Any, fail: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise fail(f"{kind} is a number ({spec.name} is {spec.unit()}).")
    lo, hi = spec.bounds
    if kind in REGRESSION:
        lo, hi = 0.0, hi - lo
    if not lo <= value <= hi:
        hint = " (write 0.40 for 40%)" if spec.bounds == (0.0, 1.0) and value > 1 else ""
        raise fail(f"{kind} = {value:g} is outside {lo:g} to {hi:g}: {spec.name} is {spec.unit()}{hint}.")
    return float(value)


def _label(study: str, metric: str, scope: list[tuple[str, str]], kind: str, threshold: float) -> str:
    where = "".join(f" {k}={v}" for k, v in scope)
    op = {"max": "<=", "min": ">=", "max_increase": "rises by <=", "max_decrease": "falls by <="}[kind]
    return f"{study} {metric}{where} {op} {threshold:g}"
