"""The fill-in study's named designs (stereoprobe/designs.py; docs/designs.md): `quick`, a
documented subset for `stereoprobe suite`, and `published`, the paper's own settings."""

from __future__ import annotations

from typing import Any, Mapping

from stereoprobe.designs import Design


def designs(options: Mapping[str, Any]) -> dict[str, Design]:
    return {d.name: d for d in (quick(options), published(options)) if d is not None}


QUICK_SEED = 33  # numpy's generator, seeded with [33, the category's place in groups/categories.csv]
QUICK_SHARE, QUICK_LEAST = 1 / 3, 4  # a third of each category's groups, at least 4 (all when fewer)


def quick_file() -> Any:
    from pathlib import Path

    return Path(__file__).resolve().parent / "data" / "quick_groups.csv"


def draw_quick() -> list[dict[str, str]]:
    """The quick design's groups, per category of the built-in catalog, a third
    of its groups (at least 4), by numpy's generator seeded with [33, the category's
    place in groups/categories.csv, from 0]."""
    import math

    from stereoprobe.designs import draw
    from stereoprobe.studies.fillin.catalog import load_catalog

    catalog = load_catalog(None, None)
    out = []
    for i, category in enumerate(catalog.categories):
        groups = [g.group for g in catalog.groups if g.category == category]
        k = max(QUICK_LEAST, math.ceil(len(groups) * QUICK_SHARE))
        out += [{"category": category, "group": g} for g in draw(groups, k, [QUICK_SEED, i])]
    return out


def quick(options: Mapping[str, Any]) -> Design | None:
    """A third of each category's groups (at least 4), drawn once (data/quick_groups.csv), with
    every template: the built-in catalog and the paper's templates only."""
    from stereoprobe.designs import read_subset

    if options.get("catalog") is not None or options.get("templates") not in (None, "paper"):
        return None  # the subset is of the built-in catalog
    rows = read_subset(quick_file(), ["category", "group"])
    return Design("quick", {"group": tuple(r["group"] for r in rows)},
                  f"{len(rows)} of the 382 groups (a third of each category, at least 4) x the paper's 6 templates",
                  "data/quick_groups.csv: drawn once by numpy's generator, seed [33, category]",
                  ("chosen by stereoprobe.studies.fillin.designs.draw_quick; docs/designs.md",))


#: Busker et al.'s settings (seed 004, section 3.2): gpt-3.5-turbo-0301 through ChatCompletion, temperature 0.0,
#: max_tokens 300, top_p 1.0; "almost 2300 probes": every group of Table 1 x Table 2's three questions and three
#: statements, asked once. They are the study's defaults: the design names them so a run can claim them.
TEMPERATURE = 0.0
MAX_TOKENS = 300
TOP_P = 1.0
PROBES = 2292


def published(options: Mapping[str, Any]) -> Design:
    settings = {"catalog": None, "templates": "paper", "category": (), "group": (), "fmt": None, "samples": 1,
                "temperature": TEMPERATURE, "max_tokens": MAX_TOKENS, "top_p": TOP_P, "debias": None,
                "instruction": None, "instruction_file": None}
    what = (f"every group x Table 2's three questions and three statements = {PROBES:,} probes, asked once in a chat "
            f"at temperature {TEMPERATURE:g}, max_tokens {MAX_TOKENS}, top_p {TOP_P:g} (the study's defaults, named)")
    notes = ("004 asked gpt-3.5-turbo-0301 in 2023 and does not print its instruction; ours asks for a numbered list of "
             "ten single words (backends/chat.py).",
             "004 labelled words with the official NRC EmoLex file and WordNet synonyms: its Table 4 stands beside a "
             "run scored with your copy of that file (stereoprobe sentiment RUN --lexicon FILE); the bundled nrclex "
             "subset looks EmoLex's neutral words up by synonyms. Our lemma step is not in 004.")
    return Design("published", settings, what, "Busker et al. (2023), sections 3.1-3.2, Tables 1, 2 and 4", notes)
