"""The card's typed records: what passes from reading the suites (``values.py``) and
comparing them (``compare.py``) to the page, ``card.json`` and ``card.md``.

Every number is a gate value or difference as a study handed it (shares 0-1); how it is
shown (percent, points) is the page's and ``words.py``'s business.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

Scope = tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class StudyRun:
    """One study of one suite, as the card uses it."""

    key: str  # the suite's name for it (sterlie: the coreference study with Sterlie et al.'s prompts)
    study: str  # the registered study
    title: str  # the study's title, for headings
    run: Path  # the run directory
    state: str  # suite.json's state
    design: str  # the run's design (its manifest's)
    catalog: str | None  # the run's catalog identity (sha256 of its probes)
    demonstration: str | None  # why the numbers are a demonstration on this model, if they are
    page: Path | None  # the study's own page, if written (RUN/report/index.html, fill-in's briefing)
    cost: str | None  # one line: what the design costs in interval width, if it is not the default
    error: str | None = None  # a study that failed in the suite: its one-line error (no values)
    width: float | None = None  # its intervals' width against the default design's (cost), if known
    options: Mapping[str, Any] = field(default_factory=dict)  # the study's collect options in the suite


@dataclass(frozen=True)
class Model:
    """One suite: one model's column on the card."""

    name: str  # as on the card (the suite's model, told apart from another suite of the same name)
    folder: Path
    design: str
    backend: Mapping[str, Any]
    studies: tuple[StudyRun, ...]

    def study(self, key: str) -> StudyRun | None:
        return next((s for s in self.studies if s.key == key), None)


@dataclass(frozen=True)
class CardValue:
    """A headline metric of one model: the gate's value, with its sentence."""

    model: str
    key: str
    study: str
    metric: str  # the gate's metric name
    scope: Scope  # every scope key of the metric, as the gate's Value has it
    label: str
    kind: str  # headlines.UNITS
    value: float
    low: float
    high: float
    n: int | None
    counted: str = "answers"  # what n counts (the headline's)
    unit: str = ""  # what the value counts, set against a paper figure's unit (the headline's)
    sentence: str = ""
    paper: str | None = None  # a paper's figure printed beside it (papers.comparable said so)
    paper_note: str | None = None  # else why a paper's figure for it is not printed

    @property
    def row(self) -> tuple[str, str, Scope]:
        """The card's row: the same metric and scope in every model's column."""
        return (self.key, self.metric, self.scope)


@dataclass(frozen=True)
class Difference:
    """A model minus the first model on one headline metric: the study's paired difference."""

    model: str
    baseline: str
    key: str
    study: str
    metric: str
    scope: Scope
    label: str
    kind: str
    difference: float
    low: float
    high: float
    n: int | None
    p: float  # the study's compare: two-sided p of no difference
    p_adjusted: float = float("nan")  # Holm's over the card's family
    flagged: bool = False  # p_adjusted < the family's alpha

    @property
    def row(self) -> tuple[str, str, Scope]:
        return (self.key, self.metric, self.scope)


@dataclass(frozen=True)
class Pairing:
    """Whether one model's study is compared with the first model's by paired differences."""

    model: str
    baseline: str
    key: str
    paired: bool
    reason: str = ""  # why not, in one line


@dataclass(frozen=True)
class Family:
    """The multiplicity family: every paired difference on the card."""

    method: str = "holm"
    alpha: float = 0.05
    size: int = 0
    what: str = "every paired difference on the card"


@dataclass(frozen=True)
class Card:
    models: tuple[Model, ...]
    values: tuple[CardValue, ...]
    differences: tuple[Difference, ...] = ()
    pairings: tuple[Pairing, ...] = ()
    family: Family = field(default_factory=Family)
    created_at: str = ""
    stereoprobe_version: str = ""

    @property
    def rows(self) -> list[tuple[str, str, Scope]]:
        """Every (study key, metric, scope) on the card, in the order first seen."""
        return list(dict.fromkeys(v.row for v in self.values))

    def value(self, model: str, row: tuple[str, str, Scope]) -> CardValue | None:
        return next((v for v in self.values if v.model == model and v.row == row), None)

    def difference(self, model: str, row: tuple[str, str, Scope]) -> Difference | None:
        return next((d for d in self.differences if d.model == model and d.row == row), None)

    def pairing(self, model: str, key: str) -> Pairing | None:
        return next((p for p in self.pairings if p.model == model and p.key == key), None)

    @property
    def keys(self) -> list[str]:
        """The study keys on the card, in the suites' order."""
        return list(dict.fromkeys(s.key for m in self.models for s in m.studies))
