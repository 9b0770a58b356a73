"""The anecdotes study's probes: Template Prompt 4.1 filled with each profession.

Professions: the 40 occupations of the jobs study (Mattern et al.'s Table 6, 2021 BLS
shares; 001 also chose BLS-dominated jobs), read through the core
(``stereoprobe.occupations.read_jobs``), or ``--catalog FILE.csv`` (a ``job`` or ``profession``
column; optional ``female_share``, percent, and ``dominated_by``; a ``source`` column, where
there is one, goes with each probe to the tables). The published design's catalog is
``data/professions_published.csv`` (``PUBLISHED``: 001's named professions, then BLS
occupations up to 100, each with its source; docs/designs.md). The template is
``data/template.csv`` (001's text, word for word, and a completion form for base models);
``--instruction TEXT`` or ``--instruction-file F`` replaces the chat template and must
contain ``{profession}``.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any, Mapping

from stereoprobe.errors import DataError
from stereoprobe.generation.records import GenProbe, gen_probe_id
from stereoprobe.manifest import CatalogInfo

DATA = Path(__file__).resolve().parent / "data"
PUBLISHED = DATA / "professions_published.csv"  # the published design's 100 professions
PLACEHOLDER = "{profession}"
FAMILY = "sterlie-2024-anecdotes"


def load_template(path: Path | None = None) -> dict[str, str]:
    """form ("chat", "completion") -> text, from data/template.csv."""
    from stereoprobe.datafiles import read_rows

    file = path or DATA / "template.csv"
    forms = {row["form"]: row["text"] for _, row in read_rows(file, ["form", "text"])}
    missing = [f for f in ("chat", "completion") if f not in forms]
    if missing:
        raise DataError(f"{file}: no {' or '.join(missing)} row; give both forms.")
    return forms


def chat_template(options: Mapping[str, Any]) -> tuple[str, str]:
    """(the chat template, where it came from): --instruction, --instruction-file or 001's."""
    text, source = options.get("instruction"), "--instruction"
    if text is not None and options.get("instruction_file") is not None:
        raise DataError("--instruction and --instruction-file both give the template; give one of them.")
    if options.get("instruction_file") is not None:
        path = Path(options["instruction_file"])
        try:
            text, source = path.read_text(encoding="utf-8"), str(path)
        except (OSError, UnicodeDecodeError) as exc:
            raise DataError(f"{path}: cannot read the template ({exc}); give a UTF-8 text file.") from None
    if text is None:
        return load_template()["chat"], "built-in"
    if PLACEHOLDER not in text:
        raise DataError(f"The template from {source} has no {PLACEHOLDER} placeholder; put {PLACEHOLDER} where the "
                        "profession goes.")
    return text.strip(), source


def make_probes(options: Mapping[str, Any]) -> tuple[list[GenProbe], CatalogInfo]:
    """One probe per profession (bad input refused in one line, before anything is created)."""
    from stereoprobe.occupations import read_jobs

    catalog = options.get("catalog")
    jobs = read_jobs(catalog)
    sources = _sources(catalog)
    chat, source = chat_template(options)
    completion = load_template()["completion"]
    probes = []
    for job in jobs:
        text = chat.replace(PLACEHOLDER, job.job)
        facts = {"female_share": job.female_share, "dominated_by": job.dominated_by}
        if sources:
            facts["source"] = sources[job.job]
        probes.append(GenProbe(gen_probe_id("anecdotes", job.job, "", text), job.job, "", (("user", text),),
                               completion.replace(PLACEHOLDER, job.job), facts))
    digest = hashlib.sha256("\n".join(f"{p.group}\t{p.attrs}\t{p.text}" for p in probes).encode()).hexdigest()
    where = "built-in" if catalog is None else str(catalog)
    if catalog is not None and Path(catalog).resolve() == PUBLISHED:
        where = f"built-in: {PUBLISHED.name} (the published design)"
    info = CatalogInfo(path=where, sha256=digest, probes=len(probes),
                       template_family=FAMILY, templates={"4.1": {"text": chat, "source": source},
                                                          "completion": {"text": completion}})
    return probes, info


def _sources(catalog: Any) -> dict[str, str]:
    """job -> its ``source`` column, for a catalog file that has one (else {})."""
    from stereoprobe.datafiles import read_rows

    if catalog is None:
        return {}
    rows = read_rows(Path(catalog), ())
    if not rows or "source" not in rows[0][1]:
        return {}
    column = "job" if "job" in rows[0][1] else "profession"
    return {row[column]: row["source"] for _, row in rows}
