"""The allowed range of every numeric collect setting, in one place: the CLI's flags and
the Python API's CollectRequest.check() both read RANGES (low, high; None: no bound)."""

from __future__ import annotations

RANGES: dict[str, tuple[float | None, float | None]] = {
    "temperature": (0, 2),
    "top_p": (0, 1),
    "max_tokens": (1, None),
    "concurrency": (1, 256),
    "timeout": (0.1, None),
    "max_retries": (0, 20),
    "samples": (1, 100),
    "limit": (1, None),
    "debias": (1, 6),
    "workers": (1, 64),
}


def out_of_range(name: str, value: float | None) -> str | None:
    """The one-line complaint about `value` for setting `name`, or None when it is allowed.

    >>> out_of_range("top_p", 1.5)
    '--top-p must be from 0 to 1, not 1.5.'
    >>> out_of_range("samples", 3) is None
    True
    """
    low, high = RANGES[name]
    if value is None or ((low is None or value >= low) and (high is None or value <= high)):
        return None
    span = f"from {low} to {high}" if high is not None else f"at least {low}"
    return f"--{name.replace('_', '-')} must be {span}, not {value}."
