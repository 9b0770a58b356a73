"""Writing probes to the terminal, CSV and JSON Lines."""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Sequence

from stereoprobe.errors import DataError
from stereoprobe.records import Probe

COLUMNS = ("probe_id", "category", "group", "template", "format", "text")


def probes_table(probes: Sequence[Probe]) -> str:
    """A plain-text table of probes, one per line.

    >>> from stereoprobe import load_probes
    >>> print(probes_table(load_probes(group="police", format="statement")))
    probe_id      category    group   template       format     text
    5314d8c5ebc0  profession  police  are_so         statement  police are so ...
    09586942ba20  profession  police  are_always_so  statement  police are always so ...
    c7bd0b31b73f  profession  police  all_are_so     statement  all police are so ...
    """
    rows = [COLUMNS] + [tuple(getattr(p, c) for c in COLUMNS) for p in probes]
    widths = [max(len(r[i]) for r in rows) for i in range(len(COLUMNS))]
    return "\n".join("  ".join(v.ljust(w) for v, w in zip(r, widths)).rstrip() for r in rows)


def write_probes(probes: Sequence[Probe], path: str | Path) -> None:
    """Write probes as CSV or JSON Lines, chosen by the file's extension."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in (".csv", ".jsonl"):
        raise DataError(f"--output {path}: use a name ending in .csv or .jsonl.")
    try:
        with path.open("w", newline="", encoding="utf-8") as f:
            if suffix == ".csv":
                writer = csv.writer(f, lineterminator="\n")
                writer.writerow(COLUMNS)
                writer.writerows([getattr(p, c) for c in COLUMNS] for p in probes)
            else:
                for p in probes:
                    f.write(json.dumps(p.to_dict(), ensure_ascii=False) + "\n")
    except OSError as exc:
        raise DataError(f"Cannot write {path} ({exc.strerror}); choose another --output.") from None
