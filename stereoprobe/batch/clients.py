"""The providers' batch APIs through their official clients: OpenAI's Batch API (``openai``)
and Anthropic's Message Batches (``anthropic``, the ``[anthropic]`` extra).

Both offer the same four calls here: ``submit(path)`` (a request file in OpenAI's input
format, written by ``batch/run.py``) -> batch id; ``status(id)``; ``download(id, out)``
(the results as OpenAI-format output lines, errors included); ``cancel(id)``. A provider's
refusal (a bad key, an upload that failed after the client's retries) is one line
(``BackendError``); the key is read from the environment and never stored or shown.

Anthropic's requests are OpenAI's translated (``to_anthropic``): the same user message,
``max_tokens``, ``temperature`` (and ``top_p`` when it is not 1); Anthropic returns no
log-probabilities. Its results come back as chat completions (``from_anthropic``) so that
the live chat code reads them.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Mapping

from stereoprobe.errors import BackendError

#: Requests and bytes per batch (OpenAI: Batch API guide; Anthropic: Message Batches
#: guide; as of 2026-11, docs/batch.md).
LIMITS = {"openai": (50_000, 200 * 1024 * 1024), "anthropic": (100_000, 256 * 1024 * 1024)}
KEY_VARIABLES = {"openai": "OPENAI_API_KEY", "anthropic": "ANTHROPIC_API_KEY"}
OPENAI_ENDED = ("completed", "failed", "expired", "cancelled")


@dataclass(frozen=True)
class Status:
    state: str  # the provider's word: in_progress, completed, expired, ended ...
    done: int  # requests finished (answered or failed)
    total: int
    ended: bool  # no more results will come
    detail: str = ""  # why a whole batch failed


def api_key(provider: str, base_url: str | None, api_key_env: str | None) -> str:
    """The provider's key from the environment (a loopback server may go without)."""
    from stereoprobe.backends import _is_loopback

    name = api_key_env or KEY_VARIABLES[provider]
    key = os.environ.get(name, "").strip()
    if key:
        return key
    if base_url and _is_loopback(base_url) and not api_key_env:
        return "not-needed"
    raise BackendError(f"No API key for the {provider} batch API: set {name} in the environment, or pass "
                       "--api-key-env NAME.")


def make_client(provider: str, options: Mapping[str, Any]) -> Any:
    """The batch client of ``provider`` with the run's endpoint, key variable, timeout, retries."""
    base_url, env = options.get("base_url"), options.get("api_key_env")
    kind = OpenAIBatches if provider == "openai" else AnthropicBatches
    return kind(base_url, api_key(provider, base_url, env), timeout=options.get("timeout") or 60.0,
                max_retries=options.get("max_retries") if options.get("max_retries") is not None else 4)


