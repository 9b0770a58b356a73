"""Mattern et al.'s own Tables 3 and 4 beside a jobs run's: which figures, and whether.

003's tables (``data/paper_figures.csv``: GPT-3 text-davinci-001, the mean P(gender) over
the 20 women- and 20 men-dominated jobs, per prefix and position) are printed beside the
run's tables of the same layout only where :func:`stereoprobe.papers.comparable` allows:
the run asked the ``published`` design (003's 40 jobs, task prompts 1-4, no prefix and the
six, both positions) and every probability is exact (eq. 1-2 over every token, as 003 read
GPT-3's). A chat model's first-token or sampled estimate counts something else.

>>> print(reason({"design": "published", "estimates": ["first-token"]}, "1"))
Mattern et al. (2022), Table 3 counts mean probability over jobs, percent, exact (eq. 1-2); this value is a mean \
probability over jobs, percent, first-token estimate, so its figures (GPT-3 (text-davinci-001)) are not shown beside it.
"""

from __future__ import annotations

from typing import Any

UNIT = "mean probability over jobs, percent, exact (eq. 1-2)"


def figures() -> list[Any]:
    from stereoprobe.studies.jobs import JobsStudy

    return JobsStudy().paper_figures()


def unit_of(meta: dict[str, Any]) -> str:
    """What the run's Tables 3 and 4 count, as comparable sets it against 003's."""
    estimates = [e for e in meta.get("estimates", []) if e != "exact"]
    if estimates:
        return f"mean probability over jobs, percent, {' and '.join(estimates)} estimate"
    return UNIT


def reason(meta: dict[str, Any], prompts: str) -> str | None:
    """None when 003's table for ``prompts`` ("1": Table 3, "2-4": Table 4) may stand beside
    this run's; else the one line why not."""
    from stereoprobe.papers import comparable

    fig = next(f for f in figures() if dict(f.scope)["prompts"] == prompts)
    return comparable(fig, meta.get("design"), unit_of(meta), figures=f"its figures ({fig.model})")


def rows(meta: dict[str, Any], prompts: str) -> dict[str, dict[str, float]]:
    """(row id: None, 1-6, "Avg High" ...) -> {"without_women_M": percent, ...} of 003's table for
    ``prompts`` ("1": Table 3, "2-4": Table 4), where they may be shown; else {}."""
    if reason(meta, prompts) is not None:
        return {}
    short = {"without dialogue": "without", "with dialogue": "with"}
    letter = {"p_male": "M", "p_female": "F", "p_diverse": "D"}
    out: dict[str, dict[str, float]] = {}
    for f in figures():
        s = dict(f.scope)
        if s["prompts"] != prompts:
            continue
        key = f"Avg {s['abstraction']}" if s["id"] == "Avg" else s["id"]
        out.setdefault(key, {})[f"{short[s['setting']]}_{s['group']}_{letter[f.metric]}"] = f.value
    return out
