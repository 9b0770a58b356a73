"""``SUITE/suite.json``: what a suite folder holds (docs/suite.md), its one reader and writer.

A suite folder is ``runs/<model>/`` (or ``--out``): one run directory per study, each exactly
what ``stereoprobe collect --study S`` writes (so every command works on it), and
``suite.json``. The card (``stereoprobe card``) and the gate read a suite through this module.

>>> entry = StudyEntry("sterlie", "coreference", "sterlie", {"templates": "sterlie"})
>>> rec = SuiteRecord("gemma-3-270m", {"model": None}, "quick", (entry,), "0.1.0", "t0", "t0")
>>> SuiteRecord.from_dict(rec.to_dict()) == rec
True
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any, Mapping

from stereoprobe.errors import DataError

VERSION = 1
FILE = "suite.json"
#: what to do about a damaged suite.json (read by the suite, the card and the gate alike)
AGAIN = "restore it, or run `stereoprobe suite` again into a new --out folder"
#: A study's state in the suite, in the order a study goes through them.
STATES = ("not started", "collecting", "stopped", "collected", "scored", "reported", "failed")


@dataclass(frozen=True)
class StudyEntry:
    """One study of the suite."""

    key: str  # the suite's name for it: fill-in, jobs, coreference, sterlie, anecdotes, stories, hobbies
    study: str  # the registered study it runs (sterlie: coreference with --templates sterlie)
    run: str  # its run directory, relative to the suite folder
    options: Mapping[str, Any] = field(default_factory=dict)  # the study's own collect options (no secrets)
    state: str = "not started"
    counts: Mapping[str, int] = field(default_factory=dict)  # the run manifest's counts
    demonstration: str | None = None  # why the numbers are a demonstration on this model, if they are
    error: str | None = None  # the one-line error that stopped it, if any
    what: str = ""  # what its design asks, in one line (the Design's ``what``)
    width_cost: float | None = None  # its design's intervals / the default design's (Design.width_cost)
    seconds: Mapping[str, float] = field(default_factory=dict)  # collect, score, report: the last session's wall time

    def __post_init__(self) -> None:
        if self.state not in STATES:
            raise ValueError(f"state {self.state!r} is not one of {', '.join(STATES)}")


@dataclass(frozen=True)
class SuiteRecord:
    """``suite.json``."""

    model: str  # as named in the folder and on the card
    backend: Mapping[str, Any]  # model, base_url, model_file, mode: how it was asked (never a key)
    design: str  # stereoprobe.designs: quick, published, default
    studies: tuple[StudyEntry, ...]
    stereoprobe_version: str
    created_at: str
    updated_at: str
    version: int = VERSION

    def entry(self, key: str) -> StudyEntry:
        for e in self.studies:
            if e.key == key:
                return e
        raise KeyError(key)

    def with_entry(self, entry: StudyEntry) -> "SuiteRecord":
        return replace(self, studies=tuple(entry if e.key == entry.key else e for e in self.studies))

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["studies"] = [asdict(e) for e in self.studies]
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], where: str = FILE) -> "SuiteRecord":
        try:
            studies = tuple(StudyEntry(**{k: v for k, v in e.items() if k in StudyEntry.__dataclass_fields__})
                            for e in data["studies"])
            fields = {k: data[k] for k in ("model", "backend", "design", "stereoprobe_version", "created_at",
                                           "updated_at")}
            return cls(**fields, studies=studies, version=int(data.get("version", VERSION)))
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            why = f"no {exc} field" if isinstance(exc, KeyError) else str(exc)
            raise DataError(f"{where}: not a suite record ({why}); {AGAIN}.") from None


def suite_path(folder: str | Path) -> Path:
    return Path(folder) / FILE


def is_suite(folder: str | Path) -> bool:
    return suite_path(folder).is_file()


def read_suite(folder: str | Path) -> SuiteRecord | None:
    """The suite's record, or None when ``folder`` holds none; a damaged one is refused in one line.

    A study recorded as ``collecting`` while no suite holds the folder's lock was stopped by
    a signal that ends the process at once (``kill``, ``kill -9``): it reads as ``stopped``,
    as a run's ``running`` manifest does (its run folder says how far it got)."""
    path = suite_path(folder)
    if not path.is_file():
        return None
    from stereoprobe.store import read_json_object

    data = read_json_object(path, "a suite record", AGAIN)
    record = SuiteRecord.from_dict(data, str(path))
    if any(e.state == "collecting" for e in record.studies):
        from stereoprobe.store import is_locked

        if not is_locked(folder):
            record = replace(record, studies=tuple(replace(e, state="stopped") if e.state == "collecting" else e
                                                   for e in record.studies))
    return record


def write_suite(folder: str | Path, record: SuiteRecord) -> None:
    """Write ``suite.json`` at once (a temporary file, then a rename)."""
    from stereoprobe.store import atomic_write

    atomic_write(suite_path(folder), json.dumps(record.to_dict(), indent=2, ensure_ascii=False) + "\n")
