"""A batch step of a collect run: write the request file, ingest results, or submit and poll.

``collect.collect`` hands a run here while a ``batch.using(spec)`` is open. What a live
run guarantees holds: the run directory's lock, its identity (the same settings and
catalog), records appended as they are stored and compacted at the end, the manifest's
sessions and counts. The manifest's ``batch`` holds the batch state: the collect command's
options (so ``ingest`` and ``batch cancel`` need only RUN_DIR), the request files written,
the results files ingested, and each provider batch (id, its input file in RUN_DIR/batch/,
whether its results are stored).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Iterable, Sequence

from stereoprobe.batch import PROVIDERS, BatchSpec, custom_id
from stereoprobe.batch.files import Result, check_results, iter_results, request_line
from stereoprobe.collect import CollectResult
from stereoprobe.errors import DataError
from stereoprobe.page.numbers import counted
from stereoprobe.store import now_iso


@dataclass
class BatchResult(CollectResult):
    """What a batch step did, in lines for the terminal (``asked``: records stored)."""

    kind: str = "file"
    incomplete: int = 0  # probes of several requests whose results were not all there
    lines: list[str] = field(default_factory=list)
    next_line: str = ""
    show_next: bool = True  # False: a step whose next step the command after it says

    def summary(self) -> str:
        now = ", ".join(f"{self.counts.get(s, 0)} {s}" for s in ("ok", "refused", "unparseable", "failed"))
        total = ", ".join(f"{self.totals.get(s, 0)} {s}" for s in ("ok", "refused", "unparseable", "failed"))
        stored = (f"Stored {counted(self.asked, 'answer')} ({now}); {self.skipped} already stored. Run {self.run_dir}: {total}."
                  if self.kind not in ("file", "dry-run", "refresh") else "")
        return "\n".join([*self.lines, stored]).strip()

    def next_step(self) -> str:
        return (self.next_line or super().next_step()) if self.show_next else ""


@dataclass
class Job:
    """The run's probes by custom_id, the study's ask and the backend (its client seam).

    In chat mode a probe is one request, its custom_id the record's key; where a probe is
    several independent requests (the logprob scorers: one per continuation), each line's
    custom_id is the key and the request's number (``<probe_id>-<sample>-<i>``)."""

    backend: Any
    ask: Any
    record: type
    index: dict[str, tuple[Any, int]]
    multi: bool = False
    parts: dict[str, int] = field(default_factory=dict)  # multi: requests per record
    client: Any = None  # --batch: the provider's batch client

    def keys(self) -> list[tuple[str, int]]:
        """The run's keys in the design's order (a run is compacted in it)."""
        return list(dict.fromkeys((probe.probe_id, sample) for probe, sample in self.index.values()))

    def todo(self, existing: dict, retry_failed: bool, pending: set[str] = frozenset()) -> list[str]:
        """custom_ids to ask: not stored (or stored as failed, with --retry-failed), not in a batch under way."""
        out = []
        for cid, (probe, sample) in self.index.items():
            old = existing.get((probe.probe_id, sample))
            if cid not in pending and (old is None or (retry_failed and old.status == "failed")):
                out.append(cid)
        return out

    def record_of(self, line_id: str) -> tuple[str, int]:
        """The record's custom_id and the request's number of a line's custom_id."""
        if not self.multi:
            return line_id, 0
        cid, _, number = line_id.rpartition("-")
        return cid, int(number) if number.isdigit() else -1

    def note_parts(self, line_ids: Iterable[str]) -> None:
        counts: dict[str, int] = {}
        for line_id in line_ids:
            cid = self.record_of(line_id)[0]
            counts[cid] = counts.get(cid, 0) + 1
        self.parts.update(counts)

    def lines(self, cids: Iterable[str]) -> Iterable[tuple[str, str]]:
        """(custom_id, its request lines) for each record, built by the live ask (batch/seam.py)."""
        from stereoprobe.batch.seam import Capture

        with Capture(self.backend) as capture:
            for cid in cids:
                probe, sample = self.index[cid]
                parts = capture.request(self.ask, probe, sample)
                self.parts[cid] = len(parts)
                yield cid, "".join(request_line(f"{cid}-{i}" if self.multi else cid, url, body)
                                   for i, (url, body) in enumerate(parts))

    def asked(self) -> set[str]:
        """Every line's custom_id the run's requests have."""
        if not self.multi:
            return set(self.index)
        return {json.loads(line)["custom_id"] for _, text in self.lines(self.index) for line in text.splitlines()}


