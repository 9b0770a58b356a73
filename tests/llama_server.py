"""Start llama-cpp-python's OpenAI-compatible server with the embedded path's weight buffer.

``python tests/llama_server.py --model F ...`` runs ``python -m llama_cpp.server`` with the
same arguments; on CPUs where the embedded backends keep the weights in the plain CPU
buffer (``stereoprobe.backends.modelfile.amx_faults``), the server does too, so both run
the same kernels (the server's AMX kernels give probabilities up to about 10% apart
from the plain ones: docs/nextword.md). Elsewhere the server loads as it always does.
Used by tests/test_nextword_served.py and bench/bench_nextword_remote.py.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def main() -> None:
    from stereoprobe.backends.modelfile import amx_faults

    if amx_faults():
        import llama_cpp.llama_cpp as lib

        default = lib.llama_model_default_params

        def plain():  # type: ignore[no-untyped-def]
            params = default()
            params.use_extra_bufts = False
            return params

        lib.llama_model_default_params = plain
    from llama_cpp.server.__main__ import main as serve

    sys.argv[0] = "llama_cpp.server"
    serve()


if __name__ == "__main__":
    main()
