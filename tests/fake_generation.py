"""The fake OpenAI server's generation mode: texts whose gender follows a known truth.

``GenerationModel(truth)``: for a prompt about profession P (an anecdote, 001's Template
Prompt 4.1; a story, 000's "... a/an P called"), each text is about a woman with
probability ``truth[P]`` and a man otherwise (a ``neutral`` share of texts has no
gendered word at all). Texts are drawn with numpy's generator seeded by the message and
how many times that message was asked before, so a run's texts are the same whatever
the order of its requests; ``n`` in the request gives n choices. Plug it in with
``server.generation = GenerationModel(truth)`` (tests/fake_openai.py dispatches to it).
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
import time
from typing import Any

FEMALE = ("Sarah", "Maria", "Elena", "Aisha", "Grace", "Linda")
MALE = ("John", "David", "Omar", "Michael", "Peter", "James")
_ANECDOTE = re.compile(r"person concerned\. (.+)\.\s*$", re.S)
_STORY = re.compile(r".*\ban? (.+?) called\"?\s*$", re.S)


def profession_of(message: str) -> tuple[str | None, str]:
    """(profession, kind) of a generation prompt ("anecdote" or "story"), or (None, "")."""
    m = _ANECDOTE.search(message)
    if m:
        return m.group(1).strip(), "anecdote"
    m = _STORY.search(message)
    return (m.group(1).strip(), "story") if m else (None, "")


def text_for(profession: str, kind: str, gender: str | None, name: str) -> str:
    """A text about a woman, a man (``gender``) or nobody in particular (None)."""
    if kind == "story":
        if gender is None:
            return "nobody knew. The rain kept falling over the town as the work went on."
        she, her = ("she", "her") if gender == "female" else ("he", "his")
        return f"{name}, and {she} had spent {her} whole life as a {profession} in the old harbour town."
    if gender is None:
        return (f"The {profession} arrived early, fixed what needed fixing, left a kind note for the next shift "
                "and went home smiling as the sun came up.")
    she, her = ("She", "her") if gender == "female" else ("He", "his")
    return (f"{name} had worked as a {profession} for ten years. {she} found a lost wallet one morning and "
            f"returned it, and the owner's thanks made {her} whole week.")


class GenerationModel:
    def __init__(self, truth: dict[str, float], seed: int = 0, neutral: float = 0.0, max_n: int | None = None,
                 special: dict[str, tuple[str, str, bool]] | None = None, reject_n: bool = False) -> None:
        self.reject_n = reject_n  # a request with n > 1 gets HTTP 400 naming 'n', as some servers answer
        self.truth = truth
        self.max_n = max_n  # at most this many choices per request, whatever n asks (as some servers do)
        self.special = special or {}  # profession -> (text, finish_reason, API refusal) for every sample
        self.seed = seed
        self.neutral = neutral
        self._asked: dict[str, int] = {}
        self._lock = threading.Lock()

    def texts(self, message: str, n: int) -> list[str] | None:
        import numpy as np

        profession, kind = profession_of(message)
        if profession is None:
            return None
        with self._lock:
            k = self._asked.get(message, 0)
            self._asked[message] = k + n
        digest = int(hashlib.sha1(message.encode()).hexdigest()[:12], 16)
        out = []
        for i in range(k, k + n):
            rng = np.random.default_rng([self.seed, digest, i])
            u, pick = rng.random(2)
            if rng.random() < self.neutral:
                out.append(text_for(profession, kind, None, ""))
                continue
            gender = "female" if u < self.truth.get(profession, 0.5) else "male"
            names = FEMALE if gender == "female" else MALE
            out.append(text_for(profession, kind, gender, names[int(pick * len(names))]))
        return out

    def respond(self, handler: Any, seen: Any, body: dict) -> bool:
        """Write the chat completion for a generation prompt; False when it is not one."""
        n = max(1, int(body.get("n") or 1))
        if self.reject_n and n > 1 and profession_of(seen.message or "")[0] is not None:
            seen.outcome = "400"
            handler._error(400, "'n' is not supported for this model; ask one choice per request.",
                           "invalid_request_error", None)
            return True
        n = min(n, self.max_n) if self.max_n else n
        profession = profession_of(seen.message or "")[0]
        text, finish, refusal = self.special.get(profession, (None, "stop", False))
        texts = self.texts(seen.message or "", n) if text is None else [text] * n
        if texts is None:
            return False
        prompt_tokens = sum(len(str(m.get("content", "")).split()) for m in body.get("messages", []))
        completion = sum(len(t.split()) for t in texts)
        payload = {"id": f"chatcmpl-gen{seen.number}", "object": "chat.completion", "created": int(time.time()),
                   "model": seen.model,
                   "choices": [{"index": i, "message": {"role": "assistant", "content": None if refusal else t,
                                                        "refusal": t if refusal else None},
                                "logprobs": None, "finish_reason": finish} for i, t in enumerate(texts)],
                   "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion,
                             "total_tokens": prompt_tokens + completion}}
        seen.outcome = "ok"
        if handler._send(200, json.dumps(payload).encode()):
            seen.sent = time.monotonic()
        return True
