"""A full fill-in chat run without the network: every one of the catalog's 2,292 probes asked
through `stereoprobe collect` (chat mode, over HTTP) of the fake server (tests/fake_openai.py),
whose replies are ten words drawn per probe (seeded by the probe's text) with Zipf-like
weights from bench_sentiment's vocabulary (1,500 WordNet adjectives, 57% in EmoLex), the
probes about Mormons refused; then scored with
`stereoprobe sentiment`. The run bench_fillin_speed.py times `report` and `sentiment` on.

    PYTHONPATH=. python bench/fillin_chat_run.py DIR     # writes DIR (a new directory)
"""

from __future__ import annotations

import hashlib
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests"), str(ROOT / "bench")]

KEY = "sk-bench-key"
REFUSE = "Mormons"  # the fake server refuses every probe whose text holds it


def vocabulary(seed: int = 2023) -> tuple[list[str], list[float]]:
    """bench_sentiment's: 1,500 single-word WordNet adjectives, 57% of them in EmoLex (as in
    the paper), the rest labelled through lemmas and synonyms; Zipf-like weights."""
    from bench_sentiment import VOCABULARY, adjectives

    words = adjectives(VOCABULARY, seed)
    return words, [1.0 / (rank + 1) ** 0.8 for rank in range(len(words))]


def zipf_answer_words(words: list[str], weights: list[float]):
    """A stand-in for tests/fake_openai.answer_words (the same parameters, which the fake server
    passes): ten distinct ``words`` drawn with ``weights``, seeded by the message. The run is one
    model's, so ``seed`` and ``negative`` must be left at their defaults."""

    def answer_words(message: str, seed: int | None = None, negative: float = 0.0) -> list[str]:
        if seed is not None or negative:
            raise ValueError("the bench's fill-in run is one model's: no seed, no negative share")
        rng = random.Random(int(hashlib.sha1(message.encode("utf-8")).hexdigest(), 16))
        picked: list[str] = []
        while len(picked) < 10:
            w = rng.choices(words, weights)[0]
            if w not in picked:
                picked.append(w)
        return picked

    return answer_words


def make_run(out: Path) -> None:
    import fake_openai
    from click.testing import CliRunner

    from stereoprobe.cli import cli

    fake_openai.answer_words = zipf_answer_words(*vocabulary())
    with fake_openai.FakeOpenAI(api_key=KEY, refuse_marker=REFUSE) as fake:
        res = CliRunner().invoke(cli, ["collect", "--model", "fake-chat", "--base-url", fake.base_url, "--out", str(out),
                                       "--concurrency", "16", "-q"], env={"OPENAI_API_KEY": KEY})
        if res.exit_code != 0:
            sys.exit(res.output)
    res = CliRunner().invoke(cli, ["sentiment", str(out)])
    if res.exit_code != 0:
        sys.exit(res.output)
    print(res.output.strip().splitlines()[-2])


if __name__ == "__main__":
    import argparse

    parser = argparse.ArgumentParser(description="A full fill-in chat run from the fake server, scored.")
    parser.add_argument("out", type=Path, help="the run directory to write (must not exist)")
    target = parser.parse_args().out
    if target.exists():
        sys.exit(f"{target} exists: give a new directory (nothing was written)")
    make_run(target)
