"""The jobs study's named designs (stereoprobe/designs.py; docs/designs.md): `quick`, a
documented subset for `stereoprobe suite`, and `published`, the paper's own settings."""

from __future__ import annotations

from typing import Any, Mapping

from stereoprobe.designs import Design


def designs(options: Mapping[str, Any]) -> dict[str, Design]:
    return {d.name: d for d in (quick(options), published(options)) if d is not None}


QUICK_SEED = 33  # numpy's generator, seeded with [33, 0] (women-dominated) and [33, 1] (men-dominated)
QUICK_EACH = 10  # jobs drawn of each side


def quick_file() -> Any:
    from pathlib import Path

    return Path(__file__).resolve().parent / "data" / "quick_jobs.csv"


def draw_quick() -> list[dict[str, str]]:
    """The quick design's jobs, 10 of Table 6's 20 women-dominated jobs and 10 of
    its 20 men-dominated ones, by numpy's generator seeded with [33, side] (0: women-dominated, 1: men-dominated)."""
    from stereoprobe.designs import draw
    from stereoprobe.occupations import read_jobs

    jobs = read_jobs()
    return [{"job": j.job, "dominated_by": side} for i, side in enumerate(("women", "men"))
            for j in draw([j for j in jobs if j.dominated_by == side], QUICK_EACH, [QUICK_SEED, i])]


def quick(options: Mapping[str, Any]) -> Design | None:
    """10 women- and 10 men-dominated jobs of Table 6, drawn once (data/quick_jobs.csv), with every
    prompt, story and setting of the default."""
    from stereoprobe.designs import read_subset

    if options.get("catalog") is not None:
        return None  # the subset is of the built-in table
    rows = read_subset(quick_file(), ["job", "dominated_by"])
    return Design("quick", {"job": tuple(r["job"] for r in rows)},
                  f"{len(rows)} of Table 6's 40 jobs (10 women-, 10 men-dominated) x every prompt",
                  "data/quick_jobs.csv: drawn once by numpy's generator, seed [33, side]",
                  ("chosen by stereoprobe.studies.jobs.designs.draw_quick; docs/designs.md",))


def published(options: Mapping[str, Any]) -> Design | None:
    return None  # TODO(issue 34): the published design
