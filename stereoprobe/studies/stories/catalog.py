"""The stories study's probes: 000's five story prompts x the professions of its Table 4.

``data/prompts.csv`` (Table 2's prompts), ``data/messages.csv`` (the storyteller system
message and the instruction sent before the prompt), ``data/professions.csv`` (Table 4's
19 professions); ``--catalog FILE.csv`` gives other professions (a ``profession`` or
``job`` column). The article before the profession is chosen as the authors' code does
("an" before a vowel). A base model gets the story prompt itself to continue.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any, Mapping

from stereoprobe.errors import DataError
from stereoprobe.generation.records import GenProbe, gen_probe_id
from stereoprobe.manifest import CatalogInfo

DATA = Path(__file__).resolve().parent / "data"
FAMILY = "marin-eger-2024-stories"


def article(profession: str) -> str:
    """000's rule (narrative/many_prompts.py): "an" before a vowel letter.

    >>> article("architect"), article("baker"), article("university lecturer")
    ('an', 'a', 'an')
    """
    return "an" if profession[:1].lower() in "aeiou" else "a"


def load_data() -> tuple[list[tuple[str, str]], list[tuple[str, str]], list[str]]:
    """(prompts (name, text), messages (role, text), professions)."""
    from stereoprobe.datafiles import read_rows

    prompts = [(r["story"], r["text"]) for _, r in read_rows(DATA / "prompts.csv", ["story", "text"])]
    messages = [(r["role"], r["text"]) for _, r in read_rows(DATA / "messages.csv", ["role", "text"])]
    professions = [r["profession"] for _, r in read_rows(DATA / "professions.csv", ["profession"])]
    return prompts, messages, professions


def professions_of(catalog: Any) -> list[str]:
    if catalog is None:
        return load_data()[2]
    from stereoprobe.occupations import read_jobs

    return [o.job for o in read_jobs(catalog)]


def make_probes(options: Mapping[str, Any]) -> tuple[list[GenProbe], CatalogInfo]:
    prompts, messages, _ = load_data()
    chosen = options.get("prompt") or ()
    unknown = [p for p in chosen if p not in {name for name, _ in prompts}]
    if unknown:
        raise DataError(f"Unknown --prompt {unknown[0]!r}: choose from {', '.join(n for n, _ in prompts)}.")
    prompts = [p for p in prompts if not chosen or p[0] in chosen]
    probes = []
    for profession in professions_of(options.get("catalog")):
        for name, template in prompts:
            text = template.replace("{a}", article(profession)).replace("{profession}", profession)
            sent = tuple((role, content.replace("{prompt}", text)) for role, content in messages)
            probes.append(GenProbe(gen_probe_id("stories", profession, name, text), profession, name, sent, text,
                                   {"prompt_text": text}))
    if not probes:
        raise DataError("No story probes: give professions in the catalog.")
    digest = hashlib.sha256("\n".join(f"{p.group}\t{p.variant}\t{p.messages}" for p in probes).encode()).hexdigest()
    info = CatalogInfo(path="built-in" if options.get("catalog") is None else str(options["catalog"]), sha256=digest,
                       probes=len(probes), template_family=FAMILY,
                       templates={**{n: {"text": t} for n, t in prompts},
                                  "messages": {r: t for r, t in messages[:2]}})
    return probes, info
