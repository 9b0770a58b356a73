"""Benchmark batch collect at the coreference study's full size: every debiasing prefix
(16,800 scenes x 7 = 117,600 requests), written with --batch-file and ingested.

    python bench/bench_batch.py            # the whole 117,600-request batch
    python bench/bench_batch.py --jobs 5   # 5 x 5 jobs (7,350 requests), a quick look

Runs, one after the other, each in its own process (wall, CPU and peak memory its own):

- ``write``: ``stereoprobe collect --study coreference --debias all --model gpt-4o-mini
  --batch-file requests.jsonl`` (the probes built, each request captured from the live
  ask, the file and the run directory written);
- ``ingest``: ``stereoprobe ingest RUN requests' results`` (the file checked whole, each
  reply read by the live chat code and 000's parser, the records stored and compacted);
- ``floor``: the JSON work on the same bytes with nothing of stereoprobe: every request
  line and every results line parsed and written once (the reference the ratios use).

The results file is made between ``write`` and ``ingest`` (not timed): each request
answered by tests/coref_fake.py's model (30% bias), in OpenAI's output format. The issue's
target: write and ingest within 30 s together, each within 1 GB. Prints a Markdown table
with the 1-minute load average before and after each step.
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
import json, sys
with open(sys.argv[1]) as f, open(sys.argv[3], "w") as out:
    for line in f:
        out.write(json.dumps(json.loads(line)) + "\\n")
with open(sys.argv[2]) as f, open(sys.argv[3], "a") as out:
    for line in f:
        out.write(json.dumps(json.loads(line)["response"]["body"]) + "\\n")
"""


def results(requests: Path, out: Path, bias: float = 0.3) -> int:
    """Each request answered by the fake model, as an OpenAI batch output line."""
    from coref_fake import biased_reply

    n = 0
    with requests.open() as f, out.open("w") as w:
        for n, line in enumerate(map(json.loads, f), 1):
            text = biased_reply(line["body"]["messages"][-1]["content"], bias)
            body = {"id": f"chatcmpl-{n}", "object": "chat.completion", "created": 0, "model": "gpt-4o-mini-2024-07-18",
                    "choices": [{"index": 0, "message": {"role": "assistant", "content": text, "refusal": None},
                                 "logprobs": None, "finish_reason": "stop"}],
                    "usage": {"prompt_tokens": 40, "completion_tokens": 6, "total_tokens": 46}}
            w.write(json.dumps({"id": f"batch_req_{n}", "custom_id": line["custom_id"], "error": None,
                                "response": {"status_code": 200, "request_id": f"req_{n}", "body": body}}) + "\n")
    return n


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=20, help="jobs of each kind (20: the whole default design)")
    args = parser.parse_args()
    from stereoprobe.studies.coreference.pairs import load_jobs

    jobs = load_jobs()
    chosen = [j.job for j in jobs if j.dominated_by == "women"][: args.jobs]
    chosen += [j.job for j in jobs if j.dominated_by == "men"][: args.jobs]
    select = [x for j in chosen for x in ("--job", j)] if args.jobs < 20 else []
    env_python = [sys.executable, "-m", "stereoprobe"]
    with tempfile.TemporaryDirectory() as tmp:
        tmp_path = Path(tmp)
        requests, answers, run = tmp_path / "requests.jsonl", tmp_path / "results.jsonl", tmp_path / "run"
        os.environ.pop("OPENAI_API_KEY", None)  # a request file needs no key
        steps = {"write": timed([*env_python, "collect", "--study", "coreference", "--debias", "all", "--model",
                                 "gpt-4o-mini", "--batch-file", str(requests), "--out", str(run), *select])}
        n = results(requests, answers)
        steps["ingest"] = timed([*env_python, "ingest", str(run), str(answers), "-q"])
        steps["floor"] = timed([sys.executable, "-c", FLOOR, str(requests), str(answers), str(tmp_path / "floor")])
        size = (requests.stat().st_size + answers.stat().st_size) / 2**20
        lines = sum(1 for _ in (run / "completions.jsonl").open())
    print(f"{n:,} requests ({size:.0f} MB of request and results files), {lines:,} records stored; "
          f"{platform.python_version()}, {os.cpu_count()} CPUs\n")
    print("| step | wall s | CPU s | peak MiB | wall / floor | CPU / floor | load before, after |")
    print("|---|---|---|---|---|---|---|")
    floor = steps["floor"]
    for name, t in steps.items():
        memory = f"{t['rss_mb']:.0f}" if name != "floor" else "-"  # ru_maxrss: the largest child so far
        print(f"| {name} | {t['wall']:.1f} | {t['cpu']:.1f} | {memory} | {t['wall'] / floor['wall']:.2f} | "
              f"{t['cpu'] / floor['cpu']:.2f} | {t['load_before']:.1f}, {t['load_after']:.1f} |")
    both = steps["write"]["wall"] + steps["ingest"]["wall"]
    print(f"\nwrite + ingest: {both:.1f} s wall (target 30 s), "
          f"{steps['write']['cpu'] + steps['ingest']['cpu']:.1f} s CPU; last lines:\n"
          f"  {steps['write']['output']}\n  {steps['ingest']['output']}")


if __name__ == "__main__":
    main()
