"""The occupations the studies share (the jobs study's P(gender | job), the coreference
study's profession pairs, the anecdotes and stories studies' professions): Mattern et
al.'s Table 6, 40 jobs with their US Bureau of Labor Statistics shares
(``data/occupations.csv``), or a user's CSV file with a ``job`` (or ``profession``)
column, read and validated here, the one reader; and the indefinite article before a job.

>>> [j.job for j in read_jobs(OCCUPATIONS)][:2]
['skincare specialist', 'kindergarten teacher']
>>> article_for("engineer"), article_for("nurse")
('an', 'a')
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from stereoprobe.datafiles import read_rows
from stereoprobe.errors import DataError

#: The built-in table (seed 003's Table 6; its sources are quoted in the file's comments).
OCCUPATIONS = Path(__file__).resolve().parent / "data" / "occupations.csv"
_VOWEL_SOUND_EXCEPTIONS = ("uni", "use", "usu", "ura", "ure", "uro", "uti", "eu", "ewe", "one", "once")
_SILENT_H = ("hour", "honest", "honor", "honour", "heir")


def article_for(job: str) -> str:
    """The indefinite article before ``job``: "an" before a vowel sound.

    >>> [article_for(j) for j in ["electrician", "nurse", "interior designer", "hour-long job", "union organiser"]]
    ['an', 'a', 'an', 'an', 'a']
    """
    word = job.strip().lower()
    if word.startswith(_SILENT_H):
        return "an"
    if word[:1] in "aeiou" and not word.startswith(_VOWEL_SOUND_EXCEPTIONS):
        return "an"
    return "a"


@dataclass(frozen=True)
class Job:
    job: str
    article: str
    dominated_by: str  # "women", "men" or "" (unknown)
    male_share: float | None
    female_share: float | None


def _share(value: str, where: str, column: str) -> float | None:
    if value == "":
        return None
    try:
        share = float(value.rstrip("%"))
    except ValueError:
        raise DataError(f"{where}: {column} {value!r} is not a number; give a percentage from 0 to 100.") from None
    if not 0 <= share <= 100:
        raise DataError(f"{where}: {column} {value!r} is outside 0-100; give a percentage from 0 to 100.")
    return share


def read_jobs(path: str | Path | None = None) -> tuple[Job, ...]:
    """Jobs from a CSV file (default the built-in Table 6; a user's --catalog file: a
    ``job`` column, or ``profession``, optionally ``female_share``, ``male_share`` (percent),
    ``dominated_by`` (women/men; else from the share) and ``article``), validated: a bad
    row is one line naming the file and line."""
    path = OCCUPATIONS if path is None else Path(path)
    hint = "give a CSV file with a job column (and optionally female_share) to --catalog"
    rows = read_rows(path, (), missing_hint=hint)
    if not rows:
        raise DataError(f"{path}: no jobs; give at least one row under a job (or profession) column.")
    column = next((c for c in ("job", "profession") if c in rows[0][1]), None)
    if column is None:
        raise DataError(f"{path}: the header lacks column(s) job; expected job (or profession), optionally "
                        "female_share.")
    jobs: list[Job] = []
    seen: set[str] = set()
    for line, row in rows:
        where = f"{path}, line {line}"
        name = row[column]
        if not name:
            raise DataError(f"{where}: empty '{column}'.")
        if any(c in name for c in "{}\n"):
            raise DataError(f"{where}: job {name!r} contains a brace or a line break.")
        if name.casefold() in seen:
            raise DataError(f"{where}: job {name!r} appears twice; keep one.")
        seen.add(name.casefold())
        female = _share(row.get("female_share", ""), where, "female_share")
        male = _share(row.get("male_share", ""), where, "male_share")
        if female is not None and male is not None and abs(female + male - 100) > 1:
            raise DataError(f"{where}: male_share {male:g} and female_share {female:g} do not add up to 100.")
        if female is None and male is not None:
            female = 100 - male
        article = row.get("article", "") or article_for(name)
        if article not in ("a", "an"):
            raise DataError(f"{where}: article {article!r} must be 'a' or 'an' (or empty: chosen from the job).")
        dominated = row.get("dominated_by", "")
        if dominated not in ("women", "men", ""):
            raise DataError(f"{where}: dominated_by {dominated!r} must be 'women', 'men' or empty.")
        if not dominated and female is not None and female != 50:
            dominated = "women" if female > 50 else "men"
        jobs.append(Job(name, article, dominated, male if male is not None else (None if female is None else 100 - female),
                        female))
    return tuple(jobs)
