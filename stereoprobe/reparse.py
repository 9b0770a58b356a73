"""`stereoprobe reparse RUN_DIR`: apply the current chat reply parser to the stored raw
replies, without asking the model again.

A record whose words come out the same is left byte for byte as it was; failed and
refused records are not touched. The run directory is locked while the file is
rewritten (atomically), and the manifest records the parser version and new counts.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, replace
from pathlib import Path

from stereoprobe.errors import DataError
from stereoprobe.manifest import read_manifest, write_manifest
from stereoprobe.parse import PARSER_VERSION, parse_reply
from stereoprobe.records import Completion
from stereoprobe.store import RunStore, atomic_write, read_completions

STATUSES = ("ok", "refused", "unparseable", "failed")


@dataclass(frozen=True)
class ReparseResult:
    run_dir: Path
    changed: int  # records whose words or status the current parser changed
    unchanged: int
    parser_version: str
    counts: dict[str, int]

    def summary(self) -> str:
        counts = ", ".join(f"{self.counts.get(s, 0)} {s}" for s in STATUSES)
        return (
            f"Parser {self.parser_version}: {self.changed} records changed, {self.unchanged} unchanged. "
            f"Run {self.run_dir}: {counts}. Next: `stereoprobe sentiment {self.run_dir}`."
        )


def reparse(run_dir: str | Path) -> ReparseResult:
    """Re-apply parse_reply to every answered chat record of a run directory."""
    store = RunStore(run_dir)
    manifest = read_manifest(store.dir)
    if manifest is None or not store.path.is_file():
        raise DataError(f"{store.dir}: not a run directory (no manifest.json and completions.jsonl).")
    if manifest.mode != "chat":
        raise DataError(f"{store.dir} is a {manifest.mode} run: only chat replies are parsed; nothing to do.")
    templates = manifest.catalog.templates if manifest.catalog else {}
    store.lock()
    try:
        records = read_completions(store.path)
        out, changed = [], 0
        for rec in records:
            new = _reparsed(rec, templates)
            changed += new is not rec
            out.append(new)
        if changed:
            atomic_write(store.path, "".join(json.dumps(r.to_dict(), ensure_ascii=False) + "\n" for r in out))
        totals = Counter(r.status for r in out)
        counts = {s: totals.get(s, 0) for s in STATUSES} | {"records": len(out)}
        write_manifest(store.dir, replace(manifest, parser_version=PARSER_VERSION, counts=counts))
    finally:
        store.unlock()
    return ReparseResult(store.dir, changed, len(out) - changed, PARSER_VERSION, counts)


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
