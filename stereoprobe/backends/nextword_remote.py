"""Next-word mode against served models: the embedded model's words from ``/v1/completions``.

The walk is the embedded model's (``nextword.rank_words``, with the same whole-word rule
``nextword.is_whole_word``); what the server is asked, per probe (docs/nextword.md has
the measurements against llama-cpp-python's server):

1. **Candidates**: one request, ``prompt`` the probe text, ``max_tokens`` 1,
   ``temperature`` 0, ``logprobs`` K (default 200, the embedded model's candidates).
   An endpoint that allows fewer says so in its HTTP 400 (vLLM: ``--max-logprobs``,
   default 20; OpenAI's legacy completions: 5); the backend then asks with that cap for
   the rest of the run. A walk that used up every candidate served is marked in the
   record (``raw``: ``served``, ``cut``, ``short``) and counted by collect.
2. **Completing a word**: a candidate that is not a whole word is completed by one
   request: ``prompt`` the probe text + the candidate, ``max_tokens`` the word's token
   limit, ``temperature`` 0, ``logprobs`` 1. Greedy generation follows the most
   probable next token, as the embedded walk does; each generated token is checked
   against the most probable alternative at its position (only an argmax continues
   the chain; a server whose sampler changed it, e.g. a repetition penalty, costs one
   more request). ``usage.prompt_tokens`` shows whether the server tokenised the probe
   and candidate as one more token (else the candidate entry says ``retokenized``).
3. **Phrase filter**: each word once per run, ``prompt`` the frame and the word,
   ``max_tokens`` 1, ``logprobs`` 1,000 (or the cap): the phrase ends among them.

About 2 requests per probe over a full run (1 + 0.8 completions + the first
judgements of about 400 distinct words), against about 20 before.
"""

from __future__ import annotations

import math
import re
from typing import Any

from stereoprobe.backends.nextword import (
    CONTINUATION_RE,
    FIRST_PIECE_RE,
    PhraseEnds,
    PhraseFilter,
    Token,
    WordFilter,
    WordRules,
    is_whole_word,
    with_rules,
    phrase_end_probability,
    rank_words,
)
from stereoprobe.backends.remote import Requests
from stereoprobe.errors import BackendError
from stereoprobe.records import Answer, Probe

#: Tokens read after the phrase filter's frame: measured on Gemma 3 270M, the phrase ends
#: beyond the 200 most probable hold about 5e-4 of probability, beyond 1,000 about 1e-4.
JUDGE_LOGPROBS = 1000
#: Where a 400 names the most logprobs an endpoint allows ("greater than max allowed: 20",
#: "must be less than or equal to 5", "at most 10").
_CAP_RE = re.compile(r"(?:max(?:imum)?(?: allowed)?|at most|less than or equal to|<=)\D{0,24}?(\d+)", re.I)


def short_reason(words: int, top_n: int, served: int, asked: int) -> str | None:
    """Why a list has fewer than ``top_n`` words (None: it has them all).

    >>> short_reason(7, 10, 20, 200)
    'the endpoint returns at most 20 logprobs'
    >>> short_reason(7, 10, 200, 200)
    'fewer than 10 words among the 200 most probable tokens'
    >>> short_reason(10, 10, 20, 200) is None
    True
    """
    if words >= top_n:
        return None
    if served < asked:
        return f"the endpoint returns at most {served} logprobs"
    return f"fewer than {top_n} words among the {served} most probable tokens"


