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
from stereoprobe.occupations import article_for
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


def _variant(study: str, run: Path) -> str:
    """The run's kind where its study has two (``metrics.variant``), else ""."""
    kind = getattr(_metrics(study), "variant", None)
    return kind(run) if kind is not None else ""


def _applies(rule: Rule, study: str, variant: str) -> bool:
    """Whether ``rule`` judges a run of ``study`` of kind ``variant`` (``MetricSpec.variant``)."""
    return rule.study == study and _metrics(study).SPECS[rule.metric].variant in ("", variant)


def _kind(study: str, variant: str) -> str:
    """A study's runs of one kind, in words: "coreference (Sterlie et al.'s prompts ...)"."""
    words = getattr(_metrics(study), "VARIANTS", {}).get(variant)
    return f"{study} ({words})" if words else study


def _runs(runs: Sequence[str | Path], rules: Sequence[Rule]) -> dict[Path, tuple[str, str]]:
    """The run folders given, each with its study and kind (``_variant``), in the order given
    (the one place that turns the command line's folders into runs). A suite folder
    (``stereoprobe suite``: ``suite.json``) stands for its studies' runs that a rule of
    ``rules`` judges (its ``sterlie`` run, the coreference study with Sterlie et al.'s
    prompts, by the ``sterlie_*`` metrics; its ``coreference`` run by Marin & Eger's)."""
    from stereoprobe.suite.record import read_suite

    out: dict[Path, tuple[str, str]] = {}
    for r in map(Path, runs):
        suite = read_suite(r) if r.is_dir() else None
        if suite is None:
            study = _study_of(r)
            out[r] = (study, _variant(study, r))
            continue
        found = {}
        for e in suite.studies:
            if any(rule.study == e.study for rule in rules):
                kind = _variant(e.study, r / e.run)
                if any(_applies(rule, e.study, kind) for rule in rules):
                    _scored_in_suite(r, e)
                    found[r / e.run] = (_study_of(r / e.run), kind)
        if not found:
            raise DataError(f"{r} is a suite of {', '.join(e.key for e in suite.studies)}, and no rule of the policy "
                            "is for one of them; add a rule or give another suite.")
        out.update(found)
    return out


def _scored_in_suite(folder: Path, entry: Any) -> None:
    """A suite's study is judged only where the suite scored it (``suite.json``'s state, as the
    card reads it): a study that failed, stopped or was not scored yet may hold older scores of
    fewer answers, or none, and a release is not judged on those."""
    if entry.state in ("scored", "reported"):  # card.values.SCORED
        return
    if entry.state == "failed":
        why = (entry.error or "no error kept").rstrip(".")
        raise DataError(f"{folder}: the {entry.key} study failed in its suite ({why}); fix it and run the same "
                        "`stereoprobe suite` command again, then the gate.")
    again = (f"`stereoprobe score {folder / entry.run}`" if entry.state == "collected" else
             "the same `stereoprobe suite` command again to finish it")
    raise DataError(f"{folder}: the {entry.key} study is {entry.state}, not scored yet; run {again}, then the gate.")


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
    runs_given = _runs(runs, rules)
    studies = {p: s for p, (s, _) in runs_given.items()}
    kinds = {p: k for p, (_, k) in runs_given.items()}
    for p, s in studies.items():
        if not any(_applies(r, s, kinds[p]) for r in rules):
            raise DataError(f"{p} is {article_for(s)} {_kind(s, kinds[p])} run and no rule of {Path(policy).name} is for it; add one "
                            "or leave the run out.")
    for r in rules:
        if not any(_applies(r, s, kinds[p]) for p, s in studies.items()):
            listed = ", ".join(f"{p} ({_kind(s, kinds[p])})" for p, s in studies.items())
            spec = _metrics(r.study).SPECS[r.metric]
            raise DataError(f"{r.at('study')}: a {_kind(r.study, spec.variant)} rule, but no such run is given "
                            f"({listed}).")
    given = [] if baseline is None else [baseline] if isinstance(baseline, (str, Path)) else list(baseline)
    base = _baselines(rules, runs_given, given)
    values = {p: _metrics(s).values(p) for p, s in studies.items()}
    diffs = {p: _metrics(s).differences(base[(s, kinds[p])], p) for p, s in studies.items()
             if any(r.regression and _applies(r, s, kinds[p]) for r in rules)}
    plan: list[tuple[Rule, Path, list]] = []
    for r in rules:
        for p, s in studies.items():
            if _applies(r, s, kinds[p]):
                source = diffs[p] if r.regression else values[p]
                plan.append((r, p, _rows(r, source, f"{p} (run minus baseline)" if r.regression else str(p))))
    items = [(r, str(p), v) for p in studies for regression in (False, True)
             for r, q, rows in plan if q == p and r.regression == regression for v in rows]
    checks = judge_family(items, read.family)
    return GateResult(tuple(checks), str(policy), tuple(map(str, studies)), tuple(map(str, base.values())),
                      read.family)


def _baselines(rules: list[Rule], runs: dict[Path, tuple[str, str]], baselines: Sequence[str | Path],
               ) -> dict[tuple[str, str], Path]:
    """Each study's baseline, one per study and kind of run (``_runs``), checked: scored, of a
    study and kind with runs, same catalog."""
    found: dict[tuple[str, str], Path] = {}
    have = set(runs.values())
    listed = ", ".join(f"{p} ({_kind(*k)})" for p, k in runs.items())
    for b, key in _runs(baselines, [r for r in rules if r.regression] or rules).items():
        if key in found:
            raise DataError(f"two {_kind(*key)} baselines ({found[key]}, {b}); give one baseline per study.")
        if key not in have:
            raise DataError(f"the baseline {b} is {article_for(key[0])} {_kind(*key)} run, and no {_kind(*key)} run is "
                            f"given ({listed}).")
        _metrics(key[0]).values(b)  # scored, or one line saying so
        found[key] = b
    for r in rules:
        for key in dict.fromkeys(k for k in runs.values() if r.regression and _applies(r, *k)):
            if key not in found:
                given = f"the baseline given is {', '.join(f'{b} ({_kind(*k)})' for k, b in found.items())}; " \
                    if found else ""
                raise DataError(f"{r.at(r.kind)}: a {_kind(*key)} regression rule ({r.kind}) needs a run of that kind "
                                f"as --baseline RUN_DIR ({given}give one).")
    for p, key in runs.items():
        if key in found and _catalog(found[key]) != _catalog(p):
            raise DataError(f"{p} and the baseline {found[key]} were collected from different catalogs; a regression "
                            "is judged on the same probes: collect both with the same catalog.")
    return found
