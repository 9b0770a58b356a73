"""`stereoprobe reparse RUN_DIR`: apply the current chat reply parser to the stored raw
replies, without asking the model again.

A record whose words come out the same is left byte for byte as it was; failed and
refused records are not touched. The run directory is locked while the file is
rewritten (atomically), and the manifest records the parser version and new counts.

Every study that parses chat replies store-side uses :func:`rewrite` with its own record
type and parser (fill-in: ``studies/fillin/reparse.py``, the coreference study:
``studies/coreference/reparse.py``); :func:`reparse` finds the run's study from its manifest.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Callable

from stereoprobe.errors import DataError
from stereoprobe.manifest import read_manifest, write_manifest
from stereoprobe.store import RunStore, atomic_write, read_completions

STATUSES = ("ok", "refused", "unparseable", "failed")


@dataclass(frozen=True)
class ReparseResult:
    run_dir: Path
    changed: int  # records whose words or status the current parser changed
    unchanged: int
    parser_version: str
    counts: dict[str, int]
    next_command: str = "sentiment"

    def summary(self) -> str:
        from stereoprobe.page.numbers import counted

        counts = ", ".join(f"{self.counts.get(s, 0)} {s}" for s in STATUSES)
        return (
            f"Parser {self.parser_version}: {counted(self.changed, 'record')} changed, "
            f"{self.unchanged} unchanged. "
            f"Run {self.run_dir}: {counts}. Next: `stereoprobe {self.next_command} {self.run_dir}`."
        )


def reparse(run_dir: str | Path) -> ReparseResult:
    """Re-apply the run's study's parser to every answered chat record of a run directory
    (the study's ``reparse``; fill-in: ``studies/fillin/reparse.py``)."""
    from stereoprobe.studies import get_study, study_of_run

    manifest = read_manifest(run_dir)
    return (study_of_run(run_dir) if manifest is not None else get_study(None)).reparse(Path(run_dir))


def rewrite(run_dir: str | Path, record: type, reparsed: Callable[[Any], Any], parser_version: str,
            next_command: str) -> ReparseResult:
    """Replace every record of a chat run by ``reparsed(record)`` (the same object when the
    parser changes nothing), under the run's lock; the manifest gets ``parser_version`` and
    the new counts."""
    store = RunStore(run_dir, record)
    manifest = read_manifest(store.dir)
    if manifest is None or not store.path.is_file():
        from stereoprobe.studies import not_a_suite

        not_a_suite(store.dir)
        raise DataError(f"{store.dir}: not a run directory (no manifest.json and completions.jsonl).")
    if manifest.mode != "chat":
        raise DataError(f"{store.dir} is a {manifest.mode} run: only chat replies are parsed; nothing to do.")
    store.lock(out_flag=False)  # reparse has no --out
    try:
        records = read_completions(store.path, record)
        out, changed = [], 0
        for rec in records:
            new = reparsed(rec)
            changed += new is not rec
            out.append(new)
        if changed:
            atomic_write(store.path, "".join(json.dumps(r.to_dict(), ensure_ascii=False) + "\n" for r in out))
        totals = Counter(r.status for r in out)
        counts = {s: totals.get(s, 0) for s in STATUSES} | {"records": len(out)}
        write_manifest(store.dir, replace(manifest, parser_version=parser_version, counts=counts))
    finally:
        store.unlock()
    return ReparseResult(store.dir, changed, len(out) - changed, parser_version, counts, next_command)
