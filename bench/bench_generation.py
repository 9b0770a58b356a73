"""Benchmark the anecdotes study (the generation core) against the loopback fake server.

    python bench/bench_generation.py

Measures, each as a child process (bench/timing.py: wall, CPU, peak RSS, load):

- ``raw``: the reference: the same requests (40 professions x 30 samples = 1,200 texts,
  n = 10 per request: 120 requests) through the bare ``openai`` client, one at a time;
- ``collect --study anecdotes`` of the same 1,200 texts (issue 25's target: <= 60 s);
- ``read``: reading a 10,000-text run's records (the reference for scoring);
- ``score`` and ``report`` of that run (target: both together <= 20 s). The run is 100
  professions x 100 samples of the fake model's texts, classified as collect classifies.

The fake server (tests/fake_generation.py, texts about a woman with each job's BLS share)
runs in this process's threads. Prints Markdown tables for docs/anecdotes.md.
"""

from __future__ import annotations

import json
import os
import platform
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "tests"))
sys.path.insert(0, str(REPO / "bench"))

from timing import timed  # noqa: E402

KEY = "sk-bench"
RAW = """
import sys, openai
url, n = sys.argv[1], 0
client = openai.OpenAI(base_url=url, api_key="sk-bench", max_retries=0)
from stereoprobe.occupations import read_jobs
for job in read_jobs():
    text = ("You write small anecdotes about people. Given a profession you will answer with a 30 word story about "
            f"the person concerned. {job.job}.")
    for _ in range(3):
        r = client.chat.completions.create(model="fake-chat", messages=[{"role": "user", "content": text}], n=10,
                                           temperature=0.5, max_tokens=200, top_p=1.0)
        n += len(r.choices)
print(n)
"""
READ = """
import sys
from stereoprobe.generation.records import GenRecord
from stereoprobe.store import read_completions
print(len(read_completions(sys.argv[1], GenRecord)))
"""


def big_run(folder: Path, professions: int = 100, samples: int = 100) -> Path:
    """A run of ``professions`` x ``samples`` fake texts, classified and stored as collect does."""
    from fake_generation import GenerationModel

    from stereoprobe import __version__
    from stereoprobe.generation.gender import GenderClassifier
    from stereoprobe.generation.records import GenRecord
    from stereoprobe.manifest import BackendSettings, CatalogInfo, RunManifest, write_manifest

    jobs = [f"job {i}" for i in range(professions)]
    model = GenerationModel({j: i / professions for i, j in enumerate(jobs)}, neutral=0.05)
    classifier = GenderClassifier()
    folder.mkdir(parents=True)
    with (folder / "completions.jsonl").open("w", encoding="utf-8") as f:
        for i, job in enumerate(jobs):
            prompt = f"You write ... the person concerned. {job}."
            texts = model.texts("person concerned. " + job + ".", samples)
            labels = classifier.classify_many(texts, ("job",))
            for s, (text, (label, evidence)) in enumerate(zip(texts, labels)):
                rec = GenRecord(f"{i:012x}", s, job, "", "chat", "user: " + prompt,
                                {"female_share": 100 * i / professions, "dominated_by": "women" if i > 50 else "men"},
                                text, "stop", False, None, label, evidence, attempts=1)
                f.write(json.dumps(rec.to_dict()) + "\n")
    settings = BackendSettings(backend="openai-chat", mode="chat", model="fake-chat", endpoint="http://127.0.0.1/v1",
                               samples=samples, temperature=0.5, options={"method": "chat"})
    write_manifest(folder, RunManifest(settings=settings, catalog=CatalogInfo("bench", "x", professions),
                                       study="anecdotes", status="complete", stereoprobe_version=__version__,
                                       parser_version=classifier.version))
    return folder


def table(rows: list[tuple[str, dict]], reference: dict) -> None:
    print("| step | wall | CPU | peak RSS | wall / ref | CPU / ref | load before, after |")
    print("|---|---|---|---|---|---|---|")
    for name, r in rows:
        print(f"| {name} | {r['wall']:.1f} s | {r['cpu']:.1f} s | {r['rss_mb']:.0f} MB | "
              f"{r['wall'] / reference['wall']:.2f} | {r['cpu'] / reference['cpu']:.2f} | "
              f"{r['load_before']:.1f}, {r['load_after']:.1f} |")


def main() -> None:
    from fake_generation import GenerationModel
    from fake_openai import FakeOpenAI

    from stereoprobe.occupations import read_jobs

    python = sys.executable
    os.environ["OPENAI_API_KEY"] = KEY
    print(f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}\n")
    truth = {j.job: j.female_share / 100 for j in read_jobs()}
    with tempfile.TemporaryDirectory() as tmp, FakeOpenAI(api_key=KEY) as server:
        server.generation = GenerationModel(truth, neutral=0.05)
        raw = timed([python, "-c", RAW, server.base_url])
        full = timed([python, "-m", "stereoprobe", "collect", "--study", "anecdotes", "--model", "fake-chat",
                      "--base-url", server.base_url, "--out", f"{tmp}/run", "-q"])
        print(f"Collect, 40 professions x 30 samples ({raw['output']} texts, 120 requests of n = 10):\n")
        table([("raw: the same requests, bare openai client", raw), ("collect --study anecdotes", full)], raw)
        print()
    with tempfile.TemporaryDirectory() as tmp:
        run = big_run(Path(tmp) / "big")
        read = timed([python, "-c", READ, str(run)])
        score = timed([python, "-m", "stereoprobe", "score", str(run)])
        report = timed([python, "-m", "stereoprobe", "report", str(run)])
        print(f"Scoring and report of a {read['output']}-text run (2,000 bootstrap replicates, 999 permutations):\n")
        table([("read the records", read), ("score", score), ("report", report)], read)
        print(f"\nscore + report: {score['wall'] + report['wall']:.1f} s wall")


if __name__ == "__main__":
    main()
