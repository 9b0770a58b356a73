"""The backend's client seam: the live code builds the request and reads the reply.

Every remote backend a batch can carry sends its requests through one ``openai.OpenAI``
client kept as ``_client`` (``ChatBackend``; the scorers of ``backends/scoring_remote.py``,
inside the jobs and coreference studies' wrappers). Here that client is swapped for one
that does not send:

- ``capture``: the study's own ``ask`` runs as in a live run; the request it would send
  (``create(**body)``) is taken as the batch line's body and the ask stops there (the
  logprob scorers' requests, one per continuation, each get a placeholder reply so that
  the ask goes on to the next: they do not depend on each other's replies);
- ``replay``: the study's own ``ask`` runs again with a stored reply coming back as the
  client's answer (``ChatCompletion.construct``, as the client builds it from JSON), so
  the record is made by the live code, parsing and all. An errored or expired line comes
  back as the exception a live request raises, and is stored as that probe's failure.

So nothing about a request or a reply is written twice. A mode whose requests depend on
each other's replies (remote next-word mode's walk) is refused before anything is written
(``check_batchable``).
"""

from __future__ import annotations

import contextlib
from types import SimpleNamespace
from typing import Any, Callable, Iterator

from stereoprobe.errors import DataError

CHAT_URL = "/v1/chat/completions"
WALK = ("Remote next-word mode walks each probe in dependent requests (the candidates, then a request per word to "
        "complete), which a batch cannot carry; use --mode chat, or run it live.")
IN_PROCESS = ("--batch and --batch-file write requests for a served model: give --model (and --base-url for another "
              "endpoint); the embedded model and --model-file run in-process, with nothing to batch.")
TEXTS = ("A generation study asks for several texts per request (the API's n), which a batch line cannot carry; "
         "ask it live (without --batch).")


class _Sent(BaseException):
    """The request a live ask would send (a BaseException: the asks' ``except Exception``
    must not store it as the probe's error)."""

    def __init__(self, url: str, body: dict[str, Any]) -> None:
        super().__init__(url)
        self.url, self.body = url, body


def owner(backend: Any) -> Any:
    """The object whose ``_client`` sends the backend's requests (None: runs in-process)."""
    for obj in (backend, getattr(backend, "inner", None), getattr(backend, "scorer", None)):
        if obj is not None and hasattr(obj, "_client"):
            return obj
    return None


def check_batchable(backend: Any) -> None:
    """Refuse, in one line, a backend whose requests depend on each other's replies."""
    sender = owner(backend)
    if sender is None:
        generator = getattr(backend, "generator", None)  # a generation study's (generation/ask.py)
        raise DataError(TEXTS if getattr(generator, "chat", None) is not None else IN_PROCESS)
    if getattr(sender, "mode", None) == "next-word" and not callable(getattr(sender, "logprobs", None)):
        raise DataError(WALK)


def several(backend: Any) -> bool:
    """Whether a probe's requests are several (the logprob scorers': one per continuation),
    each a line of its own (``custom_id`` the record's key and the request's number)."""
    return getattr(owner(backend), "mode", None) == "next-word"


class _Endpoint:
    """``client.chat.completions`` (or ``client.completions``): ``create`` and
    ``with_raw_response.create`` hand the request to ``handle(url, body)``."""

    def __init__(self, url: str, handle: Callable[[str, dict[str, Any]], Any]) -> None:
        self.url, self._handle = url, handle
        self.with_raw_response = SimpleNamespace(create=self._raw)

    def create(self, **body: Any) -> Any:
        return self._handle(self.url, body)

    def _raw(self, **body: Any) -> Any:
        reply = self.create(**body)
        return SimpleNamespace(parse=lambda: reply)


class _Client:
    def __init__(self, real: Any, handle: Callable[[str, dict[str, Any]], Any]) -> None:
        self.base_url = real.base_url
        self.chat = SimpleNamespace(completions=_Endpoint(CHAT_URL, handle))
        self.completions = _Endpoint("/v1/completions", handle)

    def close(self) -> None:
        pass


@contextlib.contextmanager
def _swapped(backend: Any, handle: Callable[[str, dict[str, Any]], Any]) -> Iterator[Any]:
    sender = owner(backend)
    real, retries = sender._client, getattr(sender, "max_retries", None)
    sender._client = _Client(real, handle)
    if retries is not None:
        sender.max_retries = 0  # a stored reply is read once: a malformed one is that probe's failure
    try:
        yield sender
    finally:
        sender._client = real
        if retries is not None:
            sender.max_retries = retries


