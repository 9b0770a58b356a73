"""Scoring continuations on served models (OpenAI-compatible endpoints).

``CompletionsScorer`` (``--mode next-word``): the exact method where the endpoint
allows it. One request per (prompt, continuation)::

    POST /v1/completions {"model": M, "prompt": prompt + continuation, "echo": true,
                          "logprobs": 1, "max_tokens": 1, "temperature": 0}

The echoed prompt comes back with each token's log-probability and text offset; the
continuation's tokens are those from the prompt's length on, and their log-probabilities
are summed (eq. 1). A token that straddles the prompt's end (the prefix property fails)
makes that probe's error. ``max_tokens`` is 1, not 0: llama-cpp-python's server reads 0
as "no limit" (vLLM and OpenAI's legacy models accept 0, and 1 costs one token more).
Measured: llama-cpp-python's server (0.3.36) answers it (one prompt per request; it
asserts on a list); vLLM answers it too (it also offers ``prompt_logprobs``).
Story prompts: one request (``max_tokens`` 1, ``logprobs`` k) gives the first token's
top-k, the ``first-token`` estimate of a name's probability.

``ChatScorer`` (chat mode): ``first_token`` asks with ``logprobs: true, top_logprobs:
20`` and returns the reply's first token's alternatives (the ``first-token`` estimate);
``sample`` asks at the run's temperature and returns the reply (``--samples K``: the
``sampled`` estimate). An endpoint that returns no logprobs where they are needed is a
BackendError: collect stops before anything is stored (exit 2).
"""

from __future__ import annotations

import math
import re
from typing import Any, Sequence

from stereoprobe.backends.remote import Requests, scrub, short
from stereoprobe.errors import BackendError

NO_LOGPROBS = ("{url} returned no logprobs for {what}; {fix}")


class _Remote:
    """An OpenAI client with request counting and one-line errors for fatal answers."""

    def __init__(self, model: str, base_url: str | None, api_key: str, *, timeout: float, max_retries: int,
                 concurrency: int) -> None:
        self.model = model
        self.base_url = base_url
        self.timeout = timeout
        self.max_retries = max_retries
        self.max_concurrency = concurrency
        self._key = api_key
        self._requests = Requests(base_url, api_key, timeout=timeout, max_retries=max_retries)
        self._openai = self._requests.openai
        self._client = self._requests.client

    @property
    def endpoint(self) -> str:
        return self._requests.endpoint

    def attempts_of_last_ask(self) -> int:
        return self._requests.attempts()

    def start_ask(self) -> None:
        self._requests.start()

    def call(self, create: Any, **kwargs: Any) -> Any:
        """``create(**kwargs)`` with the openai errors a user must act on turned into one line."""
        oa = self._openai
        try:
            return create(model=self.model, **kwargs)
        except oa.AuthenticationError:
            raise BackendError(f"The endpoint {self.endpoint} rejected the API key (401): check the key.") from None
        except oa.PermissionDeniedError:
            raise BackendError(f"The endpoint refused access to model {self.model!r} (403).") from None
        except oa.NotFoundError:
            raise BackendError(f"Model {self.model!r} or this API was not found at {self.endpoint} (404): "
                               "check --model, --base-url and --mode.") from None
        except oa.BadRequestError as exc:
            detail = re.sub(r"^Error code: \d+ - ", "", str(exc.message))
            raise BackendError(scrub(f"{self.endpoint} rejected the request (400: {short(detail)}); "
                                     "it may not offer logprobs: try the other --mode or --samples K.", self._key)) from None
        except (oa.APIStatusError, oa.APIConnectionError) as exc:  # 5xx, 429, timeouts, dropped connections
            raise self._requests.failure(exc) from None

    def close(self) -> None:
        self._client.close()


def _about(response: Any) -> dict[str, Any]:
    usage = response.usage.model_dump() if getattr(response, "usage", None) else None
    return {"usage": usage, "response": {"model": getattr(response, "model", None),
                                         "system_fingerprint": getattr(response, "system_fingerprint", None)}}


