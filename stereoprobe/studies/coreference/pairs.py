"""Pairs of professions, three ways: the jobs table, random catalog professions, a user's CSV.

- :func:`jobs_pairs` (the default): the 40 occupations of seed 003's Table 6 (Mattern et
  al., appendix B; U.S. BLS 2021 shares), read from the jobs study's
  ``stereoprobe/data/occupations.csv`` (one table for both studies, in the core), every women-dominated job
  with every men-dominated job in both roles: 20 x 20 x 2 = 800 ordered pairs. Each pair
  knows which job is women- and which men-dominated, so every he/she prompt is pro- or
  anti-stereotypical.
- :func:`random_pairs`: ``n`` distinct ordered pairs of two different professions drawn
  with a seed from the fill-in catalog's ``profession`` category, as 000 samples pairs
  from its profession corpus. The catalog names plural groups (``nurses``); their
  singular forms are ``data/professions.csv`` (see :func:`catalog_professions`). The
  genders of these professions are not known: their prompts count for the incorrect and
  inconsistent shares, not for the stereotype metrics.
- :func:`read_pairs_csv`: a user's CSV with columns ``profession_a, profession_b`` and,
  optionally, ``gender_a, gender_b`` (``women`` or ``men``: which gender dominates the
  job) for the stereotype metrics.

>>> len(jobs_pairs()), jobs_pairs()[0]
(800, Pair(a='skincare specialist', b='police officer', gender_a='women', gender_b='men'))
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from stereoprobe.errors import DataError
from stereoprobe.occupations import Job
from stereoprobe.studies.coreference.templates import GENDERS, data_dir, data_rows


@dataclass(frozen=True)
class Pair:
    """Two professions in their roles (A first) and the gender that dominates each, if known."""

    a: str
    b: str
    gender_a: str | None = None
    gender_b: str | None = None

    @property
    def cluster(self) -> str:
        """The unordered pair: the unit the bootstrap resamples (both roles, all templates)."""
        return " / ".join(sorted((self.a, self.b)))


def load_jobs() -> tuple[Job, ...]:
    """The occupations the jobs study uses too (seed 003's Table 6, the core's
    ``data/occupations.csv``): 20 women-dominated and 20 men-dominated jobs with their BLS shares."""
    from stereoprobe.occupations import OCCUPATIONS, read_jobs

    return read_jobs(OCCUPATIONS)


def jobs_pairs(jobs: Sequence[Job] | None = None) -> list[Pair]:
    """Every women-dominated job with every men-dominated job, both roles (W as A first).
    Jobs dominated by neither (a user's job without a share) are left out."""
    jobs = load_jobs() if jobs is None else jobs
    women = [j.job for j in jobs if j.dominated_by == "women"]
    men = [j.job for j in jobs if j.dominated_by == "men"]
    out = []
    for w in women:
        for m in men:
            out += [Pair(w, m, "women", "men"), Pair(m, w, "men", "women")]
    return out


def catalog_professions(path: str | Path | None = None) -> list[str]:
    """The singular professions usable in prompts (data/professions.csv, ``use`` = yes).

    The file has one row per group of the catalog's ``profession`` category
    (groups/groups.csv) with its singular form, derived with inflect 7.6's
    ``singular_noun`` and checked by hand; five are not used (their ``note`` says why:
    ``police`` has no singular person noun, and ``actresses``, ``business men``,
    ``business women`` and ``handymen`` name the gender in the word itself).
    """
    path = Path(path) if path else data_dir() / "professions.csv"
    out = []
    for line, row in data_rows(path, ("group", "singular", "use")):
        if row["use"] not in ("yes", "no"):
            raise DataError(f"{path}, line {line}: use must be yes or no, not {row['use']!r}.")
        if row["use"] == "yes":
            if not row["singular"]:
                raise DataError(f"{path}, line {line}: {row['group']!r} has no singular form; fill it or write use=no.")
            out.append(row["singular"])
    return out


def random_pairs(n: int, seed: int, professions: list[str] | None = None) -> list[Pair]:
    """``n`` distinct ordered pairs of two different professions, drawn with ``seed``.

    The same ``n``, ``seed`` and list give the same pairs on every machine (numpy's
    PCG64); the first ``k`` pairs of a larger ``n`` are not the ``k`` of a smaller one.
    """
    import numpy as np

    professions = catalog_professions() if professions is None else list(dict.fromkeys(professions))
    m = len(professions)
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise DataError(f"--pairs must be a whole number of at least 1 (got {n!r}).")
    if n > m * (m - 1):
        raise DataError(f"--pairs {n} is more than the {m * (m - 1)} ordered pairs of {m} professions; ask for fewer.")
    draws = np.random.default_rng(seed).choice(m * (m - 1), size=n, replace=False)
    i, j = draws // (m - 1), draws % (m - 1)
    j = j + (j >= i)  # skip the profession itself
    return [Pair(professions[a], professions[b]) for a, b in zip(i.tolist(), j.tolist())]


def read_pairs_csv(path: str | Path) -> list[Pair]:
    """A user's pairs: ``profession_a, profession_b`` [, ``gender_a, gender_b``] per row."""
    path = Path(path)
    found = data_rows(path, ("profession_a", "profession_b"))
    if not found:
        raise DataError(f"{path}: no pairs; add rows of profession_a,profession_b.")
    out: list[Pair] = []
    seen: dict[tuple[str, str], int] = {}
    for line, row in found:
        a, b = row["profession_a"], row["profession_b"]
        if not a or not b:
            raise DataError(f"{path}, line {line}: a profession is empty; give both profession_a and profession_b.")
        if a.lower() == b.lower():
            raise DataError(f"{path}, line {line}: the pair names {a!r} twice; give two different professions.")
        key = (a.lower(), b.lower())
        if key in seen:
            raise DataError(f"{path}, line {line}: the pair {a} / {b} repeats line {seen[key]}; list each pair once.")
        seen[key] = line
        genders = []
        for col in ("gender_a", "gender_b"):
            value = row.get(col, "").lower() or None
            if value is not None and value not in GENDERS:
                raise DataError(f"{path}, line {line}: {col} must be women, men or empty, not {row[col]!r}.")
            genders.append(value)
        out.append(Pair(a, b, *genders))
    return out
