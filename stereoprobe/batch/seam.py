"""The backend's client seam: the live code builds the request and reads the reply.

Every remote backend a batch can carry sends its requests through one ``openai.OpenAI``
client kept as ``_client`` (``ChatBackend``; the scorers of ``backends/scoring_remote.py``,
inside the jobs and coreference studies' wrappers). Here that client is swapped for one
that does not send:

- ``capture``: the study's own ``ask`` runs as in a live run; the request it would send
  (``create(**body)``) is taken as the batch line's body and the ask stops there;
- ``replay``: the study's own ``ask`` runs again with a stored reply coming back as the
  client's answer (``ChatCompletion.construct``, as the client builds it from JSON), so
  the record is made by the live code, parsing and all. An errored or expired line comes
  back as the exception a live request raises, and is stored as that probe's failure.

So nothing about a request or a reply is written twice. A mode whose probe needs several
requests (next-word mode: the remote walk's dependent requests, the logprob scorers' one
request per continuation) is refused before anything is written (``check_batchable``).
"""

from __future__ import annotations

import contextlib
from types import SimpleNamespace
from typing import Any, Callable, Iterator

from stereoprobe.errors import DataError

CHAT_URL = "/v1/chat/completions"
SEVERAL_REQUESTS = (
    "--mode next-word asks several requests per probe (remote next-word mode: a walk of dependent requests, "
    "candidates then words; the jobs and coreference logprob scorers: one request per continuation), and a batch "
    "line carries one request per probe; drop --mode next-word for chat mode, or run it live.")
IN_PROCESS = ("--batch and --batch-file write requests for a served model: give --model (and --base-url for another "
              "endpoint); the embedded model and --model-file run in-process, with nothing to batch.")


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
    """Refuse, in one line, a backend whose probes cannot be one batch line each."""
    sender = owner(backend)
    if sender is None:
        raise DataError(IN_PROCESS)
    if getattr(sender, "mode", None) == "next-word":
        raise DataError(SEVERAL_REQUESTS)


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
    """``with Capture(backend) as capture: url, body = capture.request(ask, probe, sample)``."""

    def __init__(self, backend: Any) -> None:
        check_batchable(backend)
        self.backend = backend
        self._stack = contextlib.ExitStack()

    def __enter__(self) -> "Capture":
        self._stack.enter_context(_swapped(self.backend, self._send))
        return self

    def __exit__(self, *exc: Any) -> None:
        self._stack.close()

    @staticmethod
    def _send(url: str, body: dict[str, Any]) -> Any:
        raise _Sent(url, body)

    def request(self, ask: Any, probe: Any, sample: int) -> tuple[str, dict[str, Any]]:
        """The (url, body) the live ``ask`` sends for this probe and sample."""
        try:
            ask(self.backend, probe, sample)
        except _Sent as sent:
            return sent.url, sent.body
        raise DataError(f"Probe {probe.probe_id} was answered without a request; this study and mode cannot be batched.")


class Replay:
    """``with Replay(backend) as replay: record = replay.record(ask, probe, sample, reply)``.

    ``reply``: the response body (a dict) of a line that succeeded, or the error message
    (a str) of one that did not.
    """

    def __init__(self, backend: Any) -> None:
        check_batchable(backend)
        self.backend = backend
        self._reply: dict[str, Any] | str | None = None
        self._stack = contextlib.ExitStack()
        self._sender: Any = None

    def __enter__(self) -> "Replay":
        self._sender = self._stack.enter_context(_swapped(self.backend, self._answer))
        return self

    def __exit__(self, *exc: Any) -> None:
        self._stack.close()

    def _answer(self, url: str, body: dict[str, Any]) -> Any:
        local = getattr(self._sender, "_local", None)
        if local is not None:  # one request sent, as a live ask counts it
            local.attempts = getattr(local, "attempts", 0) + 1
        reply, self._reply = self._reply, None
        if reply is None:
            raise RuntimeError("batch: a second request for one probe (this mode cannot be batched)")
        if isinstance(reply, str):
            raise RuntimeError(reply)
        return _response(url, reply)

    def record(self, ask: Any, probe: Any, sample: int, reply: dict[str, Any] | str) -> Any:
        """The study's record of this probe and sample from a stored reply."""
        self._reply = reply
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
