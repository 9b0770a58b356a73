r"""What every study's data files share: the one CSV reader (:func:`read_rows`: comments,
empty rows, missing columns, extra fields, encoding, each a one-line ``DataError`` naming
file and line) and stereoprobe's cache folder (:func:`cache_dir`).

>>> import tempfile, pathlib
>>> p = pathlib.Path(tempfile.mkdtemp()) / "x.csv"
>>> _ = p.write_text("# a comment\nname,age\nAda,36\n\n#Bob,1\n", encoding="utf-8")
>>> read_rows(p, ("name",))
[(3, {'name': 'Ada', 'age': '36'})]
"""

from __future__ import annotations

import csv
import os
from pathlib import Path
from typing import Iterable

from stereoprobe.errors import DataError


def cache_dir() -> Path:
    """stereoprobe's cache folder (not created here)."""
    if os.environ.get("STEREOPROBE_CACHE"):
        return Path(os.environ["STEREOPROBE_CACHE"]).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base).expanduser() / "stereoprobe"


def read_rows(path: Path, required: Iterable[str], missing_hint: str | None = None) -> list[tuple[int, dict[str, str]]]:
    """The rows of a CSV data file as (line number, {column: stripped value}).

    Lines starting with ``#`` before the header, and rows whose first value starts with
    ``#``, are comments; empty rows are skipped. A missing file, a missing column, a row
    with more fields than the header, a file that is not UTF-8 or not CSV is a one-line
    DataError naming the file (and line). Every study's data files are read here;
    ``missing_hint`` says what the file is for when it is missing.
    """
    if not path.is_file():
        raise DataError(f"{path}: file not found; {missing_hint or 'check the path'}.")
    try:
        with path.open(newline="", encoding="utf-8-sig") as f:
            lines = f.read().splitlines(keepends=True)
    except UnicodeDecodeError as exc:
        raise DataError(f"{path}: not UTF-8 text ({exc.reason}); save it as UTF-8.") from None
    skipped = 0
    while skipped < len(lines) and lines[skipped].lstrip().startswith("#"):
        skipped += 1
    try:
        reader = csv.DictReader(lines[skipped:])
        header = [h.strip() for h in (reader.fieldnames or [])]
        missing = [c for c in required if c not in header]
        if missing:
            raise DataError(
                f"{path}: the header lacks column(s) {', '.join(missing)}; "
                f"expected {', '.join(required)}."
            )
        rows = []
        for row in reader:
            clean = {(k or "").strip(): (v or "").strip() for k, v in row.items() if k}
            if not any(clean.values()) or clean.get(header[0], "").startswith("#"):
                continue
            if None in row:  # more fields than the header names
                raise DataError(
                    f"{path}, line {reader.line_num + skipped}: more fields than the header has; "
                    "quote values that contain commas."
                )
            rows.append((reader.line_num + skipped, clean))
    except csv.Error as exc:
        raise DataError(f"{path}: not valid CSV ({exc}).") from None
    return rows
