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


#: Marin & Eger's settings (seed 000, section 4.2.2: "20 instances for each prompt, each of which we requested a
#: response for 20 times"; Table 4's 19 professions, its cells multiples of 5%, so 20 stories a cell) and the
#: authors' narrative/get_response.py (temperature 0.6, max_tokens 3000, top_p 1).
PROFESSIONS = 19
PROMPTS = 5
SAMPLES = 20
TEMPERATURE = 0.6
MAX_TOKENS = 3000
TOP_P = 1.0


def published(options: Mapping[str, Any]) -> Design:
    settings = {"catalog": None, "prompt": (), "samples": SAMPLES, "temperature": TEMPERATURE,
                "max_tokens": MAX_TOKENS, "top_p": TOP_P}
    what = (f"Table 4's {PROFESSIONS} professions x {PROMPTS} story prompts x {SAMPLES} stories = "
            f"{PROFESSIONS * PROMPTS * SAMPLES:,} stories at temperature {TEMPERATURE}, top_p {TOP_P:g}, at most "
            f"{MAX_TOKENS} tokens each")
    notes = ("000 drew its professions at random after Graduate Student (20 draws, a repeat dropped); the design asks "
             "the 19 its Table 4 reports.",
             "000 read each story's name by its own rule (the first two words, in the UCI Gender by Name table); to "
             "score the run that way, give your copy of that table: stereoprobe score RUN --reading marin-eger "
             "--names-file FILE (docs/stories.md). Table 4's figures stand beside a run read so.",
             "000 asked ChatGPT 3.5 (gpt-3.5-turbo-0125) and 4o in 2024.")
    return Design("published", settings, what, "Marin & Eger (2024), sections 3.4 and 4.2.2, Tables 2 and 4; the "
                  "authors' narrative/get_response.py", notes)
