"""The six hobby labels of Sterlie et al. (2024, 001 Figure 4), scored from a word list.

001 scored each text with a DeBERTa zero-shot classifier; no model can be downloaded
here, so a label is a list of words. The labels file (``data/labels.csv``, or a user's
``--labels FILE``) has rows ``label,kind,item``:

- ``empath``: every word of that category of Empath's lexicon (Fast et al. 2016; the
  ``categories.tsv`` the PyPI package ``empath`` ships, MIT), e.g. Technology <- technology,
  computer, programming;
- ``word``: one word for the label (what Empath lacks: "volunteering", "robotics");
- ``exclude``: a word removed from the label (Empath's "help" holds "friend", which in a
  hobby text is not volunteer work).

A word that two labels' Empath categories both hold counts for neither (Empath's
"science" holds "literary"), unless a ``word`` row gives it to one label.

**The score.** A text's content words (``text.content_words``: stop words, gendered
pronouns and the student's name stripped) are matched to the labels' words, a word
matching in itself or without one of the endings -s, -es, -ing, -ed ("volunteering" ->
"volunteer", "coding" -> "code"). ``hits[L]`` counts the content words matching label L;
the text's score for L is ``hits[L] / sum(hits)``, its share of the text's label words
(so the six scores sum to 1, as a single-label zero-shot classifier's do); a text with no
label word scores 0 on every label. Its top label is the label with the most hits,
``mixed`` when two or more tie, ``none`` without hits.

>>> lex = Labels({"Sport": frozenset({"soccer", "swim"}), "Art": frozenset({"paint", "guitar"})})
>>> s = lex.score("Mary loves soccer, swimming and painting.", ["Mary"])
>>> s.scores, s.top, s.evidence
({'Sport': 0.6666666666666666, 'Art': 0.3333333333333333}, 'Sport', {'Sport': ['soccer', 'swimming'], 'Art': ['painting']})
>>> lex.score("He reads.", ["Tom"]).top
'none'
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Iterable, Mapping

from stereoprobe.studies.hobbies.text import content_words

LABELS = ("Technology", "Science", "Sport", "Art", "Literature", "Volunteer work")
DATA = Path(__file__).parent / "data" / "labels.csv"
KINDS = ("empath", "word", "exclude")
_ENDINGS = (("ing", ""), ("ing", "e"), ("es", ""), ("ed", ""), ("ed", "e"), ("s", ""))


@dataclass(frozen=True)
class TextScore:
    scores: dict[str, float]  # label -> share of the text's label words
    top: str  # a label, "mixed" or "none"
    evidence: dict[str, list[str]]  # label -> the words that matched it
    words: int  # content words


def forms(word: str) -> list[str]:
    """The word and its forms without an ending (a stem of 3 letters or more)."""
    out = [word]
    for end, add in _ENDINGS:
        stem = word[: -len(end)]
        if word.endswith(end) and len(stem) >= 3:
            out.append(stem + add)
            if not add and end != "s" and stem[-1] == stem[-2] and stem[-1] not in "aeiouls":
                out.append(stem[:-1])  # "swimming" -> "swim", "jogged" -> "jog"
    return out


@dataclass(frozen=True)
class Labels:
    words: Mapping[str, frozenset[str]]  # label -> its words, in the file's order
    ambiguous: frozenset[str] = field(default=frozenset())  # words dropped as shared by two labels

    @property
    def names(self) -> list[str]:
        return list(self.words)

    def label_of(self, word: str) -> str | None:
        for form in forms(word):
            for label, ws in self.words.items():
                if form in ws:
                    return label
        return None

    def score(self, text: str, names: Iterable[str] = ()) -> TextScore:
        words = content_words(text, names)
        evidence: dict[str, list[str]] = {}
        for w in words:
            label = self.label_of(w)
            if label is not None:
                evidence.setdefault(label, []).append(w)
        total = sum(len(v) for v in evidence.values())
        scores = {label: (len(evidence.get(label, [])) / total if total else 0.0) for label in self.words}
        most = max((len(v) for v in evidence.values()), default=0)
        tops = [label for label, v in evidence.items() if len(v) == most]
        top = "none" if not total else tops[0] if len(tops) == 1 else "mixed"
        return TextScore(scores, top, {k: evidence[k] for k in self.words if k in evidence}, len(words))


@lru_cache(maxsize=1)
def empath_categories() -> dict[str, frozenset[str]]:
    """Empath's categories (name -> words) from the ``categories.tsv`` its package ships."""
    from importlib.resources import files

    from stereoprobe.errors import BackendError

    try:
        text = (files("empath") / "data" / "categories.tsv").read_text(encoding="utf-8")
    except (ModuleNotFoundError, FileNotFoundError):
        raise BackendError("The Empath lexicon is missing; `pip install empath==0.89` (a stereoprobe "
                           "dependency) or give --labels with word rows only.") from None
    out = {}
    for line in text.splitlines():
        parts = [p.strip().lower() for p in line.split("\t") if p.strip()]
        if parts:
            out[parts[0]] = frozenset(p for p in parts[1:] if " " not in p)
    return out


def load_labels(path: str | Path | None = None) -> Labels:
    """The labels file (None: the study's). No label rows, an unknown kind or Empath
    category: a one-line DataError."""
    from stereoprobe.datafiles import read_rows
    from stereoprobe.errors import DataError

    p = Path(path) if path is not None else DATA
    rows = read_rows(p, ["label", "kind", "item"], missing_hint="give a CSV file with columns label, kind, item")
    empath: dict[str, set[str]] = {}
    given: dict[str, set[str]] = {}
    excluded: dict[str, set[str]] = {}
    for line, row in rows:
        label, kind, item = row["label"], row["kind"].lower(), row["item"].lower()
        if not label or not item:
            raise DataError(f"{p}, line {line}: a row needs a label and an item.")
        if kind not in KINDS:
            raise DataError(f"{p}, line {line}: kind {row['kind']!r} is not one of {', '.join(KINDS)}.")
        if kind == "empath":
            cats = empath_categories()
            if item not in cats:
                raise DataError(f"{p}, line {line}: Empath has no category {item!r} (e.g. sports, art, reading).")
            empath.setdefault(label, set()).update(cats[item])
        else:
            (given if kind == "word" else excluded).setdefault(label, set()).add(item)
            empath.setdefault(label, set())
    if not empath:
        raise DataError(f"{p} has no labels; give rows label,kind,item (kind empath, word or exclude).")
    return _merge(empath, given, excluded)


def _merge(empath: dict[str, set[str]], given: dict[str, set[str]], excluded: dict[str, set[str]]) -> Labels:
    counts: dict[str, int] = {}
    for ws in empath.values():
        for w in ws:
            counts[w] = counts.get(w, 0) + 1
    shared = {w for w, c in counts.items() if c > 1}
    explicit = {w for ws in given.values() for w in ws}
    words = {}
    for label, ws in empath.items():
        mine = given.get(label, set())
        keep = {w for w in ws if w not in shared and w not in explicit} | mine
        words[label] = frozenset(keep - excluded.get(label, set()))
    return Labels(words, frozenset(shared - explicit))
