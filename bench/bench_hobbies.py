"""Benchmark the hobbies study's Word2Vec comparison of three runs (target: 60 s), as a
ratio to the floor measured in the same run.

    python bench/bench_hobbies.py                # three runs of 428 names (214 a gender) x 10 samples (12,840 texts)
    python bench/bench_hobbies.py --samples 5    # smaller runs

Setup (not timed): three runs collected from tests/hobbies_fake.py (two with 001's planted
difference, one under the null), each as a user collects it. Then, each in its own
process (bench/timing.py: wall, CPU, peak memory, load before and after):

- ``floor``: the three runs' records read, their texts tokenised and one Word2Vec model
  trained on them with the comparison's settings: what any such comparison must do;
- ``in-sample``: 001's way alone (``w2v.compare(..., way="001")``: one model, scoring the
  texts it was trained on, names kept; d and Mann-Whitney p over name means);
- ``compare``: ``stereoprobe compare R1 R2 R3 --out DIR``: the corrected measure (three
  models, each on a third of the names: cross-fitting) and 001's way (one more model on
  all), the projection, tests, the bootstrap intervals of d (2000 replicates per fold), the
  figure and page.

Prints a Markdown table for docs/hobbies.md.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import tempfile
from pathlib import Path

from timing import ROOT, timed  # bench/timing.py (bench/ is on the path when run as a script)

sys.path.insert(0, str(ROOT / "tests"))

FLOOR = """
import sys
from stereoprobe.generation.records import GenRecord
from stereoprobe.studies.base import read_run
from stereoprobe.studies.hobbies.text import tokens
from stereoprobe.studies.hobbies.w2v import train
sentences = []
for run in sys.argv[1:]:
    sentences += [tokens(r.text) for r in read_run(run, "hobbies", GenRecord)[1] if r.text and r.problem is None]
train(sentences, seed=2023)
print(len(sentences))
"""
IN_SAMPLE = """
import sys
from pathlib import Path
from stereoprobe.studies.hobbies import w2v
from stereoprobe.studies.hobbies.compare import _texts
w2v.compare([_texts(Path(r), r)[1] for r in sys.argv[2:]], seed=2023, n_boot=2000, way="001")
"""


def collect(truth: dict, model: str, samples: int, out: Path) -> None:
    import subprocess

    from hobbies_fake import HobbiesFake

    with HobbiesFake(truth) as server:
        subprocess.run([sys.executable, "-m", "stereoprobe", "collect", "--study", "hobbies", "--model", model,
                        "--base-url", server.base_url, "--samples", str(samples), "--out", str(out), "-q"],
                       check=True, cwd=ROOT, env={**os.environ, "OPENAI_API_KEY": "sk-bench"},
                       capture_output=True)


def main() -> None:
    import hobbies_synth as synth

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--samples", type=int, default=10)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        runs = [Path(tmp) / n for n in ("model-a", "model-b", "model-c")]
        for run, truth in zip(runs, (synth.PLANTED, synth.PLANTED, synth.NULL)):
            collect(truth, run.name, args.samples, run)
        floor = timed([sys.executable, "-c", FLOOR, *map(str, runs)])
        old = timed([sys.executable, "-c", IN_SAMPLE, str(Path(tmp) / "old"), *map(str, runs)])
        compare = timed([sys.executable, "-m", "stereoprobe", "compare", *map(str, runs), "--out",
                         str(Path(tmp) / "cmp")])
    texts = floor["output"]
    print(f"Three hobbies runs, {texts} texts; {platform.python_version()}, {os.cpu_count()} cores.\n")
    print("| step | wall s | CPU s | peak RSS MiB | ratio to floor (wall; CPU) | ratio to in-sample (wall; CPU) "
          "| load before / after |")
    print("|---|---:|---:|---:|---:|---:|---|")
    for name, t in (("floor: read, tokenise, train Word2Vec", floor), ("001's way alone (in-sample)", old),
                    ("stereoprobe compare (3 runs: corrected and 001's way)", compare)):
        print(f"| {name} | {t['wall']:.1f} | {t['cpu']:.1f} | {t['rss_mb']:.0f} | {t['wall'] / floor['wall']:.2f}; "
              f"{t['cpu'] / floor['cpu']:.2f} | {t['wall'] / old['wall']:.2f}; {t['cpu'] / old['cpu']:.2f} | "
              f"{t['load_before']:.2f} / {t['load_after']:.2f} |")


if __name__ == "__main__":
    main()
