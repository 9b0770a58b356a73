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
                  ("chosen by stereoprobe.studies.anecdotes.designs.draw_quick; the temperature is 001's 0.5",),
                  width_cost=3.53)  # measured: docs/designs.md, "What the quick designs cost in width"


#: Sterlie et al.'s settings (seed 001, section 5): Template Prompt 4.1 "replicated 30 times,
#: yielding a total sample size of 3000" (so 100 professions), temperature 0.5 for every experiment.
SAMPLES = 30
TEMPERATURE = 0.5
PROFESSIONS = 100


def published(options: Mapping[str, Any]) -> Design:
    """001's design: 100 professions (its 14 named ones, then BLS occupations up to 100,
    ``data/professions_published.csv``) x 30 samples at temperature 0.5, 001's template."""
    from stereoprobe.studies.anecdotes.catalog import PUBLISHED

    settings = {"catalog": str(PUBLISHED), "samples": SAMPLES, "temperature": TEMPERATURE,
                "instruction": None, "instruction_file": None}
    what = (f"{PROFESSIONS} professions x {SAMPLES} samples = {PROFESSIONS * SAMPLES:,} anecdotes (Template Prompt 4.1) "
            f"at temperature {TEMPERATURE}")
    notes = ("001 names 14 of its about 100 professions (Figure 1, its prompt's example, section 5.1); the file keeps "
             "them, the other 37 occupations of Mattern et al.'s Table 6, and 49 BLS occupations chosen by stereoprobe; "
             "its source column says which is which.",
             "Shares of women only where the project has BLS data (Table 6, 2021: 40 of the 100); the follows-majority "
             "share and Spearman use those 40 and say so; NMI uses all 100.",
             "001 gives no maximum length (ours: --max-tokens, 200) and classified each text by its names and pronouns "
             "by a rule it does not print (ours: docs/anecdotes.md).")
    return Design("published", settings, what, "Sterlie et al. (2024), sections 4.1 and 5.1, Figure 1", notes)
