"""A model file of the user's own (``collect --model-file PATH.gguf``): checks and identity.

Before anything is loaded or created, ``check_model_file`` refuses, in one line (a
``DataError``, exit 2): a missing path, a file that is not GGUF (its first four bytes
are not ``GGUF``), a GGUF file whose header cannot be read, and a model that would not
fit in the memory available (``estimate_memory``: the file, which llama.cpp maps and
reads whole, plus each worker's KV cache and logits buffers, against the system's
``MemAvailable``).

A run records the file's name, size and sha256 (``describe()`` of the backends). Hashing
a file of several GB takes tens of seconds, so ``file_identity`` keeps the hash in
``$STEREOPROBE_CACHE`` (default ``~/.cache/stereoprobe``)/``model-hashes.json``, keyed by
the file's resolved path, size and modification time: a file that changed in any of
them is hashed again.
"""

from __future__ import annotations

import functools
import json
import os
import struct
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

from stereoprobe.errors import DataError

MAGIC = b"GGUF"
#: GGUF metadata value types (gguf.md): id -> struct format of a scalar (8: string, 9: array)
_SCALARS = {0: "<B", 1: "<b", 2: "<H", 3: "<h", 4: "<I", 5: "<i", 6: "<f", 7: "<?", 10: "<Q", 11: "<q", 12: "<d"}
_STRING, _ARRAY = 8, 9
#: Per worker beyond the weights: what the embedded backends allocate (next-word mode:
#: a 64-row and a 16-row logits buffer; scoring: 64 rows), plus llama.cpp's compute buffers.
LOGITS_ROWS = 80
OVERHEAD = 300 * 2**20  # Python, numpy, spaCy, WordNet and llama.cpp's own buffers


@dataclass(frozen=True)
class GGUFHeader:
    """What a GGUF file says about itself (its metadata), as far as stereoprobe needs it."""

    version: int
    architecture: str | None
    name: str | None
    n_vocab: int | None
    n_layer: int | None
    n_embd: int | None
    n_head: int | None
    n_head_kv: int | None
    chat_template: str | None


def _read(fh: BinaryIO, fmt: str) -> Any:
    size = struct.calcsize(fmt)
    data = fh.read(size)
    if len(data) != size:
        raise ValueError("the file ends inside its header")
    return struct.unpack(fmt, data)[0]


def _string(fh: BinaryIO) -> str:
    n = _read(fh, "<Q")
    if n > 1 << 26:
        raise ValueError("a metadata string is implausibly long")
    data = fh.read(n)
    if len(data) != n:
        raise ValueError("the file ends inside its header")
    return data.decode("utf-8", errors="replace")


def _value(fh: BinaryIO, kind: int, keep: bool) -> Any:
    """One metadata value; arrays are skipped and give their length (``keep``: read strings)."""
    if kind in _SCALARS:
        return _read(fh, _SCALARS[kind])
    if kind == _STRING:
        if keep:
            return _string(fh)
        fh.seek(_read(fh, "<Q"), os.SEEK_CUR)
        return None
    if kind == _ARRAY:
        inner, n = _read(fh, "<I"), _read(fh, "<Q")
        if inner in _SCALARS:
            fh.seek(n * struct.calcsize(_SCALARS[inner]), os.SEEK_CUR)
        else:
            for _ in range(n):
                _value(fh, inner, keep=False)
        return n
    raise ValueError(f"unknown metadata type {kind}")


