"""What every backend of a served model shares (chat, next-word and scoring against an
OpenAI-compatible endpoint): one ``openai.OpenAI`` client per backend, the key kept in
memory only, the client's own retries of transient faults (exponential backoff with
jitter, Retry-After honoured, at most ``max_retries``), every HTTP request counted per
thread (``attempts``: an httpx request hook), and the transient failures a probe's record
keeps as one scrubbed line (``failure``).
"""

from __future__ import annotations

import random
import re
import threading
import time
from typing import Any, Callable


def scrub(text: str, secret: str | None) -> str:
    """Remove a secret from a message before it is stored or shown.

    >>> scrub("bad key sk-abc123", "sk-abc123")
    'bad key ***'
    """
    if secret:
        text = text.replace(secret, "***")
    return text


def short(text: str, limit: int = 200) -> str:
    """One line of at most ``limit`` characters."""
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


class Requests:
    """An OpenAI client whose HTTP requests are counted per thread.

    ``plain``: an ``httpx.Client`` with only the timeout set (the next-word backend's,
    as before), else openai's ``DefaultHttpxClient``.
    """

    def __init__(self, base_url: str | None, api_key: str, *, timeout: float, max_retries: int,
                 plain: bool = False) -> None:
        import openai

        self.timeout = timeout
        self.max_retries = max_retries
        self.key = api_key
        self.openai = openai
        self._local = threading.local()
        if plain:
            import httpx

            http = httpx.Client(timeout=timeout, event_hooks={"request": [self._count]})
        else:
            http = openai.DefaultHttpxClient(event_hooks={"request": [self._count]})
        self.client = openai.OpenAI(api_key=api_key, base_url=base_url, timeout=timeout, max_retries=max_retries,
                                    http_client=http)

    @property
    def endpoint(self) -> str:
        return str(self.client.base_url)

    def _count(self, request: Any) -> None:
        self._local.attempts = getattr(self._local, "attempts", 0) + 1

    def start(self) -> None:
        """A new ask begins: its requests are counted from zero."""
        self._local.attempts = 0

    def attempts(self) -> int:
        """HTTP requests sent for this thread's current ask."""
        return getattr(self._local, "attempts", 0)

    def failure(self, exc: Exception, timeout_note: str = "") -> Exception | None:
        """The one-line, scrubbed error a probe's record keeps for a transient failure
        (HTTP status, timeout, connection), or None for any other exception."""
        oa = self.openai
        if isinstance(exc, oa.APIStatusError):
            # the client's message reads "Error code: 500 - {...}"; keep the body's words
            detail = re.sub(r"^Error code: \d+ - ", "", str(exc.message))
            return RuntimeError(scrub(f"HTTP {exc.status_code}: {short(detail)}", self.key))
        if isinstance(exc, oa.APITimeoutError):
            return TimeoutError(f"timed out after {self.timeout:g} s{timeout_note}")
        if isinstance(exc, oa.APIConnectionError):
            cause = exc.__cause__ or exc
            return ConnectionError(scrub(f"connection failed: {short(str(cause) or type(cause).__name__)}", self.key))
        return None

    def close(self) -> None:
        self.client.close()


def retry_malformed(ask: Callable[[], Any], malformed: type[Exception], retries: int, key: str | None) -> Any:
    """``ask()`` again, with backoff, while it raises ``malformed`` (a 200 whose body is
    not a whole answer); after ``retries`` retries a one-line RuntimeError."""
    for retry in range(retries + 1):
        try:
            return ask()
        except malformed as exc:
            if retry == retries:
                raise RuntimeError(scrub(f"malformed response: {short(str(exc))}", key)) from None
            time.sleep(min(8.0, 0.5 * 2**retry) * random.uniform(0.75, 1.0))
    raise AssertionError("unreachable")
