"""The run directory: manifest.json and an append-only completions.jsonl.

completions.jsonl is the cache, the log and the resume point at once (for every study:
the record type is the study's, ``Completion`` for fill-in; any frozen dataclass with
``from_dict``, ``to_dict`` and ``key``):

- every answer is appended as one JSON line, written with a single ``os.write`` on a
  file opened with O_APPEND, so a process killed with SIGKILL leaves at most a torn last
  line, which readers drop;
- the last line for a ``(probe_id, sample)`` wins (a ``--retry-failed`` run appends a new
  line for a failed probe); ``compact()`` rewrites the file with one line per key, in the
  design's order (answers arrive in any order; a finished run holds them in one), through
  a temporary file and an atomic rename, so a kill during compaction loses nothing;
- one process at a time: ``lock()`` takes an exclusive ``flock`` on ``RUN_DIR/.lock``
  (released by the kernel when the process dies, so a killed run never leaves it stuck)
  and writes who holds it there; a second collect or reparse is refused naming the holder.
"""

from __future__ import annotations

import errno
import json
import os
import socket
import tempfile
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence

from stereoprobe.errors import DataError
from stereoprobe.records import Completion

MANIFEST = "manifest.json"  # read and written by stereoprobe.manifest
COMPLETIONS = "completions.jsonl"
LOCK = ".lock"


def now_iso() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def _parse_lines(path: Path, record: type = Completion) -> tuple[list, int]:
    """Records in file order and the byte length of the intact part of the file."""
    data = path.read_bytes()
    records: list = []
    good = 0
    pos = 0
    while pos < len(data):
        end = data.find(b"\n", pos)
        if end == -1:  # torn last line: a process was killed while writing it
            break
        line = data[pos:end].strip()
        if line:
            try:
                obj = json.loads(line)
                records.append(record.from_dict(obj))
            except (json.JSONDecodeError, TypeError, KeyError) as exc:
                lineno = data.count(b"\n", 0, pos) + 1
                raise DataError(
                    f"{path}, line {lineno}: not a completion record ({exc}); "
                    "fix or remove that line."
                ) from None
        pos = end + 1
        good = pos
    return records, good


def latest_by_key(records: Iterable[Completion]) -> dict[tuple[str, int], Completion]:
    """The last record per (probe_id, sample), in order of first appearance."""
    out: dict[tuple[str, int], Completion] = {}
    for rec in records:
        out[rec.key] = rec
    return out


def read_completions(path: str | Path, record: type = Completion) -> list:
    """Read a completions.jsonl (or a run directory holding one): one record per key, in the
    file's order (a finished collect leaves it in the design's order: :meth:`RunStore.compact`).

    A torn last line is ignored; for repeated keys the last record wins. ``record``: the
    study's record type (``Completion`` for fill-in).
    """
    p = Path(path)
    if p.is_dir():
        p = p / COMPLETIONS
    if not p.is_file():
        raise DataError(f"{p}: no completions file; run `stereoprobe collect --out {p.parent}` first.")
    records, _ = _parse_lines(p, record)
    return list(latest_by_key(records).values())


