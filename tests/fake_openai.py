"""A small OpenAI Chat Completions server on 127.0.0.1 for tests and benchmarks (stdlib only).

It speaks enough of the real protocol for the official ``openai`` client:
``POST /v1/chat/completions`` with a JSON body in, a ``chat.completion`` object out
(``id, object, created, model, choices[0].message {role, content}, finish_reason,
usage``). Every answer is deterministic:

- the reply is a numbered list of ten words, :func:`answer_words` of the user message
  (``words_seed``: another model's words, as likely but drawn apart; ``negative=B``: in a
  share B of the messages, only the :data:`NEGATIVE` words: a model more negative than another);
- a message containing ``refuse_marker`` gets :data:`REFUSAL` instead (as the content,
  or with ``refusal_field=True`` in ``message.refusal`` with a null content);
- coreference mode (``coreference_bias=B``): a coreference study prompt gets the reply of
  tests/coref_fake.py's model (Sterlie et al.'s own prompts: tests/sterlie_fake.py's), which answers by the pronoun's stereotype in a share B of
  the anti-stereotypical prompts and right otherwise;
- a wrong ``Authorization: Bearer`` key gets 401, an unknown model 404, any other path 404.

Faults are injected with :meth:`FakeOpenAI.add_fault`, for requests whose user message
contains ``match`` (a probe's text) or for given request numbers, a given number of
times or forever. Every request is logged as a :class:`Seen` (with the client's
``x-stainless-retry-count`` header) so tests can count what was asked.

    with FakeOpenAI(api_key="sk-test") as server:
        server.add_fault("429", match="old people", times=1, retry_after=1)
        ... OpenAI(base_url=server.base_url, api_key="sk-test") ...
        server.seen  # list of Seen
"""

from __future__ import annotations

import hashlib
import json
import socket
import sys
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

# 40 adjectives; a reply is 10 consecutive ones (wrapping), starting at a hash of the message.
VOCABULARY = (
    "wise grumpy kind lazy smart rich poor loud quiet proud honest brave friendly rude "
    "funny serious angry happy strong weak stubborn generous selfish polite clever "
    "boring calm nervous humble arrogant loyal curious gentle strict patient careful "
    "creative modest greedy cheerful"
).split()
#: The words of VOCABULARY the bundled NRC lexicon labels negative (tests/test_card.py checks it).
NEGATIVE = ("grumpy", "lazy", "angry", "selfish", "boring", "nervous", "arrogant", "greedy")
REFUSAL = "I'm sorry, but I can't help with that request."
FAULTS = ("400", "429", "500", "503", "delay", "drop", "malformed", "no_choices")


def answer_words(message: str, seed: int | None = None, negative: float = 0.0) -> list[str]:
    """The ten words the server answers to a user message (deterministic); with a ``seed``,
    another model's (its start in VOCABULARY hashed with the seed); with ``negative``, the
    NEGATIVE words instead in that share of messages (also decided by the hash).

    >>> answer_words("x")[:3] == answer_words("x")[:3]
    True
    >>> len(answer_words("why are old people so ..."))
    10
    >>> answer_words("x", seed=1, negative=1.0) == list(NEGATIVE)
    True
    """
    digest = int(hashlib.sha1((message if seed is None else f"{seed}\t{message}").encode("utf-8")).hexdigest(), 16)
    if negative and (digest >> 64) % 10_000 < negative * 10_000:
        return list(NEGATIVE)
    start = digest % len(VOCABULARY)
    return [VOCABULARY[(start + i) % len(VOCABULARY)] for i in range(10)]


def reply_text(words: list[str]) -> str:
    """A reply as chat models write it: ``1. Wise`` ... one word per line.

    >>> reply_text(["wise", "kind"])
    '1. Wise\\n2. Kind'
    """
    return "\n".join(f"{i}. {w.capitalize()}" for i, w in enumerate(words, 1))


@dataclass
class Fault:
    kind: str  # one of FAULTS
    match: str | None = None  # substring of the user message; None: any request
    requests: frozenset[int] | None = None  # 1-based request numbers; None: any
    times: int | None = 1  # how many requests get it; None: forever
    retry_after: float = 1.0  # for 429, seconds
    delay: float = 2.0  # for "delay", seconds before the (late) answer
    used: int = 0

    def applies(self, number: int, message: str) -> bool:
        if self.times is not None and self.used >= self.times:
            return False
        if self.match is not None and self.match not in message:
            return False
        return self.requests is None or number in self.requests


