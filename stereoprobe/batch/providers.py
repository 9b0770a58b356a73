"""--batch openai|anthropic: split, submit, poll, store; and what a batch would cost.

The requests not stored yet (and not in a batch under way) are split at the provider's
limits (``clients.LIMITS``, or ``--batch-limit``), each part written to
``RUN_DIR/batch/<provider>-<n>.jsonl`` and submitted; the batch id goes into the manifest
at once, so a run stopped at any point (Ctrl-C, kill -9) resumes by polling it and never
submits a probe twice. A batch that has ended is downloaded next to its input
(``.out.jsonl``), checked and stored as the study's records (``run.store_results``);
a request without a result (expired, cancelled, a batch that failed) is stored as that
probe's failure, which ``--retry-failed`` asks again in a new batch.

Ctrl-C while polling stops the polling, not the batches (``stereoprobe batch cancel``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterable, Iterator

from stereoprobe.batch import BATCH_PRICE
from stereoprobe.batch.clients import LIMITS, make_client
from stereoprobe.batch.files import Result, check_results, iter_results
from stereoprobe.batch.seam import owner
from stereoprobe.errors import DataError
from stereoprobe.page.numbers import counted
from stereoprobe.store import now_iso


def limits(provider: str, limit: int | None) -> tuple[int, int]:
    requests, size = LIMITS[provider]
    return (min(requests, limit) if limit else requests), size


def split(records: Iterable[tuple[str, str]], max_requests: int, max_bytes: int) -> Iterator[list[tuple[str, str]]]:
    """Records' request lines in parts of at most ``max_requests`` lines and ``max_bytes``
    bytes, a record's lines in one part.

    >>> [len(p) for p in split([(str(i), "x" * 9 + "\\n") for i in range(7)], 3, 25)]
    [2, 2, 2, 1]
    >>> [len(p) for p in split([(str(i), "x\\ny\\n") for i in range(5)], 5, 100)]
    [2, 2, 1]
    """
    part: list[tuple[str, str]] = []
    size = count = 0
    for cid, text in records:
        n, lines = len(text.encode("utf-8")), text.count("\n")
        if part and (count + lines > max_requests or size + n > max_bytes):
            yield part
            part, size, count = [], 0, 0
        part.append((cid, text))
        size += n
        count += lines
    if part:
        yield part


def refuse(provider: str, job: Any) -> None:
    """What a provider cannot carry, refused in one line."""
    if provider == "anthropic" and job.multi:
        raise DataError("Anthropic's Message Batches carry Messages requests, not the completions with echoed "
                        "logprobs that --mode next-word scores; use --batch openai or --batch-file (vllm run-batch).")
    if provider == "anthropic" and getattr(owner(job.backend), "estimate", None) == "first-token":
        raise DataError("Anthropic's API returns no log-probabilities, which the first-token estimate reads; "
                        "use --samples K --temperature T (the sampled estimate), or --batch openai.")


def submit_and_poll(job: Any, spec: Any, store: Any, existing: dict, manifest: Any, result: Any,
                    retry_failed: bool, progress: bool, interrupted: Any) -> str:
    """The run's batches: submit what is not asked yet, poll, store what has ended."""
    state = manifest.batch
    if state.get("provider") not in (None, spec.provider):
        raise DataError(f"{store.dir} holds {state['provider']} batches; continue it with --batch {state['provider']}, "
                        "or pass --out NEW_DIR.")
    state["provider"] = spec.provider
    batches = state.setdefault("batches", [])
    client = job.client
    pending = open_requests(job, store.dir, state)
    todo = job.todo(existing, retry_failed, pending)
    result.skipped = len(job.index) - len(todo) - len(pending)
    if todo:
        _submit(job, spec, client, store, manifest, todo)
    _poll(job, spec, client, store, existing, manifest, result, progress, interrupted)
    open_ = [b for b in batches if not b["done"]]
    if open_:
        some = "1 batch goes" if len(open_) == 1 else f"{len(open_)} batches go"
        result.lines.append(f"{some} on at {spec.provider}; run the same command again to store "
                            f"their answers, or `stereoprobe batch cancel {store.dir}`.")
        result.next_line = "Next: the same command again, once the batches have ended (within 24 h)."
        return "stopped"
    return "complete" if all((p.probe_id, s) in existing for p, s in job.index.values()) else "stopped"


def _submit(job: Any, spec: Any, client: Any, store: Any, manifest: Any, todo: list[str]) -> None:
    from stereoprobe.manifest import write_manifest

    batches = manifest.batch["batches"]
    folder = store.dir / "batch"
    folder.mkdir(exist_ok=True)
    for part in split(job.lines(todo), *limits(spec.provider, spec.limit)):
        name = f"{spec.provider}-{len(batches)}.jsonl"
        text = "".join(lines for _, lines in part)
        (folder / name).write_text(text, encoding="utf-8")
        url = json.loads(text[: text.index("\n")])["url"]
        batch_id = client.submit(folder / name, url, store.dir.name)
        batches.append({"id": batch_id, "input": f"batch/{name}", "requests": text.count("\n"), "submitted_at": now_iso(),
                        "status": "submitted", "done": False})
        write_manifest(store.dir, manifest)  # the id is kept before anything else happens


