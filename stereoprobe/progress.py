"""Progress of a collect run: tqdm's bar on a terminal, plain lines elsewhere."""

from __future__ import annotations

import time
from typing import Any


def progress_bar(total: int, progress: bool) -> Any:
    """tqdm's bar on a terminal; elsewhere (CI logs, ``> file``) a plain line every few seconds."""
    import sys

    from tqdm import tqdm

    if progress and not sys.stderr.isatty():
        return PlainProgress(total)
    return tqdm(total=total, unit="probe", disable=not progress, dynamic_ncols=True)


class PlainProgress:
    """Progress as whole lines on stderr, at most one every `every` seconds, and at the end."""

    def __init__(self, total: int, every: float = 5.0):
        self.total, self.every, self.done, self.postfix = total, every, 0, {}
        self.start = self.last = time.monotonic()

    def update(self, n: int = 1) -> None:
        self.done += n
        if time.monotonic() - self.last >= self.every:
            self._print()

    def set_postfix(self, postfix: dict, refresh: bool = False) -> None:
        self.postfix = dict(postfix)

    def close(self) -> None:
        if self.done:
            self._print()

    def _print(self) -> None:
        import sys

        self.last = time.monotonic()
        rate = self.done / max(self.last - self.start, 1e-9)
        counts = ", ".join(f"{v} {k}" for k, v in self.postfix.items())
        print(f"{self.done}/{self.total} probes ({counts}), {rate:.1f}/s", file=sys.stderr, flush=True)
