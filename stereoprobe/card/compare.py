"""Models compared: each model's paired differences from the first, and the card's family.

A difference is the study's own: ``metrics.differences(first run, this run)``, what
``stereoprobe compare`` and the gate's regression rules compute (fill-in: paired by probe
with one labeller; coreference: by prompt, profession pairs resampled; jobs: per job; the
generation studies: generation/paired.py over the same professions or names; Sterlie's
prompts: MOVER from the two runs' own intervals; docs/card.md). It is
computed only where the two runs asked the same probes: both suites of one design, and each
study's runs of one design and catalog. Elsewhere the card shows the models side by side and
says why there is no difference (:class:`~stereoprobe.card.records.Pairing`).

**The family.** Every paired difference on the card is one family, adjusted by Holm's
step-down method (``stats.holm``); the card flags a difference when its adjusted p is below
0.05. So "the card flags a difference" has a family-wise error rate of at most 5%: when two
models do not differ on any metric, the card flags anything in at most 5% of cards, however
many metrics and models it holds and however they depend on each other (metrics of one
study share their answers). This is the gate's family too (``stereoprobe gate``: Holm over
every check of a gate): a reader who sees a flag on the card can take it to the gate.
Each difference keeps its own 95% interval, which says how large it may be; the flag says
whether it stands out among all the card's comparisons.
"""

from __future__ import annotations

import math
from typing import Any, Sequence

from stereoprobe.card.headlines import headlines, select
from stereoprobe.card.records import CardValue, Difference, Family, Model, Pairing, StudyRun
from stereoprobe.errors import DataError

ALPHA = 0.05
METHOD = "holm"
#: why a study whose own compare has no paired difference is shown side by side (one study; several)
UNPAIRED = ("The study's own comparison has no paired difference, so the card shows each model's value with its own "
            "interval.")
UNPAIRED_SEVERAL = ("The studies' own comparisons have no paired difference, so the card shows each model's values "
                    "with their own intervals.")


def why_not(base: Model, model: Model, a: StudyRun | None, b: StudyRun) -> str | None:
    """Why ``model``'s study ``b`` gets no paired difference from ``base``'s ``a`` (None: it does)."""
    if a is None:
        return f"{base.name}'s suite has no {b.key} study, so there is nothing to pair it with."
    if a.error or b.error:
        who = base.name if a.error else model.name
        return f"{who}'s {b.key} study failed in its suite, so there is nothing to compare."
    if base.design != model.design:
        return (f"{base.name}'s suite asked the {base.design} design and {model.name}'s the {model.design}: "
                "different probes, so the card shows them side by side without a paired difference.")
    if a.design != b.design or a.catalog != b.catalog:
        what = (f"the {a.design} and the {b.design} design" if a.design != b.design else "different catalogs")
        return (f"The two {b.key} runs asked {what}: different probes, so the card shows them side by side without "
                "a paired difference.")
    return None


def _paired(study: Any, key: str) -> list[Any]:
    specs = study.metrics().SPECS
    return [h for h in headlines(key) if specs[h.metric].paired]


def study_differences(base: Model, model: Model, key: str) -> tuple[Pairing, list[Difference]]:
    """One study of ``model`` against the first model's: the pairing and its differences
    (not yet adjusted)."""
    from stereoprobe.studies import get_study

    a, b = base.study(key), model.study(key)
    assert b is not None
    reason = why_not(base, model, a, b)
    if reason is not None:
        return Pairing(model.name, base.name, key, False, reason), []
    study = get_study(b.study)
    heads = _paired(study, key)
    if not heads:
        return Pairing(model.name, base.name, key, False, UNPAIRED), []
    try:
        found = study.metrics().differences(a.run, b.run)
    except DataError as exc:
        return Pairing(model.name, base.name, key, False, f"The study's compare could not pair the runs: {exc}"), []
    specs = study.metrics().SPECS
    out = []
    for h in heads:
        for v, expanded in select(h, found, specs[h.metric]):
            out.append(Difference(model.name, base.name, key, b.study, v.metric, v.scope,
                                  h.label.replace("{key}", expanded), h.kind, v.estimate, v.low, v.high, v.n,
                                  math.nan if v.p is None else float(v.p)))
    return Pairing(model.name, base.name, key, True), out


def adjust(differences: Sequence[Difference], alpha: float = ALPHA) -> tuple[list[Difference], Family]:
    """The family: Holm over every difference with a p-value; flagged where adjusted p < alpha."""
    from dataclasses import replace

    from stereoprobe.stats import holm

    p = [d.p for d in differences]
    adjusted = holm(p) if differences else []
    out = [replace(d, p_adjusted=float(q), flagged=bool(q == q and q < alpha)) for d, q in zip(differences, adjusted)]
    return out, Family(METHOD, alpha, sum(x == x for x in p))


def compare_models(models: Sequence[Model], values: Sequence[CardValue]) -> tuple[list[Pairing], list[Difference],
                                                                                  Family]:
    """Every model after the first against the first, on every study both have with headlines."""
    pairings: list[Pairing] = []
    differences: list[Difference] = []
    base = models[0]
    with_values = {(v.model, v.key) for v in values}
    for model in models[1:]:
        for run in model.studies:
            if not headlines(run.key) or ((model.name, run.key) not in with_values and run.error is None):
                continue
            pairing, found = study_differences(base, model, run.key)
            pairings.append(pairing)
            rows = {v.row for v in values if v.model == model.name}
            differences += [d for d in found if d.row in rows]
    adjusted, family = adjust(differences)
    return pairings, adjusted, family
