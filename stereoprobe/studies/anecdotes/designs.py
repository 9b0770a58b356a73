"""The anecdotes study's named designs (stereoprobe/designs.py; docs/designs.md): `quick`, a
documented subset for `stereoprobe suite`, and `published`, the paper's own settings."""

from __future__ import annotations

from typing import Any, Mapping

from stereoprobe.designs import Design


def designs(options: Mapping[str, Any]) -> dict[str, Design]:
    return {d.name: d for d in (quick(options), published(options)) if d is not None}


def quick(options: Mapping[str, Any]) -> Design | None:
    return None  # TODO(suite): the quick design


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
