"""Sterlie et al.'s own numbers beside a ``--templates sterlie`` run's: which, and whether.

001's figures (GPT-4; Tables 1-6 and eq. 8) are in ``data/paper_figures.csv``, named as the
gate names the run's metrics (``sterlie_error``, ``sterlie_fnr`` ...: sterlie_metrics.py) and
scoped by experiment (``sectors``, ``multiple choice``). A page prints them
beside the run's only where :func:`stereoprobe.papers.comparable` allows it: the run asked
the ``published`` design (001's samples, baselines and temperature) and its rates are in
001's unit, a *share of replies* read as 001 reads them. A run read by Marin & Eger's rule
(``--reading marin-eger``), or answered in logprob mode, counts something else; a run of
another design asks something else. Then the page prints the one line that says why, and
not the number.

>>> b = beside({"design": "default", "experiment": "sectors", "method": ["chat"], "reading": "sterlie"},
...            lambda f: f.source.endswith("Table 6"))
>>> b.figures, b.reason
({}, "Sterlie et al. (2024), Table 6 used the paper's own design; this run asked the default design, so its figures \
(GPT-4) are not shown beside it.")
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

UNIT = "share of replies"  # 001's rates: every reply of the 50 (30, 10) counted, read as 001 reads it


def unit_of(meta: dict[str, Any]) -> str:
    """The unit of a run's rates, as :func:`stereoprobe.papers.comparable` sets it against 001's."""
    if "chat" not in meta.get("method", []):
        return "share of prompts answered by the more probable reply"
    if meta.get("reading") != "sterlie":
        return "share of replies read by Marin & Eger's rule"
    return UNIT


def figures(experiment: str | None) -> list[Any]:
    """001's figures for one experiment (``sectors`` or ``multiple choice``)."""
    from stereoprobe.papers import read_figures
    from stereoprobe.studies.coreference.templates import data_dir

    path = data_dir() / "paper_figures.csv"
    return [f for f in read_figures(path) if f.metric.startswith("sterlie_")
            and dict(f.scope).get("experiment") == experiment]


def key(figure: Any) -> tuple[str, str | None, str | None]:
    """(metric, template, pronoun) of a figure: what it sits beside."""
    scope = dict(figure.scope)
    return figure.metric, scope.get("template"), scope.get("pronoun")


@dataclass(frozen=True)
class Beside:
    figures: dict = field(default_factory=dict)  # key -> PaperFigure, where they may be shown
    reason: str | None = None  # the one line why not, where they may not
    notes: tuple[str, ...] = ()  # what 001 printed oddly (the figures' notes that say so)


def beside(meta: dict[str, Any], keep: Callable[[Any], bool]) -> Beside:
    """001's figures that ``keep`` picks for one table of this run's page: all of them when each
    is comparable (papers.comparable), else none and the reason: one line, a sentence for each
    table of 001's it draws on (Tables 4 and 5 share one on the page); nothing when 001 printed
    none for that table."""
    from stereoprobe.papers import comparable

    chosen = [f for f in figures(meta.get("experiment")) if keep(f)]
    if not chosen:
        return Beside()
    unit = unit_of(meta)
    reasons = [comparable(f, meta.get("design"), unit, figures=f"its figures ({f.model})") for f in chosen]
    if any(reasons):  # one line per table of the paper's (Tables 4 and 5 share a page table)
        return Beside(reason=" ".join(dict.fromkeys(r for r in reasons if r)))
    notes = tuple(dict.fromkeys(f"{f.source}: {f.note}" for f in chosen if f.note.startswith("as printed")))
    return Beside({key(f): f for f in chosen}, None, notes)


def text(figure: Any | None) -> str:
    """001's share as a percentage, as the page shows the run's ("66%"); "–" where none."""
    return "–" if figure is None else f"{100 * figure.value:.0f}%"
