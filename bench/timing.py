"""Whole-process timing for the benches: a command run as a child process, with its wall
time, CPU time (user + system), peak memory and the 1-minute load average around it."""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def load() -> float:
    """The 1-minute load average."""
    return os.getloadavg()[0]


def timed(argv: list[str], ok: tuple[int, ...] = (0,)) -> dict[str, float]:
    """Run ``argv`` from the repository's root (exit with its stderr if it fails): wall and
    CPU seconds, ``rss_mb`` (ru_maxrss of the largest child so far, MiB), the load before
    and after, and the last line it printed (``output``)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start_load, start = load(), time.perf_counter()
    out = subprocess.run(argv, capture_output=True, text=True, cwd=ROOT)
    if out.returncode not in ok:
        sys.exit(out.stderr)
    wall = time.perf_counter() - start
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (usage.ru_utime - before.ru_utime) + (usage.ru_stime - before.ru_stime)
    return {"wall": wall, "cpu": cpu, "rss_mb": usage.ru_maxrss / 1024, "load_before": start_load,
            "load_after": load(), "output": out.stdout.strip().splitlines()[-1] if out.stdout.strip() else ""}