def _poll(job: Any, spec: Any, client: Any, store: Any, existing: dict, manifest: Any, result: Any,
          progress: bool, interrupted: Any) -> None:
    from stereoprobe.manifest import write_manifest
    from stereoprobe.progress import progress_bar

    open_ = [b for b in manifest.batch["batches"] if not b["done"]]
    if not open_:
        return
    bar = progress_bar(sum(b["requests"] for b in open_), progress, unit="request")
    shown: dict[str, int] = {}
    try:
        while open_ and not interrupted.is_set():
            for b in list(open_):
                status = client.status(b["id"])
                b["status"] = status.state
                bar.update(max(0, status.done - shown.get(b["id"], 0)))
                shown[b["id"]] = max(status.done, shown.get(b["id"], 0))
                if status.ended:
                    _store_batch(job, client, store, existing, manifest, result, b, status)
                    b["done"] = True
                    open_.remove(b)
                write_manifest(store.dir, manifest)
            if open_ and interrupted.wait(spec.poll_interval):
                break
    finally:
        bar.close()


def _store_batch(job: Any, client: Any, store: Any, existing: dict, manifest: Any, result: Any, b: dict,
                 status: Any) -> None:
    """An ended batch's results stored; its requests without one are failures."""
    from stereoprobe.batch.run import store_results

    asked = set(_ids(store.dir / b["input"], b.get("id")))
    job.note_parts(asked)
    out = store.dir / b["input"].replace(".jsonl", ".out.jsonl")
    client.download(b["id"], out)
    # the run's own batch: its replies are of the model asked, whatever name the provider gives it (an alias's
    # dated model: claude-sonnet-4-0 replies as claude-sonnet-4-20250514); a refusal would stop every run again
    lines = check_results(out, asked, None)
    store_results(job, store, existing, result, iter_results(out), False, lines)
    answered = {r.custom_id for r in iter_results(out)}
    why = f"batch: the batch {status.state} before this request ran" + (f" ({status.detail})" if status.detail else "")
    missing = [Result(0, cid, None, why) for cid in sorted(asked - answered)]
    store_results(job, store, existing, result, missing, False, len(missing))


def open_requests(job: Any, run_dir: Path, state: dict) -> set[str]:
    """The records' custom_ids in the run's provider batches that have not ended."""
    return {job.record_of(i)[0] for b in state.get("batches") or [] if not b["done"]
            for i in _ids(run_dir / b["input"], b.get("id"))}


def _ids(path: Path, batch: str | None = None) -> list[str]:
    """The custom_ids of a request file the run wrote (a missing or damaged one: one line)."""
    try:
        with path.open(encoding="utf-8") as f:
            return [json.loads(line)["custom_id"] for line in f if line.strip()]
    except (OSError, ValueError, KeyError, TypeError):
        raise DataError(f"{path}, the requests of batch {batch or '?'} (its answers not stored yet), is missing or "
                        "damaged; restore it from a copy of the run directory: without it the run cannot tell which "
                        "of its probes the batch holds.") from None


def cancel_batches(run_dir: Path, options: dict) -> list[str]:
    """Cancel the run's batches under way; lines to print."""
    from stereoprobe.manifest import read_manifest

    state = read_manifest(run_dir).batch or {}
    if not state.get("provider"):
        raise DataError(f"{run_dir} wrote a request file (--batch-file), submitted nothing: nothing to cancel.")
    client = make_client(state["provider"], options)
    open_ = [b for b in state.get("batches", []) if not b["done"]]
    lines = [f"Batch {b['id']} ({counted(b['requests'], 'request')}): {client.cancel(b['id'])}." for b in open_]
    if not open_:
        return [f"No batch of {run_dir} is under way; nothing to cancel."]
    return [*lines, "Next: the same collect command stores what they answered (the rest as failed; "
                    "--retry-failed asks those again)."]


def dry_run(job: Any, spec: Any, out: Path, backend: Any) -> Any:
    """Requests, batches, tokens and the cost at the batch price (half the live price); asks nothing."""
    from stereoprobe.batch.run import BatchResult
    from stereoprobe.store import read_completions

    refuse(spec.provider, job)
    stored = {}
    if (out / "completions.jsonl").is_file():  # a run under way: what is not stored yet
        stored = {r.key: r for r in read_completions(out, job.record)}
    todo = job.todo(stored, False)
    prompt_tokens = completion_max = size = parts = requests = 0
    for part in split(job.lines(todo), *limits(spec.provider, spec.limit)):
        parts += 1
        for line in (x for _, text in part for x in text.splitlines(keepends=True)):
            body = json.loads(line)["body"]
            prompt_tokens += sum(-(-len(str(m.get("content") or "")) // 4) + 7 for m in body.get("messages", []))
            prompt_tokens += -(-len(str(body.get("prompt") or "")) // 4)
            completion_max += int(body.get("max_tokens") or body.get("max_completion_tokens") or 0)
            size += len(line.encode("utf-8"))
            requests += 1
    per_batch, most = limits(spec.provider, spec.limit)
    text = (f"{counted(requests, 'request')} in {parts} {spec.provider} batch{'es' if parts != 1 else ''} (at most "
            f"{per_batch:,} requests and {most // 2**20} MB each; {size / 2**20:.1f} MB in all); about "
            f"{prompt_tokens:,} prompt tokens, at most {completion_max:,} completion tokens")
    if spec.price_in is not None or spec.price_out is not None:
        cost = (prompt_tokens * (spec.price_in or 0) + completion_max * (spec.price_out or 0)) / 1e6 * BATCH_PRICE
        text += f"; at most {cost:.4f} at the batch price (half the given prices per million tokens)"
    return BatchResult(run_dir=out, asked=0, kind="dry-run", lines=[text + ". Nothing was asked (--dry-run)."],
                       next_line="Next: the same command without --dry-run submits them.")