@dataclass
class Seen:
    """One request the server received, and what it did with it."""

    number: int  # 1-based, in order of arrival
    time: float  # time.monotonic() at arrival
    path: str
    model: str | None
    message: str | None  # the user message (the prompt)
    retry_count: int | None  # the client's x-stainless-retry-count header
    body: dict | None  # the request's JSON body
    outcome: str = ""  # "ok", "refused", a fault kind, "401", "404", "400"
    words: list[str] = field(default_factory=list)  # the words sent, for "ok"
    sent: float | None = None  # time.monotonic() once the whole reply was written (None: not, or not yet)


class Loopback:
    """A fake's life cycle: a threaded HTTP server on 127.0.0.1 at an OS-chosen port whose
    requests go to ``handler`` (a subclass's request handler class) with ``fake`` = self."""

    handler: type[BaseHTTPRequestHandler]
    _httpd: ThreadingHTTPServer | None = None

    def start(self):
        handler = type("Handler", (self.handler,), {"fake": self})
        self.crashes: list[str] = []  # exceptions a handler raised (the client saw a dropped connection)
        self._httpd = _Server(("127.0.0.1", 0), handler)
        self._httpd.crashes = self.crashes
        threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
        return self

    def stop(self) -> None:
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
        if exc[0] is None and self.crashes:
            # a handler that raised looks to the client like a dropped connection, which it
            # retries with back-off: a test or bench that meant no fault would pass, slowly
            raise AssertionError(f"the fake server's handler raised {len(self.crashes)} time(s): {self.crashes[0]}")

    @property
    def port(self) -> int:
        assert self._httpd is not None, "start() first"
        return self._httpd.server_address[1]

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"


class FakeOpenAI(Loopback):
    """A threaded OpenAI-protocol server on 127.0.0.1 at an OS-chosen port."""

    def __init__(
        self,
        api_key: str | None = "sk-test-key",
        models: tuple[str, ...] = ("fake-chat",),
        latency: float = 0.0,
        refuse_marker: str | None = None,
        refusal_field: bool = False,
        coreference_bias: float | None = None,
        words_seed: int | None = None,
        negative: float = 0.0,
        coreference_seed: int | None = None,
    ):
        self.api_key = api_key
        self.models = models
        self.latency = latency
        self.refuse_marker = refuse_marker
        self.refusal_field = refusal_field  # refuse in message.refusal (content null), as newer models do
        self.coreference_bias = coreference_bias  # coreference mode: tests/coref_fake.py's biased replies
        self.coreference_seed = coreference_seed  # which anti-stereotypical prompts get the biased reply
        self.words_seed = words_seed  # answer_words' seed: another model's words
        self.negative = negative  # answer_words' share of all-negative replies
        self.scoring = None  # a fake_scoring.ScoringModel: serve /v1/completions and chat logprobs with it
        self.reply_logprobs = False  # chat replies come with logprobs (fake_scoring.reply_logprobs)
        self.reject_logprobs = False  # a chat request asking logprobs gets a 400, as some endpoints do
        self.generation = None  # a fake_generation.GenerationModel: generation prompts get its texts
        self.faults: list[Fault] = []
        self.seen: list[Seen] = []
        self._lock = threading.Lock()

    # -- configuration and log ----------------------------------------------------
    def add_fault(self, kind: str, match: str | None = None, times: int | None = 1,
                  requests: set[int] | None = None, **options: float) -> Fault:
        if kind not in FAULTS:
            raise ValueError(f"unknown fault {kind!r}; one of {FAULTS}")
        fault = Fault(kind, match, frozenset(requests) if requests else None, times, **options)
        with self._lock:
            self.faults.append(fault)
        return fault

    def clear(self) -> None:
        """Forget faults and the request log."""
        with self._lock:
            self.faults.clear()
            self.seen.clear()

    def asked(self, match: str | None = None) -> list[Seen]:
        """Chat requests received (optionally those whose message contains `match`)."""
        with self._lock:
            return [s for s in self.seen if s.message is not None and (match is None or match in s.message)]

    # -- called by the handler ----------------------------------------------------
    def _arrive(self, path: str, body: dict | None, message: str | None, retry: str | None) -> tuple[Seen, Fault | None]:
        with self._lock:
            number = len(self.seen) + 1
            seen = Seen(
                number=number,
                time=time.monotonic(),
                path=path,
                model=(body or {}).get("model"),
                message=message,
                retry_count=int(retry) if retry and retry.isdigit() else None,
                body=body,
            )
            self.seen.append(seen)
            fault = next((f for f in self.faults if message is not None and f.applies(number, message)), None)
            if fault is not None:
                fault.used += 1
            return seen, fault


