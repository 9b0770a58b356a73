"""The anecdotes study's named designs (stereoprobe/designs.py; docs/designs.md): `quick`, a
documented subset for `stereoprobe suite`, and `published`, the paper's own settings."""

from __future__ import annotations

from typing import Any, Mapping

from stereoprobe.designs import Design


def designs(options: Mapping[str, Any]) -> dict[str, Design]:
    return {d.name: d for d in (quick(options), published(options)) if d is not None}


QUICK_SEED = 33  # numpy's generator, seeded with [33, 0] (women-dominated) and [33, 1] (men-dominated)
QUICK_EACH, QUICK_SAMPLES = 10, 4  # professions drawn of each side; samples each


def quick_file() -> Any:
    from pathlib import Path

    return Path(__file__).resolve().parent / "data" / "quick_professions.csv"


def draw_quick() -> list[dict[str, str]]:
    """The quick design's professions, 10 of the 20 women-dominated and 10 of the 20
    men-dominated occupations of the default, with their BLS shares (the core's table), by
    numpy's generator seeded with [33, side] (0: women-dominated, 1: men-dominated)."""
    from stereoprobe.designs import draw
    from stereoprobe.occupations import read_jobs

    jobs = read_jobs()
    return [{"job": j.job, "female_share": f"{j.female_share:g}", "dominated_by": side}
            for i, side in enumerate(("women", "men"))
            for j in draw([j for j in jobs if j.dominated_by == side], QUICK_EACH, [QUICK_SEED, i])]


def quick(options: Mapping[str, Any]) -> Design | None:
    """10 women- and 10 men-dominated professions drawn once (data/quick_professions.csv) x 4 samples."""
    from stereoprobe.designs import read_subset

    if options.get("catalog") is not None:
        return None  # the subset is of the built-in professions
    rows = read_subset(quick_file(), ["job", "female_share", "dominated_by"])
    return Design("quick", {"catalog": str(quick_file()), "samples": QUICK_SAMPLES},
                  f"{len(rows)} of the 40 professions ({QUICK_EACH} women-, {QUICK_EACH} men-dominated) x "
                  f"{QUICK_SAMPLES} samples",
                  "data/quick_professions.csv: drawn once by numpy's generator, seed [33, side]",
                  ("chosen by stereoprobe.studies.anecdotes.designs.draw_quick; the temperature is 001's 0.5",))


def published(options: Mapping[str, Any]) -> Design | None:
    return None  # TODO(issue 34): the published design
