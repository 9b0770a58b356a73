"""Fill-in's chat replies parsed again with the current list parser (``stereoprobe
reparse``; the locked, atomic rewrite is the core's ``reparse.rewrite``)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from stereoprobe.manifest import read_manifest
from stereoprobe.records import Completion
from stereoprobe.reparse import ReparseResult, rewrite
from stereoprobe.studies.fillin.parse import PARSER_VERSION, parse_reply


def reparse(run_dir: str | Path) -> ReparseResult:
    """Re-apply ``parse_reply`` to every answered chat record of a fill-in run."""
    manifest = read_manifest(run_dir)
    templates = manifest.catalog.templates if manifest and manifest.catalog else {}
    return rewrite(run_dir, Completion, lambda rec: _reparsed(rec, templates), PARSER_VERSION, "sentiment")


def _reparsed(rec: Completion, templates: dict) -> Completion:
    """The record with the current parser's words, or the same object when nothing changes."""
    if rec.error is not None or rec.refused or rec.raw is None:
        return rec
    template = templates.get(rec.template, {}).get("text")
    probe_text = template.replace("<group>", rec.group) if template else rec.prompt
    parsed = parse_reply(rec.raw, probe_text=probe_text, group=rec.group)
    if (parsed.words, parsed.refused) == (rec.words, rec.refused):
        return rec
    from stereoprobe.backends.chat_logprobs import word_probabilities

    probabilities = word_probabilities(rec.raw, parsed.words, rec.logprobs) if parsed.words else None
    return replace(rec, words=parsed.words, refused=parsed.refused, probabilities=probabilities)
