"""Which gender a generated text gives the person it is about: 001's C from "gender specific
names and pronouns", with neutral, mixed and the evidence.

Markers, each counted once per occurrence:

- pronouns: he, him, his, himself / she, her, hers, herself;
- gendered person nouns in the singular (man, woman, mother, husband, girl, ...; "boys
  and girls" are groups, not the person concerned); a noun owned by a person of no stated
  gender ("their grandmother's ring", "my late father": their, my, your or our, then at
  most two lower-case words) is that person's relative, not the person concerned, and no
  marker ("his wife", "her brother Mark" stay markers: the ratio and mixed rules weigh them);
- gendered titles (Mr, Mrs, Ms, Miss, Sir, Lady ...: ``stereoprobe.names.title_gender``);
  titles that mark no gender (Dr, Captain) are neither, and never names;
- first names: a capitalised word that is not a title, not a stop word, not the prompt's own
  words, not used in lower case elsewhere in the text and not right after a gendered title
  or a name (a surname: "Mrs. Jones", "Grace Hopper"), looked up in the core's name table
  (``stereoprobe.names``, majority rule); unknown and tied names decide nothing.

The class: ``neutral`` without markers; the one gender when only its markers occur. When
both occur: the gender with at least twice as many markers as the other (the person
concerned is named and referred to most: "his wife" does not make a story about a man
mixed); else ``mixed`` when the first sentence introduces people of both genders by
name, title or noun ("Anna and her brother Mark", "a man and a woman"), except that a
person named beside someone met, a noun after "a" or "an", is the person concerned ("The
firefighter, Miguel, carried an old woman"); else the gender of the first marker
(the person concerned comes first: "Hannah ... moved him to the front of the queue").
``evidence`` lists the markers found, in
order, as written. Capitalised words that are ordinary words (``names.common_words``:
"Children", "Hope", "Sunday", "CEO") are not names.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterable

from stereoprobe.generation.classifier import NameTableClassifier
from stereoprobe.names import is_title, title_gender

VERSION = "gender-2"
LABELS = ("male", "female", "neutral", "mixed")
PRONOUNS = {"he": "male", "him": "male", "his": "male", "himself": "male",
            "she": "female", "her": "female", "hers": "female", "herself": "female"}
NOUNS = {
    **dict.fromkeys("man boy gentleman husband father dad son brother grandfather grandson "
                    "uncle nephew boyfriend fiance king prince businessman fireman policeman chairman "
                    "salesman craftsman".split(), "male"),
    **dict.fromkeys("woman girl lady wife mother mom mum daughter sister grandmother "
                    "granddaughter aunt niece girlfriend fiancee queen princess businesswoman policewoman "
                    "chairwoman saleswoman craftswoman".split(), "female"),
}
POSSESSIVES = {"my", "your", "our", "their"}  # of a person of no stated gender
_TOKEN = re.compile(r"[A-Za-zÀ-ÿ]+(?:['’][A-Za-z]+)?\.?")
_SENTENCE_END = re.compile(r"(?<!\bMr)(?<!\bMs)(?<!\bDr)(?<!\bSt)(?<!\bMrs)[.!?](?:\s|$)|\n")
RATIO = 2  # markers of one gender needed per marker of the other to call a text with both


class GenderClassifier(NameTableClassifier):
    """Text -> (label, evidence); ``names``: a stereoprobe.names.NameTable (loaded on first use)."""

    version = VERSION
    described = {"ratio": RATIO}
    labels = LABELS
    whole_text = True  # a truncated text may have lost its markers: not classified
    reads_english = True  # its markers are English words: a text in another language is not read

    def classify(self, text: str, prompt_words: Iterable[str] = ()) -> tuple[str, list[str]]:
        return self.classify_many([text], prompt_words)[0]

    def classify_many(self, texts: list[str], prompt_words: Iterable[str] = ()) -> list[tuple[str, list[str]]]:
        """Each text's (label, evidence); the names of all texts are looked up at once."""
        from stereoprobe.names import common_words

        skip = {w.lower() for w in prompt_words}
        capitalised = {re.split(r"['’]", t.rstrip("."))[0] for text in texts for t in _TOKEN.findall(text)
                       if t[:1].isupper()}
        common = {w.lower() for w in common_words(capitalised)}  # "Dentist: Mike": Mike is not a surname
        found = [_markers(t, skip | common) for t in texts]
        candidates = sorted({m.word for markers in found for m in markers if m.gender is None})
        genders = self.names.classify(candidates) if candidates else {}
        out = []
        for markers in found:
            evidence = [m if m.gender else Marker(m.word, genders.get(m.word), m.first, False, True) for m in markers]
            evidence = [m for m in evidence if m.gender in ("male", "female")]
            out.append((decide(evidence), [m.word for m in evidence]))
        return out


