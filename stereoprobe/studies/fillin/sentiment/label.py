"""Word -> sentiment label with provenance (paper section 3.2).

For each unique, normalised word, the first step that finds it decides:

1. ``lexicon``: the word itself is in the lexicon (``override`` if a study's override set it);
2. ``lemma``: its lemma (spaCy's lookup lemmatizer table) is in the lexicon;
3. ``synonyms``: its WordNet synonyms that the lexicon has vote, and the majority decides;
4. ``none``: nothing found; the label is ``unassigned``.

Voting (docs/sentiment.md): a ``positive`` voter adds one positive vote, a ``negative``
voter one negative vote, a ``both`` voter one of each, a ``neutral`` voter none. More
positive than negative votes gives ``positive`` and vice versa; a tie with votes gives
``both`` (mixed evidence, left out of the shares like a ``both`` word); voters that are
all neutral give ``neutral``.
"""

from __future__ import annotations

import gzip
import json
import re
import string
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Callable, Iterable

from stereoprobe.errors import DataError
from stereoprobe.studies.fillin.lexicon import Lexicon

SOURCES = ("lexicon", "override", "lemma", "synonyms", "none")
_STRIP = string.punctuation + string.whitespace + "\u201c\u201d\u2018\u2019\u00ab\u00bb\u201e\u201a\u2039\u203a\u2013\u2014\u2026"


_SPACES = re.compile(r"\s+")


def normalise(word: str) -> str:
    """Lower-case, strip surrounding punctuation and quotes, squeeze inner spaces.

    >>> normalise(' "Rambunctious!" '), normalise("\u2018Don\u2019t\u2019"), normalise("...")
    ('rambunctious', "don't", '')
    """
    word = word.replace("\u2019", "'").strip(_STRIP).lower()
    return _SPACES.sub(" ", word)


@dataclass(frozen=True)
class WordLabel:
    """The label of one word and how it was found."""

    word: str
    label: str  # positive, negative, both, neutral, unassigned
    source: str  # lexicon, override, lemma, synonyms, none
    lemma: str | None = None  # the lemma that was found (source "lemma")
    voters: tuple[tuple[str, str], ...] = ()  # (synonym, its label), source "synonyms"
    votes_positive: int = 0
    votes_negative: int = 0

    def voters_text(self) -> str:
        """``voters`` as one string for words.csv, e.g. ``unruly:negative boisterous:both``.

        A ``lemma`` hit shows the lemma instead, e.g. ``lemma:lazy``.
        """
        if self.lemma is not None:
            return f"lemma:{self.lemma}"
        return " ".join(f"{w}:{lab}" for w, lab in self.voters)


def vote(voters: Iterable[tuple[str, str]]) -> tuple[str, int, int]:
    """Majority vote of labelled synonyms: ``(label, positive votes, negative votes)``.

    The paper's example: 'unruly' is negative, 'boisterous' both, so 'rambunctious' is negative.

    >>> vote([("unruly", "negative"), ("boisterous", "both")])
    ('negative', 1, 2)
    >>> vote([("glad", "positive"), ("sad", "negative")])
    ('both', 1, 1)
    >>> vote([("table", "neutral")])
    ('neutral', 0, 0)
    """
    pos = neg = 0
    seen = False
    for _, label in voters:
        seen = True
        pos += label in ("positive", "both")
        neg += label in ("negative", "both")
    if pos > neg:
        return "positive", pos, neg
    if neg > pos:
        return "negative", pos, neg
    if pos:
        return "both", pos, neg
    return ("neutral" if seen else "unassigned"), pos, neg


