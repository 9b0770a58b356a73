"""Marin & Eger's own Table 3 beside a run's (000's seven templates): which figures, and whether.

000's Table 3 (ChatGPT 3.5 and 4o: incorrect, inconsistent and binary inconsistent per
template and overall) is in ``data/paper_figures.csv``, under the gate's metric names and
scope (``scene``: the template, ``Overall`` the seven together; metrics.py). The page
prints it beside the run's Table 3 only where :func:`stereoprobe.papers.comparable` allows:
the run asked the ``published`` design (000's 1,000 random pairs, one reply a prompt at its
settings) and its rates are in 000's unit, one chat reply a prompt read by 000's rule. A run
in logprob mode (the more probable of two replies) or with several samples a prompt (their
majority) counts something else; so does a prefix 000 never asked.

>>> print(reason({"design": "published", "method": ["chat"], "samples": 3}, 0))
Marin & Eger (2024), Table 3 counts percent, one reply a prompt read by Marin & Eger's rule; this value is a percent, \
the majority of 3 replies a prompt, so its figures (ChatGPT 3.5, ChatGPT 4o) are not shown beside it.
"""

from __future__ import annotations

from typing import Any

UNIT = "percent, one reply a prompt read by Marin & Eger's rule"
METRICS = ("incorrect", "inconsistent", "binary_inconsistent")


def figures() -> list[Any]:
    from stereoprobe.papers import read_figures
    from stereoprobe.studies.coreference.templates import data_dir

    return [f for f in read_figures(data_dir() / "paper_figures.csv") if f.metric in METRICS]


def unit_of(meta: dict[str, Any], prefix: int) -> str:
    """What the run's Table 3 counts (for one prefix), as comparable sets it against 000's."""
    if "chat" not in meta.get("method", []):
        return "percent of prompts answered by the more probable of two replies"
    if int(meta.get("samples") or 1) > 1:
        return f"percent, the majority of {int(meta['samples'])} replies a prompt"
    if prefix != 0:
        return f"percent after Mattern et al.'s prefix {prefix}, which 000 never asked"
    return UNIT


def reason(meta: dict[str, Any], prefix: int) -> str | None:
    """None when 000's Table 3 may stand beside this run's (prefix ``prefix``); else one line why not."""
    from stereoprobe.papers import comparable

    figs = figures()
    models = ", ".join(dict.fromkeys(f.model for f in figs))
    return comparable(figs[0], meta.get("design"), unit_of(meta, prefix), figures=f"its figures ({models})")


def table3(meta: dict[str, Any], prefix: int) -> dict[tuple[str, str], dict[str, float]]:
    """(template, model) -> {metric: 000's percent}, where they may be shown; else {}."""
    if reason(meta, prefix) is not None:
        return {}
    out: dict[tuple[str, str], dict[str, float]] = {}
    for f in figures():
        out.setdefault((dict(f.scope)["scene"], f.model), {})[f.metric] = f.value
    return out
