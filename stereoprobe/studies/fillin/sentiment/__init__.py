"""The sentiment stage: completion words -> NRC sentiment -> the paper's Table 4.

    >>> from stereoprobe.records import Completion
    >>> from stereoprobe.studies.fillin.lexicon import Lexicon
    >>> lex = Lexicon("demo", "", {"wise": "positive", "grumpy": "negative", "slow": "negative"})
    >>> rec = Completion("p1", 0, "age", "old people", "are_so", "statement", "old people are so ...",
    ...                  words=["grumpy", "Wise", "slow", "old"])
    >>> result = score([rec], lexicon=lex, synonyms=False)
    >>> print(result.table4[["category", "negative", "positive", "n_left_out"]].round(2).to_string(index=False))
    category  negative  positive  n_left_out
         age     66.67     33.33           0
         all     66.67     33.33           0
    >>> result.coverage["group_name_words"]
    {'occurrences': 1, 'words': {'old': 1}}

'old' names the group 'old people' itself, so it is left out (docs/sentiment.md).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Iterable

from stereoprobe.errors import DataError
from stereoprobe.studies.fillin.lexicon import Lexicon, Override, load_lexicon
from stereoprobe.records import Completion
from stereoprobe.studies.fillin.sentiment.inputs import load_source
from stereoprobe.studies.fillin.sentiment.label import Labeller, WordLabel, group_name_forms, normalise, vote
from stereoprobe.studies.fillin.sentiment.output import format_summary, write_outputs
from stereoprobe.studies.fillin.sentiment.tables import OCCURRENCE_COLUMNS

__all__ = [
    "Labeller",
    "SentimentResult",
    "WordLabel",
    "analyse",
    "format_summary",
    "normalise",
    "score",
    "vote",
    "write_outputs",
]


@dataclass
class SentimentResult:
    """Tables (pandas DataFrames) and bookkeeping of one scoring."""

    table4: Any
    groups: Any
    templates: Any
    words: Any
    occurrences: Any
    coverage: dict[str, Any]
    meta: dict[str, Any] = field(default_factory=dict)
    labels: dict[str, WordLabel] = field(default_factory=dict, repr=False)
    format_test: Any = None
    criteria: Any = None
    robustness: Any = None


def score(
    run_dir_or_records: str | Path | Iterable[Completion],
    lexicon: Lexicon | str | Path | None = None,
    overrides: str | Path | list[Override] | None = None,
    synonyms: bool = True,
    labeller: Labeller | None = None,
    ci: float = 0.95,
    bootstrap: int = 2000,
    seed: int = 0,
    statistics: bool = True,
    wording: str = "fixed",
) -> SentimentResult:
    """Label every word of every usable record and build the tables.

    ``run_dir_or_records``: a run directory, a completions.jsonl, a JSONL/CSV input file
    (stereoprobe.studies.fillin.sentiment.inputs), or Completion records. ``lexicon``: None (the bundled
    EmoLex subset), a path to the official word-level file, or a Lexicon. Refused and
    failed records are skipped and counted; words naming the record's own group are left
    out and counted. ``labeller`` lets a caller reuse a warmed-up Labeller.

    ``ci`` (interval level), ``bootstrap`` (replicates of the rank-stability interval,
    >= 100), ``seed`` (bootstrap and permutations) and ``wording`` ("fixed": these
    templates; "random": templates as a sample of wordings) steer the statistics
    (docs/statistics.md): every share gets ``X_ci_low``/``X_ci_high``, groups
    get probe counts and ``vs_category``, and the result carries ``format_test``,
    ``criteria`` and ``robustness`` tables. The same input and options give the same numbers.
    ``statistics=False`` gives the labels and bare shares only (what ``compare`` needs; it
    draws its own paired resampling plan).
    """
    from stereoprobe.stats.analysis import add_statistics, check_options
    from stereoprobe.studies.fillin.sentiment import tables

    options = check_options(ci, bootstrap, seed, wording)
    if labeller is not None and (lexicon is not None or overrides is not None or synonyms is not True):
        raise DataError("score(labeller=...) uses the labeller's lexicon, overrides and synonyms: "
                        "pass either a labeller or lexicon/overrides/synonyms, not both.")
    source = load_source(run_dir_or_records)
    lex = labeller.lexicon if labeller is not None else load_lexicon(lexicon, overrides)
    labeller = labeller or Labeller(lex, synonyms=synonyms)
    words = _collect_words(source.records, labeller)
    labels, occ = _label_occurrences(words.rows, labeller)
    cov = _coverage(labels, occ, source.records, words, labeller)
    meta = _meta(source.meta, lex, labeller)
    table4, groups, templates = tables.table4(occ), tables.group_table(occ), tables.template_table(occ)
    extra: dict[str, Any] = {}
    meta["statistics"] = None  # labels and bare shares only (compare draws its own paired plan)
    if statistics:
        stats = add_statistics(occ, source.records, table4, groups, templates, options)
        table4, groups, templates, meta["statistics"] = stats.table4, stats.groups, stats.templates, stats.meta
        extra = dict(format_test=stats.format_test, criteria=stats.criteria, robustness=stats.robustness)
    return SentimentResult(table4=table4, groups=groups, templates=templates, words=tables.word_table(labels, occ),
                           occurrences=occ, coverage=cov, meta=meta, labels=labels, **extra)


@dataclass(frozen=True)
class _Words:
    """The words of the usable records, one row per occurrence, and what was left out."""

    rows: list[tuple[str, int, str, str, str, str, str]]
    own_name: Counter[str]  # words naming the record's own group, left out
    empty: int  # words that normalise to nothing


def _collect_words(records: list[Completion], labeller: Labeller) -> _Words:
    """Every word of every record that is neither refused nor failed, normalised; words
    naming the record's own group and empty words counted, not kept. No words: DataError."""
    names: dict[str, frozenset[str]] = {}
    own_name: Counter[str] = Counter()
    empty = 0
    rows = []
    for rec in records:
        if rec.error is not None or rec.refused:
            continue
        forms = names.get(rec.group)
        if forms is None:
            forms = names[rec.group] = group_name_forms(rec.group, labeller.lemma)
        for raw in rec.words:
            word = normalise(raw)
            if not word:
                empty += 1
            elif word in forms:
                own_name[word] += 1
            else:
                rows.append((rec.probe_id, rec.sample, rec.category, rec.group, rec.template, rec.format, word))
    if not rows:
        status = Counter(r.status for r in records)
        raise DataError(
            f"No words to score: {len(records)} records ({status['refused']} refused, "
            f"{status['failed']} failed, {status['unparseable']} without words); check the input or rerun collect."
        )
    return _Words(rows, own_name, empty)