def spacy_lemmatizer() -> Callable[[str], str]:
    """spaCy's English lookup lemmatizer as word -> lemma, offline (``spacy-lookups-data``).

    spaCy's lemmatizer in lookup mode (``spacy.blank("en")`` plus
    ``add_pipe("lemmatizer", config={"mode": "lookup"})``) returns
    ``lemma_lookup.get(token.text, token.text)`` for each token. This reads that same
    table from spacy-lookups-data directly: importing spaCy itself costs about 1.5 s and
    nothing else of it is needed (tests/test_sentiment.py checks that both agree). A word
    with spaces is returned unchanged.

    >>> lemmatize = spacy_lemmatizer()
    >>> lemmatize("corrupted"), lemmatize("wiser"), lemmatize("lesbians"), lemmatize("unruly")
    ('corrupt', 'wise', 'lesbian', 'unruly')
    """
    table = _lemma_table()

    def lemmatize(word: str) -> str:
        return word if " " in word else table.get(word, word)

    return lemmatize


@lru_cache(maxsize=1)
def _lemma_table() -> dict[str, str]:
    try:
        import spacy_lookups_data
    except ImportError:
        raise DataError("Lemmas need spacy-lookups-data: pip install spacy-lookups-data, or reinstall stereoprobe.") from None
    path = Path(str(spacy_lookups_data.en["lemma_lookup"]))
    gz = path.with_name(path.name + ".gz")
    try:
        if path.is_file():
            return json.loads(path.read_text(encoding="utf-8"))
        with gzip.open(gz, "rt", encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError) as exc:
        raise DataError(f"Cannot read spaCy's lemma table {gz} ({exc}); reinstall spacy-lookups-data.") from None


class Labeller:
    """Labels words against one lexicon, caching each unique word.

    ``lemmatize`` and ``synonyms_of`` default to spaCy's lookup lemmatizer and WordNet
    (loaded on first need); pass ``synonyms=False`` for the lexicon and lemma steps only.
    """

    def __init__(
        self,
        lexicon: Lexicon,
        synonyms: bool = True,
        lemmatize: Callable[[str], str] | None = None,
        synonyms_of: Callable[[str], list[str]] | None = None,
    ):
        self.lexicon = lexicon
        self.synonyms = synonyms
        self._lemmatize = lemmatize
        self._synonyms_of = synonyms_of
        self._overridden = {o.word for o in lexicon.overrides}
        self._cache: dict[str, WordLabel] = {}
        self.used_wordnet = False  # set once WordNet itself was consulted

    def lemma(self, word: str) -> str:
        if self._lemmatize is None:
            self._lemmatize = spacy_lemmatizer()
        return self._lemmatize(word)

    def synonyms_of(self, word: str) -> list[str]:
        if self._synonyms_of is None:
            from stereoprobe.studies.fillin.wordnet import synonyms

            self._synonyms_of = synonyms
            self.used_wordnet = True
        return self._synonyms_of(word)

    def label(self, word: str) -> WordLabel:
        """The label of an already normalised word (see :func:`normalise`)."""
        hit = self._cache.get(word)
        if hit is None:
            hit = self._cache[word] = self._decide(word)
        return hit

    def _decide(self, word: str) -> WordLabel:
        lex = self.lexicon
        direct = lex.get(word)
        if direct is not None:
            return WordLabel(word, direct, "override" if word in self._overridden else "lexicon")
        lemma = self.lemma(word)
        if lemma != word and lemma in lex:
            return WordLabel(word, lex.labels[lemma], "lemma", lemma=lemma)
        if self.synonyms:
            voters = tuple((s, lex.labels[s]) for s in self.synonyms_of(word) if s in lex)
            if voters:
                label, pos, neg = vote(voters)
                return WordLabel(word, label, "synonyms", voters=voters, votes_positive=pos, votes_negative=neg)
        return WordLabel(word, "unassigned", "none")


def group_name_forms(group: str, lemmatize: Callable[[str], str] | None = None) -> frozenset[str]:
    """Words that name the group itself: the one rule of stereoprobe.studies.fillin.groupwords.

    >>> sorted(group_name_forms("lesbians"))
    ['lesbian', 'lesbians']
    """
    from stereoprobe.studies.fillin.groupwords import group_words

    return group_words(group, lemmatize)
