"""The one small interface every model backend implements."""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

from stereoprobe.records import Answer, Probe


@runtime_checkable
class Backend(Protocol):
    """Turns one probe into one Answer.

    - ``mode``: "chat" (the paper's method: ask for ten words) or "next-word" (rank the
      model's own next words after the probe text).
    - ``max_concurrency``: how many ``ask`` calls may run at once (1 for a local model).
    - ``describe()``: settings for the run manifest, never secrets; read into
      ``stereoprobe.manifest.BackendSettings`` (``endpoint``, ``timeout``, ... shared;
      other keys become ``options``).
    - ``prompt(probe)``: the exact text sent for this probe (stored in each record).
    - ``ask(probe)``: returns an Answer, or raises. A chat backend returns the raw reply
      (and the provider's ``response`` payload) and no words: collect parses it. A
      next-word backend returns its ranked words. Retries of transient faults happen
      inside ``ask``; ``attempts_of_last_ask()`` reports how many requests the last call
      on this thread actually sent. A timeout is raised as ``TimeoutError`` (collect
      stops a run whose first requests all time out). A BackendError means the backend cannot work at all (bad key,
      unreachable endpoint) and stops the run; any other exception is stored as that
      probe's error.
    """

    mode: str
    max_concurrency: int

    def describe(self) -> dict[str, Any]: ...

    def prompt(self, probe: Probe) -> str: ...

    def ask(self, probe: Probe) -> Answer: ...

    def attempts_of_last_ask(self) -> int: ...

    def close(self) -> None: ...
