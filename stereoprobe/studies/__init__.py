"""The studies stereoprobe runs, one folder each (studies/base.py describes the interface).

- ``fill-in`` (``studies/fillin/``): Busker et al.'s masked probes, NRC sentiment of the
  words a model puts in the blank (the default study, and every run made before studies
  existed);
- ``jobs`` (``studies/jobs/``): Mattern et al.'s P(gender | job) against the US labour
  statistics, their debiasing prefixes, and Marin & Eger's story names;
- ``coreference`` (``studies/coreference/``): Marin & Eger's seven two-profession scenes
  with he, she and they (a right answer whatever the pronoun), Sterlie et al.'s
  separation and sufficiency;
- ``anecdotes``, ``hobbies`` and ``stories`` (``studies/anecdotes/``, ``studies/hobbies/``,
  ``studies/stories/``): generation studies on the core's ``stereoprobe/generation/``
  (Sterlie et al.'s anecdotes and hobbies with their Word2Vec comparison, Marin & Eger's
  story names).

A fourth study is a new folder with a ``Study`` subclass, registered in ``STUDIES``.

>>> get_study("jobs").name
'jobs'
>>> get_study("coreference").name
'coreference'
>>> get_study("hobbits")
Traceback (most recent call last):
stereoprobe.errors.DataError: Unknown study 'hobbits': choose fill-in, jobs, coreference, anecdotes, hobbies or stories.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from stereoprobe.errors import DataError

if TYPE_CHECKING:  # pragma: no cover
    from stereoprobe.studies.base import Study

DEFAULT = "fill-in"
#: name -> (module, class). Modules are imported only when their study is used.
STUDIES = {
    "fill-in": ("stereoprobe.studies.fillin", "FillInStudy"),
    "jobs": ("stereoprobe.studies.jobs", "JobsStudy"),
    "coreference": ("stereoprobe.studies.coreference", "CoreferenceStudy"),
    "anecdotes": ("stereoprobe.studies.anecdotes", "AnecdotesStudy"),
    "hobbies": ("stereoprobe.studies.hobbies", "HobbiesStudy"),
    "stories": ("stereoprobe.studies.stories", "StoriesStudy"),
}
#: name -> a few words for `--help` (the help must not import every study to say what it is).
ABOUT = {
    "fill-in": "Busker et al.'s masked probes, NRC sentiment of the words",
    "jobs": "Mattern et al.'s P(gender | job), debiasing prefixes and story names",
    "coreference": "Marin & Eger's scenes with he/she/they and a right answer; Sterlie et al.'s criteria",
    "anecdotes": "Sterlie et al.'s anecdotes per profession",
    "hobbies": "Sterlie et al.'s hobbies of students named by a female or male name",
    "stories": "Marin & Eger's story names",
}


def names() -> list[str]:
    return list(STUDIES)


def listing() -> str:
    """Every study with its few words, for a command's help.

    >>> listing().startswith("fill-in (the default: Busker")
    True
    """
    parts = [f"{name} ({'the default: ' if name == DEFAULT else ''}{ABOUT[name]})" for name in STUDIES]
    return ", ".join(parts[:-1]) + " or " + parts[-1]


def get_study(name: str | None) -> "Study":
    """The study called ``name`` (None: the default, fill-in); an unknown name is a DataError."""
    name = name or DEFAULT
    if name not in STUDIES:
        from stereoprobe.suite.plan import study_flags

        flags = study_flags(name)  # a suite's name for a study asked with its own options ("sterlie")
        hint = f" ({name} is the suite's name for {flags})" if flags else ""
        raise DataError(f"Unknown study {name!r}{hint}: choose {', '.join(list(STUDIES)[:-1])} or "
                        f"{list(STUDIES)[-1]}.")
    module, cls = STUDIES[name]
    return getattr(importlib.import_module(module), cls)()


def study_of_run(run_dir) -> "Study":
    """The study a run directory belongs to, from its manifest (no manifest, or one written
    before studies existed: fill-in)."""
    from stereoprobe.manifest import read_manifest

    manifest = read_manifest(run_dir)
    if manifest is None:
        not_a_suite(run_dir)
    return get_study(manifest.study if manifest is not None else DEFAULT)


def not_a_suite(folder) -> None:
    """Refuse a suite's folder given where a run is asked for, naming the study runs inside it
    (score, report, sentiment and reparse said to collect into the suite's folder)."""
    from pathlib import Path

    from stereoprobe.store import MANIFEST
    from stereoprobe.suite.record import FILE

    folder = Path(folder)
    if not (folder / FILE).is_file():
        return
    runs = sorted(p.name for p in folder.iterdir() if (p / MANIFEST).is_file())
    inside = f"; its studies' runs are {', '.join(str(folder / r) for r in runs)}" if runs else ""
    raise DataError(f"{folder} is a suite's folder, not a run{inside}: give one of them, or see them all with "
                    f"`stereoprobe card {folder}`.")


def study_of_runs(run_dirs) -> "Study":
    """The one study of several runs; runs of different studies are refused in one line."""
    from pathlib import Path

    found = {str(r): study_of_run(r).name if Path(r).is_dir() else DEFAULT for r in run_dirs}
    kinds = sorted(set(found.values()))
    if len(kinds) > 1:
        listed = ", ".join(f"{r} ({k})" for r, k in found.items())
        raise DataError(f"These runs belong to different studies ({listed}); compare runs of one study.")
    return get_study(kinds[0] if kinds else DEFAULT)
