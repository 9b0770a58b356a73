"""The 40 occupations with their US labour statistics, read by the core for any study.

The table is Mattern et al.'s Table 6 (seed 003: 2021 BLS shares, curated into umbrella
terms), the core's ``stereoprobe/data/occupations.csv`` (``stereoprobe.occupations``),
which the jobs and coreference studies read too. This module reads it, or a user's list
of professions, as the generation studies' catalog, with the project's one CSV reader
(``datafiles.read_rows``); no study module is imported.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from stereoprobe.errors import DataError
from stereoprobe.occupations import OCCUPATIONS

SOURCE = "Mattern et al. (2022), Table 6: US Bureau of Labor Statistics, 2021"


@dataclass(frozen=True)
class Occupation:
    job: str
    female_share: float | None  # percent (None: not known)
    dominated_by: str  # "women", "men" or "" (not known)


def _share(value: str, path: Path, line: int) -> float | None:
    if value == "":
        return None
    try:
        share = float(value)
    except ValueError:
        raise DataError(f"{path}, line {line}: female_share {value!r} is not a number (percent, 0-100).") from None
    if not 0 <= share <= 100:
        raise DataError(f"{path}, line {line}: female_share {share} is outside 0-100 (percent).")
    return share


def load_occupations(path: str | Path | None = None, column: str = "job") -> list[Occupation]:
    """The occupations of ``path`` (default: the 40 BLS jobs); a user's CSV needs a ``job``
    (or ``profession``) column and may give ``female_share`` (percent) and ``dominated_by``
    (women/men; else from the share: above 50 women, below men). Empty, duplicate and
    malformed rows are refused in one line naming the file and line."""
    from stereoprobe.datafiles import read_rows

    file = Path(path) if path is not None else OCCUPATIONS
    rows = read_rows(file, [], missing_hint="give a CSV file with a job (or profession) column")
    out: list[Occupation] = []
    seen: set[str] = set()
    for line, row in rows:
        name = row.get(column) or row.get("profession") or ""
        if not name:
            raise DataError(f"{file}, line {line}: no job; the file needs a job (or profession) column, one per row.")
        if name.lower() in seen:
            raise DataError(f"{file}, line {line}: {name!r} appears twice; list each job once.")
        seen.add(name.lower())
        share = _share(row.get("female_share", ""), file, line)
        dominated = row.get("dominated_by", "")
        if dominated not in ("", "women", "men"):
            raise DataError(f"{file}, line {line}: dominated_by {dominated!r}: use women, men or leave it empty.")
        if not dominated and share is not None and share != 50:
            dominated = "women" if share > 50 else "men"
        out.append(Occupation(name, share, dominated))
    if not out:
        raise DataError(f"{file}: no jobs; give at least one row under a job (or profession) column.")
    return out
