"""Faults that used to lose answers or hang (issue 9, section 2): two collects on one run
directory, a hung endpoint, Ctrl-C, a full disk and short writes."""

from __future__ import annotations

import errno
import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from conftest import AS_FROM_A_TERMINAL, REPO, TEST_KEY
from test_collect import api, cli_args, lines, one_error_line

from stereoprobe.records import Answer
from stereoprobe.store import RunStore


def test_a_second_collect_on_a_locked_run_dir_is_refused_naming_the_holder(fake_openai, api_key, tmp_path, run_cli):
    out = tmp_path / "run"
    api(fake_openai, out, groups=["atheists"])
    before = (out / "completions.jsonl").read_bytes()
    holder = RunStore(out)
    holder.lock()  # another collect is running on this directory
    try:
        res = run_cli(*cli_args(fake_openai, out, "--group", "atheists", "--group", "Hindus"))
        line = one_error_line(res)
        assert f"is in use by pid {os.getpid()} on " in line and "--out NEW_DIR" in line
        assert (out / "completions.jsonl").read_bytes() == before
        assert len(fake_openai.asked()) == 6  # nothing asked by the refused run
    finally:
        holder.unlock()
    res = run_cli(*cli_args(fake_openai, out, "--group", "atheists", "--group", "Hindus"))
    assert res.exit_code == 0, res.stderr  # the lock is gone with its holder


def test_a_hung_endpoint_stops_the_run_with_one_line_naming_it(fake_openai, api_key, tmp_path, run_cli):
    fake_openai.add_fault("delay", times=None, delay=30.0)  # every request hangs
    out = tmp_path / "run"
    start = time.monotonic()
    res = run_cli(*cli_args(fake_openai, out, "--group", "atheists", "--timeout", "0.3", "--max-retries", "0"))
    line = one_error_line(res)
    assert line.startswith(f"Error: {fake_openai.base_url}/ answered nothing before timing out")
    # it stops after the first timeout (0.3 s), not when the server answers (30 s): 10 s
    # leaves a loaded machine room and still fails a run that waits for the hung request
    assert time.monotonic() - start < 10
    assert len(fake_openai.asked()) == 1


def test_later_timeouts_stay_per_probe_failures(fake_openai, api_key, tmp_path):
    fake_openai.add_fault("delay", match="why are all atheists so ...", times=None, delay=30.0)
    # the other five must answer within the timeout: 1 s is 100 times what they take, room
    # for a loaded machine (at 0.3 s a busy one could fail them too)
    result = api(fake_openai, tmp_path / "run", groups=["atheists"], timeout=1.0, max_retries=0)
    assert (result.counts["ok"], result.counts["failed"]) == (5, 1)


def _wait_for(predicate, seconds: float) -> None:
    end = time.monotonic() + seconds
    while not predicate():
        assert time.monotonic() < end, "timed out waiting"
        time.sleep(0.05)


