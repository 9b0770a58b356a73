"""One progress display for the whole suite: studies done, answers done and left, the time left.

Every study's collect draws its progress through ``progress_bar``'s hook (stereoprobe/progress.py:
a callable ``(total, unit) -> bar``), so the suite hands each collect ``SuiteProgress.hook(key)``
and the answers of all studies add up in one display: tqdm's bar on a terminal, a plain line
every few seconds elsewhere (CI logs, ``> file``), both on stderr.

The time left: each study's answers left, weighted by what an answer of that study costs
(``EMBEDDED``: seconds per answer and per study on the embedded model on a quiet 2-core
machine, the same for a model file; a served model's answers weigh the same), then
scaled by how fast this machine has gone so far in this session (seconds spent collecting per
weighted answer collected). Before anything is collected a served model shows no estimate.

>>> p = SuiteProgress([("a", 100, 0, 1.0, 0.0), ("b", 50, 0, 2.0, 0.0)], enabled=False)
>>> p.left()  # the table's own seconds, nothing measured yet: 100 x 1 + 50 x 2
200.0
"""

from __future__ import annotations

import sys
import time
from typing import Any, Callable, Sequence

#: The embedded model, per study: (seconds per answer collected, seconds for its start, score
#: and report) on a quiet 2-core machine, two workers: the logprob and next-word studies from
#: their full runs' speed (docs/nextword.md, docs/jobs.md, docs/coreference.md), the
#: generation studies from 26 ms of CPU a token (bench/bench_suite.py) times the tokens an
#: answer took in the quick design (anecdotes 133, stories 128, hobbies 76, prompts included).
EMBEDDED = {
    "fill-in": (0.052, 19.0),
    "jobs": (0.054, 10.0),
    "coreference": (0.044, 10.0),
    "sterlie": (0.1, 6.0),
    "multiple-choice": (0.2, 6.0),
    "anecdotes": (1.7, 6.0),
    "stories": (1.65, 6.0),
    "hobbies": (0.98, 6.0),
}
_COUNTED = ("probe", "result")  # collect's answers, a batch's stored results; "request": a batch polled


def minutes(seconds: float | None) -> str:
    """
    >>> minutes(30), minutes(95), minutes(3700), minutes(None)
    ('under a minute', 'about 2 min', 'about 62 min', '')
    """
    if seconds is None:
        return ""
    if seconds < 60:
        return "under a minute"
    return f"about {round(seconds / 60)} min"


class SuiteProgress:
    """``rows``: (key, answers the study stores, answers stored already, weight of an answer,
    weight of its start, score and report); weights are seconds when ``seconds`` is True."""

    def __init__(self, rows: Sequence[tuple[str, int, int, float, float]], enabled: bool = True,
                 seconds: bool = True, every: float = 5.0, stream: Any = None) -> None:
        self.keys = [r[0] for r in rows]
        self.total = {r[0]: r[1] for r in rows}
        self.done = {r[0]: min(r[2], r[1]) for r in rows}
        self.weight = {r[0]: (r[3], r[4]) for r in rows}
        self.seconds, self.enabled, self.every = seconds, enabled, every
        self.stream = stream or sys.stderr
        self.finished: set[str] = set()
        self.current, self.phase = "", ""
        self.postfix: dict[str, Any] = {}
        self._work = 0.0  # weighted answers collected in this session
        self._spent = 0.0  # seconds spent collecting them
        self._since: float | None = None
        self._last = 0.0
        self._bar = None
        if enabled and self.stream.isatty():
            from tqdm import tqdm

            self._bar = tqdm(total=sum(self.total.values()), initial=sum(self.done.values()), unit="answer",
                             file=self.stream, dynamic_ncols=True,
                             bar_format="{desc}: {percentage:3.0f}%|{bar}| {n_fmt}/{total_fmt} answers [{elapsed}{postfix}]")

    # -- what the suite calls ------------------------------------------------------------
    def hook(self, key: str) -> Callable[[int, str], "_Bar"]:
        """The ``progress`` a study's collect takes: its bars feed this display."""

        def make(total: int, unit: str) -> _Bar:
            if unit in _COUNTED:  # collect's todo: what is left of this study
                before, self.done[key] = self.done[key], max(0, self.total[key] - total)
                self._draw(force=self.done[key] != before)
            return _Bar(self, key, unit in _COUNTED)

        return make

    def begin(self, key: str, phase: str) -> None:
        """A study enters a phase: collecting, scoring, reporting."""
        self.current, self.phase = key, phase
        if phase == "collecting":
            self._since = time.monotonic()
        self._draw(force=True)

    def end(self, key: str) -> None:
        """A study is done (reported, or failed): its answers count as done."""
        self._stop_clock()
        self.finished.add(key)
        self.done[key] = max(self.done[key], self.total[key])
        self._draw(force=True)

    def collected(self, key: str) -> None:
        self._stop_clock()

    def close(self) -> None:
        self._stop_clock()
        if self._bar is not None:
            self._bar.close()
            self._bar = None

    # -- the time left ---------------------------------------------------------------------
    def left(self) -> float | None:
        """Seconds left (module docstring), or None before a served model's first answers."""
        pending = [k for k in self.keys if k not in self.finished]
        work = sum((self.total[k] - self.done[k]) * self.weight[k][0] + self.weight[k][1] for k in pending)
        spent = self._spent + (time.monotonic() - self._since if self._since is not None else 0.0)
        if self._work > 0 and spent > 2.0:
            return work * spent / self._work
        return work if self.seconds else None

    # -- drawing ---------------------------------------------------------------------------
    def _add(self, key: str, n: int) -> None:
        self.done[key] = min(self.total[key], self.done[key] + n)
        self._work += n * self.weight[key][0]
        if self._bar is not None:
            self._bar.update(n)
        self._draw()

    def _stop_clock(self) -> None:
        if self._since is not None:
            self._spent += time.monotonic() - self._since
            self._since = None

    def line(self) -> str:
        studies = f"{len(self.finished)}/{len(self.keys)} studies done"
        now = f"{self.current} {self.phase}" if self.current else ""
        if self.current and self.phase == "collecting":
            now += f" {self.done[self.current]:,}/{self.total[self.current]:,}"
        answers = f"{sum(self.done.values()):,}/{sum(self.total.values()):,} answers"
        left = minutes(self.left())
        return " · ".join(x for x in (studies, now, answers, f"{left} left" if left else "") if x)

    def _draw(self, force: bool = False) -> None:
        if not self.enabled:
            return
        if self._bar is not None:
            left = minutes(self.left())
            self._bar.set_description_str(f"{self.current or 'suite'} {self.phase} ({len(self.finished)}/"
                                          f"{len(self.keys)} studies)", refresh=False)
            self._bar.set_postfix_str(f"{left} left" if left else "", refresh=force)
            return
        now = time.monotonic()
        if force or now - self._last >= self.every:
            self._last = now
            print(self.line(), file=self.stream, flush=True)


class _Bar:
    """What a study's collect draws on (``update``, ``set_postfix``, ``close``), fed into the suite's."""

    def __init__(self, display: SuiteProgress, key: str, counts: bool) -> None:
        self.display, self.key, self.counts = display, key, counts

    def update(self, n: int = 1) -> None:
        if self.counts:
            self.display._add(self.key, n)

    def set_postfix(self, postfix: Any, refresh: bool = False) -> None:
        self.display.postfix[self.key] = postfix

    def close(self) -> None:
        pass