def collect_batch(spec: BatchSpec, probes: Sequence[Any], backend: Any, out: str | Path, *, samples: int,
                  retry_failed: bool, study: Any, progress: bool) -> CollectResult:
    """The batch step ``spec`` of the run in ``out`` (called by ``collect.collect``)."""
    from stereoprobe import collect as live
    from stereoprobe.batch.seam import check_batchable
    from stereoprobe.manifest import read_manifest
    from stereoprobe.store import RunStore

    check_batchable(backend)
    from stereoprobe.batch.seam import several

    job = Job(backend, study.ask, study.record,
              {custom_id(p.probe_id, s): (p, s) for p in probes for s in range(live.samples_of(p, samples))},
              multi=several(backend))
    if spec.kind == "dry-run":
        from stereoprobe.batch.providers import dry_run

        return dry_run(job, spec, Path(out), backend)
    if spec.kind == "file" and spec.path.exists():
        raise DataError(f"{spec.path} exists; give --batch-file a new path (a request file is never overwritten).")
    if spec.kind == "file" and not spec.path.parent.is_dir():
        raise DataError(f"{spec.path.parent} is not a folder; give --batch-file a path in an existing folder.")
    if spec.kind in PROVIDERS:  # refused, or no key: before the run directory exists
        from stereoprobe.batch.clients import make_client
        from stereoprobe.batch.providers import refuse

        refuse(spec.kind, job)
        job.client = make_client(spec.kind, spec.options)
    store = RunStore(out, job.record)
    with live._ctrl_c_stops_the_run() as interrupted:
        store.lock()
        try:
            old = read_manifest(store.dir)
            manifest = live._manifest(old, backend, samples, study)
            live._check_same_run(old, manifest, store.dir)
            existing = store.open()
            result = BatchResult(run_dir=store.dir, asked=0, kind=spec.kind, show_next=spec.show_next,
                                 score_command=study.score_command)
            state = dict(old.batch or {}) if old else {}
            state["options"] = dict(spec.options) or state.get("options", {})
            step = _STEPS[spec.kind if spec.kind in _STEPS else "provider"]
            try:
                status = step(job, spec, store, existing, replace(manifest, batch=state), result, retry_failed,
                              progress, interrupted)
            except BaseException:
                if result.asked or spec.kind != "ingest":
                    live._cleanup(store, replace(manifest, batch=state), result, "stopped", job.keys())
                raise
            _finish(store, replace(manifest, batch=state), result, status, existing, job.keys())
        finally:
            store.close()
            store.unlock()
    return result


def _finish(store: Any, manifest: Any, result: BatchResult, status: str, existing: dict,
            design: Sequence[tuple[str, int]]) -> None:
    """As a live run ends (``collect._cleanup``), from the records held: compacted in the
    design's order (results come in the provider's order), the run read back no more."""
    from stereoprobe import collect as live

    store.close()
    store.compact(design)
    live._finish(store, manifest, result, status, records=list(existing.values()))


def _write_file(job: Job, spec: BatchSpec, store: Any, existing: dict, manifest: Any, result: BatchResult,
                retry_failed: bool, progress: bool, interrupted: Any) -> str:
    """--batch-file: the requests not stored yet, in OpenAI's input format; the run waits for them."""
    from stereoprobe.batch.providers import open_requests

    path = Path(spec.path)
    pending = open_requests(job, store.dir, manifest.batch)  # asked already: written again, they would cost twice
    todo = job.todo(existing, retry_failed, pending)
    result.skipped = len(job.index) - len(todo) - len(pending)
    held = (f"{counted(len(pending), 'request')} in {manifest.batch.get('provider')} batches not ended yet "
            f"{'is' if len(pending) == 1 else 'are'} not written (the same --batch command stores their answers; to write "
            f"them here instead: `stereoprobe batch cancel {store.dir}`, that command, then this one with --retry-failed)"
            ) if pending else ""
    if not todo:
        result.lines = [f"Every request of {store.dir} is answered; no file written." if not pending else
                        f"No file written: every request of {store.dir} not answered yet is in a batch; {held}."]
        return "stopped" if pending else "complete"
    part = path.with_name(path.name + ".part")
    try:
        with part.open("w", encoding="utf-8") as f:
            written = 0
            for _, lines in job.lines(todo):
                f.write(lines)
                written += lines.count("\n")
        os.replace(part, path)
    except OSError as exc:
        part.unlink(missing_ok=True)
        raise DataError(f"Cannot write {path} ({exc.strerror}); give --batch-file a writable path.") from None
    manifest.batch.setdefault("files", []).append({"path": str(path), "requests": written, "probes": len(todo),
                                                    "written_at": now_iso(), "options": dict(spec.options)})
    many = f" for {counted(len(todo), 'probe')}" if written != len(todo) else ""
    result.lines = [f"Wrote {counted(written, 'request')}{many} to {path} (OpenAI batch format; {result.skipped:,} already "
                    f"answered). Nothing was asked."] + ([held[0].upper() + held[1:] + "."] if held else [])
    result.next_line = (f"Next: run them (e.g. `vllm run-batch -i {path} -o results.jsonl --model "
                        f"{manifest.settings.model}`), then `stereoprobe ingest {store.dir} results.jsonl`.")
    return "stopped"


