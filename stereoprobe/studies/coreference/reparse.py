"""`stereoprobe reparse RUN_DIR` for a coreference chat run: 000's rule over the stored replies.

Each answered chat record's ``raw`` reply is parsed again with the current
``answers.parse_answer``; a record whose answer and refusal come out the same is kept as
it was (byte for byte). A refusal stays a refusal unless the reply now names exactly one
profession (an API refusal's text need not match the refusal phrases). Failed records
and logprob runs have nothing to parse.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from stereoprobe.studies.coreference.answers import PARSER_VERSION, parse_answer
from stereoprobe.studies.coreference.records import CorefRecord


def reparsed(rec: CorefRecord) -> CorefRecord:
    """The record with the current parser's answer, or the same object when nothing changes."""
    if rec.error is not None or rec.raw is None or rec.method != "chat":
        return rec
    from stereoprobe.studies.coreference.medqa import parse_baseline

    parsed = parse_baseline(rec.raw, rec) or parse_answer(rec.raw, rec.profession_a, rec.profession_b)
    answer, refused = parsed.answer, parsed.refused or (rec.refused and parsed.answer == "U")
    if (answer, refused) == (rec.answer, rec.refused):
        return rec
    return replace(rec, answer=answer, refused=refused)


def reparse(run_dir: Path) -> Any:
    from stereoprobe.reparse import rewrite

    return rewrite(run_dir, CorefRecord, reparsed, PARSER_VERSION, "score")
