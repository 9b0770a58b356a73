"""Progress of collect and report: tqdm's bar on a terminal, plain lines elsewhere."""

from __future__ import annotations

import time
from typing import Any, Callable


def progress_bar(total: int, progress: Any, unit: str = "probe") -> Any:
    """tqdm's bar on a terminal; elsewhere (CI logs, ``> file``) a plain line every few seconds.

    ``progress``: True or False (no display), or a caller's own display, a callable
    ``(total, unit) -> bar`` (``update``, ``set_postfix``, ``close``): what ``stereoprobe
    suite`` passes every study's collect, so one display shows the whole suite.
    """
    import sys

    if callable(progress):
        return progress(total, unit)

    from tqdm import tqdm

    if progress and not sys.stderr.isatty():
        return PlainProgress(total, unit=unit)
    return tqdm(total=total, unit=unit, disable=not progress, dynamic_ncols=True)


def progress_callback(unit: str) -> Callable[[int, int], None]:
    """A ``(done, total)`` callback (what ``build_report(progress=...)`` calls) drawing
    :func:`progress_bar`; the bar is closed when ``done`` reaches ``total``."""
    bar: Any = None

    def update(done: int, total: int) -> None:
        nonlocal bar
        if bar is None:
            bar = progress_bar(total, True, unit)
            bar.seen = 0
        bar.update(done - bar.seen)
        bar.seen = done
        if done >= total:
            bar.close()

    return update


class PlainProgress:
    """Progress as whole lines on stderr, at most one every `every` seconds, and at the end."""

    def __init__(self, total: int, every: float = 5.0, unit: str = "probe"):
        self.total, self.every, self.done, self.postfix, self.unit = total, every, 0, {}, unit
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
        counts = f" ({counts})" if counts else ""
        print(f"{self.done}/{self.total} {self.unit}s{counts}, {rate:.1f}/s", file=sys.stderr, flush=True)
