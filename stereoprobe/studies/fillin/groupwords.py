"""The one rule for "the group's own words": used by the chat reply parser, the
next-word filter and sentiment, so a word is a group word in every stage or in none.

A group's own words are its whole name, each word of it (function words such as "the",
"of", "in" left out), and each word's singular and plural: regular (-s, -es, -ies) and
the irregular ones group names use (woman/women, man/men and -man/-men compounds,
person/people, child/children). An optional ``lemmatize`` adds each word's lemma.

A reply word is **not an answer** (:func:`not_an_answer`, the one rule of both collect
paths: chat list parsing and the next-word walk) when it is

- one of the group's own words;
- a derived form of one (an own word of 4 or more letters plus -ism, -ist, -ity, -ness,
  -dom, -hood or -ish: "hinduism" for Hindus, "mormonism", "jewish" is not: "jew" is
  too short);
- a garbled copy of one (:func:`garbled`): at most 1 edit (insertion, deletion or
  substitution) from an own word of 6 or more letters with the same first letter, or at
  most 2 edits from one of 7 or more letters with the same first three ("mormooms" for
  Mormons). Shorter names get no such slack: "news" is not "jews", "aliens" is not
  "asians" (2 edits from a 6-letter word);
- a pronoun contraction ("they're", "they's", "we're", "it's"): the next-word walk
  drops these as stop words, the list parser here.

A reply whose only words are such is unparseable, not an answer.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Callable

FUNCTION_WORDS = frozenset({"a", "an", "the", "of", "in", "and", "all"})
IRREGULAR = {"woman": "women", "man": "men", "person": "people", "child": "children"}
_PLURAL_OF = {**IRREGULAR, **{v: k for k, v in IRREGULAR.items()}}
NOT_COMPOUNDS = frozenset({"german", "human", "roman", "shaman", "ottoman"})  # -man but not man/men


def _forms(word: str) -> set[str]:
    """A word with its singular or plural.

    >>> sorted(_forms("women")), sorted(_forms("policemen")), sorted(_forms("cities"))
    (['woman', 'women'], ['policeman', 'policemen'], ['cities', 'city'])
    """
    forms = {word}
    for ending, other in _PLURAL_OF.items():
        if word.endswith(ending) and (word == ending or ending in ("man", "men")) and word not in NOT_COMPOUNDS:
            return forms | {word[: len(word) - len(ending)] + other}
    if word.endswith("ies"):
        forms.add(word[:-3] + "y")
    elif word.endswith("s"):
        forms.add(word[:-1])
        if word.endswith("es"):
            forms.add(word[:-2])
    else:
        forms.add(word + "s")
    return forms


def group_words(group: str, lemmatize: Callable[[str], str] | None = None) -> frozenset[str]:
    """Words that name the group itself (lower-case, straight apostrophes).

    >>> sorted(group_words("Old people"))
    ['old', 'old people', 'olds', 'people', 'person']
    >>> sorted(group_words("women"))
    ['woman', 'women']
    >>> "hindu" in group_words("Hindus") and "sikh" in group_words("Sikhs")
    True
    """
    name = " ".join(group.replace("\u2019", "'").lower().split())
    parts = {name, *re.split(r"[\s-]+", name)} - FUNCTION_WORDS - {""}
    out: set[str] = set()
    for part in parts:
        out |= _forms(part) if " " not in part else {part}
        if lemmatize is not None:
            out.add(lemmatize(part))
    return frozenset(out)


#: Endings that derive a word from a group's name rather than describe the group.
DERIVED = ("ism", "isms", "ist", "ists", "ity", "ness", "dom", "hood", "ish")
PRONOUN_CONTRACTION = re.compile(r"(?:they|we|you|he|she|it|i|there|that|who)'(?:re|s|ve|ll|d|m)")


def edit_distance(a: str, b: str) -> int:
    """Levenshtein distance: the fewest insertions, deletions and substitutions.

    >>> edit_distance("mormooms", "mormons"), edit_distance("aliens", "asians"), edit_distance("news", "jews")
    (2, 2, 1)
    """
    row = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        prev, row[0] = row[0], i
        for j, cb in enumerate(b, 1):
            prev, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, prev + (ca != cb))
    return row[-1]


def garbled(word: str, own: frozenset[str]) -> bool:
    """``word`` is a derived form or a garbled copy of one of ``own`` (rules: module docstring).

    >>> own = group_words("Mormons") | group_words("Hindus")
    >>> [garbled(w, own) for w in ["mormooms", "hinduism", "modest", "humble"]]
    [True, True, False, False]
    """
    for g in own:
        if " " in g or len(g) < 4 or word == g:
            continue
        if word.startswith(g) and word[len(g):] in DERIVED:
            return True
        slack = 2 if len(g) >= 7 and word[:3] == g[:3] else 1 if len(g) >= 6 and word[0] == g[0] else 0
        if slack and abs(len(word) - len(g)) <= slack and edit_distance(word, g) <= slack:
            return True
    return False


def not_an_answer(word: str, own: frozenset[str]) -> bool:
    """The one rule of both collect paths: ``word`` (lower-case) is one of the group's own
    words ``own`` (:func:`group_words`), a derived form or garbled copy of one, or a
    pronoun contraction (module docstring).

    >>> own = group_words("Hindus")
    >>> [not_an_answer(w, own) for w in ["hindus", "hinduism", "they're", "they’s", "peaceful"]]
    [True, True, True, True, False]
    """
    word = word.replace("\u2019", "'")
    return word in own or PRONOUN_CONTRACTION.fullmatch(word) is not None or garbled(word, own)


@lru_cache(maxsize=4096)
def _own(group: str) -> frozenset[str]:
    return group_words(group)


class FillInWords:
    """The fill-in study's rules for the next-word walk (``backends/nextword.WordRules``):
    the group's own words, and WordNet (``wordnet.has_synsets``). Handed to the backend by
    the study (``make_backend(word_rules=WORD_RULES)``)."""

    def own_word(self, word: str, group: str) -> bool:
        return not_an_answer(word, _own(group))

    def known(self, word: str, pos: str | None = None) -> bool:
        from stereoprobe.studies.fillin.wordnet import has_synsets

        return has_synsets(word, pos)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, FillInWords)

    def __hash__(self) -> int:
        return hash(FillInWords)


WORD_RULES = FillInWords()
