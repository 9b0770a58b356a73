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
                  ("chosen by stereoprobe.studies.jobs.designs.draw_quick; docs/designs.md",),
                  width_cost=1.64)  # measured: docs/designs.md, "What the quick designs cost in width"


#: Mattern et al.'s design (seed 003, sections 3.2, 4 and 5.2; Tables 1, 2, 3, 4 and 6): the 40 jobs of Table 6 x task
#: prompts 1-4 x no prefix and the six debiasing prompts x their two positions, each probability read once, exactly.
PROMPTS = ("1", "2", "3", "4")
JOBS = 40
PREFIXES = 7
SETTINGS = 2


def published(options: Mapping[str, Any]) -> Design:
    settings = {"catalog": None, "job": (), "prompt": PROMPTS, "debias": "all", "setting": ()}
    n = JOBS * len(PROMPTS) * PREFIXES * SETTINGS
    what = (f"Table 6's {JOBS} jobs x task prompts 1-4 x no prefix and the six (Table 2) x without and with dialogue "
            f"= {n:,} prompts, each P(gender) read exactly (eq. 1-2)")
    notes = ("003 read GPT-3's (text-davinci-001) token probabilities through the completions API; here the embedded "
             "model and --mode next-word endpoints that echo prompt log-probabilities are exact. A chat model's "
             "first-token or sampled estimate is another unit: the page then withholds 003's figures and says why.",
             "003 does not print its three-turn conversation; ours is data/dialogue.csv (docs/jobs.md).",
             "Marin & Eger's story prompts, which the jobs study also asks by default, are not 003's: the design leaves "
             "them out.")
    return Design("published", settings, what, "Mattern et al. (2022), sections 3-5, Tables 1-4 and 6", notes)
