"""The one rule for "the group's own words": used by the chat reply parser, the
next-word filter and sentiment, so a word is a group word in every stage or in none.

A group's own words are its whole name, each word of it (function words such as "the",
"of", "in" left out), and each word's singular and plural: regular (-s, -es, -ies) and
the irregular ones group names use (woman/women, man/men and -man/-men compounds,
person/people, child/children). An optional ``lemmatize`` adds each word's lemma.
"""

from __future__ import annotations

import re
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