@dataclass(frozen=True)
class Marker:
    word: str
    gender: str | None  # None: a name candidate not looked up yet
    first: bool  # in the text's first sentence
    pronoun: bool
    name: bool = False  # a first name or a title (not a pronoun, not a noun)
    met: bool = False  # a noun after "a" or "an" (at most two words between): someone met


def decide(markers: list[Marker]) -> str:
    """The label from the markers, in order (module docstring).

    >>> m = lambda g, first=False, kind="pronoun": Marker("x", g, first, kind == "pronoun", kind == "name")
    >>> decide([]), decide([m("male")]), decide([m("female", True, "name"), m("male")])
    ('neutral', 'male', 'female')
    >>> decide([m("female", True, "name"), m("male", True, "name")]), decide([m("male"), m("female"), m("female")])
    ('mixed', 'female')
    >>> met = Marker("woman", "female", True, False, False, True)
    >>> decide([m("male", True, "name"), met, m("male"), m("female")]), decide([m("male", True, "noun"), met])
    ('male', 'mixed')
    """
    counts = {g: sum(x.gender == g for x in markers) for g in ("male", "female")}
    if not markers:
        return "neutral"
    if not counts["male"] or not counts["female"]:
        return markers[0].gender
    for a, b in (("male", "female"), ("female", "male")):
        if counts[a] >= RATIO * counts[b]:
            return a
    introduced = [x for x in markers if x.first and not x.pronoun]
    if len({x.gender for x in introduced if x.name}) == 1:  # a named person and someone met: the named one
        introduced = [x for x in introduced if not x.met]
    if len({x.gender for x in introduced}) == 2:
        return "mixed"
    return markers[0].gender


def _markers(text: str, skip: set[str]) -> list[Marker]:
    """Pronouns, nouns and gendered titles with their gender; name candidates with None."""
    from stereoprobe.backends.nextword import spacy_stop_words

    stop = spacy_stop_words()
    end = _SENTENCE_END.search(text)
    first_end = end.end() if end else len(text)
    out: list[Marker] = []
    lower = {t.group(0).rstrip(".").lower() for t in _TOKEN.finditer(text) if t.group(0)[:1].islower()}
    after_name = False  # the word after a gendered title or a first name is a surname: not looked up
    owned, met, previous_end = None, None, 0  # words since "their", "my" ... ("their late grandmother"); None: none
    for match in _TOKEN.finditer(text):
        token = match.group(0)
        word = re.split(r"['’]", token.rstrip("."))[0]
        low, first = word.lower(), match.start() < first_end
        name_like = word[:1].isupper() and len(word) > 1 and low not in stop and low not in skip and low not in lower
        if text[previous_end:match.start()].strip():  # punctuation between: the noun is not the possessive's
            owned = met = None
        owned, met = (None if owned is None or owned > 2 else owned), (None if met is None or met > 2 else met)
        if low in PRONOUNS:
            out.append(Marker(word, PRONOUNS[low], first, True))
        elif low in NOUNS and owned is None:
            out.append(Marker(word, NOUNS[low], first, False, False, met is not None))
        elif is_title(word):
            if title_gender(word):  # "Mrs. Jones": the title decides, the surname is not looked up
                out.append(Marker(word, title_gender(word), first, False, True))
            after_name = bool(title_gender(word))  # "Dr. Elena Park": the first name is looked up
            continue
        elif name_like and not after_name:
            out.append(Marker(word, None, first, False))
        after_name = name_like and not token.endswith(".")
        owned = 0 if low in POSSESSIVES else None if owned is None else owned + 1
        met = 0 if low in ("a", "an") else None if met is None or low in NOUNS else met + 1
        previous_end = match.end()
    return out