class RunStore:
    """A run directory opened for writing by one collect run."""

    def __init__(self, run_dir: str | Path, record: type = Completion):
        self.dir = Path(run_dir)
        self.record = record  # the study's record type
        self.path = self.dir / COMPLETIONS
        self.manifest_path = self.dir / MANIFEST
        self._fd: int | None = None
        self._lock_fd: int | None = None

    # -- one writer at a time -------------------------------------------------------
    def lock(self, out_flag: bool = True) -> None:
        """Take the run directory's exclusive lock, or raise DataError naming its holder
        (``out_flag``: the command takes --out, so another directory is advice)."""
        import fcntl

        try:
            self.dir.mkdir(parents=True, exist_ok=True)
            fd = os.open(self.dir / LOCK, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as exc:
            advice = "choose a writable --out directory" if out_flag else "make it writable"
            raise DataError(f"Cannot write to {self.dir} ({exc.strerror}); {advice}.") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.read(fd, 200).decode("utf-8", "replace").strip() or "another process"
            os.close(fd)
            advice = "or pass --out NEW_DIR" if out_flag else "then run this command again"
            raise DataError(
                f"{self.dir} is in use by {holder}; wait for it to finish (or stop it), {advice}."
            ) from None
        os.ftruncate(fd, 0)
        os.write(fd, f"pid {os.getpid()} on {socket.gethostname()} since {now_iso()}\n".encode())
        self._lock_fd = fd

    def unlock(self) -> None:
        if self._lock_fd is not None:
            os.close(self._lock_fd)  # closing the descriptor releases the flock
            self._lock_fd = None

    # -- records ------------------------------------------------------------------
    def open(self) -> dict[tuple[str, int], Completion]:
        """Create the directory if needed, repair a torn tail, return stored records by key."""
        try:
            self.dir.mkdir(parents=True, exist_ok=True)
            probe = self.dir / ".write-test"
            probe.write_bytes(b"")
            probe.unlink()
        except OSError as exc:
            raise DataError(
                f"Cannot write to {self.dir} ({exc.strerror}); choose a writable --out directory."
            ) from None
        existing: dict[tuple[str, int], Completion] = {}
        if self.path.exists():
            records, good = _parse_lines(self.path, self.record)
            if good < self.path.stat().st_size:  # drop the torn line before appending
                with self.path.open("r+b") as f:
                    f.truncate(good)
            existing = latest_by_key(records)
        self._fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        return existing

    def append(self, record: Any) -> None:
        assert self._fd is not None, "RunStore.open() first"
        data = (json.dumps(record.to_dict(), ensure_ascii=False) + "\n").encode("utf-8")
        try:
            while data:  # os.write may write less than asked (a full disk, a signal)
                written = os.write(self._fd, data)
                if written <= 0:
                    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
                data = data[written:]
        except OSError as exc:
            raise _cannot_write(self.path, exc) from None

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    def compact(self, order: Sequence[tuple[str, int]] = ()) -> int:
        """Rewrite completions.jsonl with one line per key, in ``order`` (the design's keys, probe
        by probe and sample by sample; keys it does not name follow in the file's order); return
        lines dropped.

        Answers are appended as they arrive, and with several workers, retries and resumed runs
        they arrive in any order, while a bootstrap or permutation draws rows by position: a run
        compacted in its design's order gives the same numbers however it was asked
        (tests/test_record_order.py)."""
        records, _ = _parse_lines(self.path, self.record)
        latest = latest_by_key(records)
        dropped = len(records) - len(latest)
        rank = {key: i for i, key in enumerate(order)}
        keys = sorted(latest, key=lambda key: rank.get(key, len(rank)))  # stable: unnamed keys as stored
        if dropped or keys != list(latest):
            text = "".join(json.dumps(latest[k].to_dict(), ensure_ascii=False) + "\n" for k in keys)
            atomic_write(self.path, text)
        return dropped


def is_locked(run_dir: str | Path) -> bool:
    """Whether a process holds the run directory's lock (see RunStore.lock)."""
    import fcntl

    path = Path(run_dir) / LOCK
    if not path.is_file():
        return False
    fd = os.open(path, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        return False
    except BlockingIOError:
        return True
    finally:
        os.close(fd)


def read_json_object(path: Path, what: str, fix: str) -> dict:
    """A JSON object read from ``path``; a file that is not valid JSON or not an object is
    refused in one line: "PATH: not valid JSON (...); FIX." / "PATH: not WHAT (a JSON object); FIX."."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise DataError(f"{path}: not valid JSON ({exc}); {fix}.") from None
    if not isinstance(data, dict):
        raise DataError(f"{path}: not {what} (a JSON object); {fix}.")
    return data


def atomic_write(path: Path, text: str) -> None:
    """Replace `path` with `text` all at once (a temporary file, fsync, rename).

    An OSError (a full disk, a read-only directory) becomes a one-line DataError; the
    old file is left as it was.
    """
    try:
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    except OSError as exc:
        raise _cannot_write(path, exc) from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, 0o644)  # mkstemp makes it private; run files are ordinary files
        os.replace(tmp, path)
    except BaseException as exc:
        Path(tmp).unlink(missing_ok=True)
        if isinstance(exc, OSError):
            raise _cannot_write(path, exc) from None
        raise


def _cannot_write(path: Path, exc: OSError) -> DataError:
    return DataError(
        f"Cannot write to {path} ({exc.strerror or exc}); free disk space or fix the permissions, "
        "then run the same command again (answers stored so far are kept)."
    )


def replace_folder(out: Path, fill: Callable[[Path], None], is_ours: Callable[[Path], bool], stage: str,
                   of: str | None = None) -> Path:
    """Write a stage's output folder all or nothing: ``fill`` writes into a temporary folder
    next to ``out``, which is then renamed into place; an older complete ``out`` is replaced
    only by a complete new one, and a folder not written by ``stage`` (is_ours) never
    (``of``: whose runs the stage's folder is, where one stage writes for several studies)."""
    import shutil

    if out.exists() and not (out.is_dir() and is_ours(out)):
        whose = f" of {of} runs" if of else ""
        raise DataError(f"{out} exists and was not written by `{stage}`{whose}; move it away or pick another --out.")
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(dir=out.parent, prefix=f".{out.name}-new-"))
    except OSError as exc:
        raise DataError(f"Cannot write to {out.parent} ({exc.strerror}); choose a writable folder.") from None
    old: Path | None = None
    try:
        tmp.chmod(0o755)
        fill(tmp)
        if out.exists():
            old = Path(tempfile.mkdtemp(dir=out.parent, prefix=f".{out.name}-old-"))
            old.rmdir()
            out.rename(old)
        try:
            tmp.rename(out)
        except OSError:
            if old is not None:
                old.rename(out)
                old = None
            raise
    except OSError as exc:
        raise DataError(f"Cannot write {out} ({exc.strerror}); check free space and permissions.") from None
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)
        if old is not None and old.exists():
            shutil.rmtree(old, ignore_errors=True)
    return out


def marked(mark: str) -> Callable[[Path], bool]:
    """``replace_folder``'s ``is_ours`` for a folder whose meta.json holds ``mark`` (or an
    empty folder): the outputs of a study's score and compare."""
    import json

    def ours(path: Path) -> bool:
        try:
            return not any(path.iterdir()) or mark in json.loads((path / "meta.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return False

    return ours
