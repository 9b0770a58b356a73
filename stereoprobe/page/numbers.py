"""How a share is shown: rounded once, with its interval and the probes behind it.

The report never shows a share as an exact number when it rests on too few probes. The
statistics stage (``stereoprobe sentiment``) decides that and writes ``too_few_probes``
and ``X_ci_low`` / ``X_ci_high`` columns; for tables written before it did, the report
applies the same floor (``stereoprobe.stats.shares.MIN_PROBES`` answered probes with a
labelled word) to the probes it counts itself.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from stereoprobe.stats.shares import MIN_PROBES

TOO_FEW = "too few probes"


def _nan(x: object) -> bool:
    return x is None or (isinstance(x, float) and math.isnan(x))


@dataclass(frozen=True)
class Share:
    """One share (percent, full precision) with what is known about its certainty."""

    value: float
    low: float | None = None  # interval bounds, percent; None when not computed
    high: float | None = None
    probes: int | None = None  # answered probes with a labelled word behind the share
    too_few: bool = False

    @property
    def shown(self) -> bool:
        """True when the share may be printed as a number."""
        return not _nan(self.value) and not self.too_few

    @property
    def has_interval(self) -> bool:
        return self.shown and not _nan(self.low) and not _nan(self.high)

    def text(self) -> str:
        """``65% (52 to 77)``, ``65%`` without an interval, ``too few probes`` or ``–``.

        >>> Share(65.4, 51.6, 77.2).text(), Share(65.5).text(), Share(80.0, too_few=True).text()
        ('65% (52 to 77)', '66%', 'too few probes')
        >>> Share(float("nan")).text()
        '–'
        """
        if self.too_few:
            return TOO_FEW
        if _nan(self.value):
            return "–"
        if self.has_interval:
            return f"{pct0(self.value)} ({whole(self.low)} to {whole(self.high)})"
        return pct0(self.value)

    def short(self) -> str:
        """The share alone (``65%``), for tight table cells and chart labels."""
        return TOO_FEW if self.too_few else ("–" if _nan(self.value) else pct0(self.value))


def number(x: object, fmt: str = "{:.1f}") -> str:
    """``x`` formatted, or an en dash where it is missing or not a number.

    >>> number(12.345), number(float("nan")), number(None), number("x"), number(3, "{:.0f}")
    ('12.3', '–', '–', '–', '3')
    """
    try:
        value = float(x)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return "–"
    return "–" if math.isnan(value) else fmt.format(value)

def counted(n: int, word: str) -> str:
    """``n`` and ``word``, plural unless ``n`` is 1.

    >>> counted(1, "prompt"), counted(1000, "sample")
    ('1 prompt', '1,000 samples')
    """
    return f"{n:,} {word}{'' if n == 1 else 's'}"


def whole(value: float) -> str:
    """Round half up to a whole number (the same rule for shares and bounds).

    >>> whole(76.5), whole(39.04)
    ('77', '39')
    """
    return f"{math.floor(value + 0.5):.0f}"


def pct0(value: float) -> str:
    """A percentage rounded once, to a whole number, from the unrounded value.

    >>> pct0(39.04), pct0(39.5), pct0(float("nan"))
    ('39%', '40%', '–')
    """
    if _nan(value):
        return "–"
    return whole(value) + "%"


def share_from_row(row: dict, key: str, probes: int | None = None) -> Share:
    """A Share from a table row (groups.csv / table4.csv / templates.csv as dicts).

    With interval columns (``key_ci_low``, ``key_ci_high``), a share is too few when the
    row's ``too_few_probes`` is true or its interval is empty; without them, when it
    rests on fewer than MIN_PROBES probes.

    >>> share_from_row({"negative": 80.0, "negative_ci_low": "", "negative_ci_high": ""}, "negative").text()
    'too few probes'
    >>> share_from_row({"negative": 100.0}, "negative", probes=MIN_PROBES - 1).text()
    'too few probes'
    >>> share_from_row({"negative": 64.6, "negative_ci_low": 52.2, "negative_ci_high": 76.5}, "negative").text()
    '65% (52 to 77)'

    """
    value = _float(row.get(key))
    if f"{key}_ci_low" in row:  # written by the statistics stage: empty interval = too few
        low, high = _float(row.get(f"{key}_ci_low")), _float(row.get(f"{key}_ci_high"))
        flag = str(row.get("too_few_probes", "")).strip().lower() in ("true", "1", "yes")
        too_few = not _nan(value) and (flag or _nan(low) or _nan(high))
    else:
        low = high = math.nan
        too_few = probes is not None and probes < MIN_PROBES and not _nan(value)
    if _nan(low) or _nan(high):
        low = high = None
    return Share(value, low, high, probes, too_few)


def _float(x: object) -> float:
    try:
        return float(x)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return math.nan
