"""Benchmark `stereoprobe collect` (chat mode) against the loopback OpenAI server.

    .venv/bin/python bench/bench_collect.py            # full: about a minute
    .venv/bin/python bench/bench_collect.py --quick    # fewer probes

Measures, with tests/fake_openai.py serving in its own process on 127.0.0.1:

- probes per second of ``collect`` at 0 ms and 50 ms server latency, concurrency 1 and 32
  (all 2,292 probes, except 300 at 50 ms / concurrency 1);
- the raw round trip: the same requests through the bare ``openai`` client, one at a
  time, with no collect around them; and the fixed cost of one run (a 1-probe collect);
- harness overhead per probe two ways: (a) collect at 0 ms / concurrency 1 minus the raw
  round trip; (b) collect with a zero-cost in-process backend (no HTTP at all).

Targets (issue 2): overhead under 2 ms per probe; at 50 ms latency, concurrency 32 at
least 15x faster than concurrency 1. Prints a Markdown table for docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from stereoprobe.studies.fillin.collect import run_collect  # noqa: E402
from stereoprobe.backends.chat import DEFAULT_INSTRUCTION, render_instruction  # noqa: E402
from stereoprobe.studies.fillin.catalog import load_catalog  # noqa: E402
from stereoprobe.collect import collect  # noqa: E402
from stereoprobe.studies.fillin.ask import study_run  # noqa: E402
from stereoprobe.records import Answer  # noqa: E402

WORDS = "wise grumpy kind lazy smart rich poor loud quiet proud".split()


class ZeroBackend:
    """A backend that answers at once: what collect itself costs per probe."""

    mode = "chat"
    max_concurrency = 256

    def describe(self):
        return {"backend": "zero", "model": "zero", "endpoint": None}

    def prompt(self, probe):
        return render_instruction(DEFAULT_INSTRUCTION, probe.text)

    def ask(self, probe):
        return Answer(words=list(WORDS), raw="\n".join(WORDS), usage={"prompt_tokens": 30})

    def attempts_of_last_ask(self):
        return 1

    def close(self):
        pass


class Server:
    """tests/fake_openai.py in a subprocess."""

    def __init__(self, latency: float):
        self.proc = subprocess.Popen(
            [sys.executable, str(REPO / "tests" / "fake_openai.py"), "--latency", str(latency)],
            stdout=subprocess.PIPE, text=True,
        )
        self.base_url = self.proc.stdout.readline().strip()

    def close(self) -> None:
        self.proc.kill()
        self.proc.wait()


def timed_collect(base_url: str, n: int, concurrency: int) -> float:
    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        result = run_collect(model="fake-chat", base_url=base_url, out=Path(tmp) / "run", limit=n,
                             concurrency=concurrency, max_retries=0, progress=False)
        elapsed = time.perf_counter() - start
    assert result.counts["ok"] == n, result.summary()
    return elapsed


def raw_round_trip(base_url: str, n: int) -> float:
    """Seconds for n chat requests through the bare openai client, one at a time."""
    import openai

    client = openai.OpenAI(base_url=base_url, api_key="not-needed", max_retries=0)
    prompts = [render_instruction(DEFAULT_INSTRUCTION, p.text) for p in load_catalog().probes()[:n]]
    client.chat.completions.create(model="fake-chat", messages=[{"role": "user", "content": "warm up"}])
    start = time.perf_counter()
    for p in prompts:
        client.chat.completions.create(model="fake-chat", messages=[{"role": "user", "content": p}],
                                       temperature=0.0, max_tokens=300, top_p=1.0)
    elapsed = time.perf_counter() - start
    client.close()
    return elapsed


def zero_backend(n: int, concurrency: int, progress: bool = False) -> float:
    probes = load_catalog().probes()[:n]
    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        collect(probes, ZeroBackend(), Path(tmp) / "run", concurrency=concurrency, progress=progress,
                study=study_run(None, probes, "chat"))
        return time.perf_counter() - start


def machine() -> str:
    lscpu = subprocess.run(["lscpu"], capture_output=True, text=True).stdout
    model = next((line.split(":", 1)[1].strip() for line in lscpu.splitlines() if line.startswith("Model name")), "?")
    return f"{os.cpu_count()} CPUs ({model}), Python {platform.python_version()}, {platform.system()} {platform.release()}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer probes (for a smoke run)")
    args = parser.parse_args()
    full = 2292 if not args.quick else 300
    slow1 = 300 if not args.quick else 60
    print(f"machine: {machine()}")
    rows = []

    # (b) zero-cost backend: collect alone
    zero_backend(50, 1)  # warm imports
    for conc in (1, 32):
        t = zero_backend(full, conc)
        rows.append(("zero-cost backend (no HTTP)", conc, full, t))
    t_bar = zero_backend(full, 1, progress=True)

    server = Server(0.0)
    try:
        timed_collect(server.base_url, 20, 1)  # warm up
        fixed = timed_collect(server.base_url, 1, 1)  # per-run cost: catalog, hash, client, manifest
        raw = raw_round_trip(server.base_url, full)
        for conc in (1, 32):
            rows.append(("loopback, 0 ms", conc, full, timed_collect(server.base_url, full, conc)))
    finally:
        server.close()

    server = Server(0.05)
    try:
        for conc, n in ((1, slow1), (32, full)):
            rows.append(("loopback, 50 ms", conc, n, timed_collect(server.base_url, n, conc)))
    finally:
        server.close()

    print("\n| setup | concurrency | probes | seconds | probes/s | ms/probe |")
    print("|---|---:|---:|---:|---:|---:|")
    for name, conc, n, t in rows:
        print(f"| {name} | {conc} | {n} | {t:.2f} | {n / t:.1f} | {1000 * t / n:.2f} |")
    rate = {(name, conc): n / t for name, conc, n, t in rows}
    zero_c1 = next(1000 * t / n for name, conc, n, t in rows if name.startswith("zero") and conc == 1)
    c1_0ms = next(1000 * t / n for name, conc, n, t in rows if name == "loopback, 0 ms" and conc == 1)
    raw_ms = 1000 * raw / full
    speedup = rate[("loopback, 50 ms", 32)] / rate[("loopback, 50 ms", 1)]
    print(f"\nraw round trip (bare openai client, 0 ms server, one at a time, {full} requests): {raw_ms:.2f} ms")
    print(f"fixed cost of one collect run (1 probe, 0 ms server): {1000 * fixed:.0f} ms")
    print(f"harness overhead (a) collect at 0 ms, concurrency 1, minus raw round trip: {c1_0ms - raw_ms:.2f} ms/probe")
    print(f"harness overhead (b) zero-cost backend, concurrency 1: {zero_c1:.3f} ms/probe "
          f"({1000 * t_bar / full:.3f} ms with the progress bar on)")
    print(f"50 ms latency: concurrency 32 is {speedup:.1f}x concurrency 1 (target >= 15x)")


if __name__ == "__main__":
    main()
