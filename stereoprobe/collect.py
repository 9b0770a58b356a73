"""Drive a backend over probes: lock, resume, workers, Ctrl-C, parsing, counts, manifest."""

from __future__ import annotations

import contextlib
import os
import queue
import re
import signal
import threading
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator, Sequence

from stereoprobe import __version__
from stereoprobe.backends.base import Backend
from stereoprobe.errors import BackendError, DataError
from stereoprobe.designs import DEFAULT as DEFAULT_DESIGN
from stereoprobe.manifest import BackendSettings, CatalogInfo, RunManifest, read_manifest, write_manifest
from stereoprobe.records import Completion, Probe
from stereoprobe.store import RunStore, now_iso

STATUSES = ("ok", "refused", "unparseable", "failed")


@dataclass(frozen=True)
class StudyRun:
    """What collect needs from a study (studies/base.py): collect itself knows no study.

    ``ask(backend, probe, sample, preflight=False) -> (record, timed_out)`` makes the
    stored record, parsing a chat reply store-side if the study does (and raises
    BackendError when the backend cannot work at all); ``catalog_info`` is the run's
    catalog identity for the manifest, or a function of the old run's identity (None for
    a new run) that gives it; ``parser_version`` the version of the study's own reply
    parser, when it parses chat replies store-side.
    """

    name: str
    record: type
    ask: Any
    catalog_info: CatalogInfo | None | Callable[[CatalogInfo | None], CatalogInfo | None]
    score_command: str = "score"
    parser_version: str | None = None
    design: str | None = None  # stereoprobe.designs: the named design the probes and settings come from


@dataclass
class CollectResult:
    run_dir: Path
    asked: int  # requests made by this call
    counts: Counter = field(default_factory=Counter)  # this call: ok/refused/unparseable/failed
    totals: Counter = field(default_factory=Counter)  # whole run directory
    skipped: int = 0  # already answered, not asked again
    score_command: str = "sentiment"  # the command that scores this study's runs
    short: dict = field(default_factory=dict)  # next-word mode: lists with fewer than ten words, by reason

    def summary(self) -> str:
        from stereoprobe.backends.nextword import short_sentences

        now = ", ".join(f"{self.counts.get(s, 0)} {s}" for s in STATUSES)
        total = ", ".join(f"{self.totals.get(s, 0)} {s}" for s in STATUSES)
        return " ".join([
            f"Asked {self.asked} ({now}); {self.skipped} already answered. "
            f"Run {self.run_dir}: {total}.", *short_sentences(self.short)])

    def next_step(self) -> str:
        """The command to run next: retry the failures, or score the run."""
        if self.totals.get("failed"):
            from stereoprobe.page.numbers import counted

            return (f"Next: repeat the same command with --retry-failed to ask the "
                    f"{counted(self.totals['failed'], 'failed probe')} again, then `stereoprobe {self.score_command} {self.run_dir}`.")
        return f"Next: `stereoprobe {self.score_command} {self.run_dir}`."


def slug(name: str) -> str:
    """A directory-friendly name for a model.

    >>> slug("gpt-4o-mini")
    'gpt-4o-mini'
    >>> slug("meta-llama/Llama-3.1-8B-Instruct")
    'meta-llama-llama-3.1-8b-instruct'
    >>> slug("Modèle-Français")  # accents kept as their letters, not dropped with them
    'modele-francais'
    """
    import unicodedata

    ascii_name = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode()
    return re.sub(r"[^a-z0-9._-]+", "-", ascii_name.lower()).strip("-") or "model"


def samples_of(probe: Any, samples: int) -> int:
    """How many times ``probe`` is asked: its own ``samples`` where it carries one (a study may
    ask some probes more or fewer times than the run's K: Sterlie et al.'s baseline questions
    30 times beside their prompts' 50), else ``samples``, the run's K. Collect, the batch step
    and resume count by it, so a probe's own number is what "answered" means for it.

    >>> from types import SimpleNamespace as P
    >>> samples_of(P(samples=30), 50), samples_of(P(samples=None), 50), samples_of(object(), 4)
    (30, 50, 4)
    """
    own = getattr(probe, "samples", None)
    if own is None:
        return samples
    if isinstance(own, bool) or not isinstance(own, int) or own < 1:
        raise DataError(f"probe {getattr(probe, 'probe_id', probe)!r} asks for {own!r} samples; a probe's own "
                        "number of samples must be a whole number of at least 1.")
    return own


def default_run_dir(model_name: str) -> Path:
    return Path("runs") / slug(model_name)


