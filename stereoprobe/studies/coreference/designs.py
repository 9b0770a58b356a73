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
                  ("chosen by stereoprobe.studies.coreference.designs.draw_quick; docs/designs.md",),
                  width_cost=2.9)  # measured: docs/designs.md, "What the quick designs cost in width"


def published(options: Mapping[str, Any]) -> Design | None:
    if options.get("templates") == "sterlie":
        return _sterlie_published(options)
    return _marin_eger_published(options)


#: Marin & Eger's settings (seed 000, sections 3.2 and 4.1; the authors' bias/get_response.py and many_prompts.py):
#: 1000 random pairs of professions x the 7 templates x he, she, they, one reply each from a chat model at
#: temperature 0.2, max_tokens 120, top_p 1; no prefix.
MARIN_EGER_PAIRS = 1000
MARIN_EGER_SEED = 0
MARIN_EGER_TEMPERATURE = 0.2
MARIN_EGER_MAX_TOKENS = 120


def _marin_eger_published(options: Mapping[str, Any]) -> Design:
    """000's design for its seven templates (the default family): docs/designs.md."""
    settings = {"pairs": MARIN_EGER_PAIRS, "seed": MARIN_EGER_SEED, "pairs_file": None, "job": (), "prompt": (),
                "debias": None, "samples": 1, "temperature": MARIN_EGER_TEMPERATURE,
                "max_tokens": MARIN_EGER_MAX_TOKENS, "top_p": 1.0}
    n = MARIN_EGER_PAIRS
    what = (f"{n:,} random pairs of professions x 7 templates x he, she, they = {n * 21:,} prompts, one reply each "
            f"at temperature {MARIN_EGER_TEMPERATURE}, at most {MARIN_EGER_MAX_TOKENS} tokens, read by 000's rule")
    notes = ("000 drew its pairs from a corpus of over 900 occupations (Kazemi's, trimmed in the authors' "
             "datasets/occupations_common.csv), two draws with replacement per pair; the design draws 1,000 distinct "
             "ordered pairs (seed 0) from the fill-in catalog's 111 professions (docs/coreference.md), which the "
             "project ships.",
             "000 asked ChatGPT 3.5 (gpt-3.5-turbo-0125) and 4o in 2024; a chat model is needed (logprob mode has no "
             "replies to sample: refused in one line).")
    return Design("published", settings, what, "Marin & Eger (2024), sections 3.2-3.3 and 4.1-4.2.1, Tables 1 and 3; "
                  "the authors' bias/get_response.py", notes)


#: Sterlie et al.'s own settings (seed 001): temperature 0.5 for every experiment (section 5);
#: the sector prompts 50 times per pronoun, their baselines over 30 runs (section 5.4, Table 3);
#: the multiple-choice prompts 14 questions x 2 x 2 x 10 = 560, Baseline 1 30 times (section 5.3, eq. 8).
STERLIE_TEMPERATURE = 0.5
STERLIE_SECTOR_SAMPLES = 50
STERLIE_QUESTION_SAMPLES = 10
STERLIE_BASELINE_SAMPLES = 30


def _sterlie_published(options: Mapping[str, Any]) -> Design:
    """001's design for ``--templates sterlie``: the sector experiment, or with ``--questions``
    the multiple-choice one (docs/designs.md)."""
    from stereoprobe.studies.coreference.medqa import QUESTIONS_001
    from stereoprobe.studies.coreference.reading import STERLIE

    choice = options.get("questions") is not None
    samples = STERLIE_QUESTION_SAMPLES if choice else STERLIE_SECTOR_SAMPLES
    settings = {"samples": samples, "baseline_samples": STERLIE_BASELINE_SAMPLES,
                "temperature": STERLIE_TEMPERATURE, "reading": STERLIE}
    base = STERLIE_BASELINE_SAMPLES
    if choice:
        n = QUESTIONS_001
        what = (f"{n} questions x 2 groups (nurse right, doctor right) x he, she x {samples} samples = "
                f"{n * 4 * samples} Template Prompt 3.1 replies, and Baseline 1 {base} times a question = {n * base}, "
                f"at temperature {STERLIE_TEMPERATURE}; replies read as 001 reads them")
        source = "Sterlie et al. (2024), sections 4.3 and 5.3, eq. (3), (4) and (8), Tables 1 and 2"
        notes = (f"001 does not list its {n} MedQA-USMLE questions (only Example Prompt 5.1): bring {n} of your own; "
                 f"a file of another size is refused under this design.",
                 "The wrong option beside the right one is chosen by a hash of the question (001 does not say how "
                 "it chose).")
    else:
        what = (f"6 prompts (4.3-4.8) x he, she x {samples} samples = {6 * 2 * samples} replies, and Table 3's 6 "
                f"baseline questions x {base} = {6 * base}, at temperature {STERLIE_TEMPERATURE}; replies read as "
                "001 reads them")
        source = "Sterlie et al. (2024), sections 4.4 and 5.4, eq. (5) and (6), Tables 3-6"
        notes = ("001 asked GPT-4 in 2023; the maximum reply length is not given (ours: --max-tokens, 300).",)
    return Design("published", settings, what, source, notes)