def _ingest(job: Job, spec: BatchSpec, store: Any, existing: dict, manifest: Any, result: BatchResult,
            retry_failed: bool, progress: bool, interrupted: Any) -> str:
    """stereoprobe ingest: a whole results file checked, then stored."""
    path = Path(spec.path)
    lines = check_results(path, job.asked(), manifest.settings.model, spec.reply_model)
    if not lines:
        raise DataError(f"{path} holds no results (not one line); give the output file the batch wrote "
                        "(nothing was stored).")
    store_results(job, store, existing, result, iter_results(path), progress, lines)
    manifest.batch.setdefault("ingested", []).append({"path": str(path), "lines": lines, "stored": result.asked,
                                                       "at": now_iso()} | ({"reply_model": spec.reply_model}
                                                                           if spec.reply_model else {}))
    result.lines = [f"Read {counted(lines, 'result')} from {path}."]
    if result.incomplete:
        one = result.incomplete == 1
        result.lines.append(f"{result.incomplete:,} {'probe has' if one else 'probes have'} results for only some of "
                            f"{'its' if one else 'their'} requests; {'it is' if one else 'they are'} not stored: give "
                            "all of a probe's results in one file (join the files: cat A.jsonl B.jsonl > ALL.jsonl).")
    result.next_line = _after_ingest(job, existing, store.dir, result.score_command)
    return "complete" if all((p.probe_id, s) in existing for p, s in job.index.values()) else "stopped"


def _refresh(job: Job, spec: BatchSpec, store: Any, existing: dict, manifest: Any, result: BatchResult,
             retry_failed: bool, progress: bool, interrupted: Any) -> str:
    """After results of an earlier request file were ingested (their options other than the
    last ones): the run's status and next step by its last options, nothing stored."""
    result.next_line = _after_ingest(job, existing, store.dir, result.score_command)
    return "complete" if all((p.probe_id, s) in existing for p, s in job.index.values()) else "stopped"


def _after_ingest(job: Job, existing: dict, run_dir: Path, score: str) -> str:
    """The next step after an ingest: more results, the requests written again, or the score
    ("" when every probe is answered: the score, as a live run says it)."""
    keys = job.keys()
    missing = sum(key not in existing for key in keys)
    failed = sum(key in existing and existing[key].status == "failed" for key in keys)
    if missing:
        again = ("the collect command that wrote the requests, with --retry-failed --batch-file NEW.jsonl, writes "
                 f"them and the {counted(failed, 'failed probe')} again") if failed else \
            "the collect command that wrote the requests, with --batch-file NEW.jsonl, writes them again"
        return (f"Next: `stereoprobe ingest {run_dir} MORE.jsonl` with the results of the "
                f"{counted(missing, 'probe')} not answered yet, or {again}.")
    if failed:
        return ("Next: the collect command that wrote the requests, with --retry-failed --batch-file NEW.jsonl, "
                f"writes the {counted(failed, 'failed probe')} again (then ingest its results), or "
                f"`stereoprobe {score} {run_dir}` scores the run without {'it' if failed == 1 else 'them'}.")
    return ""


def store_results(job: Job, store: Any, existing: dict, result: BatchResult, results: Iterable[Result],
                  progress: bool, total: int) -> None:
    """Each record's results as the study's record, made by the live ask from the stored
    replies (once all its requests' results are read); a key already stored (not failed)
    is left as it is."""
    from stereoprobe.batch.seam import Replay
    from stereoprobe.progress import progress_bar

    bar = progress_bar(total, progress, unit="result")
    waiting: dict[str, dict[int, Any]] = {}
    try:
        with Replay(job.backend) as replay:
            for r in results:
                bar.update(1)
                cid, number = job.record_of(r.custom_id)
                got = waiting.setdefault(cid, {})
                got[number] = r.body if r.body is not None else str(r.error)
                if len(got) < job.parts.get(cid, 1):
                    continue
                del waiting[cid]
                _store_one(job, replay, store, existing, result, cid, [got[i] for i in sorted(got)])
    finally:
        bar.close()
    result.incomplete = len(waiting)


def _store_one(job: Job, replay: Any, store: Any, existing: dict, result: BatchResult, cid: str,
               replies: list) -> None:
    probe, sample = job.index[cid]
    old = existing.get((probe.probe_id, sample))
    if old is not None and old.status != "failed":
        result.skipped += 1
        return
    record = replay.record(job.ask, probe, sample, replies)
    store.append(record)
    existing[record.key] = record
    result.asked += 1
    result.counts[record.status] += 1


def _provider(job: Job, spec: BatchSpec, store: Any, existing: dict, manifest: Any, result: BatchResult,
              retry_failed: bool, progress: bool, interrupted: Any) -> str:
    from stereoprobe.batch.providers import submit_and_poll

    return submit_and_poll(job, spec, store, existing, manifest, result, retry_failed, progress, interrupted)


_STEPS = {"file": _write_file, "ingest": _ingest, "refresh": _refresh, "provider": _provider}

