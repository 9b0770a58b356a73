"""The card's inputs: suite folders read and checked, and each study's headline values.

:func:`read_models` turns suite folders into :class:`~stereoprobe.card.records.Model`s (one
line and exit 2 for a folder that is not a suite, or a study not scored yet; nothing is
written before every suite has been read). :func:`collect_values` asks each study for the
values it hands the gate (``metrics.values(run_dir)``: the same numbers ``stereoprobe gate``
judges and the study's page shows) and keeps the card's headlines (``headlines.py``), each
with its sentence (``words.py``) and, where ``papers.comparable`` allows, the paper's figure.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any, Sequence

from stereoprobe.card.headlines import headlines, select
from stereoprobe.card.records import CardValue, Model, StudyRun
from stereoprobe.errors import DataError

#: suite.json states whose study has scores the card can read
SCORED = ("scored", "reported")
#: a study's own page, relative to its run directory, in the order looked for
PAGES = ("report/index.html", "briefing/index.html")


def _not_a_suite(folder: Path) -> DataError:
    if (folder / "manifest.json").is_file():
        return DataError(f"{folder} is one study's run, not a suite (no suite.json); `stereoprobe report {folder}` "
                         "makes its page, `stereoprobe suite` makes a suite and its card.")
    if not folder.is_dir():
        return DataError(f"{folder}: no such folder; give a folder `stereoprobe suite` wrote (runs/<model>/).")
    then = f", or run `stereoprobe suite --out {folder}` first" if not any(folder.iterdir()) else ""
    return DataError(f"{folder} is not a suite (no suite.json); give a folder `stereoprobe suite` wrote "
                     f"(runs/<model>/){then}.")


def _study_run(folder: Path, entry: Any) -> StudyRun:
    from stereoprobe.card.cost import design_cost
    from stereoprobe.manifest import read_manifest
    from stereoprobe.studies import get_study

    study = get_study(entry.study)
    run = folder / entry.run
    if entry.state == "failed":
        return StudyRun(entry.key, entry.study, study.title, run, entry.state, "", None, entry.demonstration, None,
                        None, entry.error or "failed")
    if entry.state not in SCORED:
        again = (f"`stereoprobe score {run}`" if entry.state == "collected" else
                 "the same `stereoprobe suite` command again to finish it")
        raise DataError(f"{folder}: the {entry.key} study is {entry.state}, not scored yet; run {again}, then the "
                        "card.")
    manifest = read_manifest(run)
    if manifest is None:
        raise DataError(f"{run}: no manifest.json, though {folder / 'suite.json'} lists it as {entry.state}; run the "
                        "same `stereoprobe suite` command again.")
    page = next((run / p for p in PAGES if (run / p).is_file()), None)
    design = manifest.design or "default"
    cost, width = design_cost(study, entry, manifest)
    return StudyRun(entry.key, entry.study, study.title, run, entry.state, design,
                    manifest.catalog.sha256 if manifest.catalog else None, entry.demonstration, page, cost,
                    width=width, options=dict(entry.options))


def read_models(suites: Sequence[str | Path]) -> list[Model]:
    """Every suite read and checked, in the order given (the first is the card's baseline)."""
    from stereoprobe.suite.record import read_suite

    if not suites:
        raise DataError("Give at least one suite folder (runs/<model>/, as `stereoprobe suite` writes it).")
    models = []
    for s in map(Path, suites):
        record = read_suite(s)
        if record is None:
            raise _not_a_suite(s)
        if not record.studies:
            raise DataError(f"{s}/suite.json lists no study; run `stereoprobe suite --out {s}` to collect them.")
        studies = tuple(_study_run(s, e) for e in record.studies)
        models.append(Model(record.model, s, record.design, dict(record.backend), studies))
    if len(set(map(str, (m.folder.resolve() for m in models)))) < len(models):
        raise DataError("The same suite is given twice; give each suite once.")
    return _apart(models)


def _apart(models: list[Model]) -> list[Model]:
    """Models of one name told apart by their folders' names, or, where those are alike too
    (old/runs/suite-m and new/runs/suite-m), by their paths: the card finds a column's numbers
    by its name, so two columns of one name showed the first model's numbers twice."""
    names = [m.name for m in models]
    for where in (lambda m: m.folder.name, lambda m: str(m.folder), lambda m: str(m.folder.resolve())):
        tagged = [f"{m.name} ({where(m)})" if names.count(m.name) > 1 else m.name for m in models]
        if len(set(tagged)) == len(tagged):
            return [replace(m, name=n) for m, n in zip(models, tagged)]
    return [replace(m, name=f"{m.name} ({i})") for i, m in enumerate(models, 1)]


def _figures(study: Any) -> list[Any]:
    try:
        return study.paper_figures()
    except DataError:
        return []


def why_not(figure: Any, design: str, unit: str) -> str | None:
    """``papers.comparable``'s verdict on a figure beside a card value: None, or its one line,
    which names the figure without its number."""
    from stereoprobe.papers import comparable

    return comparable(figure, design, unit, name=f"the paper's figure ({figure.model})")


def _paper(v: CardValue, figures: list[Any], design: str) -> CardValue:
    """``v`` with the paper's figures that may stand beside it, or the line why not."""
    scope = set(v.scope)
    mine = [f for f in figures if f.metric == v.metric and set(f.scope) <= scope]
    if not mine:
        return v
    shown = [f for f in mine if why_not(f, design, unit_of(v)) is None]
    notes = list(dict.fromkeys(why_not(f, design, unit_of(v)) for f in mine if f not in shown))
    return replace(v, paper="; ".join(f"{f.text()}, {f.source}" for f in shown) or None,
                   paper_note=" ".join(n for n in notes if n) or None)


def unit_of(v: CardValue) -> str:
    """What the value counts, as ``papers.comparable`` sets it against a figure's unit."""
    return v.unit


def study_values(model: Model, run: StudyRun) -> list[CardValue]:
    """One study's headline values in one model's suite (none for a failed study or one
    without headlines)."""
    from stereoprobe.studies import get_study

    if run.error is not None or not headlines(run.key):
        return []
    study = get_study(run.study)
    metrics = study.metrics()
    if metrics is None:  # pragma: no cover - every study with headlines has metrics
        return []
    found = metrics.values(run.run)  # a run not scored: the study's own one line
    out = []
    for h in headlines(run.key):
        for v, expanded in select(h, found, metrics.SPECS[h.metric]):
            out.append(CardValue(model.name, run.key, run.study, v.metric, v.scope, h.label.replace("{key}", expanded),
                                 h.kind, v.estimate, v.low, v.high, v.n, h.counted, unit=h.unit))
    figures = _figures(study)
    return [_paper(v, figures, run.design) for v in out]


def collect_values(models: Sequence[Model]) -> list[CardValue]:
    """Every model's headline values, each with its sentence."""
    from stereoprobe.card.words import examples, with_sentences

    out: list[CardValue] = []
    for m in models:
        for run in m.studies:
            values = study_values(m, run)
            out += with_sentences(values, examples(run) if values else {})
    return out