def _check_same_run(old: RunManifest | None, new: RunManifest, run_dir: Path) -> None:
    """A run's settings and catalog are its identity: continuing with others is refused."""
    if old is None:
        return
    if old.study != new.study:
        from stereoprobe.occupations import article_for

        raise DataError(
            f"{run_dir} holds {article_for(old.study)} {old.study} run, not {article_for(new.study)} {new.study} one; "
            f"pass --out NEW_DIR for the {new.study} study."
        )
    was, made = old.design or DEFAULT_DESIGN, new.design or DEFAULT_DESIGN
    if was != made:
        raise DataError(f"{run_dir} holds a run of the {was} design, not the {made} one; pass --design {was} to "
                        f"continue it, or --out NEW_DIR for a run of the {made} design.")
    before, now = old.settings.identity(), new.settings.identity()
    if before.get("options.model_sha256") != now.get("options.model_sha256") and before.get("options.model_sha256"):
        was, made = old.settings.options, new.settings.options
        raise DataError(
            f"{run_dir} holds a run of model file {was.get('model_file')} (sha256 {str(was.get('model_sha256'))[:12]}...), "
            f"not {made.get('model_file') or new.settings.model} ({str(made.get('model_sha256') or 'no file')[:12]}...); "
            "pass --out NEW_DIR for a run of this model, or give the run's own file to continue it."
        )
    diff = [f"{_setting(k)} {_shown(before.get(k))} in the run, {_shown(now.get(k))} now"
            for k in sorted(set(before) | set(now)) if before.get(k) != now.get(k)]
    if old.catalog and new.catalog and old.catalog.identity() != new.catalog.identity():
        same_family = old.catalog.template_family == new.catalog.template_family
        diff.append("another catalog" if same_family else "another template family")
    if diff:
        raise DataError(
            f"{run_dir} holds a run with other settings ({'; '.join(diff)}); "
            "pass --out NEW_DIR for a new run, or repeat the original settings to continue it."
        )


def _setting(key: str) -> str:
    """A setting's name as a user knows it: ``options.samples_per_request`` -> samples per request."""
    return key.removeprefix("options.").replace("_", " ")


def _shown(value: Any) -> str:
    """A setting's value in a message: text as written (cut at 40 characters), none as "none"."""
    text = "none" if value is None else str(value)
    return text if len(text) <= 40 else text[:39] + "…"


def collect(
    probes: Sequence[Probe],
    backend: Backend,
    out: str | Path,
    *,
    samples: int = 1,
    retry_failed: bool = False,
    concurrency: int | None = None,
    progress: bool = True,
    study: StudyRun,
) -> CollectResult:
    """Ask `backend` every probe `samples` times and store the answers in `out`.

    Probes already answered in `out` are not asked again; failed ones only with
    `retry_failed`. Returns counts for this call and for the whole run directory.
    A probe that carries its own ``samples`` is asked that many times instead (:func:`samples_of`).
    ``study``: how the study asks a probe and records the answer (its ``StudyRun``).
    """
    if samples < 1:
        raise DataError(f"--samples must be at least 1, not {samples}.")
    from stereoprobe.suite.record import FILE as SUITE

    if (Path(out) / SUITE).is_file():  # its answers would sit beside the suite's, in no study's folder
        raise DataError(f"{out} is a suite's folder: collect into a new --out, or continue the suite with "
                        f"`stereoprobe suite --out {out}`.")
    from stereoprobe.batch import active

    if active() is not None:  # --batch, --batch-file, ingest: the same run, asked as a batch
        from stereoprobe.batch.run import collect_batch

        return collect_batch(active(), probes, backend, out, samples=samples, retry_failed=retry_failed,
                             study=study, progress=progress)
    store = RunStore(out, study.record)
    new_dir = not store.dir.exists()
    with _ctrl_c_stops_the_run() as interrupted:
        store.lock()
        try:
            old = read_manifest(store.dir)
            manifest = _manifest(old, backend, samples, study)
            _check_same_run(old, manifest, store.dir)
            existing = store.open()
            asked = [(p, s) for p in probes for s in range(samples_of(p, samples))]  # the design, in order
            design = [(p.probe_id, s) for p, s in asked]  # the run is compacted in this order
            todo = [(p, s) for p, s in asked
                    if (p.probe_id, s) not in existing or (retry_failed and existing[(p.probe_id, s)].status == "failed")]
            wanted = len(design)
            result = CollectResult(run_dir=store.dir, asked=0, skipped=wanted - len(todo),
                                   score_command=study.score_command)
            write_manifest(store.dir, manifest)
            if hasattr(backend, "plan"):  # it asks several samples per request: the missing ones only
                backend.plan(todo)
            try:
                _run(todo, backend, store, result, concurrency or backend.max_concurrency, progress, interrupted,
                     study.ask)
            except BackendError:
                if old is None and not existing and not result.counts.keys() - {"failed"}:
                    store.close()  # nothing answered: the directory is not bound to these settings
                    _unbind(store, new_dir)
                    raise
                _cleanup(store, manifest, result, "stopped", design)
                raise
            except BaseException:
                _cleanup(store, manifest, result, "stopped", design)
                raise
            _cleanup(store, manifest, result, "complete" if result.asked == len(todo) else "stopped", design)
        finally:
            store.close()
            store.unlock()
    return result


