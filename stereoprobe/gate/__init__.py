"""The release gate: scored runs judged against a policy, by intervals (docs/gate.md).

    >>> import stereoprobe.gate
    >>> result = stereoprobe.gate.gate(["runs/fill-in-x"], "policy.toml")  # doctest: +SKIP
    >>> result.exit_code  # doctest: +SKIP
    0

:func:`gate` reads the policy (:mod:`stereoprobe.gate.policy`), each run's metrics
through its study (``stereoprobe.studies.get_study(name).metrics()``: the core imports no
study), resolves every rule against every run of its study, and only then judges
(:mod:`stereoprobe.gate.judge`): every check of every run, absolute and regression rules
alike, in one family (the policy's ``family``: Holm by default). Any mistake, in the policy
or in the runs, is one DataError before a verdict is made. :mod:`stereoprobe.gate.output`
writes the verdicts.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

from stereoprobe.errors import DataError
from stereoprobe.gate.judge import Check, judge_family
from stereoprobe.gate.policy import ALL, Rule, read_policy

__all__ = ["Check", "GateResult", "gate"]


@dataclass(frozen=True)
class GateResult:
    checks: tuple[Check, ...]
    policy: str
    runs: tuple[str, ...]
    baselines: tuple[str, ...]
    family: str = "holm"

    @property
    def family_size(self) -> int:
        """The checks with a p-value: the family the adjustment counts."""
        return sum(c.p == c.p for c in self.checks)

    @property
    def failed(self) -> list[Check]:
        return [c for c in self.checks if not c.passed]

    @property
    def exit_code(self) -> int:
        return 1 if self.failed else 0


def _metrics(study: str) -> Any:
    from stereoprobe.studies import get_study

    module = get_study(study).metrics()
    if module is None:
        raise DataError(f"the {study} study has no gate metrics yet (no metrics.py in its folder).")
    return module


def _study_of(run: Path) -> str:
    from stereoprobe.studies import study_of_run

    if not run.is_dir():
        raise DataError(f"{run}: no such run directory; collect and score a run first.")
    return study_of_run(run).name


def _runs(runs: Sequence[str | Path], rules: Sequence[Rule]) -> dict[Path, str]:
    """The run folders given, each with its study, in the order given (the one place that
    turns the command line's folders into runs). A suite folder (``stereoprobe suite``:
    ``suite.json``) stands for its studies' runs, those of a study ``rules`` are for; its
    ``sterlie`` run (the coreference study with Sterlie et al.'s prompts) is left out: the
    coreference metrics read Marin & Eger's scenes."""
    from stereoprobe.suite.record import read_suite

    out: dict[Path, str] = {}
    for r in map(Path, runs):
        suite = read_suite(r) if r.is_dir() else None
        if suite is None:
            out[r] = _study_of(r)
            continue
        wanted = {rule.study for rule in rules}
        found = {r / e.run: e.study for e in suite.studies if e.study in wanted and e.key == e.study}
        if not found:
            raise DataError(f"{r} is a suite of {', '.join(e.key for e in suite.studies)}, and no rule of the policy "
                            "is for one of them; add a rule or give another suite.")
        out.update({p: _study_of(p) for p in found})
    return out


def _catalog(run: Path) -> str | None:
    from stereoprobe.manifest import read_manifest

    m = read_manifest(run)
    return m.catalog.sha256 if m is not None and m.catalog is not None else None


def _rows(rule: Rule, values: list, what: str) -> list:
    """The values ``rule`` names in one run (``*`` expanded); none is a DataError naming what exists."""
    spec = _metrics(rule.study).SPECS[rule.metric]
    given = dict(rule.scope)
    free = {spec.narrows[k] for k in given if k in spec.narrows and spec.narrows[k] not in given}
    rows = [v for v in values if v.metric == rule.metric]
    for key, default in spec.scopes.items():
        want = given.get(key, default)
        if key in free:
            continue
        if want is None:
            have = sorted({v.get(key) for v in rows})
            raise DataError(f"{rule.at('metric')}: {rule.metric} needs {key} = \"...\" ({', '.join(have) or 'none in the run'}"
                            f", or \"*\" for each).")
        have = sorted({v.get(key) for v in rows})
        rows = [v for v in rows if v.get(key) != default] if want == ALL else [v for v in rows if v.get(key) == want]
        if not rows:
            listed = ", ".join(h for h in have if want != ALL or h != default) or "none"
            raise DataError(f"{rule.at(key if key in given else 'metric')}: {what} has no {rule.metric} for {key} "
                            f"{want!r}; it has {listed}.")
    return rows


def gate(runs: Sequence[str | Path], policy: str | Path, baseline: str | Path | Sequence[str | Path] | None = None,
         ) -> GateResult:
    """Judge ``runs`` against ``policy`` (and ``baseline``, one run per study, for the regression rules)."""
    read = read_policy(policy, lambda s: _metrics(s).SPECS)
    rules = list(read.rules)
    studies = _runs(runs, rules)
    for p, s in studies.items():
        if not any(r.study == s for r in rules):
            raise DataError(f"{p} is a {s} run and no rule of {Path(policy).name} is for {s}; add one or leave the run out.")
    for r in rules:
        if r.study not in studies.values():
            listed = ", ".join(f"{p} ({s})" for p, s in studies.items())
            raise DataError(f"{r.at('study')}: a {r.study} rule, but no {r.study} run is given ({listed}).")
    given = [] if baseline is None else [baseline] if isinstance(baseline, (str, Path)) else list(baseline)
    base = _baselines(rules, studies, given)
    values = {p: _metrics(s).values(p) for p, s in studies.items()}
    diffs = {p: _metrics(s).differences(base[s], p) for p, s in studies.items()
             if any(r.regression and r.study == s for r in rules)}
    plan: list[tuple[Rule, Path, list]] = []
    for r in rules:
        for p, s in studies.items():
            if s == r.study:
                source = diffs[p] if r.regression else values[p]
                plan.append((r, p, _rows(r, source, f"{p} (run minus baseline)" if r.regression else str(p))))
    items = [(r, str(p), v) for p in studies for regression in (False, True)
             for r, q, rows in plan if q == p and r.regression == regression for v in rows]
    checks = judge_family(items, read.family)
    return GateResult(tuple(checks), str(policy), tuple(map(str, studies)), tuple(map(str, base.values())),
                      read.family)


def _baselines(rules: list[Rule], studies: dict[Path, str], baselines: Sequence[str | Path]) -> dict[str, Path]:
    """Each study's baseline (one per study), checked: scored, of a study with runs, same catalog."""
    found: dict[str, Path] = {}
    for b, kind in _runs(baselines, [r for r in rules if r.regression] or rules).items():
        if kind in found:
            raise DataError(f"two {kind} baselines ({found[kind]}, {b}); give one baseline per study.")
        if kind not in studies.values():
            listed = ", ".join(f"{p} ({s})" for p, s in studies.items())
            raise DataError(f"the baseline {b} is a {kind} run, and no {kind} run is given ({listed}).")
        _metrics(kind).values(b)  # scored, or one line saying so
        found[kind] = b
    for r in rules:
        if r.regression and r.study not in found:
            given = f"the baseline given is {', '.join(f'{b} ({k})' for k, b in found.items())}; " if found else ""
            raise DataError(f"{r.at(r.kind)}: a {r.study} regression rule ({r.kind}) needs a {r.study} run as "
                            f"--baseline RUN_DIR ({given}give one).")
    for p, s in studies.items():
        if s in found and _catalog(found[s]) != _catalog(p):
            raise DataError(f"{p} and the baseline {found[s]} were collected from different catalogs; a regression "
                            "is judged on the same probes: collect both with the same catalog.")
    return found
