"""Chat mode on a model file of the user's (``collect --model-file PATH.gguf --mode chat``).

The paper's method, offline: the instruction and probe as one user message, rendered with
the GGUF file's own chat template (``tokenizer.chat_template``) by llama-cpp-python's
``Jinja2ChatFormatter``, the formatter its ``create_chat_completion`` uses; the reply is
generated greedily (temperature 0) and parsed by collect like any chat reply.

How it is evaluated, so an answer depends only on its probe:

- One set of weights (``gguf.load_weights``; the plain CPU buffer on CPUs with AMX, see
  ``modelfile.amx_faults``) and a vocabulary-only ``Llama`` for the tokenizer and the
  template; each worker has its own llama.cpp context with one thread, cleared before
  every probe.
- The prompt is decoded in one decode (``N_BATCH`` tokens at most per decode), then
  one token per decode; the next token is the most probable one (ties: the lowest id),
  until an end-of-generation token, a stop string of the template or ``max_tokens``.
- Each reply token's log-probability and its ``top_logprobs`` alternatives come from a
  float64 log-softmax over the whole vocabulary, in the shape chat APIs return them
  (``backends/chat_logprobs.py`` reads a probability per parsed word from them).
"""

from __future__ import annotations

import os
import queue
import threading
from pathlib import Path
from typing import Any

from stereoprobe.backends.chat import DEFAULT_INSTRUCTION, render_instruction
from stereoprobe.backends.gguf import _Context, _version, load_weights, vocabulary
from stereoprobe.backends.modelfile import amx_faults, model_identity
from stereoprobe.errors import BackendError
from stereoprobe.records import Answer, Probe

N_CTX = 1024
N_BATCH = 512
TOP_LOGPROBS = 5


