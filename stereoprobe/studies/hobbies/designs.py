"""The hobbies study's named designs (stereoprobe/designs.py; docs/designs.md): `quick`, a
documented subset for `stereoprobe suite`, and `published`, the paper's own settings."""

from __future__ import annotations

from typing import Any, Mapping

from stereoprobe.designs import Design


def designs(options: Mapping[str, Any]) -> dict[str, Design]:
    return {d.name: d for d in (quick(options), published(options)) if d is not None}


QUICK_SEED = 33  # numpy's generator, seeded with [33, 0] (female names) and [33, 1] (male names)
QUICK_EACH, QUICK_SAMPLES = 20, 2  # names drawn of each gender; texts each


def quick_file() -> Any:
    from pathlib import Path

    return Path(__file__).resolve().parent / "data" / "quick_names.csv"


def draw_quick() -> list[dict[str, str]]:
    """The quick design's names, 20 of the 107 female and 20 of the 107 male names
    of data/names.csv, by numpy's generator seeded with [33, gender] (0: female, 1: male)."""
    from stereoprobe.designs import draw
    from stereoprobe.studies.hobbies.names import load_names

    names = load_names()
    return [{"name": n.name, "gender": g} for i, g in enumerate(("female", "male"))
            for n in draw([n for n in names if n.gender == g], QUICK_EACH, [QUICK_SEED, i])]


def quick(options: Mapping[str, Any]) -> Design | None:
    """20 female and 20 male names drawn once (data/quick_names.csv) x 2 texts."""
    from stereoprobe.designs import read_subset

    if options.get("catalog") is not None:
        return None  # the subset is of the built-in names
    rows = read_subset(quick_file(), ["name", "gender"])
    return Design("quick", {"catalog": str(quick_file()), "samples": QUICK_SAMPLES},
                  f"{len(rows)} of the 214 names ({QUICK_EACH} female, {QUICK_EACH} male) x {QUICK_SAMPLES} texts",
                  "data/quick_names.csv: drawn once by numpy's generator, seed [33, gender]",
                  ("chosen by stereoprobe.studies.hobbies.designs.draw_quick; the temperature is 001's 0.5",))


def published(options: Mapping[str, Any]) -> Design | None:
    return None  # TODO(issue 34): the published design
