"""The bias card: one page per model, or models side by side (`stereoprobe card`, docs/card.md).

    >>> import stereoprobe.card
    >>> stereoprobe.card.build_card(["runs/gemma-3-270m"])            # doctest: +SKIP
    PosixPath('runs/gemma-3-270m/card')
    >>> card = stereoprobe.card.make_card(["runs/a", "runs/b"])      # doctest: +SKIP
    >>> [d.metric for d in card.differences if d.flagged]            # doctest: +SKIP

:func:`make_card` reads suite folders (``values.py``: each study's headline values, the
numbers it hands the gate, ``headlines.py`` says which), compares every model with the
first (``compare.py``: the studies' own paired differences, Holm over the whole card), and
returns a :class:`~stereoprobe.card.records.Card`; :func:`build_card` writes it as
``card/index.html`` (one self-contained page, ``page.py``, with the forest plot of
``figures.py``), ``card.json`` and ``card.md`` (``output.py``). The card imports no study:
it reaches them through ``stereoprobe.studies.get_study``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Sequence

from stereoprobe.card.records import Card

__all__ = ["Card", "build_card", "default_out", "make_card"]


def make_card(suites: Sequence[str | Path]) -> Card:
    """The card of one or more suite folders (the first is the baseline of the differences)."""
    from stereoprobe import __version__
    from stereoprobe.card.compare import compare_models
    from stereoprobe.card.values import collect_values, read_models
    from stereoprobe.store import now_iso

    models = read_models(suites)
    values = collect_values(models)
    pairings, differences, family = compare_models(models, values)
    return Card(tuple(models), tuple(values), tuple(differences), tuple(pairings), family, now_iso(), __version__)


def default_out(suites: Sequence[str | Path]) -> Path:
    """``SUITE/card`` for one suite; beside the first suite, ``card-A-vs-B``, for several."""
    from stereoprobe.collect import slug

    paths = [Path(s) for s in suites]
    if len(paths) == 1:
        return paths[0] / "card"
    return paths[0].parent / ("card-" + "-vs-".join(slug(p.resolve().name) for p in paths))


def build_card(suites: Sequence[str | Path], out: str | Path | None = None) -> Path:
    """Write the card of ``suites`` into ``out`` (default :func:`default_out`) and return the
    folder: ``index.html``, ``card.json``, ``card.md`` and ``forest.png``. Every suite is read
    and checked before anything is written; an older card there is replaced whole."""
    from stereoprobe.card.output import write_card

    card = make_card(suites)
    return write_card(card, Path(out) if out is not None else default_out(suites))
