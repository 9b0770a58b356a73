"""`stereoprobe reparse RUN_DIR` for a coreference chat run: the run's rule over the stored replies.

Each answered chat record's ``raw`` reply is read again with the current rule: 000's
(``answers.parse_answer``) for Marin & Eger's scenes, the run's reading for Sterlie et al.'s
prompts (reading.py; the manifest's ``reading``, 000's rule for a run made before readings
existed); a record whose answer and refusal come out the same is kept as it was (byte for
byte). A refusal stays a refusal unless the reply now names exactly one profession (an API
refusal's text need not match the refusal phrases). Failed records and logprob runs have
nothing to parse.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from stereoprobe.studies.coreference.answers import PARSER_VERSION
from stereoprobe.studies.coreference.records import CorefRecord


def reparsed(rec: CorefRecord, reading: str | None = None) -> CorefRecord:
    """The record with the current rule's answer, or the same object when nothing changes."""
    if rec.error is not None or rec.raw is None or rec.method != "chat":
        return rec
    from stereoprobe.studies.coreference.reading import read

    parsed = read(rec.raw, rec, reading)
    answer, refused = parsed.answer, parsed.refused or (rec.refused and parsed.answer == "U")
    if (answer, refused) == (rec.answer, rec.refused):
        return rec
    return replace(rec, answer=answer, refused=refused)


def reparse(run_dir: Path) -> Any:
    from stereoprobe.manifest import read_manifest
    from stereoprobe.reparse import rewrite

    manifest = read_manifest(run_dir)
    reading = (manifest.settings.options or {}).get("reading") if manifest else None
    return rewrite(run_dir, CorefRecord, lambda rec: reparsed(rec, reading), PARSER_VERSION, "score")