class NextWordCompletionsBackend:
    """Next-word mode against an OpenAI-compatible ``/v1/completions`` with logprobs."""

    mode = "next-word"

    def __init__(
        self,
        model: str,
        base_url: str,
        api_key: str,
        *,
        timeout: float = 60.0,
        max_retries: int = 4,
        top_logprobs: int = 200,
        top_n: int = 10,
        max_word_tokens: int = 4,
        max_concurrency: int = 8,
        word_filter: WordFilter | None = None,
        phrase_filter: PhraseFilter | None = PhraseFilter(),
        word_rules: WordRules | None = None,
    ) -> None:
        if top_logprobs < 1:
            raise BackendError("top_logprobs must be at least 1")
        self.model = model
        self.base_url = base_url
        self.timeout = timeout
        self.max_retries = max_retries
        self.top_logprobs = top_logprobs
        self.top_n = top_n
        self.max_word_tokens = max_word_tokens
        self.max_concurrency = max_concurrency
        self.word_filter = word_filter or WordFilter(rules=word_rules)
        self.phrase_filter = with_rules(phrase_filter, word_rules)
        self._phrase_ends = PhraseEnds()
        self._answered = False
        self._cap: int | None = None  # the most logprobs the endpoint allows, once it said so
        self._requests = Requests(base_url, api_key or "none", timeout=timeout, max_retries=max_retries, plain=True)
        self._client = self._requests.client

    def describe(self) -> dict[str, Any]:
        return {
            "backend": "openai-completions",
            "mode": self.mode,
            "model": self.model,
            "base_url": self.base_url,
            "top_logprobs": self.top_logprobs,
            "top_n": self.top_n,
            "max_word_tokens": self.max_word_tokens,
            "timeout": self.timeout,
            "max_retries": self.max_retries,
            "requests": "candidates: max_tokens 1, logprobs top_logprobs (or the endpoint's cap); a word that is "
                        "not whole: probe + candidate, greedy, max_tokens max_word_tokens, logprobs 1; phrase "
                        "filter: frame + word, logprobs top_logprobs, once per word",
            "filter": self.word_filter.describe(),
            "phrase_filter": self.phrase_filter.describe() if self.phrase_filter else None,
        }

    def prompt(self, probe: Probe) -> str:
        return probe.prefix

    def attempts_of_last_ask(self) -> int:
        return self._requests.attempts()

    def close(self) -> None:
        self._client.close()

    # -- requests ---------------------------------------------------------------------
    def _create(self, prompt: str, max_tokens: int, logprobs: int) -> Any:
        import openai

        try:
            response = self._client.completions.create(model=self.model, prompt=prompt, max_tokens=max_tokens,
                                                       temperature=0, logprobs=logprobs)
        except (openai.AuthenticationError, openai.PermissionDeniedError) as exc:
            raise BackendError(f"{self.base_url} refused the key (HTTP {exc.status_code}): check the API key") from None
        except openai.NotFoundError:
            raise BackendError(f"{self.base_url} has no /completions or no model {self.model!r}: "
                               "check --base-url and --model") from None
        except openai.APIConnectionError as exc:
            if not self._answered and not isinstance(exc, openai.APITimeoutError):
                raise BackendError(f"Cannot reach {self.base_url}: check --base-url and that the server is "
                                   "running") from None
            raise
        self._answered = True
        return response

    def _top(self, prompt: str, k: int) -> tuple[list[Token], int | None]:
        """The endpoint's ``k`` most probable next tokens (fewer where it caps logprobs)."""
        import openai

        k = min(k, self._cap or k)
        while True:
            try:
                response = self._create(prompt, 1, k)
                break
            except openai.BadRequestError as exc:
                found = _CAP_RE.search(str(getattr(exc, "message", exc)))
                lower = int(found.group(1)) if found else (20 if k > 20 else 5 if k > 5 else 0)
                if not 1 <= lower < k:
                    raise BackendError(f"{self.base_url} rejected a logprobs request (HTTP 400): next-word mode "
                                       "needs /v1/completions with logprobs; use chat mode") from None
                self._cap = k = lower
        logprobs = response.choices[0].logprobs if response.choices else None
        if not logprobs or not logprobs.top_logprobs:
            raise BackendError(f"{self.base_url} returned no logprobs: next-word mode needs a server that does")
        tokens = [Token(text, math.exp(lp)) for text, lp in logprobs.top_logprobs[0].items()]
        usage = response.usage.prompt_tokens if response.usage else None
        return sorted(tokens, key=lambda t: -t.probability), usage

    def _greedy(self, prompt: str, n: int) -> tuple[list[Token], int | None]:
        """The most probable path of up to ``n`` tokens after ``prompt``, as far as each
        generated token is its position's most probable one."""
        response = self._create(prompt, n, 1)
        logprobs = response.choices[0].logprobs if response.choices else None
        if not logprobs or logprobs.tokens is None or logprobs.token_logprobs is None:
            raise BackendError(f"{self.base_url} returned no logprobs: next-word mode needs a server that does")
        path: list[Token] = []
        for text, value, top in zip(logprobs.tokens, logprobs.token_logprobs, logprobs.top_logprobs or []):
            best = max(top.items(), key=lambda kv: kv[1]) if top else (text, value)
            path.append(Token(best[0], math.exp(best[1])))
            if best[0] != text:
                break  # the server did not follow the argmax: nothing after this is on the path
        usage = response.usage.prompt_tokens if response.usage else None
        return path, usage

    # -- asking -----------------------------------------------------------------------
    def ask(self, probe: Probe) -> Answer:
        self._requests.start()
        prefix = probe.prefix
        candidates, prompt_tokens = self._top(prefix, self.top_logprobs)
        rows: dict[tuple[str, ...], list[Token]] = {}
        retokenized: set[str] = set()

        def next_tokens(tokens: tuple[Token, ...]) -> list[Token]:
            key = tuple(t.text for t in tokens)
            if len(key) == 1 and is_whole_word(tokens[0], probe.group, self.word_filter):
                return []
            if key not in rows:
                path, used = self._greedy(prefix + "".join(key), self.max_word_tokens - len(key) + 1)
                if used is not None and prompt_tokens is not None and used != prompt_tokens + len(key):
                    retokenized.add(key[0])
                chain = key
                for step in path:
                    rows[chain] = [step]
                    if not CONTINUATION_RE.fullmatch(step.text):
                        break
                    chain += (step.text,)
                rows.setdefault(key, [])  # the server ended the text (end of sequence): the word ends
            return rows[key]

        ranking = rank_words(candidates, next_tokens, group=probe.group, top_n=self.top_n,
                             max_word_tokens=self.max_word_tokens, word_filter=self.word_filter,
                             phrase_filter=self.phrase_filter, phrase_end=self._phrase_end)
        for entry in ranking.candidates:
            if entry["first"] in retokenized:
                entry["retokenized"] = True
        # the walk used up every candidate served (it did not stop below the tenth word)
        exhausted = len(ranking.candidates) == sum(1 for t in candidates if FIRST_PIECE_RE.fullmatch(t.text))
        served = len(candidates)
        raw = ranking.raw_json(candidates[:10], served=served, cut=exhausted and served < self.top_logprobs,
                               short=short_reason(len(ranking.words), self.top_n, served, self.top_logprobs))
        return Answer(words=ranking.words, probabilities=ranking.probabilities, raw=raw,
                      usage={"prompt_tokens": prompt_tokens} if prompt_tokens is not None else None)

    def _phrase_end(self, word: str) -> float:
        """One request per word and run: the phrase ends among the frame's
        ``JUDGE_LOGPROBS`` most probable tokens (or the endpoint's cap)."""
        assert self.phrase_filter is not None
        text = self.phrase_filter.text(word)
        k = max(self.top_logprobs, JUDGE_LOGPROBS)
        return self._phrase_ends.get(word, lambda w: phrase_end_probability(self._top(text, k)[0]))

