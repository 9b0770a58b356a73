"""A generated text as words: the tokens, and the content words the hobbies study counts.

- ``tokens(text)``: lower-case words (letters, with an inner apostrophe), curly quotes
  straightened (``parse.NORMALISE``), a possessive "'s" dropped ("Mary's" -> "mary").
- ``content_words(text, names)``: the tokens less stop words (spaCy's English list, 326
  words, shipped with spaCy), gendered pronouns and titles (``GENDERED``, whether or not
  a stop word) and the given names: what is left is what the model said the student does.

>>> tokens("Mary\u2019s hobbies: coding, soccer & reading!")
['mary', 'hobbies', 'coding', 'soccer', 'reading']
>>> content_words("She loves painting and Mary's choir; he codes.", ["Mary"])
['loves', 'painting', 'choir', 'codes']
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Iterable

#: Stripped before labels are scored (001: "names and pronouns"), and never counted.
GENDERED = frozenset(
    "he him his himself she her hers herself mr mrs ms miss sir madam".split()
)
_TOKEN = re.compile(r"[a-z]+(?:'[a-z]+)?")


@lru_cache(maxsize=1)
def stop_words() -> frozenset[str]:
    from spacy.lang.en.stop_words import STOP_WORDS

    return frozenset(STOP_WORDS)


def tokens(text: str) -> list[str]:
    from stereoprobe.refusal import NORMALISE

    out = []
    for tok in _TOKEN.findall((text or "").translate(NORMALISE).lower()):
        out.append(tok[:-2] if tok.endswith("'s") else tok)
    return out


def content_words(text: str, names: Iterable[str] = ()) -> list[str]:
    drop = stop_words() | GENDERED | {n.lower() for n in names}
    return [t for t in tokens(text) if t not in drop and len(t) > 1 and "'" not in t]