def read_header(path: str | os.PathLike[str]) -> GGUFHeader:
    """The GGUF file's metadata (ValueError if it is not GGUF or its header is damaged).

    Only the header is read (metadata strings and the lengths of arrays), never the
    weights.
    """
    with open(path, "rb") as fh:
        if fh.read(4) != MAGIC:
            raise ValueError("not a GGUF file")
        version = _read(fh, "<I")
        if version < 2:
            raise ValueError(f"GGUF version {version} is too old for llama.cpp")
        _read(fh, "<Q")  # tensors
        n_kv = _read(fh, "<Q")
        if n_kv > 1 << 20:
            raise ValueError("implausibly many metadata entries")
        meta: dict[str, Any] = {}
        for _ in range(n_kv):
            key = _string(fh)
            kind = _read(fh, "<I")
            meta[key] = _value(fh, kind, keep=key in ("general.architecture", "general.name", "tokenizer.chat_template"))
    arch = meta.get("general.architecture")

    def of(name: str) -> int | None:
        value = meta.get(f"{arch}.{name}")
        return int(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None

    return GGUFHeader(version=version, architecture=arch, name=meta.get("general.name"),
                      n_vocab=meta.get("tokenizer.ggml.tokens"), n_layer=of("block_count"),
                      n_embd=of("embedding_length"), n_head=of("attention.head_count"),
                      n_head_kv=of("attention.head_count_kv"), chat_template=meta.get("tokenizer.chat_template"))


def estimate_memory(size: int, header: GGUFHeader, workers: int, n_ctx: int = 512) -> int:
    """Bytes the embedded backends need for this file with ``workers`` contexts: the
    weights (the file), per worker an f16 KV cache of ``n_ctx`` cells and the logits
    buffers, and a fixed overhead.

    >>> h = GGUFHeader(3, "llama", None, 1000, 2, 64, 4, 2, None)
    >>> estimate_memory(10**6, h, workers=2, n_ctx=100) - OVERHEAD   # 1e6 + 2 x (KV 100 x 2 x 32 x 2 x 2 + logits 80 x 1000 x 4)
    1691200
    """
    n_embd_kv = (header.n_embd or 0) * (header.n_head_kv or header.n_head or 1) // max(1, header.n_head or 1)
    kv = n_ctx * (header.n_layer or 0) * n_embd_kv * 2 * 2
    logits = LOGITS_ROWS * (header.n_vocab or 0) * 4
    return size + workers * (kv + logits) + OVERHEAD


def available_memory() -> int | None:
    """The memory the system can give a new process without swapping (Linux
    ``MemAvailable``), or None where it cannot be read."""
    try:
        with open("/proc/meminfo", encoding="ascii", errors="replace") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


def _gb(n: int) -> str:
    return f"{n / 2**30:.1f} GB"


@dataclass(frozen=True)
class ModelFile:
    """A checked GGUF file: where it is, its header, and its size."""

    path: Path
    size: int
    header: GGUFHeader

    @property
    def name(self) -> str:
        return self.path.name


def check_model_file(path: str | os.PathLike[str], *, workers: int | None = None, chat: bool = False) -> ModelFile:
    """A usable GGUF model file, or a one-line DataError that says what to do."""
    p = Path(path).expanduser()
    if not p.exists():
        raise DataError(f"--model-file {path}: no such file; give the path of a GGUF model file.")
    if not p.is_file():
        raise DataError(f"--model-file {path} is not a file; give the path of a GGUF model file (.gguf).")
    try:
        header = read_header(p)
    except ValueError as exc:
        raise DataError(f"--model-file {path}: {exc}; give a GGUF model file (llama.cpp's format, .gguf).") from None
    except OSError as exc:
        raise DataError(f"--model-file {path} cannot be read ({exc.strerror or exc}).") from None
    if chat and not header.chat_template:
        raise DataError(f"--model-file {path} has no chat template (a base model?): drop --mode chat for "
                        "next-word mode, or give an instruction-tuned model's GGUF.")
    size = p.stat().st_size
    n_workers = workers or os.cpu_count() or 2
    need, free = estimate_memory(size, header, n_workers), available_memory()
    if free is not None and need > free:
        raise DataError(f"--model-file {p.name} needs about {_gb(need)} of memory with {n_workers} workers and "
                        f"{_gb(free)} is available: use a smaller (more quantised) file, fewer --workers, or a "
                        "machine with more memory.")
    return ModelFile(p.resolve(), size, header)


# -- the file's identity, hashed once --------------------------------------------------
_HASH_LOCK = threading.Lock()


def _hash_cache() -> Path:
    from stereoprobe.datafiles import cache_dir

    return cache_dir() / "model-hashes.json"


def _sha256(path: Path) -> str:
    import hashlib

    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def file_identity(path: str | os.PathLike[str]) -> dict[str, Any]:
    """``{"model_file": name, "model_size": bytes, "model_sha256": hex}`` of a file.

    The hash is kept per (resolved path, size, modification time) in the cache folder,
    so a multi-GB file is hashed once, not at every run; a cache that cannot be read or
    written is ignored (the file is hashed).
    """
    p = Path(path).resolve()
    stat = p.stat()
    key = str(p)
    stamp = {"size": stat.st_size, "mtime_ns": stat.st_mtime_ns}
    with _HASH_LOCK:
        cache = _hash_cache()
        try:
            known = json.loads(cache.read_text(encoding="utf-8"))
            if not isinstance(known, dict):
                known = {}
        except (OSError, ValueError):
            known = {}
        entry = known.get(key)
        if isinstance(entry, dict) and {k: entry.get(k) for k in stamp} == stamp and isinstance(entry.get("sha256"), str):
            sha = entry["sha256"]
        else:
            sha = _sha256(p)
            known[key] = {**stamp, "sha256": sha}
            try:
                cache.parent.mkdir(parents=True, exist_ok=True)
                tmp = cache.with_name(f".{cache.name}.{os.getpid()}.tmp")
                tmp.write_text(json.dumps(known, indent=1), encoding="utf-8")
                os.replace(tmp, cache)
            except OSError:
                pass
    return {"model_file": p.name, "model_size": stat.st_size, "model_sha256": sha}


@functools.lru_cache(maxsize=1)
def amx_faults() -> bool:
    """True on CPUs with Intel AMX: there the pinned llama.cpp's AMX weight buffer dies
    (a general-protection fault on ``ldtilecfg``) as soon as a decode holds several
    tokens, so the embedded backends keep the weights in the plain CPU buffer (measured:
    the default next-word path crashed in the phrase filter's multi-token decode, and
    llama-cpp-python's own ``Llama`` in any prompt of more than one token)."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as fh:
            return any(line.startswith("flags") and " amx_tile" in line for line in fh)
    except OSError:
        return False


def model_identity(path: Path, packaged_sha256: str | None) -> dict[str, Any]:
    """What a run records about its model file: the packaged default's name and known
    sha256 (as before), or a user's file's name, size and sha256 (``file_identity``)."""
    if packaged_sha256:
        return {"model_file": path.name, "model_sha256": packaged_sha256}
    return file_identity(path)


def model_file_name(path: str | Path) -> str:
    """The run directory's name for a model file: its name without .gguf.

    >>> model_file_name("/models/SmolLM2-135M-Instruct.Q4_1.gguf")
    'SmolLM2-135M-Instruct.Q4_1'
    """
    name = Path(path).name
    return name[:-5] if name.lower().endswith(".gguf") else name
