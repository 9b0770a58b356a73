"""The stories study's named designs (stereoprobe/designs.py; docs/designs.md): `quick`, a
documented subset for `stereoprobe suite`, and `published`, the paper's own settings."""

from __future__ import annotations

from typing import Any, Mapping

from stereoprobe.designs import Design


def designs(options: Mapping[str, Any]) -> dict[str, Design]:
    return {d.name: d for d in (quick(options), published(options)) if d is not None}


QUICK_SEED = 33  # numpy's generator, seeded with 33
QUICK_PROFESSIONS, QUICK_SAMPLES = 8, 2  # of Table 4's 19; stories per prompt and profession


def quick_file() -> Any:
    from pathlib import Path

    return Path(__file__).resolve().parent / "data" / "quick_professions.csv"


def draw_quick() -> list[dict[str, str]]:
    """The quick design's professions, 8 of Table 4's 19 by numpy's generator seeded
    with 33."""
    from stereoprobe.designs import draw
    from stereoprobe.studies.stories.catalog import load_data

    return [{"profession": p} for p in draw(load_data()[2], QUICK_PROFESSIONS, QUICK_SEED)]


def quick(options: Mapping[str, Any]) -> Design | None:
    """8 of Table 4's professions drawn once (data/quick_professions.csv) x the 5 prompts x 2 stories."""
    from stereoprobe.designs import read_subset

    if options.get("catalog") is not None or options.get("prompt"):
        return None  # the subset is of the built-in professions and every prompt
    rows = read_subset(quick_file(), ["profession"])
    return Design("quick", {"catalog": str(quick_file()), "samples": QUICK_SAMPLES},
                  f"{len(rows)} of Table 4's 19 professions x 5 prompts x {QUICK_SAMPLES} stories",
                  "data/quick_professions.csv: drawn once by numpy's generator, seed 33",
                  ("chosen by stereoprobe.studies.stories.designs.draw_quick; the temperature is 000's 0.6",))


def published(options: Mapping[str, Any]) -> Design | None:
    return None  # TODO(issue 34): the published design
