"""The coreference study's stored answer: one line of a coreference run's completions.jsonl.

``CorefRecord`` carries its probe's fields (so a run is scored from its records alone,
whichever pairs it was asked with), how it was answered and what came back:

- ``method``: ``logprob`` (the embedded model, ``/v1/completions`` endpoints: the two
  replies scored, ``logprob_a`` and ``logprob_b`` their natural-log probabilities after
  the prompt) or ``chat`` (a chat model's reply in ``raw``, parsed store-side with 000's
  rule: ``stereoprobe reparse`` can parse it again);
- ``answer``: ``A``, ``B`` or ``U`` (unknown: both, neither, a tie), None when the request
  failed (``error``); ``refused``: the model declined (a chat refusal).

Every field is type-checked when read (``from_dict``), as fill-in's Completion is.
*ok*: an A or B answer; *unparseable*: U without a refusal; *refused*; *failed*.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from typing import Any

from stereoprobe.records import StoredRecord
from stereoprobe.studies.coreference.answers import ANSWERS
from stereoprobe.studies.coreference.probes import CorefProbe

METHODS = ("logprob", "chat")
_PROBE_FIELDS = ("probe_id", "triple_id", "cluster", "template", "profession_a", "profession_b", "gender_a",
                 "gender_b", "pronoun", "expected", "referent", "stereotype", "text", "debias")


@dataclass(frozen=True)
class CorefRecord(StoredRecord):
    """One line of a coreference run's completions.jsonl."""

    probe_id: str
    sample: int
    template: str
    profession_a: str
    profession_b: str
    gender_a: str | None
    gender_b: str | None
    pronoun: str
    expected: str  # "A" or "B"
    referent: str  # "A" or "B"
    stereotype: str | None  # "pro", "anti", None
    debias: int
    triple_id: str
    cluster: str
    text: str  # the prompt as sent
    method: str  # "logprob" or "chat"
    answer: str | None = None  # "A", "B", "U"; None when failed
    refused: bool = False
    raw: str | None = None  # chat: the reply
    logprob_a: float | None = None  # logprob mode: log P(" The <A>" | prompt)
    logprob_b: float | None = None
    error: str | None = None
    attempts: int = 0
    latency_s: float | None = None
    usage: dict[str, Any] | None = None
    response: dict[str, Any] | None = None
    #: chat, where the endpoint returned reply logprobs: the probability that the reply names
    #: A, and B, read where their names part (backends/chat_logprobs.option_probabilities;
    #: None where it cannot be read), and the reply tokens' logprobs themselves
    p_a: float | None = None
    p_b: float | None = None
    logprobs: dict[str, Any] | None = None

    @classmethod
    def of(cls, probe: CorefProbe, sample: int, method: str, **answer: Any) -> "CorefRecord":
        """The record of ``probe``'s sample ``sample`` with the answer fields given."""
        return cls(sample=sample, method=method, **{f: getattr(probe, f) for f in _PROBE_FIELDS}, **answer)

    def probe(self) -> CorefProbe:
        """The probe this record answers (without ``continuations`` and ``shared``)."""
        return CorefProbe(**{f: getattr(self, f) for f in _PROBE_FIELDS})

    def _answered(self) -> bool:
        return self.answer != "U"

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        for name in ("p_a", "p_b", "logprobs"):  # only chat replies that came with logprobs carry them
            if out[name] is None:
                del out[name]
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "CorefRecord":
        """A record from one parsed JSON line; TypeError names a field of the wrong type."""
        if not isinstance(data, dict):
            raise TypeError("expected a JSON object")
        required = [f.name for f in fields(cls) if f.name not in _OPTIONAL]
        missing = [f for f in required if f not in data]
        if missing:
            raise TypeError(f"missing field(s) {', '.join(missing)}: not a coreference-study record")
        values = {k: data[k] for k in cls.__dataclass_fields__ if k in data}
        for name, value in values.items():
            _check(name, value)
        record = cls(**values)
        if (record.answer is None) != (record.error is not None):
            raise TypeError("field 'answer' must be A, B or U unless 'error' is set (then null)")
        return record


_OPTIONAL = {"answer", "refused", "raw", "logprob_a", "logprob_b", "error", "attempts", "latency_s", "usage",
             "response", "p_a", "p_b", "logprobs"}


def _number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _text(v: Any) -> bool:
    return isinstance(v, str) and v != ""


_CHECKS: dict[str, Any] = {
    "sample": lambda v: isinstance(v, int) and not isinstance(v, bool) and v >= 0,
    "gender_a": lambda v: v in (None, "women", "men"),
    "gender_b": lambda v: v in (None, "women", "men"),
    "expected": lambda v: v in ("A", "B"),
    "referent": lambda v: v in ("A", "B"),
    "stereotype": lambda v: v in (None, "pro", "anti"),
    "debias": lambda v: isinstance(v, int) and not isinstance(v, bool) and 0 <= v <= 6,
    "method": lambda v: v in METHODS,
    "answer": lambda v: v is None or v in ANSWERS,
    "refused": lambda v: isinstance(v, bool),
    "raw": lambda v: v is None or isinstance(v, str),
    "logprob_a": lambda v: v is None or _number(v),
    "logprob_b": lambda v: v is None or _number(v),
    "error": lambda v: v is None or isinstance(v, str),
    "attempts": lambda v: isinstance(v, int) and not isinstance(v, bool) and v >= 0,
    "latency_s": lambda v: v is None or _number(v),
    "usage": lambda v: v is None or isinstance(v, dict),
    "response": lambda v: v is None or isinstance(v, dict),
    "p_a": lambda v: v is None or (_number(v) and 0 <= v <= 1),
    "p_b": lambda v: v is None or (_number(v) and 0 <= v <= 1),
    "logprobs": lambda v: v is None or isinstance(v, dict),
}


def _check(name: str, value: Any) -> None:
    from stereoprobe.records import json_type

    ok = _CHECKS.get(name, _text)(value)
    if not ok:
        raise TypeError(f"field {name!r} has the wrong value ({json_type(value)} {str(value)[:40]!r})")


__all__ = ["CorefRecord", "METHODS"]
