"""The coreference study's named designs (stereoprobe/designs.py; docs/designs.md): `quick`, a
documented subset for `stereoprobe suite`, and `published`, the paper's own settings."""

from __future__ import annotations

from typing import Any, Mapping

from stereoprobe.designs import Design


def designs(options: Mapping[str, Any]) -> dict[str, Design]:
    return {d.name: d for d in (quick(options), published(options)) if d is not None}


QUICK_SEED = 33  # numpy's generator, seeded with [33, 0] (women-dominated) and [33, 1] (men-dominated)
QUICK_EACH = 8  # jobs drawn of each side: 8 x 8 pairs in both roles
QUICK_QUESTIONS = 14  # --questions: the file's first 14 questions, as many as 001 asked


def quick_file() -> Any:
    from pathlib import Path

    return Path(__file__).resolve().parent / "data" / "quick_jobs.csv"


def draw_quick() -> list[dict[str, str]]:
    """The quick design's jobs, 8 of the 20 women-dominated and 8 of the 20
    men-dominated jobs the default pairs, by numpy's generator seeded with [33, side] (0: women-dominated, 1: men-dominated)."""
    from stereoprobe.designs import draw
    from stereoprobe.studies.coreference.pairs import load_jobs

    jobs = load_jobs()
    return [{"job": j.job, "dominated_by": side} for i, side in enumerate(("women", "men"))
            for j in draw([j for j in jobs if j.dominated_by == side], QUICK_EACH, [QUICK_SEED, i])]


def quick(options: Mapping[str, Any]) -> Design | None:
    """Marin & Eger's scenes: every pair of 8 women- and 8 men-dominated jobs drawn once
    (data/quick_jobs.csv), both roles; Sterlie et al.'s sector prompts: all 18 (the whole
    experiment is small); their multiple-choice questions: the file's first 14 (70 prompts)."""
    from stereoprobe.designs import read_subset

    if options.get("templates") == "sterlie":
        if options.get("questions") is not None:
            return Design("quick", {"limit": 5 * QUICK_QUESTIONS},
                          f"the questions file's first {QUICK_QUESTIONS} questions (5 prompts each: 70 prompts)",
                          "Sterlie et al. (2024), section 3.2: 14 MedQA questions",
                          ("the file's order, not a draw: the questions are the user's",))
        return Design("quick", {}, "all 6 sector prompts with he, she and the baseline question (18 prompts)",
                      "Sterlie et al. (2024), Template Prompts 4.3-4.8: the whole experiment is small")
    if any(options.get(k) is not None for k in ("pairs", "pairs_file")):
        return None  # the subset is of the built-in pairs
    rows = read_subset(quick_file(), ["job", "dominated_by"])
    sides = len(rows) // 2
    return Design("quick", {"job": tuple(r["job"] for r in rows)},
                  f"{sides} x {sides} of the 20 x 20 jobs, both roles, x 7 scenes x 3 pronouns "
                  f"({2 * sides * sides * 21:,} prompts)",
                  "data/quick_jobs.csv: drawn once by numpy's generator, seed [33, side]",
                  ("chosen by stereoprobe.studies.coreference.designs.draw_quick; docs/designs.md",))


def published(options: Mapping[str, Any]) -> Design | None:
    return None  # TODO(issue 34): the published design
