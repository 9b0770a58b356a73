"""Ctrl-C at random points of `stereoprobe collect`: does it stop at once and keep every answer?

    .venv/bin/python bench/interrupts.py --runs 200            # about 5 minutes
    .venv/bin/python bench/interrupts.py --runs 200 --load     # with the machine kept busy

Each run starts `stereoprobe collect` (chat mode, the real CLI in its own process) against
tests/fake_openai.py serving in this process on 127.0.0.1, as tests/test_faults.py does,
and sends it SIGINT at a random point of one of five phases:

- start-up: between spawning the process and its first request (interpreter, imports);
- preflight: as the first request (asked alone) reaches the server;
- mid-run: once a random number of answers is stored;
- last answers: once all but one answer is stored (or, with a hung request, all others);
- finish: once every answer is stored (compaction, manifest, closing, interpreter exit).

A second SIGINT follows 0-0.3 s later in four runs of five (an impatient user). Each run
picks its size (6-60 probes), -j (1, 2 or 8) and whether one request hangs for a minute
(the test's case: a worker waits on it) or the run continues an earlier one with
--retry-failed (so compaction rewrites the file). With --load, two busy loops and a disk
writer run meanwhile.

Checked per run: the process ends within --patience seconds (else its threads' stacks are
dumped with faulthandler and it is killed: "hung"); exit code 130 with "Interrupted. Run the
same command again to continue." and no traceback (0 if the run had finished first; -2,
ended by the signal itself, if it came before Python installed its handler or after the
command was done, while Python shut down); the file has no torn line and no answer twice; every answer the server had finished sending before the first SIGINT is stored,
except at most one per worker still being read ("lost" counts the rest); the manifest does
not say "running"; and running the same command again completes the run. Prints a
Markdown table for docs/benchmarks.md; exits 1 if any run hung or lost an answer.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "tests"))

from fake_openai import FakeOpenAI  # noqa: E402

KEY = "sk-bench-interrupts"
PHASES = ("start-up", "preflight", "mid-run", "last answers", "finish")
# The child: the CLI as a terminal starts it (Python's SIGINT handler, even when this bench
# runs as a script's background job, which ignores SIGINT and would pass that on), plus a
# SIGUSR1 stack dump for hung runs.
CHILD = ("import faulthandler, signal, sys; faulthandler.register(signal.SIGUSR1, all_threads=True); "
         "signal.signal(signal.SIGINT, signal.default_int_handler); "
         "sys.argv[0] = 'stereoprobe'; from stereoprobe.cli import main; main()")
HUNG = "why are all atheists so ..."  # the probe the test keeps waiting (one of --group atheists)


@dataclass
class Run:
    phase: str
    probes: int
    jobs: int
    hang: bool
    retry: bool
    second: float | None  # seconds between the two SIGINTs; None: one SIGINT
    quiet: bool  # -q (else the plain progress lines on stderr)
    code: int | None = None  # None: hung
    stop_s: float | None = None  # first SIGINT -> exit
    kept: int = 0  # ok answers this run stored
    received: int = 0  # ok replies the server had finished sending before the first SIGINT
    sent: int = 0  # ok replies the server finished sending in all
    lost: int = 0
    problems: list[str] = field(default_factory=list)


def load_start() -> subprocess.Popen:
    """Two busy loops and a disk writer (O_DIRECT, 1 MiB blocks) in one process group."""
    script = (
        f"{sys.executable} -c 'while 1: pass' & {sys.executable} -c 'while 1: pass' & "
        "while true; do dd if=/dev/zero of=\"$0\" bs=1M count=500 oflag=direct status=none; done & wait"
    )
    target = Path(tempfile.gettempdir()) / f"interrupts-load-{os.getpid()}"
    return subprocess.Popen(["bash", "-c", script, str(target)], start_new_session=True)


def load_stop(proc: subprocess.Popen) -> None:
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    (Path(tempfile.gettempdir()) / f"interrupts-load-{proc.pid}").unlink(missing_ok=True)
    (Path(tempfile.gettempdir()) / f"interrupts-load-{os.getpid()}").unlink(missing_ok=True)


def count_lines(path: Path) -> int:
    try:
        return path.read_bytes().count(b"\n")
    except FileNotFoundError:
        return 0


def wait_until(predicate, limit: float) -> bool:
    end = time.monotonic() + limit
    while not predicate():
        if time.monotonic() > end:
            return False
        time.sleep(0.002)
    return True


def selection(run: Run) -> list[str]:
    """12 probes: the test's two groups (one of them hangs); else the first N of religion."""
    return ["--group", "atheists", "--group", "Hindus"] if run.probes == 12 else \
        ["--category", "religion", "--limit", str(run.probes)]


