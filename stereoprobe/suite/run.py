"""Running a suite: each planned study collected, scored and reported in its run folder,
``suite.json`` kept true after every step, and the card written (docs/suite.md).

- A study's collect is ``Study.collect`` with its planned options into ``SUITE/<key>``: exactly
  what ``stereoprobe collect --study S --design D --out SUITE/<key>`` does (resume, the run's
  identity, Ctrl-C and SIGTERM, the lock). A run already complete is not collected again and a
  study already scored and reported on the same answers is not scored again, so running the
  same command again asks nothing twice and redoes nothing.
- Ctrl-C: collect stores every answer, marks its run stopped and raises KeyboardInterrupt;
  the suite records the study as ``stopped`` and stops (exit 130): the next study is never
  started. ``kill`` (SIGTERM): collect stores every answer and ends the process by the signal
  (exit 143); ``suite.json`` then still says ``collecting``, which reads as ``stopped`` once no
  suite holds the folder's lock (record.py).
- A collect that fails (the endpoint down, a key refused) stops the suite with its one-line
  error; a study that cannot be scored or reported is recorded as ``failed`` with its error,
  the others go on, and the suite ends with one line naming them.
- The card: ``stereoprobe.card.build_card([SUITE], SUITE/card)``.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Callable

from stereoprobe.errors import StereoprobeError
from stereoprobe.suite.record import StudyEntry, SuiteRecord, read_suite, write_suite

DONE = ("scored", "reported")


@dataclass
class SuiteResult:
    folder: Path
    record: SuiteRecord
    card: Path | None = None
    failed: list[str] = field(default_factory=list)


def _plain(value: Any) -> Any:
    if isinstance(value, Path):
        return str(value)
    if isinstance(value, (tuple, list, frozenset, set)):
        return [_plain(v) for v in value]
    return value


def study_options(options: Any) -> dict[str, Any]:
    """A study's options as suite.json keeps them: its own, not the model's (the suite's ``backend``)."""
    skip = {"model", "base_url", "model_file", "mode", "api_key_env", "out", "given"}
    return {k: _plain(v) for k, v in options.items() if k not in skip and v is not None}


def _record(plan: Any) -> SuiteRecord:
    """The suite's record for this plan: the folder's own, its studies' settings brought up to date."""
    from stereoprobe import __version__
    from stereoprobe.store import now_iso
    from stereoprobe.suite.plan import KEYS

    now = now_iso()
    old = read_suite(plan.folder)
    entries = {e.key: e for e in (old.studies if old else ())}
    for p in plan.studies:
        fresh = dict(study=p.study, run=p.key, options=study_options(p.options), demonstration=p.demonstration,
                     what=p.design.what, width_cost=p.design.width_cost)
        entries[p.key] = replace(entries[p.key], **fresh) if p.key in entries else StudyEntry(p.key, **fresh)
    ordered = tuple(entries[k] for k in KEYS if k in entries)
    if old is None:
        return SuiteRecord(plan.model.name(), plan.model.describe(), plan.design, ordered, __version__, now, now)
    return replace(old, studies=ordered, stereoprobe_version=__version__, updated_at=now)


def _scores_read(study: Any, run_dir: Path) -> bool:
    """Whether the study's scores in ``run_dir`` can be read as the card and the gate read them
    (``metrics.values``): a score folder deleted or damaged since is scored again."""
    metrics = study.metrics()
    if metrics is None:
        return True
    try:
        metrics.values(run_dir)
    except StereoprobeError:
        return False
    return True


class _Suite:
    """One run of a suite: its record, written after every step."""

    def __init__(self, plan: Any, display: Any, say: Callable[[str], None]) -> None:
        self.plan, self.display, self.say = plan, display, say
        self.record = _record(plan)
        self.failed: list[str] = []
        self.save()

    def save(self, entry: StudyEntry | None = None) -> None:
        from stereoprobe.store import now_iso

        if entry is not None:
            self.record = self.record.with_entry(entry)
        self.record = replace(self.record, updated_at=now_iso())
        write_suite(self.plan.folder, self.record)

    def counts(self, p: Any) -> dict[str, int]:
        from stereoprobe.manifest import read_manifest

        manifest = read_manifest(p.run_dir)
        return dict(manifest.counts) if manifest is not None else {}

    def study(self, p: Any, spec: Any) -> None:
        from stereoprobe.batch import using
        from stereoprobe.manifest import read_manifest
        from stereoprobe.studies import get_study

        study, entry = get_study(p.study), self.record.entry(p.key)
        manifest = read_manifest(p.run_dir)
        seconds = dict(entry.seconds)
        complete = (manifest is not None and manifest.status == "complete"
                    and manifest.counts.get("records", 0) >= p.estimate.answers)
        if not complete:
            entry = replace(entry, state="collecting", error=None)
            self.save(entry)
            self.display.begin(p.key, "collecting")
            start = time.monotonic()
            try:
                with using(spec):
                    study.collect(p.options, progress=self.display.hook(p.key))
            except KeyboardInterrupt:
                self.save(replace(entry, state="stopped", counts=self.counts(p)))
                raise
            except StereoprobeError as exc:
                self.save(replace(entry, state="failed", error=str(exc), counts=self.counts(p)))
                raise
            finally:
                self.display.collected(p.key)
            seconds["collect"] = round(time.monotonic() - start, 1)
            manifest = read_manifest(p.run_dir)
            if manifest is None or manifest.status != "complete":  # a batch still under way
                self.save(replace(entry, state="stopped", counts=self.counts(p), seconds=seconds))
                self.say(f"{p.key}: not complete yet (its batches go on); run the same command again.")
                return
        counts = self.counts(p)
        if (entry.state == "reported" and dict(entry.counts) == counts and entry.error is None
                and _scores_read(study, p.run_dir)):
            self.display.end(p.key)
            return  # scored and reported on these very answers, and the scores are still there
        entry = replace(entry, state="collected", counts=counts, seconds=seconds, error=None)
        self.save(entry)
        for phase, state, name, step in (("scoring", "scored", "score", lambda: study.score(p.run_dir, {})),
                                         ("reporting", "reported", "report", lambda: study.report(p.run_dir, {}))):
            self.display.begin(p.key, phase)
            start = time.monotonic()
            try:
                out = step()
            except StereoprobeError as exc:
                self.failed.append(f"{p.key} ({phase}: {exc})")
                self.save(replace(entry, state="failed", error=f"{phase}: {exc}"))
                self.display.end(p.key)
                return
            seconds[name] = round(time.monotonic() - start, 1)
            entry = replace(entry, state=state, seconds=dict(seconds))
            self.save(entry)
            if phase == "reporting":
                for line in out:
                    self.say(f"{p.key}: {line}")
        self.display.end(p.key)


def batch_specs(plan: Any, provider: str | None, poll_interval: float | None = None,
                say: Callable[[str], None] = lambda line: None) -> dict[str, Any]:
    """key -> the BatchSpec its collect runs as (None: live); says which studies a batch cannot carry."""
    if provider is None:
        return {p.key: None for p in plan.studies}
    from stereoprobe.batch import DEFAULT_POLL, BatchSpec
    from stereoprobe.suite.cost import batch_refusal

    out, live = {}, []
    for p in plan.studies:
        why = batch_refusal(p, plan.model, provider)
        if why is not None:
            live.append(f"{p.key} ({why})")
            out[p.key] = None
            continue
        kept = {"study": p.study, "design": plan.design, **study_options(p.options), **plan.model.options(),
                "out": str(p.run_dir)}
        out[p.key] = BatchSpec(provider, provider=provider, options=kept,
                               poll_interval=DEFAULT_POLL if poll_interval is None else poll_interval)
    if live:
        say(f"--batch {provider} cannot carry " + "; ".join(live) + ": asked live.")
    return out


def progress_rows(plan: Any) -> list[tuple[str, int, int, float, float]]:
    """The display's rows: each study's answers, those stored already, and their weights."""
    from stereoprobe.manifest import read_manifest
    from stereoprobe.suite.progress import EMBEDDED

    rows = []
    for p in plan.studies:
        manifest = read_manifest(p.run_dir)
        stored = manifest.counts.get("records", 0) if manifest is not None else 0
        per, fixed = EMBEDDED.get(p.key, (1.0, 0.0)) if not plan.model.served else (1.0, 0.0)
        rows.append((p.key, p.estimate.answers, stored, per, fixed))
    return rows


def write_card(folder: Path, say: Callable[[str], None]) -> Path | None:
    """The suite's card (stereoprobe.card), or a line saying why there is none."""
    try:
        from stereoprobe.card import build_card  # type: ignore[import-not-found]
    except ModuleNotFoundError as exc:
        if exc.name == "stereoprobe.card":
            say("the card needs stereoprobe.card")
            return None
        raise
    return build_card([folder], folder / "card")


def run_suite(plan: Any, progress: bool = True, batch: str | None = None, poll_interval: float | None = None,
              say: Callable[[str], None] = lambda line: None) -> SuiteResult:
    """Collect, score and report every planned study, then write the card (module docstring)."""
    from stereoprobe.store import RunStore
    from stereoprobe.suite.progress import SuiteProgress

    lock = RunStore(plan.folder)
    lock.lock()  # one suite at a time in a folder
    try:
        specs = batch_specs(plan, batch, poll_interval, say)
        display = SuiteProgress(progress_rows(plan), enabled=progress, seconds=not plan.model.served)
        suite = _Suite(plan, display, say)
        try:
            for p in plan.studies:
                suite.study(p, specs[p.key])
        finally:
            display.close()
        card = None
        try:
            card = write_card(plan.folder, say)
        except StereoprobeError as exc:
            suite.failed.append(f"the card ({exc})")
        return SuiteResult(plan.folder, suite.record, card, suite.failed)
    finally:
        lock.unlock()


def summary(result: SuiteResult) -> list[str]:
    """Lines for the terminal once the suite has run: each study's state and answers, the card."""
    lines = []
    for e in result.record.studies:
        counts = ", ".join(f"{e.counts.get(k, 0):,} {k}" for k in ("ok", "refused", "unparseable", "failed")
                           if e.counts.get(k) or k == "ok")
        lines.append(f"  {e.key}: {e.state}" + (f" ({counts})" if e.counts else "") + (f"; {e.error}" if e.error else ""))
    head = [f"Suite {result.folder}:"]
    if result.card is not None:
        lines.append(f"The card: {result.card}" + ("" if Path(result.card).suffix else "/index.html"))
    return head + lines
