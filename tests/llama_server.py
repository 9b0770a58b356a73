"""Start llama-cpp-python's OpenAI-compatible server with the embedded path's weight buffer.

``python tests/llama_server.py --model F ...`` runs ``python -m llama_cpp.server`` with the
same arguments; on CPUs where the embedded backends keep the weights in the plain CPU
buffer (``stereoprobe.backends.modelfile.amx_faults``), the server does too, so both run
the same kernels (the server's AMX kernels give probabilities up to about 10% apart
from the plain ones: docs/nextword.md). Elsewhere the server loads as it always does.

``--fd N`` (before the server's own arguments) serves on an already listening socket the
parent passed down instead of binding ``--host``/``--port`` itself: ``serve()`` binds port 0,
so the kernel picks a port no other process holds, and nothing can take it between
choosing and binding (two pytest-xdist workers, or another program, starting servers at
once). Used by tests/conftest.py (``llama_server_url``) and bench/bench_nextword_remote.py.
"""

from __future__ import annotations

import builtins
import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

#: the server as docs/nextword.md's recipe starts it: ``--n_batch 1``, the prompt decoded
#: token by token as the embedded model decodes the probe (a decode whose batch size differs
#: from the previous one costs seconds on CPU; on CPUs with AMX a larger batch crashes that build)
ARGS = ("--model_alias", "gemma", "--n_ctx", "256", "--n_batch", "1", "--n_ubatch", "1", "--verbose", "false")


@contextmanager
def serve(model: str | os.PathLike[str], log: Path, *, timeout: float = 300) -> Iterator[str]:
    """The server holding ``model`` on 127.0.0.1, on a port the kernel picked; yields its
    ``/v1`` URL once it answers ``/v1/models`` (``timeout`` only bounds a server that never
    starts), and stops it afterwards. Its output goes to the file ``log`` (a file, not a
    pipe: a full pipe would block the server)."""
    with socket.socket() as sock, open(log, "wb") as out:
        sock.bind(("127.0.0.1", 0))
        sock.listen(64)  # connections wait in the backlog until the server accepts them
        url = f"http://127.0.0.1:{sock.getsockname()[1]}/v1"
        proc = subprocess.Popen(
            [sys.executable, __file__, "--fd", str(sock.fileno()), "--model", str(model), *ARGS],
            pass_fds=[sock.fileno()], stdout=out, stderr=subprocess.STDOUT,
            env={**os.environ, "NO_PROXY": "127.0.0.1"})
        try:
            deadline = time.monotonic() + timeout
            while True:
                try:
                    with urllib.request.urlopen(f"{url}/models", timeout=5):
                        break
                except OSError:
                    if proc.poll() is not None or time.monotonic() > deadline:
                        proc.kill()
                        raise RuntimeError("llama_cpp.server did not start: " + log.read_text()[-2000:]) from None
                    time.sleep(0.3)
            yield url
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def _serve_on(fd: int) -> None:
    """Make llama_cpp.server's ``uvicorn.run(app, host=, port=, ...)`` serve on the
    listening socket ``fd`` (uvicorn's own path for sockets handed over, as Gunicorn does)."""
    import uvicorn

    def run(app, host: str = "127.0.0.1", port: int = 0, **kwargs):  # type: ignore[no-untyped-def]
        sock = socket.socket(fileno=fd)  # family and type read from the descriptor
        port = sock.getsockname()[1]
        uvicorn.Server(uvicorn.Config(app, host=host, port=port, **kwargs)).run(sockets=[sock])

    uvicorn.run = run


class _Ranked:
    """``zip(values, range(len(values)))`` as llama_cpp.llama makes it to rank one position's logprobs."""

    def __init__(self, values) -> None:  # type: ignore[no-untyped-def]
        self.values = values

    def __iter__(self):  # type: ignore[no-untyped-def]
        return builtins.zip(self.values, range(len(self.values)))


def _zip(*args, **kwargs):  # type: ignore[no-untyped-def]
    import numpy as np

    if (len(args) == 2 and not kwargs and isinstance(args[0], (list, np.ndarray)) and isinstance(args[1], range)
            and args[1] == range(len(args[0]))):
        return _Ranked(args[0])
    return builtins.zip(*args, **kwargs)


def _sorted(iterable, *, key=None, reverse=False):  # type: ignore[no-untyped-def]
    """``sorted(zip(values, range(n)), reverse=True)``, the same list in the same order
    (logprob descending, ties by index descending) from numpy's sort instead of Python's
    sort of n tuples; anything else as ``sorted`` does it."""
    import numpy as np

    if not (isinstance(iterable, _Ranked) and key is None and reverse):
        return builtins.sorted(iterable, key=key, reverse=reverse)
    values = iterable.values
    arr = np.asarray(values)
    order = np.lexsort((-np.arange(len(arr)), -arr))
    ranked = arr[order] if isinstance(values, np.ndarray) else [values[i] for i in order.tolist()]
    return list(builtins.zip(ranked, order.tolist()))


def fast_ranking() -> None:
    """Rank logprobs with numpy in llama-cpp-python's completions: byte-identical answers.

    llama-cpp-python 0.3 ranks every returned position's logprobs with
    ``sorted(zip(logprobs, range(len(logprobs))), reverse=True)``, a Python sort of the
    whole vocabulary (262,144 tokens for gemma 3): most of a request's time (docs/nextword.md).
    The tests' server replaces the ``zip`` and ``sorted`` that module sees with ones giving
    that list, in that order, from numpy (tests/test_nextword_served.py checks them against Python's
    on ties); every other call goes to the builtins."""
    import llama_cpp.llama as module

    module.zip, module.sorted = _zip, _sorted  # type: ignore[attr-defined]


def main() -> None:
    from stereoprobe.backends.modelfile import amx_faults

    fast_ranking()

    if sys.argv[1:2] == ["--fd"]:
        _serve_on(int(sys.argv[2]))
        del sys.argv[1:3]
    if amx_faults():
        import llama_cpp.llama_cpp as lib

        default = lib.llama_model_default_params

        def plain():  # type: ignore[no-untyped-def]
            params = default()
            params.use_extra_bufts = False
            return params

        lib.llama_model_default_params = plain
    from llama_cpp.server.__main__ import main as serve_forever

    sys.argv[0] = "llama_cpp.server"
    serve_forever()


if __name__ == "__main__":
    main()
