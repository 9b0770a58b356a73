"""What a study hands the gate: its metrics' names and ranges, and their values in a scored run.

Each study that can be gated has a ``metrics.py`` in its folder (found by
``Study.metrics()``, as ``score.py`` and ``page.py`` are found) with:

- ``SPECS``: ``{name: MetricSpec}``, the metrics a policy may name;
- ``values(run_dir) -> list[Value]``: every metric of a scored run, each scope (category,
  group, scene, pronoun, prefix...) one ``Value`` with its estimate and 95% interval, read
  from the tables ``stereoprobe score`` wrote (a run not scored: a one-line DataError);
- ``differences(baseline, run) -> list[Value]``: run minus baseline for the metrics with
  ``paired=True``, each with the interval and p-value the study's ``compare`` computes.

The gate (``stereoprobe.gate``) imports no study: it reaches these through
``stereoprobe.studies.get_study(name).metrics()``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping


@dataclass(frozen=True)
class MetricSpec:
    """One metric a policy may name.

    ``scopes``: the scope keys the metric is broken down by, each with its default (the
    value a rule that leaves the key out means; None: the rule must give it). ``narrows``:
    a key that, when given, frees another (a fill-in group fixes its category).
    ``bounds``: the metric's range (a threshold outside it is refused). ``paired``: the
    study's compare gives its run-minus-baseline difference (a regression rule may name it).
    """

    name: str
    description: str
    scopes: Mapping[str, str | None] = field(default_factory=dict)
    bounds: tuple[float, float] = (0.0, 1.0)
    paired: bool = False
    narrows: Mapping[str, str] = field(default_factory=dict)

    def unit(self) -> str:
        return "a share, 0-1" if self.bounds == (0.0, 1.0) else f"{self.bounds[0]:g} to {self.bounds[1]:g}"


@dataclass(frozen=True)
class Value:
    """A metric's value in one scope of one run (or a run-minus-baseline difference).

    ``low``/``high``: the 95% interval (NaN where the run has too little data for one);
    ``p``: for differences, the compare's two-sided p-value of no difference (else None).
    """

    metric: str
    scope: tuple[tuple[str, str], ...]  # every scope key of the metric, in SPECS order
    estimate: float
    low: float
    high: float
    n: int | None = None
    p: float | None = None

    def get(self, key: str) -> str:
        return dict(self.scope)[key]


def scope(**keys: object) -> tuple[tuple[str, str], ...]:
    """A Value's scope from keyword arguments, values as strings (``prefix=0`` -> ``"0"``)."""
    return tuple((k, str(v)) for k, v in keys.items())


def number(x: object) -> float:
    """A float from a CSV cell (empty: NaN)."""
    try:
        return float(x)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return float("nan")
