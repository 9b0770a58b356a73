"""Drive a backend over probes: resume, bounded concurrency, progress, counts, manifest."""

from __future__ import annotations

import re
import time
from collections import Counter
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Sequence

from stereoprobe import __version__
from stereoprobe.backends.base import Backend
from stereoprobe.catalog import Catalog
from stereoprobe.errors import BackendError, DataError
from stereoprobe.records import Completion, Probe
from stereoprobe.store import RunStore, now_iso

STATUSES = ("ok", "refused", "unparseable", "failed")
# Settings that may change between sessions of one run without changing its answers.
VOLATILE = {"timeout_s", "max_retries", "n_threads", "workers", "llama_cpp_python"}


@dataclass
class CollectResult:
    run_dir: Path
    asked: int  # requests made by this call
    counts: Counter = field(default_factory=Counter)  # this call: ok/refused/unparseable/failed
    totals: Counter = field(default_factory=Counter)  # whole run directory
    skipped: int = 0  # already answered, not asked again

    def summary(self) -> str:
        now = ", ".join(f"{self.counts.get(s, 0)} {s}" for s in STATUSES)
        total = ", ".join(f"{self.totals.get(s, 0)} {s}" for s in STATUSES)
        return (
            f"Asked {self.asked} ({now}); {self.skipped} already answered. "
            f"Run {self.run_dir}: {total}."
        )


def slug(name: str) -> str:
    """A directory-friendly name for a model.

    >>> slug("gpt-4o-mini")
    'gpt-4o-mini'
    >>> slug("meta-llama/Llama-3.1-8B-Instruct")
    'meta-llama-llama-3.1-8b-instruct'
    """
    return re.sub(r"[^a-z0-9._-]+", "-", name.lower()).strip("-") or "model"


def default_run_dir(model_name: str) -> Path:
    return Path("runs") / slug(model_name)


def identity(settings: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in settings.items() if k not in VOLATILE}


def _check_same_run(old: dict[str, Any] | None, settings: dict[str, Any], run_dir: Path) -> None:
    if not old or "settings" not in old:
        return
    before, now = identity(old["settings"]), identity(settings)
    if before != now:
        diff = sorted(k for k in set(before) | set(now) if before.get(k) != now.get(k))
        raise DataError(
            f"{run_dir} holds a run with other settings ({', '.join(diff)} differ); "
            "pass --out NEW_DIR for a new run, or repeat the original settings to continue it."
        )


def collect(
    probes: Sequence[Probe],
    backend: Backend,
    out: str | Path,
    *,
    samples: int = 1,
    retry_failed: bool = False,
    concurrency: int | None = None,
    catalog: Catalog | None = None,
    progress: bool = True,
) -> CollectResult:
    """Ask `backend` every probe `samples` times and store the answers in `out`.

    Probes already answered in `out` are not asked again; failed ones only with
    `retry_failed`. Returns counts for this call and for the whole run directory.
    """
    if samples < 1:
        raise DataError(f"--samples must be at least 1, not {samples}.")
    store = RunStore(out)
    settings = {**backend.describe(), "mode": backend.mode, "samples": samples}
    old = store.read_manifest()
    _check_same_run(old, settings, store.dir)
    existing = store.open()
    try:
        todo = [
            (p, s)
            for p in probes
            for s in range(samples)
            if (p.probe_id, s) not in existing
            or (retry_failed and existing[(p.probe_id, s)].status == "failed")
        ]
        result = CollectResult(run_dir=store.dir, asked=0, skipped=len(probes) * samples - len(todo))
        manifest = _manifest(old, settings, catalog, backend)
        manifest["status"] = "running"
        store.write_manifest(manifest)
        status = "stopped"
        try:
            _run(todo, backend, store, result, concurrency or backend.max_concurrency, progress)
            status = "complete"
        finally:
            store.close()
            store.compact()
            _finish(store, manifest, result, status)
    finally:
        store.close()
    return result


def _manifest(old: dict | None, settings: dict, catalog: Catalog | None, backend: Backend) -> dict:
    m = dict(old or {})
    m.setdefault("created_at", now_iso())
    m["stereoprobe_version"] = __version__
    m["model"] = settings.get("model")
    m["endpoint"] = settings.get("endpoint")
    m["mode"] = backend.mode
    m["settings"] = settings
    m["instruction"] = settings.get("instruction")
    if catalog is not None:
        from stereoprobe.catalog import default_catalog_dir

        where = "built-in" if catalog.path.resolve() == default_catalog_dir().resolve() else str(catalog.path)
        m["catalog"] = {"path": where, "sha256": catalog.sha256, "probes": len(catalog.probes())}
    m["started_at"] = now_iso()
    m.pop("finished_at", None)
    return m


def _finish(store: RunStore, manifest: dict, result: CollectResult, status: str) -> None:
    from stereoprobe.store import read_completions

    records = read_completions(store.path) if store.path.exists() else []
    result.totals = Counter(r.status for r in records)
    manifest["finished_at"] = now_iso()
    manifest["status"] = status
    manifest["counts"] = {s: result.totals.get(s, 0) for s in STATUSES} | {"records": len(records)}
    manifest.setdefault("sessions", []).append(
        {
            "started_at": manifest["started_at"],
            "finished_at": manifest["finished_at"],
            "asked": result.asked,
            "status": status,
            **{s: result.counts.get(s, 0) for s in STATUSES},
        }
    )
    store.write_manifest(manifest)


