"""A toy language model for FakeOpenAI's scoring paths (tests/fake_openai.py).

It answers what the jobs study asks of served models, with numbers a person can check:

- ``/v1/completions`` with ``echo`` and ``logprobs``: the prompt split into tokens
  (``tokens``: a space and letters, or one other character), each token's log-probability
  ``log(probability[token])`` (``default`` for tokens not in the table), text offsets;
  ``max_tokens`` 1 adds one generated token (" the"). Without echo: the first token's
  ``top_logprobs`` from ``next_tokens``;
- chat with ``logprobs``: the reply's first token with ``first_tokens`` as its
  ``top_logprobs``; chat without: the next of ``replies`` (in request order);
- ``logprobs=False``: the server returns no logprobs at all (an endpoint that cannot);
- ``max_logprobs``: a completions request asking more logprobs gets vLLM's HTTP 400;
- ``reply_logprobs(text, k)``: a chat reply's logprobs, each token's probability
  ``1 / (1 + len(token))`` (" Wise": 1/6), so a word's probability can be checked by hand.
"""

from __future__ import annotations

import math
import re
import threading
from dataclasses import dataclass, field

TOKEN = re.compile(r" ?[A-Za-z]+|.", re.S)


def tokens(text: str) -> list[str]:
    """
    >>> tokens("A: I met a nurse. Non-binary")
    ['A', ':', ' I', ' met', ' a', ' nurse', '.', ' Non', '-', 'binary']
    """
    return TOKEN.findall(text)


@dataclass
class ScoringModel:
    probability: dict[str, float] = field(default_factory=dict)
    default: float = 0.001
    next_tokens: list[tuple[str, float]] = field(default_factory=list)
    first_tokens: list[tuple[str, float]] = field(default_factory=list)
    replies: list[str] = field(default_factory=list)
    logprobs: bool = True
    max_logprobs: int | None = None
    _count: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def logprob(self, token: str) -> float:
        return math.log(self.probability.get(token, self.default))

    def refusal(self, body: dict) -> str | None:
        """vLLM's 400 message when more logprobs are asked than it allows, else None."""
        asked = body.get("logprobs")
        if self.max_logprobs is not None and isinstance(asked, int) and asked > self.max_logprobs:
            return f"Requested sample logprobs of {asked}, which is greater than max allowed: {self.max_logprobs}"
        return None

    def completion(self, body: dict) -> dict:
        prompt = body.get("prompt") or ""
        if isinstance(prompt, list):
            prompt = prompt[0]
        choice: dict = {"index": 0, "text": "", "finish_reason": "length", "logprobs": None}
        if body.get("echo"):
            toks = tokens(prompt) + ([" the"] if (body.get("max_tokens") or 0) > 0 else [])
            offsets, pos = [], 0
            for t in toks:
                offsets.append(pos)
                pos += len(t)
            values = [None] + [self.logprob(t) for t in toks[1:]]
            choice["text"] = "".join(toks)
            if self.logprobs and body.get("logprobs") is not None:
                choice["logprobs"] = {"tokens": toks, "text_offset": offsets, "token_logprobs": values,
                                      "top_logprobs": [None] + [{t: v} for t, v in zip(toks[1:], values[1:])]}
        else:
            first = self.next_tokens[0][0] if self.next_tokens else " the"
            choice["text"] = first
            if self.logprobs and body.get("logprobs"):
                top = {t: math.log(p) for t, p in self.next_tokens[: int(body["logprobs"])]}
                choice["logprobs"] = {"tokens": [first], "text_offset": [len(prompt)],
                                      "token_logprobs": [top.get(first, -1.0)], "top_logprobs": [top]}
        return {"object": "text_completion", "choices": [choice],
                "usage": {"prompt_tokens": len(tokens(prompt)), "completion_tokens": 1,
                          "total_tokens": len(tokens(prompt)) + 1}}

    def chat(self, body: dict) -> tuple[str, dict | None]:
        """(reply text, the choice's logprobs object or None)."""
        if body.get("logprobs") and self.first_tokens:
            if not self.logprobs:
                return self.first_tokens[0][0], None
            k = int(body.get("top_logprobs") or 0)
            top = [{"token": t, "logprob": math.log(p), "bytes": list(t.encode())} for t, p in self.first_tokens[:k]]
            first = self.first_tokens[0]
            content = [{"token": first[0], "logprob": math.log(first[1]), "bytes": list(first[0].encode()),
                        "top_logprobs": top}]
            return first[0], {"content": content, "refusal": None}
        with self._lock:
            reply = self.replies[self._count % len(self.replies)] if self.replies else "They"
            self._count += 1
        return reply, None


def reply_logprobs(text: str, k: int) -> dict:
    """A chat reply's logprobs: each token (``tokens``) with probability 1 / (1 + its length).

    >>> [round(math.exp(e["logprob"]), 4) for e in reply_logprobs("1. Wise", 1)["content"]]
    [0.5, 0.5, 0.1667]
    """
    content = []
    for t in tokens(text):
        lp = -math.log(1 + len(t))
        content.append({"token": t, "logprob": lp, "bytes": list(t.encode()),
                        "top_logprobs": [{"token": t, "logprob": lp, "bytes": list(t.encode())}][:k]})
    return {"content": content, "refusal": None}