def test_ctrl_c_stops_at_once_and_keeps_every_answer_received(fake_openai, tmp_path):
    hung = "why are all atheists so ..."
    fake_openai.add_fault("delay", match=hung, times=None, delay=60.0)
    out = tmp_path / "run"
    # PYTHONFAULTHANDLER: a SIGABRT makes a hung process print every thread's stack
    env = {**os.environ, "OPENAI_API_KEY": TEST_KEY, "PYTHONPATH": str(REPO), "PYTHONFAULTHANDLER": "1"}
    args = cli_args(fake_openai, out, "--group", "atheists", "--group", "Hindus", "-j", "2", "--timeout", "90")
    proc = subprocess.Popen([sys.executable, "-c", AS_FROM_A_TERMINAL, *args], env=env, cwd=tmp_path,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        path = out / "completions.jsonl"
        # all but the hung probe are answered; one worker waits on the hung request (a
        # state, not a time: 60 s only bounds a run that never gets there)
        _wait_for(lambda: path.exists() and path.read_text().count("\n") == 11, 60)
        assert len(fake_openai.asked(hung)) == 1
        proc.send_signal(signal.SIGINT)
        start = time.monotonic()
        time.sleep(0.2)
        proc.send_signal(signal.SIGINT)  # an impatient second Ctrl-C
        # "At once": the hung request answers after 60 s, so a run that waits for it takes
        # a minute; stopping takes under a second even on a loaded machine (bench/interrupts.py),
        # and 10 s leaves a loaded CI machine room without letting a wait pass.
        try:
            _, stderr = proc.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            proc.send_signal(signal.SIGABRT)
            raise AssertionError(f"still running 10 s after Ctrl-C:\n{proc.communicate()[1]}") from None
        assert time.monotonic() - start < 10
    finally:
        proc.kill()
    assert proc.returncode == 130 and "Traceback" not in stderr
    assert "Run the same command again to continue." in stderr
    recs = lines(out)
    assert len(recs) == 11 and all(r["error"] is None for r in recs)
    assert hung not in {r["prompt"].rsplit("Sentence: ", 1)[-1] for r in recs}
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["status"] == "stopped" and manifest["counts"]["ok"] == 11



def test_sigterm_stops_the_run_in_order_and_keeps_every_answer_received(fake_openai, tmp_path):
    hung = "why are all atheists so ..."
    fake_openai.add_fault("delay", match=hung, times=None, delay=60.0)
    out = tmp_path / "run"
    env = {**os.environ, "OPENAI_API_KEY": TEST_KEY, "PYTHONPATH": str(REPO), "PYTHONFAULTHANDLER": "1"}
    args = cli_args(fake_openai, out, "--group", "atheists", "--group", "Hindus", "-j", "2", "--timeout", "90")
    proc = subprocess.Popen([sys.executable, "-m", "stereoprobe", *args], env=env, cwd=tmp_path,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        path = out / "completions.jsonl"
        _wait_for(lambda: path.exists() and path.read_text().count("\n") == 11, 60)  # a state, as above
        proc.send_signal(signal.SIGTERM)  # `kill PID`
        try:
            _, stderr = proc.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            proc.send_signal(signal.SIGABRT)
            raise AssertionError(f"still running 10 s after SIGTERM:\n{proc.communicate()[1]}") from None
    finally:
        proc.kill()
    assert proc.returncode == -signal.SIGTERM  # ended by the signal, as a killed process is
    recs = lines(out)
    assert len(recs) == 11 and all(r["error"] is None for r in recs)
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["status"] == "stopped" and manifest["counts"]["ok"] == 11  # finished, not left "running"

class _HangsAfter:
    """A backend that answers its first `n` asks at once and hangs on every later one; when
    every worker hangs (so each answer given is in collect's hands, stored or queued), it
    presses Ctrl-C twice, `gap` seconds apart."""

    mode = "chat"

    def __init__(self, n: int, concurrency: int, gap: float):
        self.n, self.gap, self.max_concurrency = n, gap, concurrency
        self.workers = 1 if n == 0 else concurrency  # the preflight is asked alone
        self.lock = threading.Lock()
        self.asked = self.hanging = 0
        self.pressed = threading.Event()  # both Ctrl-Cs sent
        self.first_at = 0.0
        self.release = threading.Event()

    def describe(self):
        return {"backend": "hangs-after", "model": "m", "endpoint": None}

    def prompt(self, probe):
        return probe.text

    def attempts_of_last_ask(self):
        return 1

    def close(self):
        self.release.set()

    def ask(self, probe):
        with self.lock:
            self.asked += 1
            if self.asked <= self.n:
                return Answer(words=[], raw="1. Kind\n2. Wise")
            self.hanging += 1
            last = self.hanging == self.workers
        if last:
            self.first_at = time.monotonic()
            signal.raise_signal(signal.SIGINT)
            time.sleep(self.gap)
            signal.raise_signal(signal.SIGINT)
            self.pressed.set()
        self.release.wait()
        raise RuntimeError("abandoned")


@pytest.mark.parametrize("n, concurrency, gap", [
    (0, 1, 0.0), (0, 4, 0.01),  # during the preflight (asked alone)
    (1, 1, 0.0), (1, 8, 0.002),  # right after it
    (40, 1, 0.001), (40, 2, 0.0), (40, 8, 0.005),  # mid-run
    (250, 2, 0.0), (250, 8, 0.001), (250, 8, 0.02),  # many answers not stored yet
])
def test_a_second_ctrl_c_while_a_run_stops_loses_no_answer(tmp_path, n, concurrency, gap):
    from stereoprobe.studies.fillin.catalog import load_catalog
    from stereoprobe.collect import collect
    from stereoprobe.store import is_locked
    from stereoprobe.studies.fillin.ask import study_run

    probes = load_catalog().probes()[:300]
    backend = _HangsAfter(n, concurrency, gap)
    presses = []

    def ctrl_c(signum, frame):  # Python's handler for the first Ctrl-C; later ones are counted
        presses.append(time.monotonic())
        if len(presses) == 1:
            raise KeyboardInterrupt

    before = signal.signal(signal.SIGINT, ctrl_c)
    try:
        with pytest.raises(KeyboardInterrupt):
            collect(probes, backend, tmp_path / "run", concurrency=concurrency, progress=False,
                    study=study_run(None, probes, backend.mode))
        stopped = time.monotonic()
        assert backend.pressed.wait(60)  # the second Ctrl-C is handled before ours is restored
    finally:
        signal.signal(signal.SIGINT, before)
        backend.release.set()
    # at once: the hung asks never return, so a run waiting for them would never end
    # (10 s: room for a loaded machine; it takes milliseconds)
    assert stopped - backend.first_at < 10
    # collect passed the Ctrl-C on once; a second one, if it came after, reached ours
    assert len(presses) in (1, 2)
    recs = lines(tmp_path / "run")
    assert len(recs) == n and all(r["error"] is None for r in recs)
    assert len({(r["probe_id"], r["sample"]) for r in recs}) == n
    manifest = json.loads((tmp_path / "run" / "manifest.json").read_text())
    assert (manifest["status"], manifest["counts"]["ok"]) == ("stopped", n)
    assert (manifest["sessions"][-1]["status"], manifest["sessions"][-1]["asked"]) == ("stopped", n)
    assert not is_locked(tmp_path / "run")


def test_a_full_disk_is_one_line_and_keeps_what_was_stored(fake_openai, api_key, tmp_path, run_cli, monkeypatch):
    import stereoprobe.store as store

    real_write, calls = os.write, []

    def write(fd, data):
        if fd > 2 and data.startswith(b'{"probe_id"'):
            calls.append(fd)
            if len(calls) > 3:
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real_write(fd, data)

    def no_space(*args, **kwargs):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    out = tmp_path / "run"
    monkeypatch.setattr(store.os, "write", write)
    real_atomic = store.atomic_write
    monkeypatch.setattr(store, "atomic_write", lambda path, text: real_atomic(path, text) if len(calls) < 3 else no_space())
    res = run_cli(*cli_args(fake_openai, out, "--group", "atheists"))
    line = one_error_line(res)
    assert "No space left on device" in line and "free disk space" in line
    assert len(lines(out)) == 3
    from stereoprobe.manifest import read_manifest

    monkeypatch.undo()
    assert read_manifest(out).status == "stopped"  # not "running" forever


def test_a_short_write_is_completed_not_torn(tmp_path, monkeypatch):
    import stereoprobe.store as store
    from stereoprobe.records import Completion

    real_write = os.write
    monkeypatch.setattr(store.os, "write", lambda fd, data: real_write(fd, data[:7]))  # 7 bytes at a time
    run = RunStore(tmp_path)
    run.open()
    rec = Completion("p1", 0, "age", "old people", "are_so", "statement", "old people are so ...", ["wise"])
    run.append(rec)
    run.close()
    monkeypatch.undo()
    assert store.read_completions(tmp_path) == [rec]
    assert Path(tmp_path / "completions.jsonl").read_text().count("\n") == 1


def test_progress_outside_a_terminal_is_a_plain_line_every_few_seconds(capsys, monkeypatch):
    import stereoprobe.progress as progress

    class Clock:  # 3 ms per probe, whatever the machine's load (a real sleep is not)
        now = 0.0

        def monotonic(self):
            return self.now

    clock = Clock()
    monkeypatch.setattr(progress, "time", clock)
    bar = progress.PlainProgress(total=300, every=0.2)
    for i in range(1, 301):
        clock.now = i * 0.003
        bar.update(1)  # as collect does: the count, then the postfix
        bar.set_postfix({"ok": i, "failed": 0})
    bar.close()
    out = capsys.readouterr().err.splitlines()
    # a line once 0.2 s have passed (67 probes at 3 ms), not one per update, and at the end
    assert out == [f"{n}/300 probes ({n - 1} ok, 0 failed), 333.3/s" for n in (67, 134, 201, 268)] + [
        "300/300 probes (300 ok, 0 failed), 333.3/s"]


def test_a_full_disk_at_the_start_is_one_line_and_changes_nothing(fake_openai, api_key, tmp_path, run_cli, monkeypatch):
    import stereoprobe.store as store

    out = tmp_path / "run"
    assert run_cli(*cli_args(fake_openai, out, "--group", "Sikhs", "--limit", "2")).exit_code == 0
    before = {f: (out / f).read_bytes() for f in ("completions.jsonl", "manifest.json")}

    def no_space(*args, **kwargs):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(store.tempfile, "mkstemp", no_space)
    res = run_cli(*cli_args(fake_openai, out, "--group", "Sikhs"))
    assert "No space left on device" in one_error_line(res)
    monkeypatch.undo()
    assert {f: (out / f).read_bytes() for f in before} == before


def test_a_fake_server_whose_handler_raises_fails_the_test_that_used_it(monkeypatch):
    """A handler that raises drops the connection, which the client retries with back-off:
    a bench whose patched reply function lacked an argument ran 40x slower and passed. The
    fake now names the handler's exception when it is stopped."""
    import coref_fake
    import openai
    from fake_openai import FakeOpenAI

    # the bench's mistake: a replacement that takes one argument fewer than the fake passes
    monkeypatch.setattr(coref_fake, "biased_reply", lambda prompt, bias: None)
    with pytest.raises(AssertionError, match=r"handler raised 1 time\(s\): TypeError"):
        with FakeOpenAI(api_key=TEST_KEY, coreference_bias=0.5) as fake:
            client = openai.OpenAI(api_key=TEST_KEY, base_url=fake.base_url, max_retries=0)
            with pytest.raises(openai.APIConnectionError):
                client.chat.completions.create(model="fake-chat", messages=[{"role": "user", "content": "Who was late?"}])