class EmbeddedChatBackend:
    """A GGUF chat model run in-process, ``workers`` probes at once, greedy."""

    mode = "chat"

    def __init__(self, model_path: str | os.PathLike[str], *, instruction: str = DEFAULT_INSTRUCTION,
                 max_tokens: int = 300, debias: int | None = None, workers: int | None = None,
                 n_ctx: int = N_CTX, top_logprobs: int = TOP_LOGPROBS, chat: bool = True) -> None:
        from stereoprobe.debias import check_debias

        check_debias(debias)
        if workers is not None and workers < 1:
            raise BackendError("workers must be at least 1")
        self.model_path = Path(model_path)
        self.instruction = instruction
        self.debias = debias
        self.max_tokens = max_tokens
        self.workers = workers or os.cpu_count() or 2
        self.max_concurrency = self.workers
        self.n_ctx = n_ctx
        self.top_logprobs = top_logprobs
        self.chat = chat  # False: plain text continued (``text_tokens``), no chat template needed
        self._llm: Any = None
        self._weights: Any = None
        self._format: Any = None
        self._vocab: Any = None
        self._contexts: list[_Context] = []
        self._free: queue.Queue[_Context] = queue.Queue()
        self._lock = threading.Lock()
        self._local = threading.local()

    def describe(self) -> dict[str, Any]:
        return {
            "backend": "local-chat",
            "mode": self.mode,
            "model": self.model_path.name,
            **model_identity(self.model_path, None),
            "llama_cpp_python": _version("llama-cpp-python"),
            "chat_template": "the file's own (tokenizer.chat_template), by llama_cpp's Jinja2ChatFormatter",
            "instruction": self.instruction,
            "debias": self.debias,
            "temperature": 0.0,
            "top_p": 1.0,
            "max_tokens": self.max_tokens,
            "top_logprobs": self.top_logprobs,
            "n_ctx": self.n_ctx,
            "workers": self.workers,
            "n_threads": 1,
            "evaluation": f"greedy; the context cleared before each probe, the prompt in decodes of up to {N_BATCH} "
                          "tokens, then one token per decode; float64 log-softmax over the whole vocabulary",
        }

    def prompt(self, probe: Probe) -> str:
        from stereoprobe.debias import debiased

        return render_instruction(debiased(self.instruction, self.debias), probe.text)

    def attempts_of_last_ask(self) -> int:
        return getattr(self._local, "attempts", 0)

    # -- model ----------------------------------------------------------------------
    def _load(self) -> Any:
        with self._lock:
            if self._llm is not None:
                return self._llm
            llm = vocabulary(self.model_path, "A model file")
            import llama_cpp
            from llama_cpp.llama_chat_format import Jinja2ChatFormatter

            template = llm.metadata.get("tokenizer.chat_template")
            if not template and self.chat:
                raise BackendError(f"{self.model_path.name} has no chat template: drop --mode chat.")
            text = llm._model.token_get_text
            eos, bos = llm.token_eos(), llm.token_bos()
            if template:
                self._format = Jinja2ChatFormatter(template=template, eos_token=text(eos) if eos != -1 else "",
                                                   bos_token=text(bos) if bos != -1 else "", stop_token_ids=[eos])
            self._weights = load_weights(self.model_path, extra_buffers=not amx_faults())
            self._vocab = llama_cpp.llama_model_get_vocab(self._weights)
            params = llama_cpp.llama_context_default_params()
            params.n_ctx = self.n_ctx
            params.n_batch = params.n_ubatch = N_BATCH
            params.n_seq_max = 1
            params.n_threads = params.n_threads_batch = 1
            params.flash_attn_type = llama_cpp.LLAMA_FLASH_ATTN_TYPE_DISABLED  # as Llama's default
            self._contexts = [_Context(self._weights, params, N_BATCH) for _ in range(self.workers)]
            for context in self._contexts:
                self._free.put(context)
            self._llm = llm
            return llm

    def close(self) -> None:
        with self._lock:
            if self._llm is None:
                return
            contexts = [self._free.get() for _ in self._contexts]  # wait for asks in flight
            for context in contexts:
                context.close()
            self._contexts = []
            import llama_cpp

            llama_cpp.llama_model_free(self._weights)
            self._llm.close()
            self._llm = None

    # -- asking -----------------------------------------------------------------------
    def chat_tokens(self, message: str | list[dict[str, str]]) -> tuple[list[int], list[str]]:
        """The prompt's tokens for one user message (or a list of messages), as the template
        renders it, and its stop strings."""
        llm = self._load()
        messages = [{"role": "user", "content": message}] if isinstance(message, str) else message
        rendered = self._format(messages=messages)
        ids = llm.tokenize(rendered.prompt.encode("utf-8"), add_bos=not rendered.added_special, special=True)
        stop = rendered.stop if isinstance(rendered.stop, list) else [rendered.stop] if rendered.stop else []
        return ids, [s for s in stop if s]

    def text_tokens(self, text: str) -> list[int]:
        """The tokens of a plain text to continue (a base model's completion form), after BOS."""
        return self._load().tokenize(text.encode("utf-8"), add_bos=True, special=False)

    def ask(self, probe: Probe) -> Answer:
        self._local.attempts = 1
        text, logprobs, usage = self.generate(self.prompt(probe))
        return Answer(words=[], raw=text, usage=usage, response={"model": self.model_path.name},
                      logprobs={"content": logprobs})

    def generate(self, message: str) -> tuple[str, list[dict[str, Any]], dict[str, int]]:
        """The greedy reply to one user message: (text, per-token logprobs, usage)."""
        return self.reply(*self.chat_tokens(message))[:3]

    def reply(self, ids: list[int], stop: list[str], temperature: float = 0.0,
              seed: int = 0) -> tuple[str, list[dict[str, Any]], dict[str, int], str]:
        """The reply after prompt tokens ``ids``: (text, per-token logprobs, usage, finish
        reason "stop" or "length"). Temperature 0: greedy; above 0, each token is drawn from
        softmax(logits / temperature) by numpy's generator seeded with ``seed``, so a reply
        depends only on its prompt and seed."""
        import llama_cpp
        import numpy as np

        from stereoprobe.backends.gguf import Row

        llm = self._load()
        rng = np.random.default_rng(seed)
        if len(ids) + 1 > self.n_ctx:
            raise ValueError(f"the prompt is {len(ids)} tokens, too long for n_ctx={self.n_ctx}")
        budget = min(self.max_tokens, self.n_ctx - len(ids))
        n_vocab = llm.n_vocab()
        vocab = self._vocab
        context = self._free.get()
        out: bytearray = bytearray()
        content: list[dict[str, Any]] = []
        finish = "length"
        try:
            context.reset()
            for start in range(0, len(ids), N_BATCH):
                chunk = ids[start:start + N_BATCH]
                context.decode([(t, start + j, 0, start + j == len(ids) - 1) for j, t in enumerate(chunk)])
            pos = len(ids)
            while len(content) < budget:
                row = Row(context.logits(-1, n_vocab, dtype="float32"))  # row[t]: the float64 log P(t)
                token = _pick(row.logits, temperature, rng)
                if llama_cpp.llama_vocab_is_eog(vocab, token):
                    finish = "stop"
                    break
                k = min(self.top_logprobs, n_vocab)
                top = np.argpartition(-row.logits, k - 1)[:k] if k else []
                top = sorted(top, key=lambda i: (-row.logits[i], i))
                piece = llm.detokenize([token])
                out += piece
                content.append({"token": piece.decode("utf-8", errors="replace"), "logprob": float(row[token]),
                                "top_logprobs": [{"token": llm.detokenize([int(i)]).decode("utf-8", errors="replace"),
                                                  "logprob": float(row[i])} for i in top]})
                text = out.decode("utf-8", errors="replace")
                if any(s in text for s in stop):
                    finish = "stop"
                    break
                if len(content) >= budget:
                    break
                context.decode([(token, pos, 0, True)])
                pos += 1
        finally:
            context.reset()
            self._free.put(context)
        text = out.decode("utf-8", errors="replace")
        for s in stop:
            if s in text:
                text = text[:text.index(s)]
        usage = {"prompt_tokens": len(ids), "completion_tokens": len(content),
                 "total_tokens": len(ids) + len(content)}
        return text, content, usage, finish


def _pick(logits: Any, temperature: float, rng: Any) -> int:
    """The next token: the most probable (ties: the lowest id) at temperature 0, else a draw
    from softmax(logits / temperature)."""
    import numpy as np

    if not temperature:
        return int(np.argmax(logits))
    z = np.asarray(logits, dtype=np.float64) / temperature
    z = np.exp(z - z.max())
    return int(rng.choice(len(z), p=z / z.sum()))