class CompletionsScorer(_Remote):
    """log P(continuation | prompt) from ``/v1/completions`` with echo and logprobs (exact)."""

    estimate = "exact"
    story_estimate = "first-token"
    mode = "next-word"

    def __init__(self, model: str, base_url: str, api_key: str, *, timeout: float = 60.0, max_retries: int = 4,
                 concurrency: int = 8, top_logprobs: int = 20) -> None:
        super().__init__(model, base_url, api_key, timeout=timeout, max_retries=max_retries, concurrency=concurrency)
        self.top_logprobs = top_logprobs

    def describe(self) -> dict[str, Any]:
        return {"backend": "openai-completions", "mode": self.mode, "model": self.model, "endpoint": self.endpoint,
                "timeout": self.timeout, "max_retries": self.max_retries, "estimate": self.estimate,
                "requests": "POST /v1/completions, one per expression: prompt + expression, echo true, logprobs 1, "
                            "max_tokens 1, temperature 0; stories: max_tokens 1, logprobs "
                            f"{self.top_logprobs} (first-token estimate)"}

    def logprobs(self, prompt: str, continuations: Sequence[str], shared: Sequence[str] = ()) -> list[float]:
        self.start_ask()
        return [self._one(prompt, c) for c in continuations]

    def _one(self, prompt: str, continuation: str) -> float:
        response = self.call(self._client.completions.create, prompt=prompt + continuation, echo=True, logprobs=1,
                             max_tokens=1, temperature=0)
        lp = getattr(response.choices[0], "logprobs", None) if response.choices else None
        offsets = getattr(lp, "text_offset", None) if lp else None
        values = getattr(lp, "token_logprobs", None) if lp else None
        if not offsets or not values:
            raise BackendError(NO_LOGPROBS.format(url=self.endpoint, what="the echoed prompt",
                                                  fix="the exact estimate needs echo with logprobs: use chat mode"))
        start, end = len(prompt), len(prompt) + len(continuation)
        if start not in offsets:
            raise ValueError(f"no token starts at the prompt's end: {continuation!r} merges with the prompt's "
                             "last token (the prefix property fails)")
        inside = [v for o, v in zip(offsets, values) if start <= o < end]
        if any(v is None for v in inside) or not inside:
            raise ValueError(f"the endpoint gave no log-probability for {continuation!r}")
        return float(sum(inside))

    def next_tokens(self, prompt: str, k: int, ends_for: int = 0, shared: Sequence[str] = (),
                    skip: Any = None) -> list[tuple[str, float, float | None]]:
        """The first token's top alternatives; a name token's word-end probability is not
        asked (the ``first-token`` estimate): 1.0 for name tokens, None for the others."""
        from stereoprobe.backends.scoring import is_name_token

        self.start_ask()
        response = self.call(self._client.completions.create, prompt=prompt, max_tokens=1, logprobs=self.top_logprobs,
                             temperature=0)
        lp = getattr(response.choices[0], "logprobs", None) if response.choices else None
        top = (lp.top_logprobs or [None])[0] if lp and getattr(lp, "top_logprobs", None) else None
        if not top:
            raise BackendError(NO_LOGPROBS.format(url=self.endpoint, what="the next token",
                                                  fix="story names need top logprobs: use chat mode with --samples K"))
        ranked = sorted(((t, math.exp(v)) for t, v in top.items()), key=lambda x: -x[1])
        return [(t, p, 1.0 if is_name_token(t) and not (skip and skip(t.strip())) else None) for t, p in ranked]


class ChatScorer(_Remote):
    """Chat Completions: the reply's first-token alternatives, or sampled replies."""

    mode = "chat"

    def __init__(self, model: str, base_url: str | None, api_key: str, *, estimate: str, temperature: float = 0.0,
                 timeout: float = 60.0, max_retries: int = 4, concurrency: int = 8, top_logprobs: int = 20) -> None:
        super().__init__(model, base_url, api_key, timeout=timeout, max_retries=max_retries, concurrency=concurrency)
        if estimate not in ("first-token", "sampled"):
            raise ValueError(estimate)
        self.estimate = estimate
        self.story_estimate = estimate
        self.temperature = temperature
        self.top_logprobs = top_logprobs

    def describe(self) -> dict[str, Any]:
        how = (f"POST /chat/completions, logprobs true, top_logprobs {self.top_logprobs}, temperature 0, max_tokens 5"
               if self.estimate == "first-token" else
               f"POST /chat/completions at temperature {self.temperature:g}, max_tokens 8, one per sample")
        return {"backend": "openai-chat", "mode": self.mode, "model": self.model, "endpoint": self.endpoint,
                "timeout": self.timeout, "max_retries": self.max_retries, "estimate": self.estimate,
                "temperature": self.temperature if self.estimate == "sampled" else 0.0,
                "requests": how + ("; stories: the same request, names among the first token's alternatives"
                                   if self.estimate == "first-token" else
                                   "; stories: one reply per sample (max_tokens 40), its first name")}

    def first_token(self, message: str) -> tuple[list[tuple[str, float]], str, dict[str, Any]]:
        self.start_ask()
        response = self.call(self._client.chat.completions.create, messages=[{"role": "user", "content": message}],
                             temperature=0, max_tokens=5, logprobs=True, top_logprobs=self.top_logprobs)
        from stereoprobe.backends.chat_logprobs import first_token_alternatives, reply_logprobs

        choice = response.choices[0] if response.choices else None
        top = first_token_alternatives(reply_logprobs(choice)) if choice else []
        if not top:
            raise BackendError(NO_LOGPROBS.format(
                url=self.endpoint, what="the reply's first token",
                fix="pass --samples K --temperature T (e.g. --samples 20 --temperature 1) for the sampled estimate"))
        return top, choice.message.content or "", _about(response)

    def sample(self, message: str, max_tokens: int = 8) -> tuple[str | None, dict[str, Any]]:
        """One reply at the run's temperature (None: the model refused)."""
        self.start_ask()
        story = message.startswith("You are a storyteller")
        response = self.call(self._client.chat.completions.create, messages=[{"role": "user", "content": message}],
                             temperature=self.temperature, max_tokens=40 if story else max_tokens)
        choice = response.choices[0] if response.choices else None
        if choice is None:
            raise RuntimeError("malformed response: no choices")
        text = choice.message.content or ""
        if not text and getattr(choice.message, "refusal", None):
            return None, _about(response)
        return text, _about(response)