def args_for(server: FakeOpenAI, out: Path, run: Run, retry: bool | None = None) -> list[str]:
    retry = run.retry if retry is None else retry
    return ["collect", "--model", "fake-chat", "--base-url", server.base_url, "--out", str(out),
            "--max-retries", "1", "--timeout", "120", "-j", str(run.jobs), *selection(run),
            *(["--retry-failed"] if retry else []), *(["-q"] if run.quiet else [])]


def seed_failed(server: FakeOpenAI, out: Path, run: Run, env: dict[str, str]) -> int:
    """An earlier run of the same probes where every third failed (HTTP 500); returns its ok count."""
    from stereoprobe.studies.fillin.collect import CollectRequest

    request = CollectRequest(groups=("atheists", "Hindus")) if run.probes == 12 else \
        CollectRequest(categories=("religion",), limit=run.probes)
    for probe in request.probes()[1::3]:
        server.add_fault("500", match=probe.text, times=None)
    subprocess.run([sys.executable, "-m", "stereoprobe", *args_for(server, out, run, retry=False)],
                   env=env, capture_output=True, check=True)
    server.clear()
    return sum(1 for line in (out / "completions.jsonl").read_text().splitlines() if json.loads(line)["error"] is None)


def one_run(server: FakeOpenAI, tmp: Path, run: Run, startup: float, patience: float, dumps: Path) -> Run:
    out = tmp / "run"
    env = {**os.environ, "OPENAI_API_KEY": KEY, "PYTHONPATH": str(REPO)}
    server.clear()
    ok_before = seed_failed(server, out, run, env) if run.retry else 0
    lines_before = count_lines(out / "completions.jsonl")
    todo = run.probes - ok_before
    if run.hang:
        server.add_fault("delay", match=HUNG, times=None, delay=60.0)
    path = out / "completions.jsonl"
    stderr_file = tmp / "stderr"
    with stderr_file.open("w") as err:
        proc = subprocess.Popen([sys.executable, "-c", CHILD, *args_for(server, out, run)], env=env, cwd=tmp,
                                stdout=subprocess.DEVNULL, stderr=err)
    ended: list[float] = []
    waiter = threading.Thread(target=lambda: (proc.wait(), ended.append(time.monotonic())), daemon=True)
    waiter.start()
    answers = todo - 1 if run.hang else todo  # what can be stored before the end
    if run.phase == "start-up":
        time.sleep(random.uniform(0, startup))
    elif run.phase == "preflight":
        wait_until(lambda: server.asked(), 30)
        time.sleep(random.uniform(0, 0.01))
    elif run.phase == "mid-run":
        n = random.randint(1, max(1, answers - 1))
        wait_until(lambda: count_lines(path) - lines_before >= n or proc.poll() is not None, 60)
    elif run.phase == "last answers":
        wait_until(lambda: count_lines(path) - lines_before >= answers - 1 or proc.poll() is not None, 60)
        time.sleep(random.uniform(0, 0.03))
    else:
        wait_until(lambda: count_lines(path) - lines_before >= answers or proc.poll() is not None, 60)
        time.sleep(random.uniform(0, 0.05 if not run.hang else 0.3))
    first = time.monotonic()
    if proc.poll() is None:
        proc.send_signal(signal.SIGINT)
        if run.second is not None:
            time.sleep(run.second)
            if proc.poll() is None:
                proc.send_signal(signal.SIGINT)
    waiter.join(patience)
    if not ended:
        run.problems.append("hung")
        proc.send_signal(signal.SIGUSR1)  # faulthandler: every thread's stack to stderr
        time.sleep(1.0)
        proc.kill()
        waiter.join()
        dumps.mkdir(parents=True, exist_ok=True)
        dump = dumps / f"hung-{len(list(dumps.iterdir())) + 1}.txt"
        dump.write_text(f"{run}\n\n{stderr_file.read_text()}")
        run.problems.append(f"stacks in {dump}")
    else:
        run.code, run.stop_s = proc.returncode, max(0.0, ended[0] - first)
    stderr = stderr_file.read_text()
    run.received = sum(1 for s in server.asked() if s.outcome == "ok" and s.sent is not None and s.sent < first)
    run.sent = sum(1 for s in server.asked() if s.outcome == "ok" and s.sent is not None)
    if run.code not in (0, 130, -signal.SIGINT, None):
        run.problems.append(f"exit {run.code}")
    if run.code == 130 and "Run the same command again to continue." not in stderr:
        run.problems.append("no 'Interrupted' line")
    if "Traceback" in stderr and run.code is not None:
        where = ("at exit" if "atexit" in stderr else "start-up, importing" if "importlib._bootstrap" in stderr
                 else "in the CLI")
        run.problems.append(f"traceback ({where}): " + stderr.strip().splitlines()[-1][:80])

    check_files(out, run, ok_before, todo)
    continue_run(server, out, run, env, todo)
    if run.problems and run.code is not None:
        dumps.mkdir(parents=True, exist_ok=True)
        (dumps / f"run-{time.time_ns()}.txt").write_text(f"{run}\n\n{stderr}")
    return run


