"""The jobs study's records: a probe (one prompt about one job) and its stored answer.

``JobProbe``: what is asked. ``kind`` is ``gender`` (Mattern et al.'s task prompts 1-4,
scored by the probabilities of gender expressions) or ``story`` (Marin & Eger's story
prompts, scored by the gender of the name the model gives).

``JobAnswer``: one line of completions.jsonl in a jobs run. Every field is type-checked
when read (``from_dict``), as fill-in's Completion is.

- ``logprobs``: expression -> log P(expression | prompt) (exact estimate), or the
  first-token log-probability of the expressions a chat model's top_logprobs show;
- ``mass``: eq. (1), P_g for ``male``, ``female``, ``diverse`` (unnormalised; for a
  sampled chat answer the parsed answer's gender has 1.0);
- ``names``: story prompts: name -> probability that the model's next word is that name
  (embedded and completion models), or 1.0 for the name a sampled story begins with;
- ``estimate``: which estimate the numbers are (``exact``, ``first-token``, ``sampled``).
"""

from __future__ import annotations

import hashlib
from dataclasses import asdict, dataclass
from typing import Any

from stereoprobe.records import ANSWER_FIELDS, StoredRecord

GENDERS = ("male", "female", "diverse")
KINDS = ("gender", "story")
SETTINGS = ("without dialogue", "with dialogue")
STORY_SETTING = "story"  # the setting of story probes (no prefix, no dialogue)
ESTIMATES = ("exact", "first-token", "sampled")


def job_probe_id(job: str, prompt: str, debias: int, setting: str, text: str) -> str:
    """12 hex digits of sha1 over the job, prompt id, prefix number, setting and text.

    >>> job_probe_id("nurse", "2", 0, "without dialogue", "Q: x A: y")
    'fd018dae1ecf'
    """
    key = f"jobs\t{job}\t{prompt}\t{debias}\t{setting}\t{text}".encode("utf-8")
    return hashlib.sha1(key).hexdigest()[:12]


@dataclass(frozen=True)
class JobProbe:
    """One prompt about one job, with everything needed to ask and score it."""

    probe_id: str
    job: str
    dominated_by: str  # "women", "men" or "" (a user's job without a known share)
    female_share: float | None  # percent, the BLS share of women (None: unknown)
    prompt: str  # "1".."4" (task prompts) or a story template's name ("once", ...)
    kind: str  # "gender" or "story"
    debias: int  # 0: no prefix; 1-6: Mattern et al.'s prefix (stereoprobe/debias.py)
    setting: str  # "without dialogue", "with dialogue", or "story"
    text: str  # exactly what the model is given
    shared: tuple[str, ...] = ()  # starts of ``text`` other probes share (KV reuse on the embedded model)
    expressions: tuple[tuple[str, str], ...] = ()  # (gender, continuation with its leading space)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class JobAnswer(StoredRecord):
    """One line of a jobs run's completions.jsonl."""

    probe_id: str
    sample: int
    job: str
    prompt: str
    kind: str
    debias: int
    setting: str
    text: str  # the prompt as sent
    estimate: str
    dominated_by: str = ""  # the job's group in the catalog the run used ("women", "men", "")
    female_share: float | None = None  # the catalog's share of women in the job, percent
    logprobs: dict[str, float] | None = None
    mass: dict[str, float] | None = None
    names: dict[str, float] | None = None
    raw: str | None = None  # a chat model's reply, or the top next tokens (JSON) for stories
    refused: bool = False
    error: str | None = None
    attempts: int = 0
    latency_s: float | None = None
    usage: dict[str, Any] | None = None
    response: dict[str, Any] | None = None

    def _answered(self) -> bool:
        """Story probes: a name found; the others: some probability on a gender's expressions."""
        if self.kind == "story":
            return bool(self.names)
        return bool(self.mass) and sum(self.mass.values()) > 0

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "JobAnswer":
        """A record from one parsed JSON line; TypeError names a field of the wrong type."""
        if not isinstance(data, dict):
            raise TypeError("expected a JSON object")
        missing = [f for f in ("probe_id", "sample", "job", "prompt", "kind", "estimate") if f not in data]
        if missing:
            raise TypeError(f"missing field(s) {', '.join(missing)}: not a jobs-study record")
        values = {k: data[k] for k in cls.__dataclass_fields__ if k in data}
        for name, value in values.items():
            _check(name, value)
        return cls(**values)


def _number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _numbers(v: Any) -> bool:
    return v is None or (isinstance(v, dict) and all(isinstance(k, str) and _number(x) for k, x in v.items()))


_CHECKS: dict[str, Any] = {
    **ANSWER_FIELDS,
    "debias": lambda v: isinstance(v, int) and not isinstance(v, bool) and 0 <= v <= 6,
    "kind": lambda v: v in KINDS,
    "estimate": lambda v: v in ESTIMATES,
    "dominated_by": lambda v: v in ("women", "men", ""),
    "female_share": lambda v: v is None or (_number(v) and 0 <= v <= 100),
    "logprobs": _numbers,
    "mass": lambda v: _numbers(v) and (v is None or set(v) <= set(GENDERS)),
    "names": _numbers,
}


def _check(name: str, value: Any) -> None:
    from stereoprobe.records import json_type

    ok = _CHECKS.get(name, lambda v: isinstance(v, str))(value)
    if not ok:
        raise TypeError(f"field {name!r} has the wrong value ({json_type(value)} {str(value)[:40]!r})")


__all__ = ["ESTIMATES", "GENDERS", "JobAnswer", "JobProbe", "KINDS", "SETTINGS", "job_probe_id"]
