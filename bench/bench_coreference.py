"""Benchmark the coreference study: the embedded logprob path against one evaluation per prompt
and answer, and `score` + `report` of a 10,000-answer run.

    python bench/bench_coreference.py                  # collect on 5 x 5 jobs (1,050 probes), score + report
    python bench/bench_coreference.py --jobs 20        # the whole default design (16,800 probes)
    python bench/bench_coreference.py --skip-collect   # score + report only

Runs, one after the other, each in its own process (wall, CPU and peak memory its own):

- ``floor``: for every probe, the prompt with each of its two replies (" The <A>", " The <B>")
  evaluated once, as two separate asks of the same scorer (same workers, callers, shared
  starts and decodes): one evaluation per prompt and answer, the issue's reference;
- ``collect``: ``stereoprobe collect --study coreference`` on the same jobs into a new
  directory, as a user runs it (every reply token's probability, the store, the manifest);
- ``read``: reading a 10,000-answer chat run's records (the reference for scoring);
- ``score``, ``report``: ``stereoprobe score`` and ``stereoprobe report`` of that run (the
  issue's target: both together within 10 s).

Prints Markdown tables with the 1-minute load average before and after each step.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import tempfile
from pathlib import Path

from timing import ROOT, timed  # bench/timing.py (bench/ is on the path when run as a script)
sys.path.insert(0, str(ROOT / "tests"))

FLOOR = """
import sys
from concurrent.futures import ThreadPoolExecutor
from stereoprobe.backends.scoring import EmbeddedScorer
from stereoprobe.studies.coreference.catalog import select
probes, _ = select({"job": sys.argv[1:]})
scorer = EmbeddedScorer(workers=2)
def one(p):
    for reply in p.continuations:  # one evaluation per prompt and reply, as two separate asks
        scorer.logprobs(p.text, [reply], shared=p.shared)
with ThreadPoolExecutor(scorer.max_concurrency) as pool:
    list(pool.map(one, probes))
print(len(probes))
"""

READ = """
import sys
from stereoprobe.store import read_completions
from stereoprobe.studies.coreference.records import CorefRecord
print(len(read_completions(sys.argv[1], CorefRecord)))
"""




def jobs(k: int) -> list[str]:
    from stereoprobe.studies.coreference.pairs import load_jobs

    all_jobs = load_jobs()
    return ([j.job for j in all_jobs if j.dominated_by == "women"][:k]
            + [j.job for j in all_jobs if j.dominated_by == "men"][:k])


def chat_run(folder: Path, n: int = 10_000) -> Path:
    """A chat run of the default design's first ``n`` prompts (every pair of a women- and a
    men-dominated job, so every metric has answers; the fake biased model's replies, parsed
    as collect parses them), written as collect writes a run."""
    from coref_fake import biased_reply

    from stereoprobe import __version__
    from stereoprobe.manifest import BackendSettings, RunManifest, write_manifest
    from stereoprobe.studies.coreference.answers import parse_answer
    from stereoprobe.studies.coreference.catalog import catalog_info, select
    from stereoprobe.studies.coreference.records import CorefRecord

    probes, source = select({})
    probes = probes[:n]
    folder.mkdir(parents=True)
    with (folder / "completions.jsonl").open("w", encoding="utf-8") as f:
        for p in probes:
            reply = biased_reply(p.text, 0.3) or ""
            parsed = parse_answer(reply, p.profession_a, p.profession_b)
            rec = CorefRecord.of(p, 0, "chat", answer=parsed.answer, refused=parsed.refused, raw=reply, attempts=1)
            f.write(json.dumps(rec.to_dict()) + "\n")
    settings = BackendSettings(backend="openai-chat", mode="chat", model="fake-chat", endpoint="http://127.0.0.1/v1")
    write_manifest(folder, RunManifest(settings=settings, catalog=catalog_info(source), study="coreference",
                                       status="complete", stereoprobe_version=__version__, parser_version="1"))
    return folder


def table(rows: list[tuple[str, dict]], reference: dict) -> None:
    print("| step | wall | CPU | peak RSS | wall / ref | CPU / ref | load before, after |")
    print("|---|---|---|---|---|---|---|")
    for name, r in rows:
        print(f"| {name} | {r['wall']:.1f} s | {r['cpu']:.1f} s | {r['rss_mb']:.0f} MB | "
              f"{r['wall'] / reference['wall']:.2f} | {r['cpu'] / reference['cpu']:.2f} | "
              f"{r['load_before']:.1f}, {r['load_after']:.1f} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--jobs", type=int, default=5, help="the first N women- and N men-dominated jobs (20: all)")
    parser.add_argument("--answers", type=int, default=10_000, help="answers in the run scored and reported")
    parser.add_argument("--skip-collect", action="store_true")
    args = parser.parse_args()
    python = sys.executable
    print(f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}; peak RSS is "
          "ru_maxrss of the largest child so far\n")
    with tempfile.TemporaryDirectory() as tmp:
        if not args.skip_collect:
            names = jobs(args.jobs)
            floor = timed([python, "-c", FLOOR, *names])
            argv = [python, "-m", "stereoprobe", "collect", "--study", "coreference", "--out", f"{tmp}/run", "-q",
                    "--workers", "2", *[x for j in names for x in ("--job", j)]]
            full = timed(argv)
            print(f"Embedded logprob path, {floor['output']} probes ({args.jobs} x {args.jobs} jobs, both roles):\n")
            table([("floor: each prompt and reply evaluated once", floor), ("collect --study coreference", full)],
                  floor)
            print()
        run = chat_run(Path(tmp) / "chat", args.answers)
        read = timed([python, "-c", READ, str(run)])
        score = timed([python, "-m", "stereoprobe", "score", str(run)])
        report = timed([python, "-m", "stereoprobe", "report", str(run)])
        print(f"Scoring and report of a {read['output']}-answer chat run (2,000 bootstrap replicates, "
              "999 permutations):\n")
        table([("read the records", read), ("score", score), ("report", report)], read)
        print(f"\nscore + report: {score['wall'] + report['wall']:.1f} s wall, "
              f"{score['cpu'] + report['cpu']:.1f} s CPU (target: 10 s)")


if __name__ == "__main__":
    main()
