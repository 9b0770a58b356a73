"""One sample of a generation probe asked, checked and classified: collect's ``StudyRun.ask``.

A text is classified only when there is a whole text to read: an empty text (``problem``
"empty"), for a classifier that reads English markers (``reads_english``) a text in
another language ("language": fewer than 8% of its words are English stop words,
``is_english``; a terse list of hobbies may have none, so other classifiers are not
asked), a refusal (the API's, or a text whose first sentence is a refusal sentence
under the fill-in parser's rule, ``parse.REFUSAL``, spoken by the model: "I'm sorry, ..."),
and, for a classifier that needs the whole text (``whole_text``), a text cut by the token
limit (finish reason "length": "truncated") are stored and counted, never classified.
"""

from __future__ import annotations

import re
import time
from typing import Any

from stereoprobe.errors import BackendError
from stereoprobe.generation.backends import prompt_text
from stereoprobe.generation.records import GenProbe, GenRecord

_FIRST_SENTENCE = re.compile(r"^\s*(.{0,200}?)(?:[.!?](?:\s|$)|\n|$)", re.S)
_SYMPATHY = re.compile(r"\bsorry (?:to hear|for your loss|about your)\b", re.I)  # sympathy, not a refusal
_SPEAKER = re.compile(r"^\s*(?:i\b|i'm\b|sorry\b|as an ai\b|unfortunately\b)", re.I)


class GenBackend:
    """What collect drives: a generator (backends.py) and the study's classifier."""

    def __init__(self, generator: Any, classifier: Any) -> None:
        self.generator = generator
        self.classifier = classifier
        self.mode = generator.mode
        self.method = generator.method
        self.max_concurrency = generator.max_concurrency

    def describe(self) -> dict[str, Any]:
        return {**self.generator.describe(), **self.classifier.describe()}

    def attempts_of_last_ask(self) -> int:
        return self.generator.attempts_of_last_ask()

    def plan(self, todo: Any) -> None:
        """What this run will ask (collect's todo), for a generator that asks several samples
        per request (``ChatGenerator.plan``): it asks the missing samples only."""
        if hasattr(self.generator, "plan"):
            self.generator.plan(todo)

    def close(self) -> None:
        self.generator.close()


def is_refusal(text: str) -> bool:
    """Whether a text opens with a refusal sentence in the model's own voice.

    >>> is_refusal("I'm sorry, but I can't write stories about people's genders.")
    True
    >>> is_refusal("Sorry was the last word the nurse expected to hear. She smiled.")
    False
    """
    from stereoprobe.refusal import REFUSAL

    first = _FIRST_SENTENCE.match(text)
    sentence = (first.group(1) if first else text[:200]).replace("’", "'")
    return bool(_SPEAKER.match(sentence)) and bool(REFUSAL.search(sentence.lower())) and \
        not re.match(r"^\s*sorry\s+(?:was|is)\b", sentence, re.I) and not _SYMPATHY.search(sentence)


def is_english(text: str, share: float = 0.08, at_least: int = 6) -> bool:
    """Whether a text reads as English: at least ``share`` of its words are English stop
    words (spaCy's list; English prose has 35-50%), judged on texts of ``at_least`` words
    (shorter ones pass). The classifiers read English markers, so a text in another
    language is counted and never classified.

    >>> is_english("Maria es enfermera en un hospital de Madrid y cuida a los niños cada noche.")
    False
    >>> is_english("Maria was a nurse in a hospital in Madrid and cared for the children every night.")
    True
    """
    from stereoprobe.backends.nextword import spacy_stop_words

    words = re.findall(r"[^\W\d_]+", text.lower())
    if len(words) < at_least:
        return True
    stop = spacy_stop_words()
    return sum(w in stop for w in words) >= share * len(words)


def label_fields(text: str | None, finish_reason: str | None, refused: bool, classifier: Any,
                 prompt_words: tuple[str, ...]) -> dict[str, Any]:
    """``problem``, ``refused``, ``label`` and ``evidence`` of one text (module docstring)."""
    text = text or ""
    if refused or is_refusal(text):
        return {"problem": "refused", "refused": True, "label": None, "evidence": []}
    if not text.strip():
        return {"problem": "empty", "refused": False, "label": None, "evidence": []}
    if finish_reason == "length" and classifier.whole_text:
        return {"problem": "truncated", "refused": False, "label": None, "evidence": []}
    if getattr(classifier, "reads_english", False) and not is_english(text):
        return {"problem": "language", "refused": False, "label": None, "evidence": []}
    label, evidence = classifier.classify(text, prompt_words)
    return {"problem": None, "refused": False, "label": label, "evidence": list(evidence)}


class PromptWords(tuple):
    """Words never read as names, with ``group``: the group's own (where a text introduces
    the person it is about: "The taxi driver ... He")."""

    group: tuple[str, ...] = ()


def prompt_words(group: str, prompt: str) -> PromptWords:
    """The group's words (the profession) and the prompt's, never read as names (a story
    that repeats "Our story begins on a Saturday evening" has no protagonist "Saturday").

    >>> words = prompt_words("bus mechanic", "user: This is a story about a bus mechanic called")
    >>> words[:4], words.group
    (('bus', 'mechanic', 'user', 'This'), ('bus', 'mechanic'))
    """
    own = tuple(re.findall(r"[A-Za-z]+", group))
    words = PromptWords(own + tuple(re.findall(r"[A-Za-z]+", prompt)))
    words.group = own
    return words


def ask(backend: GenBackend, probe: GenProbe, sample: int, preflight: bool = False) -> tuple[GenRecord, bool]:
    """One sample's record, and whether its request timed out."""
    start = time.perf_counter()
    method = backend.method
    base = dict(probe_id=probe.probe_id, sample=sample, group=probe.group, variant=probe.variant, method=method,
                prompt=prompt_text(probe.messages) if method == "chat" else probe.completion, attrs=dict(probe.attrs))
    try:
        got = backend.generator.generate(probe, sample)
    except BackendError:
        raise
    except Exception as exc:  # stored as this sample's error; the run goes on
        if preflight and isinstance(exc, ConnectionError):
            raise BackendError(f"Cannot reach the endpoint ({exc}); check --base-url and that the server is "
                               "running.") from None
        return GenRecord(**base, error=str(exc) or type(exc).__name__, attempts=backend.attempts_of_last_ask(),
                         latency_s=round(time.perf_counter() - start, 4)), \
            "Timeout" in type(exc).__name__ or isinstance(exc, TimeoutError)
    found = label_fields(got.text, got.finish_reason, got.refused, backend.classifier,
                         prompt_words(probe.group, base["prompt"]))
    return GenRecord(**base, text=got.text, finish_reason=got.finish_reason, **found, usage=got.usage,
                     response=got.response, attempts=backend.attempts_of_last_ask(),
                     latency_s=round(time.perf_counter() - start, 4)), False
