"""Batch collect: a run's requests as a provider's batch, or as a file for another engine.

A live run asks each probe over HTTP; a batch run writes the same requests, one line per
probe and sample, and stores the replies later as the study's ordinary records:

- ``--batch-file FILE`` writes OpenAI's batch input format (``custom_id``, ``method``,
  ``url``, ``body``) and stops; ``stereoprobe ingest RUN_DIR results.jsonl`` stores an
  OpenAI- or vLLM-format output file (``batch/ingest.py``);
- ``--batch openai|anthropic`` splits, uploads, submits and polls with the providers'
  own clients (``batch/providers.py``), the batch ids in the manifest (``batch/run.py``).

The request of a probe is the one the live backend sends and a reply is read by the live
backend's own code: both go through the backend's client seam (``batch/seam.py``), which
records a request instead of sending it, and hands a stored reply back as if it had come
over HTTP. ``custom_id`` is the record's key (``probe_id-sample``), so nothing is matched
by position.

How collect knows: the CLI (or the API) opens ``using(spec)`` around a study's collect;
``collect.collect`` hands the run to ``batch.run.collect_batch`` while one is open.
"""

from __future__ import annotations

import contextlib
import contextvars
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator, Mapping

from stereoprobe.errors import DataError

#: What a batch run does: write a request file, submit to a provider, read a results
#: file into the run, or only count (``--dry-run``).
KINDS = ("file", "openai", "anthropic", "ingest", "dry-run", "refresh")
PROVIDERS = ("openai", "anthropic")
DEFAULT_POLL = 30.0  # seconds between polls of a provider's batches
BATCH_PRICE = 0.5  # the providers' batch price, a share of the live price (OpenAI's and Anthropic's: half)


@dataclass(frozen=True)
class BatchSpec:
    """One batch step of a collect run."""

    kind: str  # one of KINDS; "refresh": nothing stored, the run's status and next step read again
    path: Path | None = None  # file: the request file written; ingest: the results file read
    provider: str | None = None  # openai or anthropic (kind provider, or dry-run of one)
    options: Mapping[str, Any] = field(default_factory=dict)  # the collect command's options, kept for ingest
    poll_interval: float = DEFAULT_POLL
    limit: int | None = None  # requests per batch, at most the provider's limit
    price_in: float | None = None  # dry-run: live prices per million tokens (the batch price is half)
    price_out: float | None = None
    show_next: bool = True  # False: the step's next step is left to the command that follows it
    reply_model: str | None = None  # ingest: the model name the replies carry, if not the run's (Azure)

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(self.kind)


_ACTIVE: contextvars.ContextVar[BatchSpec | None] = contextvars.ContextVar("stereoprobe_batch", default=None)


def active() -> BatchSpec | None:
    """The batch step open around this collect call, if any."""
    return _ACTIVE.get()


@contextlib.contextmanager
def using(spec: BatchSpec | None) -> Iterator[None]:
    """Run the collect calls inside as this batch step (None: live, as usual). Backends made
    inside need no API key unless a provider is asked (the key is read by the provider)."""
    if spec is None:
        yield
        return
    from stereoprobe.backends import no_key_needed

    token = _ACTIVE.set(spec)
    try:
        with no_key_needed():
            yield
    finally:
        _ACTIVE.reset(token)


def custom_id(probe_id: str, sample: int) -> str:
    """A record's key as a batch line's custom_id (letters, digits, - and _ only, as
    Anthropic requires).

    >>> custom_id("55ca1ffe4e01", 2)
    '55ca1ffe4e01-2'
    """
    return f"{probe_id}-{sample}"


def check_options(batch: str | None, batch_file: Path | None, dry_run: bool, served: bool = True) -> None:
    """--batch and --batch-file are one or the other, for a served model; --batch-file has no dry run."""
    from stereoprobe.batch.seam import IN_PROCESS

    if (batch or batch_file) and not served:
        raise DataError(IN_PROCESS)
    if batch and batch_file:
        raise DataError("--batch submits the requests itself and --batch-file writes them for another engine; "
                        "give one or the other.")
    if batch_file and dry_run:
        raise DataError("--dry-run counts a provider's batches: use it with --batch openai|anthropic, "
                        "or drop it (--batch-file asks nothing).")