class Capture:
    """``with Capture(backend) as capture: parts = capture.request(ask, probe, sample)``."""

    def __init__(self, backend: Any) -> None:
        check_batchable(backend)
        self.backend = backend
        self._stack = contextlib.ExitStack()
        self._parts: list[tuple[str, dict[str, Any]]] = []

    def __enter__(self) -> "Capture":
        self._stack.enter_context(_swapped(self.backend, self._send))
        return self

    def __exit__(self, *exc: Any) -> None:
        self._stack.close()

    def _send(self, url: str, body: dict[str, Any]) -> Any:
        self._parts.append((url, body))
        if url == CHAT_URL:
            raise _Sent(url, body)
        return _placeholder(body)

    def request(self, ask: Any, probe: Any, sample: int) -> list[tuple[str, dict[str, Any]]]:
        """The (url, body) of each request the live ``ask`` sends for this probe and sample:
        one in chat mode; one per continuation scored (each independent of the others'
        replies: a placeholder reply lets the ask go on to the next)."""
        self._parts = []
        try:
            record, _ = ask(self.backend, probe, sample)
        except _Sent:
            return self._parts
        if not self._parts or record.status == "failed":
            raise DataError(f"Probe {probe.probe_id}'s requests could not be written "
                            f"({record.error or 'no request'}); this study and mode cannot be batched.")
        return self._parts


def _placeholder(body: dict[str, Any]) -> Any:
    """A completions reply that the scorers read without error (every character a token of
    log-probability 0; the first token's one alternative): only its request is kept."""
    from openai.types import Completion

    prompt = str(body.get("prompt") or "")
    logprobs = ({"text_offset": list(range(len(prompt) + 1)), "token_logprobs": [0.0] * (len(prompt) + 1),
                 "tokens": ["x"] * (len(prompt) + 1), "top_logprobs": None} if body.get("echo") else
                {"text_offset": [len(prompt)], "token_logprobs": [0.0], "tokens": [" x"], "top_logprobs": [{" x": 0.0}]})
    return Completion.construct(id="placeholder", object="text_completion", created=0, model=body.get("model"),
                                choices=[{"index": 0, "text": "", "finish_reason": "length", "logprobs": logprobs}])


class Replay:
    """``with Replay(backend) as replay: record = replay.record(ask, probe, sample, replies)``.

    ``replies``: for each request of the probe in the order the ask sends them, the response
    body (a dict) of a line that succeeded, or the error message (a str) of one that did not.
    """

    def __init__(self, backend: Any) -> None:
        check_batchable(backend)
        self.backend = backend
        self._replies: list[dict[str, Any] | str] = []
        self._stack = contextlib.ExitStack()
        self._sender: Any = None

    def __enter__(self) -> "Replay":
        self._sender = self._stack.enter_context(_swapped(self.backend, self._answer))
        return self

    def __exit__(self, *exc: Any) -> None:
        self._stack.close()

    def _answer(self, url: str, body: dict[str, Any]) -> Any:
        local = getattr(self._sender, "_local", None) or getattr(getattr(self._sender, "_requests", None), "_local", None)
        if local is not None:  # one request sent, as a live ask counts it (the sender's or its Requests' counter)
            local.attempts = getattr(local, "attempts", 0) + 1
        if not self._replies:
            raise RuntimeError("batch: the probe asked more requests than its batch lines hold")
        reply = self._replies.pop(0)
        if isinstance(reply, str):
            raise RuntimeError(reply)
        return _response(url, reply)

    def record(self, ask: Any, probe: Any, sample: int, replies: list[dict[str, Any] | str]) -> Any:
        """The study's record of this probe and sample from its stored replies."""
        self._replies = list(replies)
        record, _ = ask(self.backend, probe, sample)
        return record


def _response(url: str, body: dict[str, Any]) -> Any:
    """The client's response object of a stored body: the openai model validated (pydantic's
    compiled validator, 50 times faster than the client's lenient ``construct``, the same
    object for a well-formed body), or built leniently as the client does when it is not."""
    import pydantic
    from openai.types import Completion
    from openai.types.chat import ChatCompletion

    kind = ChatCompletion if url == CHAT_URL else Completion
    try:
        return kind.model_validate(body)
    except pydantic.ValidationError:
        return kind.construct(**body)