def _unbind(store: RunStore, new_dir: bool) -> None:
    """Remove what a run that got no answer created, so the next one starts afresh."""
    store.path.unlink(missing_ok=True)
    store.manifest_path.unlink(missing_ok=True)
    if new_dir:
        store.unlock()
        (store.dir / ".lock").unlink(missing_ok=True)
        with contextlib.suppress(OSError):
            store.dir.rmdir()


@contextlib.contextmanager
def _ctrl_c_stops_the_run() -> Iterator[threading.Event]:
    """Ctrl-C (or SIGTERM, as `kill` sends) during a run sets the event this yields instead
    of raising KeyboardInterrupt, or ending the process, wherever the main thread happens to
    be (inside a write, the HTTP client's lock, the `finally` that stores the last answers).
    The run sees it within 0.1 s, stops asking, stores every answer received and puts its
    files in order; only then is the signal passed on: a Ctrl-C to the handler that was
    there before (Python's raises KeyboardInterrupt), a SIGTERM to the default, which ends
    the process. A second signal meanwhile changes nothing.

    Only in the main thread (where Python runs signal handlers); SIGINT only when it has a
    Python handler and SIGTERM only when it has the default: an ignored SIGINT stays
    ignored (a job a script starts in the background with `&` inherits it, by POSIX;
    `kill` stops such a run, in order).
    """
    interrupted = threading.Event()
    handlers: dict[int, Any] = {}
    if threading.current_thread() is threading.main_thread():
        if callable(signal.getsignal(signal.SIGINT)):
            handlers[signal.SIGINT] = signal.getsignal(signal.SIGINT)
        if signal.getsignal(signal.SIGTERM) == signal.SIG_DFL:
            handlers[signal.SIGTERM] = signal.SIG_DFL
    got: list[tuple[int, Any]] = []

    def stop(signum: int, where: Any) -> None:
        if not interrupted.is_set():
            got.append((signum, where))
            interrupted.set()

    for signum in handlers:
        signal.signal(signum, stop)
    try:
        yield interrupted
    finally:
        for signum, handler in handlers.items():
            signal.signal(signum, handler)
    if got:  # not reached when the run raised: its error wins
        signum, where = got[0]
        if callable(handlers[signum]):
            handlers[signum](signum, where)
        else:  # the default action, now that the run's files are in order
            os.kill(os.getpid(), signum)

def _cleanup(store: RunStore, manifest: RunManifest, result: CollectResult, status: str,
             design: Sequence[tuple[str, int]]) -> None:
    """Compact in the design's order (``design``: its keys) and finish the manifest; on a full
    disk leave both as they are (the manifest's "running" is read as "stopped" once the lock
    is free)."""
    store.close()  # nothing is appended after this
    with contextlib.suppress(OSError, DataError):
        store.compact(design)
        _finish(store, manifest, result, status)


def _manifest(old: RunManifest | None, backend: Backend, samples: int, study: StudyRun) -> RunManifest:
    settings = BackendSettings.from_describe({**backend.describe(), "mode": backend.mode, "samples": samples})
    info = study.catalog_info(old.catalog if old else None) if callable(study.catalog_info) else study.catalog_info
    return RunManifest(
        settings=settings,
        catalog=info,
        study=study.name,
        status="running",
        stereoprobe_version=__version__,
        created_at=(old.created_at if old else None) or now_iso(),
        started_at=now_iso(),
        # a run continued keeps the version its stored records were read with until `reparse`
        # reads them all again: the manifest never claims a reading its older records did not get
        parser_version=old.parser_version if old is not None and any(old.counts.values()) else study.parser_version,
        counts=old.counts if old else {},
        sessions=old.sessions if old else (),
        batch=old.batch if old else None,
        design=study.design or DEFAULT_DESIGN,
    )