def _label_occurrences(rows: list[tuple], labeller: Labeller) -> tuple[dict[str, WordLabel], Any]:
    """Each distinct word's label (in order of first occurrence) and the occurrence table."""
    import pandas as pd

    labels = {w: labeller.label(w) for w in dict.fromkeys(r[-1] for r in rows)}
    occ = pd.DataFrame(rows, columns=OCCURRENCE_COLUMNS[:-2])
    occ["label"] = occ["word"].map(lambda w: labels[w].label)
    occ["source"] = occ["word"].map(lambda w: labels[w].source)
    return labels, occ


def _coverage(labels: dict[str, WordLabel], occ: Any, records: list[Completion], words: _Words,
              labeller: Labeller) -> dict[str, Any]:
    """coverage.json: the lexicon's coverage, the records and words left out, the synonyms' share."""
    from stereoprobe.studies.fillin.sentiment import tables

    status = Counter(r.status for r in records)
    cov = tables.coverage(labels, occ)
    cov["records"] = {"total": len(records), **{s: status[s] for s in ("ok", "refused", "failed", "unparseable")}}
    cov["left_out_records"] = {"refused": status["refused"], "failed": status["failed"]}
    cov["empty_words"] = words.empty
    cov["group_name_words"] = {"occurrences": sum(words.own_name.values()),
                               "words": dict(sorted(words.own_name.items()))}
    cov["synonyms"] = labeller.synonyms
    cov["without_synonyms"] = tables.shares_without_synonyms(occ) if labeller.synonyms else None
    return cov


def _meta(source_meta: dict[str, Any], lex: Lexicon, labeller: Labeller) -> dict[str, Any]:
    """meta.json without the statistics: the source's, the lexicon, overrides, synonyms, version, WordNet."""
    from stereoprobe import __version__
    from stereoprobe.store import now_iso

    meta = dict(source_meta)
    meta.update(
        lexicon=lex.meta(),
        overrides=[asdict(o) for o in lex.overrides],
        synonyms=labeller.synonyms,
        stereoprobe_version=__version__,
        created_at=now_iso(),
    )
    if labeller.used_wordnet:
        from stereoprobe.studies.fillin.wordnet import wordnet_info

        meta["wordnet"] = wordnet_info()
    return meta


def analyse(
    source: str | Path,
    out_dir: str | Path | None = None,
    lexicon: str | Path | None = None,
    overrides: str | Path | None = None,
    synonyms: bool = True,
    ci: float = 0.95,
    bootstrap: int = 2000,
    seed: int = 0,
    wording: str = "fixed",
) -> tuple[SentimentResult, Path]:
    """Score ``source`` and write the outputs; what ``stereoprobe sentiment`` runs.

    The outputs go to ``<run dir>/sentiment/`` (``out_dir`` is the run directory to use;
    by default ``source`` itself, which must then be a run directory).
    """
    from stereoprobe.stats.analysis import check_options

    check_options(ci, bootstrap, seed, wording)  # before anything is read or written
    src = Path(source)
    if out_dir is None:
        if not src.exists():
            raise DataError(f"{src}: no such run directory; run `stereoprobe collect --out {src}` first.")
        if not src.is_dir():
            raise DataError(f"{src}: not a run directory; for a file use --input FILE --out DIR.")
        out_dir = src
    _check_out(src, Path(out_dir))
    result = score(src, lexicon=lexicon, overrides=overrides, synonyms=synonyms, ci=ci, bootstrap=bootstrap, seed=seed,
                   wording=wording)
    return result, write_outputs(result, Path(out_dir) / "sentiment")


def _check_out(src: Path, out: Path) -> None:
    """An --out folder holding a run takes only that run's own answers: the sentiment of
    another file written there replaced the run's own (or landed in another study's run)."""
    from stereoprobe.store import COMPLETIONS, MANIFEST

    if not ((out / COMPLETIONS).is_file() or (out / MANIFEST).is_file()):
        return
    own = src.resolve() in ((out / COMPLETIONS).resolve(), out.resolve())
    if not own:
        raise DataError(f"{out} holds another run: the sentiment of {src} would be written into it "
                        "(replacing that run's own); give a new --out directory.")
