"""Words and names as the report shows them: counted words for word clouds and top-word
lists (:class:`Word`, :func:`count_words`), and file- and URL-safe slugs for group and
category pages (:func:`slugify`, :func:`unique_slugs`).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from typing import Iterable


@dataclass(frozen=True)
class Word:
    """A word as it appears in a cloud or a top-word list."""

    word: str
    count: int
    label: str


def count_words(pairs: Iterable[tuple[str, str]]) -> list[Word]:
    """Count (word, label) pairs; a word's label is its most frequent one.

    >>> count_words([("wise", "positive"), ("grumpy", "negative"), ("wise", "positive")])
    [Word(word='wise', count=2, label='positive'), Word(word='grumpy', count=1, label='negative')]
    """
    counts: dict[str, dict[str, int]] = {}
    for word, label in pairs:
        by_label = counts.setdefault(str(word), {})
        by_label[str(label)] = by_label.get(str(label), 0) + 1
    words = [
        Word(w, sum(ls.values()), max(ls, key=lambda k: (ls[k], k))) for w, ls in counts.items()
    ]
    return sorted(words, key=lambda x: (-x.count, x.word))


def slugify(name: str) -> str:
    """A file- and URL-safe name for a group.

    >>> slugify("Women's rights activists")
    'women-s-rights-activists'
    >>> slugify("Côte d'Ivoire")
    'cote-d-ivoire'
    """
    ascii_name = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode()
    return re.sub(r"[^a-z0-9]+", "-", ascii_name.lower()).strip("-") or "group"


def unique_slugs(names: Iterable[str], reserved: Iterable[str] = ()) -> dict[str, str]:
    """Slugs for names, made unique by a numeric suffix in order of appearance; a slug
    in ``reserved`` (e.g. ``index``, the index page) is never given out.

    >>> unique_slugs(["a b", "a-b", "c"])
    {'a b': 'a-b', 'a-b': 'a-b-2', 'c': 'c'}
    >>> unique_slugs(["Index", "data"], reserved=["index"])
    {'Index': 'index-2', 'data': 'data'}
    """
    out: dict[str, str] = {}
    used: set[str] = set(reserved)
    for name in names:
        base = slug = slugify(name)
        n = 1
        while slug in used:
            n += 1
            slug = f"{base}-{n}"
        used.add(slug)
        out[name] = slug
    return out
