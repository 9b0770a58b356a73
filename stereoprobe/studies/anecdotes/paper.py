"""Sterlie et al.'s own numbers beside an anecdotes run's: which, and whether.

001's two figures (``data/paper_figures.csv``): 94 percent of all samples follow the
prevailing stereotype, and NMI(profession, gender) = 0.426, GPT-4 over about 100
professions. A page prints one beside the run's value only where
:func:`stereoprobe.papers.comparable` allows: the run asked the ``published`` design (001's
professions, samples, temperature) and the value is in 001's unit. The unit says what our
value counts:

- ``follows_majority_all`` is 001's "percent of all samples" only when every profession of
  the run has a known BLS majority (the published design's file has 40 of 100: the others'
  shares are not in the project's data, so the share covers 40 professions, not 001's 100);
- ``follows_majority`` counts only the texts with a gender: never 001's unit;
- ``nmi`` (the plug-in value, as 001's eq. 2) over the texts with a gender: 001's unit;
- a base model's run continued a completion form, not Template Prompt 4.1: another unit.

>>> t = {"meta": {"design": "default", "method": "chat"}, "professions": None}
>>> print(quote("nmi", t))
Sterlie et al. (2024), eq. (7) used the paper's own design; this run asked the default design, so its NMI \
(GPT-4) is not shown beside it.
"""

from __future__ import annotations

from typing import Any

SAMPLES_UNIT = "percent of all samples"
NMI_UNIT = "NMI over the texts with a gender"
GENDERED_UNIT = "percent of the texts with a gender"


def figure(metric: str) -> Any:
    """001's figure for ``metric`` (``nmi``, ``follows_majority_all``)."""
    from stereoprobe.papers import pick
    from stereoprobe.studies.anecdotes import AnecdotesStudy

    return pick(AnecdotesStudy().paper_figures(), metric)[0]


def unit_of(metric: str, t: dict[str, Any]) -> str:
    """What the run's ``metric`` counts, as :func:`stereoprobe.papers.comparable` sets it
    against 001's unit (``t``: the scores, ``meta`` and ``professions``)."""
    if t["meta"].get("method") == "completion":
        return "value from a base model's completion form, not Template Prompt 4.1"
    if metric == "nmi":
        return NMI_UNIT
    if metric == "follows_majority":
        return GENDERED_UNIT
    p = t["professions"]
    known = int(p.dominated_by.isin(["women", "men"]).sum())
    if known == len(p):
        return SAMPLES_UNIT
    return f"percent of the samples of the {known} of {len(p)} professions with a BLS majority"


def quote(metric: str, t: dict[str, Any]) -> str:
    """001's figure as the page prints it beside the run's ``metric``, or the one line why not."""
    from stereoprobe.papers import comparable

    fig = figure(metric)
    label = "NMI" if metric == "nmi" else "share of all samples"
    reason = comparable(fig, t["meta"].get("design"), unit_of(metric, t), name=f"its {label} ({fig.model})")
    if reason is not None:
        return reason
    shown = f"{fig.value:g}%" if fig.unit == SAMPLES_UNIT else f"{fig.value:.3f}"
    return f"{fig.source}: {shown} for {fig.model} ({fig.note})."
