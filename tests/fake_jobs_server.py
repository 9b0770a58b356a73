"""FakeOpenAI with the jobs study's toy model (tests/fake_scoring.py), in its own process.

``python tests/fake_jobs_server.py [--latency S]`` prints its base URL, then serves until
killed (tests/test_jobs.py kills a collect run against it with SIGKILL).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from fake_openai import FakeOpenAI  # noqa: E402
from fake_scoring import ScoringModel  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--latency", type=float, default=0.0)
    args = parser.parse_args()
    server = FakeOpenAI(api_key=None, latency=args.latency)
    server.scoring = ScoringModel(probability={" He": .02, " She": .06, " They": .02})
    server.start()
    print(server.base_url, flush=True)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        server.stop()


if __name__ == "__main__":
    main()