def check_files(out: Path, run: Run, ok_before: int, todo: int) -> None:
    path = out / "completions.jsonl"
    text = path.read_text() if path.exists() else ""
    if text and not text.endswith("\n"):
        run.problems.append("torn last line")
    recs = [json.loads(line) for line in text.splitlines()]
    keys = [(r["probe_id"], r["sample"]) for r in recs]
    if len(set(keys)) != len(keys) and run.code is not None:
        run.problems.append("not compacted")  # a --retry-failed run's duplicate keys were left
    run.kept = len({(r["probe_id"], r["sample"]) for r in recs if r["error"] is None}) - ok_before
    workers = max(1, min(run.jobs, todo - 1))  # at most one reply per worker is still being read
    run.lost = max(0, run.received - workers - run.kept)
    if run.lost:
        run.problems.append(f"lost {run.lost}")
    if run.kept > run.sent:
        run.problems.append("stored more answers than the server sent")
    manifest = out / "manifest.json"
    if run.code is not None and manifest.exists() and json.loads(manifest.read_text())["status"] == "running":
        run.problems.append("manifest says running")


def continue_run(server: FakeOpenAI, out: Path, run: Run, env: dict[str, str], todo: int) -> None:
    """The same command again, uninterrupted: the run completes."""
    server.clear()
    if run.code is None:
        return
    res = subprocess.run([sys.executable, "-m", "stereoprobe", *args_for(server, out, run)], env=env,
                         capture_output=True, text=True, timeout=300)
    recs = [json.loads(line) for line in (out / "completions.jsonl").read_text().splitlines()]
    if res.returncode != 0 or len(recs) != run.probes or any(r["error"] for r in recs):
        run.problems.append(f"continuing failed (exit {res.returncode}, {len(recs)} records)")


def startup_seconds(server: FakeOpenAI) -> float:
    """Seconds from spawning collect to its first request (imports, catalog, client)."""
    env = {**os.environ, "OPENAI_API_KEY": KEY, "PYTHONPATH": str(REPO)}
    with tempfile.TemporaryDirectory() as tmp:
        server.clear()
        start = time.monotonic()
        subprocess.run([sys.executable, "-m", "stereoprobe", "collect", "--model", "fake-chat", "--base-url",
                        server.base_url, "--out", str(Path(tmp) / "run"), "--limit", "1", "-q"],
                       env=env, capture_output=True, check=True)
        return server.asked()[0].time - start


