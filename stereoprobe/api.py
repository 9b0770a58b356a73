"""The Python API behind `stereoprobe collect` (the CLI only parses flags into this)."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Sequence

from stereoprobe.catalog import Catalog, load_catalog
from stereoprobe.collect import CollectResult, Estimate, collect, default_run_dir, estimate
from stereoprobe.errors import DataError
from stereoprobe.records import Probe


@dataclass(frozen=True)
class CollectRequest:
    """Everything a collect run needs; defaults are the paper's settings."""

    catalog: str | Path | None = None
    categories: Sequence[str] = field(default_factory=tuple)
    groups: Sequence[str] = field(default_factory=tuple)
    format: str | None = None
    limit: int | None = None
    model: str | None = None  # None and base_url None: the embedded model
    base_url: str | None = None
    api_key_env: str | None = None
    mode: str | None = None
    out: str | Path | None = None
    temperature: float = 0.0
    max_tokens: int = 300
    top_p: float = 1.0
    instruction: str | None = None
    concurrency: int = 8
    timeout: float = 60.0
    max_retries: int = 4
    samples: int = 1
    retry_failed: bool = False
    workers: int | None = None  # embedded model: contexts (one thread each); None: cores
    phrase_filter: bool = True  # next-word mode: keep words after which the phrase ends

    def check(self) -> None:
        """Raise DataError for a parameter out of range (the CLI's flags check the same)."""
        limits = [
            ("temperature", self.temperature, 0, 2), ("top_p", self.top_p, 0, 1),
            ("max_tokens", self.max_tokens, 1, None), ("concurrency", self.concurrency, 1, None),
            ("max_retries", self.max_retries, 0, None), ("samples", self.samples, 1, None),
            ("limit", self.limit, 1, None), ("workers", self.workers, 1, None),
        ]
        for name, value, low, high in limits:
            if value is not None and (value < low or (high is not None and value > high)):
                span = f"from {low} to {high}" if high is not None else f"at least {low}"
                raise DataError(f"--{name.replace('_', '-')} must be {span}, not {value}.")
        if self.timeout <= 0:
            raise DataError(f"--timeout must be more than 0 seconds, not {self.timeout}.")

    def probes(self, catalog: Catalog | None = None) -> list[Probe]:
        cat = catalog or load_catalog(self.catalog)
        probes = cat.select(list(self.categories), list(self.groups), self.format)
        return probes[: self.limit] if self.limit else probes

    def run_dir(self) -> Path:
        if self.out is not None:
            return Path(self.out)
        from stereoprobe.backends import EMBEDDED_MODEL

        return default_run_dir(self.model or EMBEDDED_MODEL)


def run_collect(request: CollectRequest | None = None, progress: bool = True, **kwargs: Any) -> CollectResult:
    """Collect answers: `run_collect(categories=["religion"], limit=6)` or with a CollectRequest."""
    from stereoprobe.backends import make_backend

    request = replace(request or CollectRequest(), **kwargs)
    request.check()
    catalog = load_catalog(request.catalog)
    probes = request.probes(catalog)
    backend = make_backend(
        model=request.model,
        base_url=request.base_url,
        mode=request.mode,
        api_key_env=request.api_key_env,
        instruction=request.instruction,
        temperature=request.temperature,
        max_tokens=request.max_tokens,
        top_p=request.top_p,
        timeout=request.timeout,
        max_retries=request.max_retries,
        concurrency=request.concurrency,
        workers=request.workers,
        phrase_filter=request.phrase_filter,
    )
    try:
        return collect(
            probes,
            backend,
            request.run_dir(),
            samples=request.samples,
            retry_failed=request.retry_failed,
            concurrency=request.concurrency,
            catalog=catalog,
            progress=progress,
        )
    finally:
        backend.close()


def estimate_collect(
    request: CollectRequest, price_in: float | None = None, price_out: float | None = None
) -> Estimate:
    """What `run_collect(request)` would ask, in requests and tokens; asks nothing."""
    request.check()
    from stereoprobe.backends.chat import DEFAULT_INSTRUCTION, render_instruction

    probes = request.probes()
    if request.model is None and request.base_url is None or request.mode == "next-word":
        from stereoprobe.backends import reject_chat_only

        reject_chat_only(
            {"temperature": request.temperature, "top_p": request.top_p,
             "max_tokens": request.max_tokens, "instruction": request.instruction}
        )
        prompts = [p.prefix for p in probes]
        return estimate(prompts, request.samples, 1, price_in, price_out, words_tokens=1)
    instruction = request.instruction or DEFAULT_INSTRUCTION
    prompts = [render_instruction(instruction, p.text) for p in probes]
    return estimate(prompts, request.samples, request.max_tokens, price_in, price_out)