def _ask(backend: Backend, probe: Probe, sample: int, preflight: bool = False) -> Completion:
    start = time.perf_counter()
    base = dict(
        probe_id=probe.probe_id,
        sample=sample,
        category=probe.category,
        group=probe.group,
        template=probe.template,
        format=probe.format,
        prompt=backend.prompt(probe),
    )
    try:
        answer = backend.ask(probe)
    except BackendError:
        raise
    except Exception as exc:  # stored as this probe's error; the run goes on
        if preflight and isinstance(exc, ConnectionError):
            # the very first request cannot connect: the endpoint is wrong or down
            endpoint = backend.describe().get("endpoint", "the endpoint")
            raise BackendError(
                f"Cannot reach {endpoint} ({exc}); check --base-url and that the server is running."
            ) from None
        return Completion(
            **base,
            error=str(exc) or type(exc).__name__,
            attempts=backend.attempts_of_last_ask(),
            latency_s=round(time.perf_counter() - start, 4),
        )
    return Completion(
        **base,
        words=list(answer.words),
        probabilities=list(answer.probabilities) if answer.probabilities is not None else None,
        raw=answer.raw,
        refused=answer.refused,
        attempts=backend.attempts_of_last_ask(),
        latency_s=round(time.perf_counter() - start, 4),
        usage=answer.usage,
    )


def _run(
    todo: list[tuple[Probe, int]],
    backend: Backend,
    store: RunStore,
    result: CollectResult,
    concurrency: int,
    progress: bool,
) -> None:
    from tqdm import tqdm

    if not todo:
        return
    bar = tqdm(total=len(todo), unit="probe", disable=not progress, dynamic_ncols=True)

    def keep(rec: Completion) -> None:
        store.append(rec)
        result.asked += 1
        result.counts[rec.status] += 1
        bar.update(1)
        bar.set_postfix({s: result.counts.get(s, 0) for s in STATUSES}, refresh=False)

    try:
        # Preflight: the first probe alone, so a wrong key or URL stops the run at once.
        first = _ask(backend, *todo[0], preflight=True)
        keep(first)
        items: Iterable[tuple[Probe, int]] = iter(todo[1:])
        workers = max(1, min(concurrency, backend.max_concurrency))
        pool = ThreadPoolExecutor(max_workers=workers)
        pending: set[Future] = set()
        try:
            for item in items:  # keep at most 2 x workers submitted, to bound memory
                pending.add(pool.submit(_ask, backend, *item))
                if len(pending) >= 2 * workers:
                    done, pending = wait(pending, return_when=FIRST_COMPLETED)
                    for fut in done:
                        keep(fut.result())
            for fut in _as_done(pending):
                keep(fut.result())
        except BaseException:
            # Ctrl-C or a fatal backend error: stop at once. Requests in flight are not
            # waited for (their answers are not stored); the caller closes the backend.
            pool.shutdown(wait=False, cancel_futures=True)
            raise
        pool.shutdown(wait=True)
    finally:
        bar.close()


def _as_done(pending: set[Future]) -> Iterable[Future]:
    while pending:
        done, pending = wait(pending, return_when=FIRST_COMPLETED)
        yield from done


@dataclass
class Estimate:
    requests: int
    prompt_tokens: int
    completion_tokens: int
    completion_tokens_max: int
    cost: float | None

    def summary(self) -> str:
        text = (
            f"{self.requests} requests; about {self.prompt_tokens:,} prompt tokens and "
            f"{self.completion_tokens:,} completion tokens (at most {self.completion_tokens_max:,})"
        )
        if self.cost is not None:
            text += f"; estimated cost {self.cost:.4f} at the given prices per million tokens"
        return text + ". Nothing was asked (--dry-run)."


def estimate(
    prompts: Sequence[str],
    samples: int = 1,
    max_tokens: int = 300,
    price_in: float | None = None,
    price_out: float | None = None,
    words_tokens: int = 40,
) -> Estimate:
    """Tokens and cost of asking `prompts` `samples` times, without asking anything.

    Tokens are estimated at 4 characters per token plus 7 per chat message; a ten-word
    numbered list takes about 40 completion tokens, `max_tokens` bounds it.

    >>> e = estimate(["x" * 40, "y" * 80], samples=2, max_tokens=300, price_in=1.0, price_out=2.0)
    >>> (e.requests, e.prompt_tokens, e.completion_tokens, e.completion_tokens_max)
    (4, 88, 160, 1200)
    >>> round(e.cost, 6)
    0.000408
    """
    requests = len(prompts) * samples
    prompt_tokens = samples * sum(-(-len(p) // 4) + 7 for p in prompts)
    completion = requests * min(words_tokens, max_tokens)
    cost = None
    if price_in is not None or price_out is not None:
        cost = (prompt_tokens * (price_in or 0) + completion * (price_out or 0)) / 1e6
    return Estimate(requests, prompt_tokens, completion, requests * max_tokens, cost)
