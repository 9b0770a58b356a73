"""Runs of every study on its default design, made without a model or the network, for
bench/bench_steps.py (the runs its `score`/`sentiment`/`report` steps are timed on).

    PYTHONPATH=. python bench/study_runs.py DIR [fill-in jobs coreference anecdotes stories hobbies]

Each run is collected by the real `stereoprobe collect` (chat or next-word mode, over HTTP)
from the fake servers the tests use, with the study's default design and settings:

- ``fill-in``: bench/fillin_chat_run.py's: the 2,292 probes of the paper's catalog, ten
  WordNet adjectives per reply (1,500, 57% in EmoLex), the Mormons' probes refused;
- ``jobs``: every probe of the default design (``--debias`` default) in next-word mode
  against tests/fake_scoring.py's toy model (`/v1/completions` with echoed logprobs);
- ``coreference``: the default 20 x 20 pairs' 16,800 prompts, answered by
  tests/coref_fake.py's biased model (bias 0.3) and parsed as collect parses them
  (bench_coreference.chat_run: written as collect writes them, without HTTP);
- ``anecdotes``, ``stories``: the default professions and samples (30 and 20) from
  tests/fake_generation.py, each job's texts female with its BLS share of women;
- ``hobbies``: the default's 428 names (214 a gender) x 10 samples from tests/hobbies_fake.py's planted truth
  (107 a gender x 20 before 2026-11-28: the same 4,280 texts).

Existing run directories are kept (delete one to make it again).
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests"), str(ROOT / "bench")]

KEY = "sk-bench-key"
STUDIES = ("fill-in", "jobs", "coreference", "anecdotes", "stories", "hobbies")


def _collect(args: list[str]) -> None:
    from click.testing import CliRunner

    from stereoprobe.cli import cli

    res = CliRunner().invoke(cli, ["collect", *args, "-q"], env={"OPENAI_API_KEY": KEY})
    if res.exit_code != 0:
        sys.exit(f"collect {' '.join(args)} failed: {res.output}")


def jobs_run(out: Path) -> None:
    from fake_openai import FakeOpenAI
    from fake_scoring import ScoringModel

    with FakeOpenAI(api_key=KEY) as fake:
        # The toy model of tests/test_jobs.py: pronouns and " Non-binary" with fixed probabilities.
        fake.scoring = ScoringModel(probability={" He": .02, " She": .06, " They": .02, " Non": .1, "-": .5,
                                                 "binary": .8},
                                    next_tokens=[(" Sarah", .3), (" the", .2), (" John", .1)])
        _collect(["--study", "jobs", "--model", "fake-chat", "--base-url", fake.base_url, "--mode", "next-word",
                  "--out", str(out)])


def coreference_run(out: Path) -> None:
    from bench_coreference import chat_run

    from stereoprobe.studies.coreference.catalog import select

    chat_run(out, n=len(select({})[0]))


def generation_run(study: str, out: Path) -> None:
    from fake_generation import GenerationModel
    from fake_openai import FakeOpenAI

    from stereoprobe.occupations import read_jobs

    truth = {j.job: j.female_share / 100 for j in read_jobs()}
    with FakeOpenAI(api_key=KEY) as fake:
        fake.generation = GenerationModel(truth, neutral=0.05)
        _collect(["--study", study, "--model", "fake-chat", "--base-url", fake.base_url, "--out", str(out)])


def hobbies_run(out: Path) -> None:
    import hobbies_synth as synth
    from hobbies_fake import HobbiesFake

    with HobbiesFake(synth.PLANTED) as server:
        _collect(["--study", "hobbies", "--model", "fake-chat", "--base-url", server.base_url, "--out", str(out)])


def fillin_run(out: Path) -> None:
    from fillin_chat_run import make_run

    make_run(out)


MAKERS = {
    "fill-in": fillin_run,
    "jobs": jobs_run,
    "coreference": coreference_run,
    "anecdotes": lambda out: generation_run("anecdotes", out),
    "stories": lambda out: generation_run("stories", out),
    "hobbies": hobbies_run,
}


def make(folder: Path, study: str) -> Path:
    """``folder/study``: the study's run (made unless it is there already)."""
    out = folder / study
    if not (out / "completions.jsonl").is_file():
        MAKERS[study](out)
    return out


if __name__ == "__main__":
    import argparse

    parser = argparse.ArgumentParser(description="Make every study's run on its default design, without a model.")
    parser.add_argument("folder", type=Path, help="where the runs go (one folder per study; existing runs are kept)")
    parser.add_argument("studies", nargs="*", metavar="STUDY", help=f"which (default: all): {' '.join(STUDIES)}")
    args = parser.parse_args()
    unknown = [name for name in args.studies if name not in STUDIES]
    if unknown:
        parser.error(f"unknown study {unknown[0]!r}: choose from {', '.join(STUDIES)}")
    for name in args.studies or STUDIES:
        print(name, make(args.folder, name), flush=True)
