"""The generation studies' records: a prompt to write from, and one generated text.

``GenProbe``: one prompt of a generation study (an anecdote about a nurse, story prompt
"once" about a baker): its ``group`` (the profession, the name: what the sensitive
attribute is tested against), its ``variant`` (the story prompt; "" when there is one),
the chat ``messages`` (role, content) the papers send, the ``completion`` form a base
model continues instead, and ``attrs`` (the group's known facts, e.g. the BLS share of
women) copied into every record so a run is scored from its records alone.

``GenRecord``: one line of completions.jsonl, one generated text (sample ``sample`` of
its probe): the text, the ``finish_reason`` the backend gave ("stop", "length"), whether
the model refused, the token ``usage``, and the study classifier's ``label`` with its
``evidence`` (the words that decided it). A text that is empty, truncated (when the
study needs whole texts), refused or not in English gets no label: its ``problem`` says
why. Status (as
every study's records): *failed* (error), *refused*, *ok* (labelled), *unparseable*
(empty or truncated).
"""

from __future__ import annotations

import hashlib
from dataclasses import asdict, dataclass, field, fields
from typing import Any

from stereoprobe.records import StoredRecord, json_type

METHODS = ("chat", "completion")  # chat: the messages; completion: a base model continues the completion form
PROBLEMS = ("empty", "truncated", "refused", "language")  # language: not English, the classifiers read English


def gen_probe_id(study: str, group: str, variant: str, text: str) -> str:
    """12 hex digits of sha1 over the study, group, variant and prompt text.

    >>> gen_probe_id("anecdotes", "nurse", "", "x")
    'db4f9a46a257'
    """
    return hashlib.sha1(f"{study}\t{group}\t{variant}\t{text}".encode("utf-8")).hexdigest()[:12]


@dataclass(frozen=True)
class GenProbe:
    probe_id: str
    group: str
    variant: str
    messages: tuple[tuple[str, str], ...]  # (role, content): what a chat model is sent
    completion: str  # what a base model continues (the embedded model)
    attrs: dict[str, Any] = field(default_factory=dict)

    @property
    def text(self) -> str:
        """The prompt as one string (the last user message): what `probes` lists."""
        return self.messages[-1][1]

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["messages"] = [list(m) for m in self.messages]
        return out


@dataclass(frozen=True)
class GenRecord(StoredRecord):
    """One generated text (a line of a generation run's completions.jsonl)."""

    probe_id: str
    sample: int
    group: str
    variant: str
    method: str  # "chat" or "completion"
    prompt: str  # what was sent: the messages as "role: content" lines, or the completion form
    attrs: dict[str, Any] = field(default_factory=dict)
    text: str | None = None
    finish_reason: str | None = None
    refused: bool = False
    problem: str | None = None  # "empty", "truncated", "refused", "language": not labelled
    label: str | None = None
    evidence: list[str] = field(default_factory=list)
    error: str | None = None
    attempts: int = 0
    latency_s: float | None = None
    usage: dict[str, Any] | None = None
    response: dict[str, Any] | None = None

    def _answered(self) -> bool:
        return self.label is not None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "GenRecord":
        """A record from one parsed JSON line; TypeError names a field of the wrong type."""
        if not isinstance(data, dict):
            raise TypeError("expected a JSON object")
        missing = [f.name for f in fields(cls) if f.name in _REQUIRED and f.name not in data]
        if missing:
            raise TypeError(f"missing field(s) {', '.join(missing)}: not a generation-study record")
        values = {k: data[k] for k in cls.__dataclass_fields__ if k in data}
        for name, value in values.items():
            if not _CHECKS.get(name, lambda v: isinstance(v, str))(value):
                raise TypeError(f"field {name!r} has the wrong type ({json_type(value)})")
        return cls(**values)


_REQUIRED = ("probe_id", "sample", "group", "variant", "method", "prompt")


def _opt(kind: type) -> Any:
    return lambda v: v is None or isinstance(v, kind)


def _number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


_CHECKS: dict[str, Any] = {
    "sample": lambda v: isinstance(v, int) and not isinstance(v, bool) and v >= 0,
    "method": lambda v: v in METHODS,
    "attrs": lambda v: isinstance(v, dict),
    "text": _opt(str), "finish_reason": _opt(str), "label": _opt(str), "error": _opt(str),
    "refused": lambda v: isinstance(v, bool),
    "problem": lambda v: v is None or v in PROBLEMS,
    "evidence": lambda v: isinstance(v, list) and all(isinstance(w, str) for w in v),
    "attempts": lambda v: isinstance(v, int) and not isinstance(v, bool) and v >= 0,
    "latency_s": lambda v: v is None or _number(v),
    "usage": _opt(dict), "response": _opt(dict),
}
