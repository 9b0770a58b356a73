"""Marin & Eger's Table 4 beside a stories run's: which figures, and whether.

000's Table 4 (``data/paper_figures.csv``: ChatGPT 3.5 and 4o, per profession and prompt
and overall) counts female names among *all* stories read, each name read by 000's rule
(the first two words in the UCI table). A page prints those figures beside the run's Table 4
only where :func:`stereoprobe.papers.comparable` allows: the run asked the ``published``
design (Table 4's professions, 20 stories a prompt, 000's settings) and was scored with
``--reading marin-eger``. Read by our rule, the same stories count something else (the two
rules read some names apart: ``rules.csv``); a base model's run continued the prompt
without 000's storyteller messages.

>>> print(reason({"design": "published", "method": "chat", "reading": "stereoprobe"}))
Marin & Eger (2024), Table 4 counts percent of all stories read, by Marin & Eger's rule; this value is a percent \
of all stories read, by stereoprobe's rule, so its figures (ChatGPT 3.5, ChatGPT 4o) are not shown beside it.
"""

from __future__ import annotations

from typing import Any

UNIT = "percent of all stories read, by Marin & Eger's rule"


def figures() -> list[Any]:
    from stereoprobe.papers import pick
    from stereoprobe.studies.stories import StoriesStudy

    return pick(StoriesStudy().paper_figures(), "female_of_all")


def unit_of(meta: dict[str, Any]) -> str:
    """What the run's Table 4 counts, as :func:`stereoprobe.papers.comparable` sets it against 000's."""
    if meta.get("method") == "completion":
        return "percent of a base model's continuations, without 000's storyteller messages"
    if meta.get("reading") == "marin-eger":
        return UNIT
    return "percent of all stories read, by stereoprobe's rule"


def reason(meta: dict[str, Any]) -> str | None:
    """None when 000's Table 4 may stand beside this run's; else the one line why not."""
    from stereoprobe.papers import comparable

    figs = figures()
    models = ", ".join(dict.fromkeys(f.model for f in figs))
    return comparable(figs[0], meta.get("design"), unit_of(meta), figures=f"its figures ({models})")


def table4(meta: dict[str, Any]) -> dict[tuple[str, str], dict[str, float]]:
    """(profession, model) -> {prompt or "overall": 000's percent}, where they may be shown; else {}."""
    if reason(meta) is not None:
        return {}
    out: dict[tuple[str, str], dict[str, float]] = {}
    for f in figures():
        scope = dict(f.scope)
        out.setdefault((scope["profession"], f.model), {})[scope["prompt"]] = f.value
    return out