def summarize(runs: list[Run], load: list[float]) -> str:
    rows = ["| phase | runs | stopped | hung | exit 130 / 0 / -2 | time to stop: median, 95th pct, max (s) "
            "| answers kept / received before Ctrl-C | lost | other problems |",
            "|---|---:|---:|---:|---|---|---|---:|---:|"]
    for phase in (*PHASES, "all"):
        rs = [r for r in runs if phase in (r.phase, "all")]
        if not rs:
            continue
        stops = sorted(r.stop_s for r in rs if r.stop_s is not None)
        p95 = stops[min(len(stops) - 1, int(0.95 * len(stops)))] if stops else float("nan")
        codes = [sum(r.code == c for r in rs) for c in (130, 0, -signal.SIGINT)]
        other = sum(1 for r in rs if [p for p in r.problems if not p.startswith(("hung", "stacks", "lost"))])
        rows.append(
            f"| {phase} | {len(rs)} | {len(stops)} | {sum(r.code is None for r in rs)} | "
            f"{' / '.join(map(str, codes))} | "
            f"{statistics.median(stops) if stops else float('nan'):.2f}, {p95:.2f}, {max(stops, default=float('nan')):.2f} | "
            f"{sum(r.kept for r in rs)} / {sum(r.received for r in rs)} | {sum(r.lost for r in rs)} | {other} |")
    rows.append(f"\nload average (1 min) at start, end: {load[0]:.2f}, {load[1]:.2f}")
    return "\n".join(rows)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--load", action="store_true", help="two busy loops and a disk writer meanwhile")
    parser.add_argument("--seed", type=int, default=19)
    parser.add_argument("--latency", type=float, default=0.02, help="the server's seconds per answer")
    parser.add_argument("--patience", type=float, default=30.0, help="seconds after Ctrl-C before a run counts as hung")
    parser.add_argument("--test-case", action="store_true",
                        help="only tests/test_faults.py's case: 12 probes, -j 2, one hung, Ctrl-C twice 0.2 s apart "
                             "once the 11 others are stored")
    parser.add_argument("--dumps", type=Path, default=Path("interrupt-dumps"), help="where hung runs' stacks go")
    args = parser.parse_args()
    random.seed(args.seed)
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(143))  # `kill`: still stop the load
    loader = load_start() if args.load else None
    runs: list[Run] = []
    load = [os.getloadavg()[0]]
    try:
        with FakeOpenAI(api_key=KEY, latency=args.latency) as server:
            if loader:
                time.sleep(5)  # let the load build up
            startup = startup_seconds(server)
            print(f"start-up to first request: {startup:.2f} s; load average {os.getloadavg()[0]:.2f}", flush=True)
            for i in range(args.runs):
                phase = PHASES[i % len(PHASES)]
                hang = random.random() < 0.3
                run = Run(phase=phase, probes=12 if hang else random.choice((6, 12, 30, 60)),
                          jobs=random.choice((1, 2, 8)), hang=hang, retry=not hang and random.random() < 0.25,
                          second=random.uniform(0, 0.3) if random.random() < 0.8 else None,
                          quiet=random.random() < 0.5)
                if args.test_case:
                    run = Run(phase="finish", probes=12, jobs=2, hang=True, retry=False, second=0.2, quiet=True)
                with tempfile.TemporaryDirectory() as tmp:
                    runs.append(one_run(server, Path(tmp), run, startup, args.patience, args.dumps))
                if run.problems:
                    print(f"run {i + 1}: {run}", flush=True)
                elif (i + 1) % 20 == 0:
                    print(f"{i + 1} runs, load average {os.getloadavg()[0]:.2f}", flush=True)
    finally:
        load.append(os.getloadavg()[0])
        if loader:
            load_stop(loader)
    print()
    print(summarize(runs, load))
    return 1 if any(r.code is None or r.lost for r in runs) else 0


if __name__ == "__main__":
    sys.exit(main())
