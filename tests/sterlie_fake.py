"""A gender-biased model for Sterlie et al.'s own prompts (``--templates sterlie``), for tests.

The rule: the right answer, except on an anti-stereotypical prompt (the pronoun does not
fit the right answer's job: "She performs an operation ... Who performs the operation?"),
where the model names the other job (the one the pronoun fits) with probability ``bias``.
Baseline questions (no pronoun) are always answered right. The multiple-choice prompts
(Template Prompt 3.1 and Baseline 1, from a questions file) are known to a server once
:func:`register_questions` has read the file (the fake must know the right option).

- chat (tests/fake_openai.py's coreference mode): the n-th request of a prompt (counted
  per server) is wrong when :func:`draw` ``(probe_id, n) < bias``, so the number of wrong
  replies among a prompt's K samples is known exactly whatever order they arrive in:
  :func:`expected_wrong`; the reply is "The <job>." unless the server has a
  ``sterlie_wording(n, named, other)`` (a test's own wording, e.g. "The nurse, not the doctor.");
- logprob (``/v1/completions`` with echo, :class:`SectorScoring`): the continuation
  " The <job>" the model picks gets its first name token probability ``HIGH``, the other
  ``LOW`` (later name tokens 1, " The" 0.5; Baseline 1's " C) Rubella": its first token);
  an anti-stereotypical prompt picks the other job when :func:`draw` ``(probe_id, 0) < bias``.

>>> p = next(p for p in sector_probes() if p.template == "4.6" and p.pronoun == "she")
>>> sector_reply(None, p.text, 1.0)
'The nurse.'
>>> sector_reply(None, p.text.replace("She", "He"), 1.0)
'The doctor.'
"""

from __future__ import annotations

import hashlib
import math
import threading
from collections import Counter
from dataclasses import dataclass, field
from functools import lru_cache

from fake_scoring import ScoringModel, tokens
from stereoprobe.studies.coreference.probes import CorefProbe
from stereoprobe.studies.coreference.sterlie import sector_probes

HIGH, LOW = 0.6, 0.2
_LOCK = threading.Lock()


@lru_cache(maxsize=1)
def _by_text() -> dict[str, CorefProbe]:
    return {p.text: p for p in sector_probes()}


def draw(probe_id: str, n: int) -> float:
    """A uniform number in [0, 1) fixed by the probe and the request's number."""
    return int(hashlib.sha1(f"sterlie\t{probe_id}\t{n}".encode()).hexdigest()[:13], 16) / 16**13


def wrong_at(probe: CorefProbe, n: int, bias: float) -> bool:
    """Whether the model answers the n-th request of ``probe`` wrong."""
    return probe.stereotype == "anti" and draw(probe.probe_id, n) < bias


def expected_wrong(probe: CorefProbe, samples: int, bias: float) -> int:
    """How many of a prompt's ``samples`` replies are wrong."""
    return sum(wrong_at(probe, n, bias) for n in range(samples))


def register_questions(server: object, path: str) -> list[CorefProbe]:
    """Let ``server`` (a FakeOpenAI) answer the multiple-choice prompts of a questions file."""
    from stereoprobe.studies.coreference.medqa import question_probes, read_questions

    probes = [p for q in read_questions(path) for p in question_probes(q)]
    server.__dict__["sterlie_probes"] = {p.text: p for p in probes}
    return probes


def _find(server: object, prompt: str) -> CorefProbe | None:
    return _by_text().get(prompt) or getattr(server, "sterlie_probes", {}).get(prompt)


def _named(probe: CorefProbe, wrong: bool) -> str:
    right = probe.expected
    return probe.profession(("B" if right == "A" else "A") if wrong else right)


def sector_reply(server: object, prompt: str, bias: float) -> str | None:
    """The chat reply to a sector prompt (module docstring); None for another prompt.

    ``server``: where the per-prompt request counts live (a FakeOpenAI; None: not counted).
    """
    from stereoprobe.studies.coreference.medqa import BASELINE as BASELINE_1

    probe = _find(server, prompt.strip())
    if probe is None:
        return None
    n = 0
    if server is not None:
        with _LOCK:
            counts = server.__dict__.setdefault("sterlie_counts", Counter())
            n = counts[probe.probe_id]
            counts[probe.probe_id] += 1
    wrong = wrong_at(probe, n, bias)
    named = _named(probe, wrong)
    if probe.template == BASELINE_1:
        return f"The correct answer is {named}."
    wording = getattr(server, "sterlie_wording", None)  # a test's own wording of the n-th reply
    return wording(n, named, _named(probe, not wrong)) if wording else f"The {named}."


@dataclass
class SectorScoring(ScoringModel):
    """FakeOpenAI.scoring for sector prompts: echoed logprobs that follow the rule."""

    bias: float = 1.0
    questions: dict = field(default_factory=dict)  # text -> probe of a questions file's prompts

    def completion(self, body: dict) -> dict:
        out = super().completion(body)
        prompt = body.get("prompt") or ""
        prompt = prompt[0] if isinstance(prompt, list) else prompt
        known = {**_by_text(), **getattr(self, "questions", {})}
        probe = next((p for t, p in known.items() if prompt.startswith(t)), None)
        logprobs = out["choices"][0]["logprobs"]
        if probe is None or not logprobs:
            return out
        chosen = _named(probe, wrong_at(probe, 0, self.bias))
        rest = tokens(prompt[len(probe.text):])  # " The", then the job's tokens
        said = "".join(rest).strip()  # "The nurse", or Baseline 1's "C) Rubella"
        p = HIGH if said in (chosen, f"The {chosen}") else LOW
        head = [math.log(0.5)] if said.startswith("The ") else []  # " The" 0.5, then the name's first token
        values = head + [math.log(p)] + [0.0] * (len(rest) - len(head) - 1)
        end = len(tokens(prompt))  # a generated token (max_tokens 1) may follow the echoed prompt
        logprobs["token_logprobs"][end - len(rest):end] = values
        return out
