"""How a generation study's K samples of a prompt are asked, on every path.

- ``ChatGenerator`` (``--model M [--base-url URL]``): an OpenAI-compatible chat endpoint,
  the papers' way. The samples of a probe are asked ``per_request`` at a time with the
  API's ``n`` (one request, n choices); an endpoint that refuses ``n`` (HTTP 400 naming
  it) or returns fewer choices than asked is asked one sample per request from then on.
  Each stored record is still one text, keyed by its sample index. collect tells the
  generator which samples it will ask (``plan``: what is missing, or failed with
  ``--retry-failed``), and a probe's *missing* samples are grouped ``per_request`` at a
  time: a resumed run whose chunk was partly stored asks only the missing samples (n = how
  many), never a stored one again. Faults, retries, the key: ``backends/chat.py``
  (``ChatBackend.create``).
- ``FileGenerator``: a GGUF file in-process (``backends/local_chat.py``). With
  ``--model-file F --mode chat`` the messages go through the file's own chat template;
  otherwise (the embedded Gemma 3 270M, a base model; ``--model-file`` without
  ``--mode chat``) the probe's *completion form* is continued as plain text, cut at the
  first blank line: a demonstration, since a base model does not follow instructions.
  Tokens are drawn at ``temperature`` from a generator seeded by (seed, probe, sample), so
  a sample's text depends only on them (resume and kill -9 give the same texts).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from stereoprobe.errors import DataError
from stereoprobe.generation.records import GenProbe

COMPLETION_STOP = ["\n\n"]  # a base model's continuation ends at its first blank line


@dataclass(frozen=True)
class Generated:
    """One generated text, as a backend returns it."""

    text: str
    finish_reason: str | None = None
    refused: bool = False  # the API's own refusal (message.refusal)
    usage: dict[str, Any] | None = None
    response: dict[str, Any] | None = None


def prompt_text(messages: Any) -> str:
    """The messages as stored in a record: one ``role: content`` block each.

    >>> prompt_text((("system", "Be brief."), ("user", "nurse.")))
    'system: Be brief.\\n\\nuser: nurse.'
    """
    return "\n\n".join(f"{role}: {content}" for role, content in messages)


class _Chunk:
    def __init__(self, size: int) -> None:
        self.size = size  # the samples asked in its one request
        self.done = threading.Event()
        self.texts: list[Generated] | None = None
        self.error: BaseException | None = None
        self.taken = 0


class ChatGenerator:
    """K samples per probe from a chat endpoint, ``per_request`` per request where allowed."""

    mode = "chat"
    method = "chat"

    def __init__(self, chat: Any, per_request: int, temperature: float, max_tokens: int, top_p: float) -> None:
        self.chat = chat  # a backends.chat.ChatBackend
        self.per_request = max(1, per_request)
        self.params = {"temperature": temperature, "max_tokens": max_tokens, "top_p": top_p}
        self.max_concurrency = chat.max_concurrency
        self._n_ok = self.per_request > 1
        self._chunks: dict[tuple[str, int], _Chunk] = {}
        self._where: dict[tuple[str, int], tuple[int, int, int]] = {}  # (probe, sample) -> chunk, position, size
        self._lock = threading.Lock()

    def describe(self) -> dict[str, Any]:
        out = {k: v for k, v in self.chat.describe().items() if k not in ("instruction", "debias", "reply_logprobs")}
        return {**out, **self.params, "method": self.method, "samples_per_request": self.per_request,
                "n_accepted": self._n_ok if self.per_request > 1 else None}

    def attempts_of_last_ask(self) -> int:
        return self.chat.attempts_of_last_ask()

    def close(self) -> None:
        self.chat.close()

    def _request(self, probe: GenProbe, n: int) -> list[Generated]:
        from stereoprobe.backends.chat import _Malformed

        messages = [{"role": r, "content": c} for r, c in probe.messages]
        extra = {"n": n} if n > 1 else {}

        def once() -> list[Generated]:
            response = self.chat.create(messages, with_logprobs=False, **self.params, **extra)
            try:
                return [_generated(c, response) for c in response.choices]
            except (AttributeError, TypeError):
                raise _Malformed("no choices[i].message") from None

        texts = self.chat.retrying(once)
        if not texts:
            raise _Malformed("no choices")
        return texts

    def plan(self, todo: Sequence[tuple[GenProbe, int]]) -> None:
        """The (probe, sample) pairs this run will ask (collect's todo): ``chunks``."""
        self._where = chunks([(probe.probe_id, sample) for probe, sample in todo], self.per_request)

    def _place(self, probe_id: str, sample: int) -> tuple[int, int, int]:
        """(chunk, position, size) of a sample: as planned, else its block of ``per_request``."""
        first = sample - sample % self.per_request
        return self._where.get((probe_id, sample), (first, sample - first, self.per_request))

    def generate(self, probe: GenProbe, sample: int) -> Generated:
        if not self._n_ok:
            return self._request(probe, 1)[0]
        first, position, size = self._place(probe.probe_id, sample)
        key = (probe.probe_id, first)
        with self._lock:
            chunk = self._chunks.get(key)
            owner = chunk is None
            if owner:
                chunk = self._chunks[key] = _Chunk(size)
        if owner:
            try:
                chunk.texts = self._request(probe, chunk.size)
            except RuntimeError as exc:
                if _refuses_n(str(exc)):
                    self._n_ok = False  # the endpoint does not take n: one sample per request
                else:
                    chunk.error = exc
            except BaseException as exc:
                chunk.error = exc
            finally:
                chunk.done.set()
        chunk.done.wait()
        with self._lock:
            chunk.taken += 1
            if chunk.taken >= chunk.size:
                self._chunks.pop(key, None)
        if chunk.error is not None:
            raise chunk.error
        texts = chunk.texts or []
        if len(texts) < chunk.size:
            self._n_ok = False  # fewer choices than asked: n is not honoured here
        return texts[position] if position < len(texts) else self._request(probe, 1)[0]


def chunks(todo: Sequence[tuple[str, int]], per_request: int) -> dict[tuple[str, int], tuple[int, int, int]]:
    """(probe_id, sample) -> (chunk, position, size): each probe's samples in ``todo`` (the
    ones a run will ask, in order) cut into chunks of ``per_request``, one request each; a
    chunk is named by its first sample.

    >>> where = chunks([("a1", s) for s in (1, 4, 5, 6, 7)], 3)
    >>> [where[("a1", s)] for s in (1, 4, 5, 6, 7)]
    [(1, 0, 3), (1, 1, 3), (1, 2, 3), (6, 0, 2), (6, 1, 2)]
    """
    samples: dict[str, list[int]] = {}
    for probe_id, sample in todo:
        samples.setdefault(probe_id, []).append(sample)
    where = {}
    for probe_id, wanted in samples.items():
        for start in range(0, len(wanted), per_request):
            chunk = wanted[start:start + per_request]
            where.update({(probe_id, s): (chunk[0], i, len(chunk)) for i, s in enumerate(chunk)})
    return where


def _refuses_n(message: str) -> bool:
    """An HTTP 400 about the ``n`` parameter.

    >>> _refuses_n("HTTP 400: 'n' is not supported"), _refuses_n("HTTP 400: n must be 1"), _refuses_n("HTTP 500: n")
    (True, True, False)
    """
    import re

    return message.startswith("HTTP 400") and re.search(r"(?<![\w-])'?n'?(?![\w-])", message[8:]) is not None


def _generated(choice: Any, response: Any) -> Generated:
    message = choice.message
    usage = response.usage.model_dump() if getattr(response, "usage", None) else None
    about = {"model": getattr(response, "model", None),
             "system_fingerprint": getattr(response, "system_fingerprint", None)}
    refusal = getattr(message, "refusal", None)
    text = message.content or ""
    if refusal and not text:
        return Generated(refusal, choice.finish_reason, True, usage, {**about, "refusal": True})
    return Generated(text, choice.finish_reason, False, usage, about)


class FileGenerator:
    """A GGUF file in-process: its chat template (``chat``) or the completion form."""

    mode = "chat"

    def __init__(self, path: Any, chat: bool, temperature: float, max_tokens: int, seed: int,
                 workers: int | None, embedded: bool) -> None:
        from stereoprobe.backends.local_chat import EmbeddedChatBackend

        self.inner = EmbeddedChatBackend(path, max_tokens=max_tokens, workers=workers, chat=chat)
        self.method = "chat" if chat else "completion"
        self.temperature, self.seed, self.embedded = temperature, seed, embedded
        self.max_concurrency = self.inner.max_concurrency

    def describe(self) -> dict[str, Any]:
        out = {k: v for k, v in self.inner.describe().items() if k not in ("instruction", "debias", "evaluation")}
        out.update(backend="local" if self.embedded else "local-chat", method=self.method,
                   temperature=self.temperature, seed=self.seed,
                   evaluation=("tokens drawn from softmax(logits / temperature), numpy's generator seeded with "
                               "(seed, probe, sample); the context cleared before each sample"))
        if self.method == "completion":
            out["chat_template"] = None
            out["note"] = ("a base model continues each prompt's completion form (cut at the first blank line): "
                           "a demonstration, not the papers' instruction")
        return out

    def attempts_of_last_ask(self) -> int:
        return 1

    def close(self) -> None:
        self.inner.close()

    def generate(self, probe: GenProbe, sample: int) -> Generated:
        if self.method == "chat":
            ids, stop = self.inner.chat_tokens([{"role": r, "content": c} for r, c in probe.messages])
        else:
            ids, stop = self.inner.text_tokens(probe.completion), COMPLETION_STOP
        seed = [self.seed, int(probe.probe_id, 16), sample]
        text, _, usage, finish = self.inner.reply(ids, stop, self.temperature, seed)
        if self.method == "completion":
            text = text.split("\n\n")[0]
        return Generated(text.strip(), finish, False, usage, {"model": self.inner.model_path.name})


def make_generator(options: Mapping[str, Any], temperature: float, max_tokens: int, samples: int) -> Any:
    """The generator a generation study's collect drives (module docstring); settings that
    do not fit the path are refused in one line, before anything loads."""
    from stereoprobe.backends import check_base_url, resolve_api_key

    model, base_url, mode, path = options.get("model"), options.get("base_url"), options.get("mode"), \
        options.get("model_file")
    check_base_url(base_url)
    if mode == "next-word":
        raise DataError("A generation study asks for whole texts: drop --mode next-word (chat endpoints and "
                        "--model-file F --mode chat are asked in chat mode).")
    if path is not None or (model is None and base_url is None):
        return _file_generator(options, path, mode, temperature, max_tokens)
    if options.get("workers") is not None:
        raise DataError("--workers applies to model files and the embedded model; a chat model takes --concurrency.")
    if model is None:
        raise DataError("--base-url needs --model NAME (the model name the endpoint serves).")
    from stereoprobe.backends.chat import ChatBackend

    key = resolve_api_key(base_url, options.get("api_key_env"))
    chat = ChatBackend(model=model, api_key=key, base_url=base_url, timeout=options.get("timeout") or 60.0,
                       max_retries=options.get("max_retries", 4), concurrency=options.get("concurrency") or 8)
    top_p = options.get("top_p") if options.get("top_p") is not None else 1.0
    return ChatGenerator(chat, min(samples, PER_REQUEST), temperature, max_tokens, top_p)


PER_REQUEST = 10  # samples asked in one request (the API's n) where the endpoint takes it


def _file_generator(options: Mapping[str, Any], path: Any, mode: str | None, temperature: float,
                    max_tokens: int) -> FileGenerator:
    from pathlib import Path

    from stereoprobe.backends import refuse_with_model_file
    from stereoprobe.backends.modelfile import check_model_file

    if path is None:
        if mode == "chat":
            raise DataError("The embedded model is a base model and cannot chat; drop --mode chat (it continues "
                            "each prompt's completion form, a demonstration), or give --model-file or --model.")
        from stereoprobe.backends.gguf import default_model

        file, embedded = default_model()[0], True
    else:
        refuse_with_model_file(options.get("model"), options.get("base_url"))
        file, embedded = Path(check_model_file(path, workers=options.get("workers"), chat=mode == "chat").path), False
    return FileGenerator(file, mode == "chat", temperature, max_tokens, int(options.get("seed") or 0),
                         options.get("workers"), embedded)