class _Server(ThreadingHTTPServer):
    daemon_threads = True  # a handler sleeping past a client's timeout must not block stop()
    request_queue_size = 256  # many clients connect at once at high concurrency

    crashes: list[str]

    def handle_error(self, request: object, client_address: object) -> None:
        exc = sys.exc_info()[1]
        if isinstance(exc, ConnectionError):  # a client that gave up or was stopped
            return
        self.crashes.append(f"{type(exc).__name__}: {exc}")
        super().handle_error(request, client_address)


class _Handler(BaseHTTPRequestHandler):
    fake: FakeOpenAI
    protocol_version = "HTTP/1.1"  # keep-alive, as the real API

    def setup(self) -> None:
        super().setup()
        # headers and body go out in two writes: without TCP_NODELAY, Nagle's algorithm and
        # the client's delayed ACK hold the body back ~40 ms (real servers set it too)
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def log_message(self, format: str, *args: object) -> None:  # quiet
        pass

    def do_GET(self) -> None:
        self._read_body()
        self._error(404, f"Unknown path {self.path}", "invalid_request_error", "unknown_url")

    def do_POST(self) -> None:
        fake = self.fake
        raw = self._read_body()
        try:
            body = json.loads(raw) if raw else None
        except json.JSONDecodeError:
            body = None
        message = _user_message(body) if self.path.rstrip("/") == "/v1/chat/completions" else None
        if fake.scoring is not None and self.path.rstrip("/") == "/v1/completions" and isinstance(body, dict):
            message = str(body.get("prompt"))
        seen, fault = fake._arrive(self.path, body, message, self.headers.get("x-stainless-retry-count"))
        if fake.scoring is not None and self.path.rstrip("/") == "/v1/completions" and seen.model in fake.models:
            time.sleep(fake.latency)
            refusal = fake.scoring.refusal(body)
            if refusal:
                seen.outcome = "400"
                return self._error(400, refusal, "BadRequestError", None)
            seen.outcome = "ok"
            return self._send(200, json.dumps({"id": f"cmpl-fake{seen.number}", "created": int(time.time()),
                                               "model": seen.model, **fake.scoring.completion(body)}).encode())
        if self.path.rstrip("/") != "/v1/chat/completions":
            seen.outcome = "404"
            return self._error(404, f"Unknown path {self.path}", "invalid_request_error", "unknown_url")
        if fake.api_key is not None and self.headers.get("Authorization") != f"Bearer {fake.api_key}":
            seen.outcome = "401"
            return self._error(401, "Incorrect API key provided.", "invalid_request_error", "invalid_api_key")
        if body is None or message is None:
            seen.outcome = "400"
            return self._error(400, "The request body is not a chat completion request.", "invalid_request_error", None)
        if seen.model not in fake.models:
            seen.outcome = "404"
            return self._error(404, f"The model `{seen.model}` does not exist.", "invalid_request_error", "model_not_found")
        if fake.latency:
            time.sleep(fake.latency)
        if fault is not None and fault.kind == "delay":
            time.sleep(fault.delay)  # then the normal answer, too late for a client that timed out
        elif fault is not None:
            seen.outcome = fault.kind
            return self._fault(fault)
        if fake.refuse_marker and fake.refuse_marker in message:
            seen.outcome = "delay" if fault else "refused"
            return self._complete(seen, REFUSAL, REFUSAL if fake.refusal_field else None)
        if fake.generation is not None and fake.generation.respond(self, seen, body):
            return
        if fake.coreference_bias is not None:
            from coref_fake import biased_reply  # tests/ is on the path (conftest, or run as a script)
            from sterlie_fake import sector_reply  # Sterlie et al.'s own prompts (--templates sterlie)

            text = biased_reply(message, fake.coreference_bias, fake.coreference_seed)
            text = sector_reply(fake, message, fake.coreference_bias) if text is None else text
            if text is not None:
                seen.outcome = "ok"
                if fake.reply_logprobs and body.get("logprobs"):
                    from coref_fake import answer_logprobs

                    return self._complete(seen, text, logprobs=answer_logprobs(message, text))
                return self._complete(seen, text)
        if fake.scoring is not None:
            text, logprobs = fake.scoring.chat(body)
            seen.outcome = "ok"
            return self._complete(seen, text, logprobs=logprobs)
        if fake.reject_logprobs and body.get("logprobs"):
            seen.outcome = "400"
            return self._error(400, "logprobs is not supported for this model.", "invalid_request_error", None)
        seen.outcome, seen.words = ("delay" if fault else "ok"), answer_words(message, fake.words_seed, fake.negative)
        text = reply_text(seen.words)
        from fake_scoring import reply_logprobs

        logprobs = reply_logprobs(text, int(body.get("top_logprobs") or 0)) \
            if fake.reply_logprobs and body.get("logprobs") else None
        self._complete(seen, text, logprobs=logprobs)

    # -- replies ------------------------------------------------------------------
    def _read_body(self) -> bytes:
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length else b""

    def _send(self, status: int, payload: bytes, headers: dict[str, str] | None = None) -> bool:
        """Write one response; False if the client had gone."""
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            for k, v in (headers or {}).items():
                self.send_header(k, v)
            self.end_headers()
            self.wfile.write(payload)
            self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):  # the client gave up (timeout)
            self.close_connection = True
            return False
        return True

    def _error(self, status: int, message: str, kind: str, code: str | None,
               headers: dict[str, str] | None = None) -> None:
        payload = {"error": {"message": message, "type": kind, "param": None, "code": code}}
        self._send(status, json.dumps(payload).encode(), headers)

    def _complete(self, seen: Seen, text: str, refusal: str | None = None, logprobs: dict | None = None) -> None:
        prompt_tokens = len((seen.message or "").split())
        completion_tokens = len(text.split())
        payload = {
            "id": f"chatcmpl-fake{seen.number}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": seen.model,
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": None if refusal else text, "refusal": refusal},
                    "logprobs": logprobs,
                    "finish_reason": "stop",
                }
            ],
            "usage": {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": completion_tokens,
                "total_tokens": prompt_tokens + completion_tokens,
            },
        }
        if self._send(200, json.dumps(payload).encode()):
            seen.sent = time.monotonic()

    def _fault(self, fault: Fault) -> None:
        if fault.kind == "429":
            self._error(429, "Rate limit reached; try again later.", "requests", "rate_limit_exceeded",
                        {"Retry-After": f"{fault.retry_after:g}"})
        elif fault.kind == "400":
            self._error(400, "Invalid 'max_tokens': too large.", "invalid_request_error", None)
        elif fault.kind in ("500", "503"):
            self._error(int(fault.kind), "The server had an error processing your request.", "server_error", None)
        elif fault.kind == "drop":
            self.close_connection = True
            try:
                self.connection.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        elif fault.kind == "malformed":
            self._send(200, b'{"id": "chatcmpl-broken", "choices": [{"message": ')
        elif fault.kind == "no_choices":
            self._send(200, json.dumps({"id": "chatcmpl-nochoices", "object": "chat.completion",
                                        "created": int(time.time()), "model": "fake-chat"}).encode())


def _user_message(body: dict | None) -> str | None:
    """The content of the last user message of a chat request, or None."""
    if not isinstance(body, dict) or not isinstance(body.get("messages"), list):
        return None
    for msg in reversed(body["messages"]):
        if isinstance(msg, dict) and msg.get("role") == "user" and isinstance(msg.get("content"), str):
            return msg["content"]
    return None


def main(argv: list[str] | None = None) -> None:
    """Serve until killed: ``python tests/fake_openai.py [--latency S] [--key K]``.

    Prints the base URL as its first line of output (used by bench/bench_collect.py,
    which runs the server in its own process so it does not share the client's GIL).
    """
    import argparse

    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("--latency", type=float, default=0.0, help="seconds before each answer")
    parser.add_argument("--key", default=None, help="the API key to require (default: any)")
    parser.add_argument("--coreference-bias", type=float, default=None, metavar="B",
                        help="coreference mode: tests/coref_fake.py's replies with bias B")
    args = parser.parse_args(argv)
    server = FakeOpenAI(api_key=args.key, latency=args.latency, coreference_bias=args.coreference_bias).start()
    print(server.base_url, flush=True)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        server.stop()


FakeOpenAI.handler = _Handler


if __name__ == "__main__":
    main()