def _finish(store: RunStore, manifest: RunManifest, result: CollectResult, status: str,
            records: list | None = None) -> None:
    """The manifest's counts and this session; ``records``: the run's records, when the
    caller holds them all already (else read back)."""
    from dataclasses import replace

    from stereoprobe.store import read_completions

    if records is None:
        records = read_completions(store.path, store.record) if store.path.exists() else []
    result.totals = Counter(r.status for r in records)
    if manifest.study == "fill-in" and manifest.mode == "next-word":
        from stereoprobe.backends.nextword import short_reasons

        result.short = short_reasons(records)
    finished = now_iso()
    session = {
        "started_at": manifest.started_at,
        "finished_at": finished,
        "asked": result.asked,
        "status": status,
        **{s: result.counts.get(s, 0) for s in STATUSES},
    }
    write_manifest(store.dir, replace(
        manifest,
        status=status,
        finished_at=finished,
        counts={s: result.totals.get(s, 0) for s in STATUSES} | {"records": len(records)},
        sessions=(*manifest.sessions, session),
    ))


def is_timeout(exc: BaseException) -> bool:
    """A request that timed out: TimeoutError, or a client's own timeout class (openai's)."""
    return isinstance(exc, TimeoutError) or "Timeout" in type(exc).__name__


def endpoint_of(backend: Backend) -> str:
    return str(backend.describe().get("endpoint") or "the endpoint")


def _run(
    todo: list[tuple[Probe, int]],
    backend: Backend,
    store: RunStore,
    result: CollectResult,
    concurrency: int,
    progress: bool,
    interrupted: threading.Event,
    ask: Any,
) -> None:
    """Ask `todo` on daemon worker threads; only this thread writes to the store.

    When `interrupted` is set (Ctrl-C) or a fatal error comes, the run stops at once:
    answers already received are stored, requests in flight are abandoned (their daemon
    threads never delay the exit). A hung endpoint, whose first requests time out before
    anything succeeded, stops the run with a BackendError; later timeouts stay per-probe
    failures.
    """
    if not todo or interrupted.is_set():
        return
    from stereoprobe.progress import progress_bar

    bar = progress_bar(len(todo), progress)
    answered = False

    def keep(item: tuple[Completion, bool]) -> None:
        nonlocal answered
        rec, timed_out = item
        store.append(rec)
        result.asked += 1
        result.counts[rec.status] += 1
        bar.update(1)
        bar.set_postfix({s: result.counts.get(s, 0) for s in STATUSES}, refresh=False)
        answered = answered or rec.status != "failed"
        if timed_out and not answered:
            raise BackendError(
                f"{endpoint_of(backend)} answered nothing before timing out ({rec.error}); "
                "check that the server is up and serving --model, or raise --timeout."
            )

    items: queue.SimpleQueue = queue.SimpleQueue()
    for item in todo:
        items.put(item)
    results: queue.SimpleQueue = queue.SimpleQueue()
    stop = threading.Event()

    def work(preflight: bool) -> None:
        while not stop.is_set():
            try:
                probe, sample = items.get_nowait()
            except queue.Empty:
                return
            try:
                results.put(ask(backend, probe, sample, preflight))
            except BaseException as exc:  # handed to the main thread
                results.put(exc)
            if preflight:
                return

    def start(threads: int, preflight: bool = False) -> None:
        for _ in range(threads):
            threading.Thread(target=work, args=(preflight,), daemon=True, name="stereoprobe-ask").start()

    # Preflight: the first probe alone, so a wrong key or URL stops the run at once. It is
    # asked on a worker too: this thread only waits, so it sees a Ctrl-C at once.
    start(1, preflight=True)
    remaining = len(todo)
    try:
        while remaining and not interrupted.is_set():
            try:
                out = results.get(timeout=0.1)  # short waits: a Ctrl-C is seen within 0.1 s
            except queue.Empty:
                continue
            remaining -= 1
            if isinstance(out, BaseException):
                raise out
            keep(out)
            if remaining == len(todo) - 1:  # the preflight was answered: the rest in parallel
                start(max(1, min(concurrency, backend.max_concurrency, remaining)) if remaining else 0)
    finally:
        stop.set()
        _keep_received(results, keep)
        bar.close()


def _keep_received(results: queue.SimpleQueue, keep: Any) -> None:
    """Store the answers that arrived but were not stored yet (the run is stopping)."""
    with contextlib.suppress(Exception):
        while True:
            out = results.get_nowait()
            if not isinstance(out, BaseException):
                keep(out)
