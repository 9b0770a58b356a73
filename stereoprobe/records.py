"""Records passed between the pipeline's stages (see docs/design.md)."""

from __future__ import annotations

import hashlib
from dataclasses import asdict, dataclass, field
from typing import Any

MASK = "..."
FORMATS = ("question", "statement")


def probe_id_for(category: str, group: str, template_text: str) -> str:
    """Stable id of a probe: 12 hex digits of sha1 over category, group and template text.

    >>> probe_id_for("age", "old people", "why are <group> so ...")
    '55ca1ffe4e01'
    """
    key = f"{category}\t{group}\t{template_text}".encode("utf-8")
    return hashlib.sha1(key).hexdigest()[:12]


class StoredRecord:
    """What every study's line in completions.jsonl shares (a mixin of its frozen
    dataclass, which has ``probe_id``, ``sample``, ``refused`` and ``error``): the key that
    resume and samples use, and the status collect counts. A study says only what an
    answer is (``_answered``)."""

    def _answered(self) -> bool:
        """Whether the record holds something to score (else it is unparseable)."""
        raise NotImplementedError

    @property
    def key(self) -> tuple[str, int]:
        return (self.probe_id, self.sample)  # type: ignore[attr-defined]

    @property
    def status(self) -> str:
        """One of ok, refused, unparseable, failed (docs/design.md)."""
        if self.error is not None:  # type: ignore[attr-defined]
            return "failed"
        if self.refused:  # type: ignore[attr-defined]
            return "refused"
        return "ok" if self._answered() else "unparseable"


@dataclass(frozen=True)
class Probe:
    """One masked probe: a template filled with one social group."""

    probe_id: str
    category: str
    group: str
    template: str  # template id, e.g. "why_are_so"
    format: str  # "question" or "statement"
    text: str  # e.g. "why are old people so ..."

    @property
    def prefix(self) -> str:
        """The text before the trailing mask, for next-word mode.

        >>> Probe("x", "age", "old people", "are_so", "statement", "old people are so ...").prefix
        'old people are so'
        """
        text = self.text.rstrip()
        if text.endswith(MASK):
            text = text[: -len(MASK)]
        return text.rstrip()

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class Answer:
    """What a backend returns for one probe.

    A chat backend returns the reply as ``raw`` with no ``words``: collect parses it
    (store-side, so `stereoprobe reparse` can redo it). A next-word backend returns the
    ranked ``words`` itself. ``response`` keeps what the provider said about itself
    (the answered model name, ``system_fingerprint``).
    """

    words: list[str]
    raw: str
    probabilities: list[float] | None = None
    refused: bool = False
    usage: dict[str, Any] | None = None
    response: dict[str, Any] | None = None
    logprobs: dict[str, Any] | None = None  # chat: the reply tokens' logprobs, when the endpoint returns them


@dataclass(frozen=True)
class Completion(StoredRecord):
    """One line of completions.jsonl: a probe, the model's answer, and how it went."""

    probe_id: str
    sample: int
    category: str
    group: str
    template: str
    format: str
    prompt: str
    words: list[str] = field(default_factory=list)
    probabilities: list[float] | None = None
    raw: str | None = None
    refused: bool = False
    error: str | None = None
    attempts: int = 0
    latency_s: float | None = None
    usage: dict[str, Any] | None = None
    response: dict[str, Any] | None = None  # the provider's answered model, system_fingerprint
    logprobs: dict[str, Any] | None = None  # chat: the reply tokens' logprobs (backends/chat_logprobs.py)

    def _answered(self) -> bool:
        return bool(self.words)

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        if out["logprobs"] is None:  # only chat replies that came with logprobs carry the field
            del out["logprobs"]
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "Completion":
        """A record from one parsed JSON line; TypeError names a field of the wrong type."""
        if not isinstance(data, dict):
            raise TypeError("expected a JSON object")
        names = cls.__dataclass_fields__.keys()
        values = {k: data[k] for k in names if k in data}
        for name, value in values.items():
            _check_type(name, value)
        return cls(**values)


_STR = ("probe_id", "category", "group", "template", "format", "prompt")


def _number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


#: What the fields every stored answer has may hold, as JSON values (the fill-in study's
#: completions below, the jobs study's answers in studies/jobs/records.py).
ANSWER_FIELDS: dict[str, Any] = {
    "sample": lambda v: isinstance(v, int) and not isinstance(v, bool) and v >= 0,
    "raw": lambda v: v is None or isinstance(v, str),
    "refused": lambda v: isinstance(v, bool),
    "error": lambda v: v is None or isinstance(v, str),
    "attempts": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "latency_s": lambda v: v is None or _number(v),
    "usage": lambda v: v is None or isinstance(v, dict),
    "response": lambda v: v is None or isinstance(v, dict),
}

#: What each completion field may hold (one table, built once: a run's reading checks every
#: field of every record).
_FIELD_OK: dict[str, Any] = {
    **ANSWER_FIELDS,
    "words": lambda v: isinstance(v, list) and all(isinstance(w, str) for w in v),
    "probabilities": lambda v: v is None or (isinstance(v, list) and all(p is None or _number(p) for p in v)),
    "logprobs": lambda v: v is None or isinstance(v, dict),
    **{name: lambda v: isinstance(v, str) for name in _STR},
}


def _check_type(name: str, value: Any) -> None:
    """Raise TypeError when a completion field holds the wrong type of JSON value."""
    ok = _FIELD_OK.get(name)
    if ok is not None and not ok(value):
        raise TypeError(f"field {name!r} has the wrong type ({json_type(value)})")


def json_type(value: Any) -> str:
    return {dict: "object", list: "list", str: "string", bool: "true/false", type(None): "null"}.get(
        type(value), "number")