class _Batches:
    name = ""
    _errors: tuple[type, ...] = ()

    def __init__(self, client: Any, key: str) -> None:
        self._client, self._key = client, key

    def _call(self, what: str, create: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        """A client call; what a user must act on is one line (the key scrubbed)."""
        from textwrap import shorten

        auth, status, connection = self._errors
        scrub = lambda text, key: text.replace(key, "***") if key else text  # noqa: E731
        _short = lambda text: shorten(" ".join(text.split()), 200, placeholder="...")  # noqa: E731
        try:
            return create(*args, **kwargs)
        except auth:
            raise BackendError(f"The {self.name} batch API at {self._client.base_url} rejected the API key (401): "
                               "check the key in the environment variable you named.") from None
        except status as exc:
            code = exc.status_code
            then = ("run the same command again" if code in (408, 409, 429) or code >= 500 else
                    f"check that --base-url {str(self._client.base_url).rstrip('/')} serves the {self.name} batch API"
                    if code in (404, 405) else "act on the provider's message, then run the same command again")
            raise BackendError(scrub(f"The {self.name} batch API could not {what} (HTTP {code}: "
                                     f"{_short(str(exc.message))}); nothing is lost: {then}.", self._key)) from None
        except connection as exc:
            raise BackendError(scrub(f"Cannot reach the {self.name} batch API at {self._client.base_url} to {what} "
                                     f"({_short(str(exc.__cause__ or exc))}); check --base-url and the network, "
                                     "then run the same command again.", self._key)) from None


class OpenAIBatches(_Batches):
    name = "openai"

    def __init__(self, base_url: str | None, key: str, *, timeout: float, max_retries: int) -> None:
        import openai

        self._errors = (openai.AuthenticationError, openai.APIStatusError, openai.APIConnectionError)
        super().__init__(openai.OpenAI(api_key=key, base_url=base_url, timeout=timeout, max_retries=max_retries), key)

    def submit(self, path: Path, url: str, run: str) -> str:
        with path.open("rb") as f:
            uploaded = self._call("upload the requests", self._client.files.create, file=f, purpose="batch")
        batch = self._call("create the batch", self._client.batches.create, input_file_id=uploaded.id, endpoint=url,
                           completion_window="24h", metadata={"stereoprobe_run": run[:500]})
        return batch.id

    def status(self, batch_id: str) -> Status:
        b = self._call("read the batch", self._client.batches.retrieve, batch_id)
        counts = b.request_counts
        done = (counts.completed or 0) + (counts.failed or 0) if counts else 0
        errors = getattr(b, "errors", None)
        detail = "; ".join(str(e.message) for e in (getattr(errors, "data", None) or []) if e.message)
        return Status(b.status, done, counts.total if counts else 0, b.status in OPENAI_ENDED, detail)

    def download(self, batch_id: str, out: Path) -> None:
        b = self._call("read the batch", self._client.batches.retrieve, batch_id)
        with out.open("w", encoding="utf-8") as f:
            for file_id in (b.output_file_id, b.error_file_id):
                if file_id:
                    text = self._call("download the results", self._client.files.content, file_id).text
                    f.write(text if text.endswith("\n") or not text else text + "\n")

    def cancel(self, batch_id: str) -> str:
        return self._call("cancel the batch", self._client.batches.cancel, batch_id).status


def without_v1(base_url: str | None) -> str | None:
    """Anthropic's client adds ``/v1`` to its base URL itself: an OpenAI-style ``--base-url .../v1``
    asked ``.../v1/v1/messages/batches`` (a 404).

    >>> without_v1("https://api.anthropic.com/v1/"), without_v1("http://127.0.0.1:8080"), without_v1(None)
    ('https://api.anthropic.com', 'http://127.0.0.1:8080', None)
    """
    if base_url is None:
        return None
    trimmed = base_url.rstrip("/")
    return trimmed[:-3] if trimmed.endswith("/v1") else base_url


class AnthropicBatches(_Batches):
    name = "anthropic"

    def __init__(self, base_url: str | None, key: str, *, timeout: float, max_retries: int) -> None:
        try:
            import anthropic
        except ImportError:
            raise BackendError("--batch anthropic needs the anthropic client: pip install 'stereoprobe[anthropic]'.") from None
        self._errors = (anthropic.AuthenticationError, anthropic.APIStatusError, anthropic.APIConnectionError)
        super().__init__(anthropic.Anthropic(api_key=key, base_url=without_v1(base_url), timeout=timeout,
                                             max_retries=max_retries), key)

    def submit(self, path: Path, url: str, run: str) -> str:
        with path.open(encoding="utf-8") as f:
            requests = [{"custom_id": line["custom_id"], "params": to_anthropic(line["body"])}
                        for line in map(json.loads, f)]
        return self._call("create the batch", self._client.messages.batches.create, requests=requests).id

    def status(self, batch_id: str) -> Status:
        b = self._call("read the batch", self._client.messages.batches.retrieve, batch_id)
        c = b.request_counts
        done = c.succeeded + c.errored + c.canceled + c.expired
        return Status(b.processing_status, done, done + c.processing, b.processing_status == "ended")

    def download(self, batch_id: str, out: Path) -> None:
        results = self._call("download the results", self._client.messages.batches.results, batch_id)
        with out.open("w", encoding="utf-8") as f:
            for entry in results:
                f.write(json.dumps(from_anthropic(entry.model_dump()), ensure_ascii=False) + "\n")

    def cancel(self, batch_id: str) -> str:
        return self._call("cancel the batch", self._client.messages.batches.cancel, batch_id).processing_status


def to_anthropic(body: Mapping[str, Any]) -> dict[str, Any]:
    """A chat completion request as Anthropic Messages parameters (no logprobs there).

    >>> to_anthropic({"model": "m", "messages": [{"role": "user", "content": "Hi"}], "temperature": 0.0,
    ...               "max_tokens": 300, "top_p": 1.0, "logprobs": True, "top_logprobs": 5})
    {'model': 'm', 'max_tokens': 300, 'messages': [{'role': 'user', 'content': 'Hi'}], 'temperature': 0.0}
    """
    params = {"model": body["model"], "max_tokens": body.get("max_tokens") or body.get("max_completion_tokens") or 1024,
              "messages": body["messages"]}
    if body.get("temperature") is not None:
        params["temperature"] = body["temperature"]
    if body.get("top_p") not in (None, 1, 1.0):
        params["top_p"] = body["top_p"]
    return params


def from_anthropic(entry: Mapping[str, Any]) -> dict[str, Any]:
    """One Message Batches result as an OpenAI output line (a chat completion, or the error).

    >>> line = from_anthropic({"custom_id": "a-0", "result": {"type": "succeeded", "message": {
    ...     "id": "msg_1", "model": "claude-x", "stop_reason": "end_turn",
    ...     "content": [{"type": "text", "text": "The nurse"}], "usage": {"input_tokens": 9, "output_tokens": 3}}}})
    >>> line["response"]["body"]["choices"][0]["message"]["content"], line["response"]["body"]["usage"]["total_tokens"]
    ('The nurse', 12)
    >>> refusal = from_anthropic({"custom_id": "a-2", "result": {"type": "succeeded", "message": {
    ...     "model": "claude-x", "stop_reason": "refusal", "content": [{"type": "text", "text": "No."}]}}})
    >>> refusal["response"]["body"]["choices"][0]["message"] == {"role": "assistant", "content": None, "refusal": "No."}
    True
    >>> from_anthropic({"custom_id": "a-1", "result": {"type": "expired"}})["error"]
    {'code': 'expired', 'message': 'the request expired before it was processed'}
    """
    result = entry.get("result") or {}
    cid = entry["custom_id"]
    if result.get("type") != "succeeded":
        error = ((result.get("error") or {}).get("error") or {}) if result.get("type") == "errored" else {}
        message = error.get("message") or {"expired": "the request expired before it was processed",
                                            "canceled": "the batch was cancelled before this request ran"}.get(
            result.get("type"), "no result")
        return {"custom_id": cid, "response": None, "error": {"code": error.get("type") or result.get("type"),
                                                              "message": message}}
    m = result["message"]
    text = "".join(block.get("text") or "" for block in m.get("content") or [] if block.get("type") == "text")
    refused = m.get("stop_reason") == "refusal"
    usage = m.get("usage") or {}
    tokens_in, tokens_out = usage.get("input_tokens") or 0, usage.get("output_tokens") or 0
    body = {"id": m.get("id"), "object": "chat.completion", "created": 0, "model": m.get("model"),
            "choices": [{"index": 0, "logprobs": None, "finish_reason": "stop",
                         "message": {"role": "assistant", "content": None if refused else text,
                                     "refusal": (text or "refused") if refused else None}}],
            "usage": {"prompt_tokens": tokens_in, "completion_tokens": tokens_out,
                      "total_tokens": tokens_in + tokens_out}}
    return {"custom_id": cid, "response": {"status_code": 200, "request_id": m.get("id"), "body": body}, "error": None}
