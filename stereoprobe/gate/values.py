"""What a study hands the gate: its metrics' names and ranges, and their values in a scored run.

Each study that can be gated has a ``metrics.py`` in its folder (found by
``Study.metrics()``, as ``score.py`` and ``page.py`` are found) with:

- ``SPECS``: ``{name: MetricSpec}``, the metrics a policy may name;
- ``values(run_dir) -> list[Value]``: every metric of a scored run, each scope (category,
  group, scene, pronoun, prefix...) one ``Value`` with its estimate and 95% interval, read
  from the tables ``stereoprobe score`` wrote (a run not scored: a one-line DataError);
- ``differences(baseline, run) -> list[Value]``: run minus baseline for the metrics with
  ``paired=True``, each with the interval and p-value the study's ``compare`` computes;
- where the study's runs are of two kinds (``MetricSpec.variant``), ``variant(run_dir) -> str``
  (the run's kind) and ``VARIANTS`` (each kind in words, for messages).

Every ``Value`` says how its interval was made (``method``, and ``df`` for a t interval),
so the gate can turn the interval back into one-sided p-values with the interval's own
tails (``stereoprobe.gate.pvalues``): a t interval on 4 degrees of freedom is not read
as a normal one.

The gate (``stereoprobe.gate``) imports no study: it reaches these through
``stereoprobe.studies.get_study(name).metrics()``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Mapping

#: How a Value's 95% interval was made (docs/gate.md, "How sure a verdict is"):
#: ``t``: estimate +/- t(df) se (clipped to the metric's range; ``df = inf``: a normal interval,
#: estimate +/- 1.96 se, the default);
#: ``atanh``: a t(df) interval on Fisher's z = atanh r, symmetric there around its own centre (the
#: jackknife's bias-corrected one); ``jeffreys``: the Jeffreys (beta) interval at an effective size,
#: ``stats.share_interval``'s and ``generation.stats.jeffreys``'s; ``percentile``: bootstrap quantiles;
#: ``sides``: an interval with a side of its own each way of the estimate, a normal's on each (MOVER's
#: differences of independent estimates, ``stats.mover``; a score interval of a ratio).
METHODS = ("t", "atanh", "jeffreys", "percentile", "sides")


@dataclass(frozen=True)
class MetricSpec:
    """One metric a policy may name.

    ``scopes``: the scope keys the metric is broken down by, each with its default (the
    value a rule that leaves the key out means; None: the rule must give it). ``narrows``:
    a key that, when given, frees another (a fill-in group fixes its category).
    ``bounds``: the metric's range (a threshold outside it is refused). ``paired``: the
    study's compare gives its run-minus-baseline difference (a regression rule may name it).
    ``variant``: where a study's runs are of two kinds with metrics of their own (coreference:
    Marin & Eger's scenes, ``marin-eger``, or Sterlie et al.'s prompts, ``sterlie``), the kind
    whose runs have this metric (the study's ``metrics.variant(run_dir)`` says a run's); empty:
    every run of the study.
    """

    name: str
    description: str
    scopes: Mapping[str, str | None] = field(default_factory=dict)
    bounds: tuple[float, float] = (0.0, 1.0)
    paired: bool = False
    narrows: Mapping[str, str] = field(default_factory=dict)
    variant: str = ""

    def unit(self) -> str:
        return "a share, 0-1" if self.bounds == (0.0, 1.0) else f"{self.bounds[0]:g} to {self.bounds[1]:g}"


@dataclass(frozen=True)
class Value:
    """A metric's value in one scope of one run (or a run-minus-baseline difference).

    ``low``/``high``: the 95% interval (NaN where the run has too little data for one);
    ``p``: for differences, the compare's two-sided p-value of no difference (else None);
    ``method`` (one of :data:`METHODS`) and ``df``: how the interval was made. The defaults,
    ``t`` with ``df = inf``, fit a study whose interval is estimate +/- 1.96 se (a normal
    interval); a t interval must give its ``df`` (every compare's run-minus-baseline
    difference does).
    """

    metric: str
    scope: tuple[tuple[str, str], ...]  # every scope key of the metric, in SPECS order
    estimate: float
    low: float
    high: float
    n: int | None = None
    p: float | None = None
    method: str = "t"
    df: float = math.inf

    def __post_init__(self) -> None:
        if self.method not in METHODS:
            raise ValueError(f"Value.method must be one of {METHODS}, not {self.method!r}")

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
