"""Where completions come from: a run directory, or a file collected elsewhere.

- a run directory (or its ``completions.jsonl``): read with
  :func:`stereoprobe.store.read_completions`; ``manifest.json`` (read by :func:`stereoprobe.manifest.read_manifest`) adds model and run times;
- JSON Lines: one object per line with at least ``category``, ``group``, ``format`` and
  ``words`` (a list of strings); optional ``template``, ``probe_id``, ``sample``,
  ``refused``, ``error``;
- CSV (``.csv``): one word per row with columns ``category``, ``group``, ``format``,
  ``word``; optional ``template``, ``probe_id``, ``sample``. Rows that agree on all of
  these but ``word`` form one record.
"""

from __future__ import annotations

import csv
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

from stereoprobe.errors import DataError
from stereoprobe.records import FORMATS, Completion
from stereoprobe.store import COMPLETIONS, read_completions

REQUIRED_JSONL = ("category", "group", "format", "words")
REQUIRED_CSV = ("category", "group", "format", "word")


@dataclass
class Source:
    """Completion records plus what meta.json says about where they came from."""

    records: list[Completion]
    meta: dict[str, Any] = field(default_factory=dict)


def load_source(source: str | Path | Iterable[Completion]) -> Source:
    """Records from a run directory, a completions file, a JSONL/CSV file, or records."""
    if not isinstance(source, (str, Path)):
        records = list(source)
        bad = [r for r in records if not isinstance(r, Completion)]
        if bad:
            raise DataError(f"score() takes Completion records; got {type(bad[0]).__name__}.")
        return Source(records, {"input": {"kind": "records", "path": None}})
    p = Path(source)
    if p.is_dir():
        if not (p / COMPLETIONS).is_file():
            raise DataError(f"{p}: not a run directory (no {COMPLETIONS}); run `stereoprobe collect --out {p}` first.")
        return Source(read_completions(p), {"input": {"kind": "run_dir", "path": str(p.resolve())}} | _manifest(p))
    if not p.is_file():
        raise DataError(f"{p}: no such run directory or file; give a run directory or --input FILE.")
    if p.name == COMPLETIONS:
        return Source(read_completions(p), {"input": {"kind": "run_dir", "path": str(p.parent.resolve())}} | _manifest(p.parent))
    records = read_csv(p) if p.suffix.lower() == ".csv" else read_jsonl(p)
    return Source(records, {"input": {"kind": "file", "path": str(p.resolve())}})


def _manifest(run_dir: Path) -> dict[str, Any]:
    """What meta.json says about the run, from the one manifest reader."""
    from stereoprobe.manifest import read_manifest

    m = read_manifest(run_dir)
    if m is None:
        return {"model": None, "run_created_at": None}
    return {
        "model": m.model,
        "mode": m.mode,
        "endpoint": m.endpoint,
        "run_created_at": m.created_at,
        "run_started_at": m.started_at,
        "run_status": m.status,
    }


def _check_format(value: str, where: str) -> str:
    if value not in FORMATS:
        raise DataError(f"{where}: format {value!r} is not one of {', '.join(FORMATS)}.")
    return value


def read_jsonl(path: Path) -> list[Completion]:
    """Records from a JSON Lines file (see the module docstring for the fields)."""
    out: list[Completion] = []
    for lineno, line in enumerate(_lines(path), start=1):
        if not line.strip():
            continue
        where = f"{path}, line {lineno}"
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            raise DataError(f"{where}: not JSON ({exc.msg}); one JSON object per line, or use a .csv file.") from None
        if not isinstance(obj, dict):
            raise DataError(f"{where}: expected a JSON object with {', '.join(REQUIRED_JSONL)}.")
        for col in REQUIRED_JSONL:
            if col not in obj:
                raise DataError(f"{path}: line {lineno} has no {col!r} field; every line needs {', '.join(REQUIRED_JSONL)}.")
        words = obj["words"]
        if not isinstance(words, list) or not all(isinstance(w, str) for w in words):
            raise DataError(f"{where}: 'words' must be a list of strings.")
        out.append(
            Completion(
                probe_id=str(obj.get("probe_id") or ""),
                sample=_sample(str(obj.get("sample") or 0), where),
                category=str(obj["category"]),
                group=str(obj["group"]),
                template=str(obj.get("template") or ""),
                format=_check_format(str(obj["format"]), where),
                prompt=str(obj.get("prompt") or ""),
                words=words,
                refused=bool(obj.get("refused", False)),
                error=obj.get("error"),
            )
        )
    if not out:
        raise DataError(f"{path}: no records; expected JSON Lines with {', '.join(REQUIRED_JSONL)}.")
    return out


def read_csv(path: Path) -> list[Completion]:
    """Records from a CSV file with one word per row (rows of the same probe merge)."""
    grouped: dict[tuple, list[str]] = {}
    try:
        with path.open(newline="", encoding="utf-8-sig") as f:
            reader = csv.DictReader(f)
            header = [h.strip() for h in reader.fieldnames or []]
            for col in REQUIRED_CSV:
                if col not in header:
                    raise DataError(f"{path}: no {col!r} column; the header needs {', '.join(REQUIRED_CSV)}.")
            for row in reader:
                row = {(k or "").strip(): (v or "").strip() for k, v in row.items()}
                where = f"{path}, line {reader.line_num}"
                key = (
                    row.get("probe_id", ""),
                    _sample(row.get("sample") or "0", where),
                    row["category"],
                    row["group"],
                    row.get("template", ""),
                    _check_format(row["format"], where),
                )
                grouped.setdefault(key, []).append(row["word"])
    except UnicodeDecodeError as exc:
        raise DataError(f"{path}: not UTF-8 text ({exc.reason}); save it as UTF-8.") from None
    except csv.Error as exc:
        raise DataError(f"{path}: not valid CSV ({exc}).") from None
    if not grouped:
        raise DataError(f"{path}: no rows; expected columns {', '.join(REQUIRED_CSV)}.")
    return [
        Completion(probe_id=k[0], sample=k[1], category=k[2], group=k[3], template=k[4], format=k[5], prompt="", words=w)
        for k, w in grouped.items()
    ]


def _sample(value: str, where: str) -> int:
    if not value.isdigit():
        raise DataError(f"{where}: 'sample' must be a whole number, not {value!r}.")
    return int(value)


def _lines(path: Path) -> list[str]:
    try:
        return path.read_text(encoding="utf-8-sig").splitlines()
    except UnicodeDecodeError as exc:
        raise DataError(f"{path}: not UTF-8 text ({exc.reason}); save it as UTF-8.") from None
    except OSError as exc:
        raise DataError(f"{path}: cannot read ({exc.strerror}).") from None
