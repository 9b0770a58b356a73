"""Time `build_report` on a synthetic full run: 382 groups, 2,292 probes, ~23,000 words.

No model is asked: every probe of the paper's catalog gets ten words drawn with
Zipf-like weights from 1,500 words of the nrclex EmoLex subset plus 300 made-up words
(not found, as some real answers are). The records are written as `collect` writes
them and scored by the real sentiment stage (`score()` + `write_outputs()`), so words.csv
holds real synonym labels. The time of drawing 20 word clouds serially in the same run
is the reference: report times are given in that unit too, so that runs on a busy
and a quiet machine can be compared.

    PYTHONPATH=. python bench/bench_report.py [--workers N] [--keep DIR] [--figures all]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import sys
import tempfile
import time
from importlib import resources
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from test_report import manifest  # noqa: E402

import stereoprobe  # noqa: E402
from stereoprobe.records import Completion  # noqa: E402
from stereoprobe.studies.fillin.report import build_report  # noqa: E402


def synthetic_records(seed: int = 0, vocabulary: int = 1500, made_up: int = 300, per_probe: int = 10):
    rng = random.Random(seed)
    lexicon = json.loads(resources.files("nrclex.data").joinpath("nrc_en.json").read_text())
    words = rng.sample(sorted(lexicon), vocabulary) + [f"zq{i:03d}x" for i in range(made_up)]
    rng.shuffle(words)
    weights = [1 / (rank + 1) for rank in range(len(words))]
    out = []
    for probe in stereoprobe.load_probes():
        picked: list[str] = []
        while len(picked) < per_probe:
            w = rng.choices(words, weights)[0]
            if w not in picked:
                picked.append(w)
        out.append(Completion(probe_id=probe.probe_id, sample=0, category=probe.category, group=probe.group,
                              template=probe.template, format=probe.format, prompt=probe.text, words=picked,
                              attempts=1))
    return out


def reference_seconds() -> float:
    """CPU-bound reference measured in the same run: 20 clouds of 120 words, serially."""
    from stereoprobe.studies.fillin.report.clouds import cloud_image
    from stereoprobe.studies.fillin.report.words import Word

    words = [Word(f"word{i}", 200 - i, ("positive", "negative", "neutral")[i % 3]) for i in range(120)]
    t0 = time.perf_counter()
    for _ in range(20):
        cloud_image(words, (560, 350))
    return time.perf_counter() - t0


def cpu_seconds() -> float:
    """CPU time of this process and its reaped children (the pool's workers)."""
    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def main() -> None:
    from stereoprobe.studies.fillin.sentiment import score, write_outputs

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--workers", type=int, default=None, help="processes (default: one per CPU)")
    ap.add_argument("--keep", type=Path, help="build in DIR and keep it (default: a temporary directory)")
    ap.add_argument("--figures", default="pages", choices=["pages", "all"])
    args = ap.parse_args()
    tmp = None if args.keep else tempfile.TemporaryDirectory()
    run = args.keep or Path(tmp.name) / "run"

    t0 = time.perf_counter()
    recs = synthetic_records()
    run.mkdir(parents=True, exist_ok=True)
    with (run / "completions.jsonl").open("w", encoding="utf-8") as f:
        for r in recs:
            f.write(json.dumps(r.to_dict()) + "\n")
    (run / "manifest.json").write_text(json.dumps(manifest("synthetic (bench)", "next-word", len(recs))))
    write_outputs(score(run), run / "sentiment")
    t1 = time.perf_counter()
    print(f"synthetic run: {len({(r.category, r.group) for r in recs})} groups, {len(recs)} probes, "
          f"{sum(len(r.words) for r in recs)} words ({t1 - t0:.1f} s to write and score)")

    ref = reference_seconds()
    load0, cpu0 = os.getloadavg(), cpu_seconds()
    result = build_report(run, workers=args.workers, figures=args.figures)
    cpu = cpu_seconds() - cpu0
    load1 = os.getloadavg()
    brief = [p for p in result.briefing]
    size_brief = sum(p.stat().st_size for p in brief)
    size_all = sum(p.stat().st_size for p in result.paths)
    pages = sorted((p.stat().st_size, p.name) for p in brief if p.suffix == ".html")
    print(f"reference (20 clouds, serial): {ref:.2f} s")
    print(f"build_report --figures {args.figures}: {result.seconds:.1f} s wall = {result.seconds / ref:.1f} x reference; "
          f"workers={args.workers or os.cpu_count()}, cpus={os.cpu_count()}")
    print(f"  {cpu:.1f} CPU-s in all processes; load average (1, 5 min) {load0[0]:.1f}, {load0[1]:.1f} before, "
          f"{load1[0]:.1f}, {load1[1]:.1f} after")
    print(f"  {len(result.figures)} figure files, {len(result.briefing)} briefing files; "
          f"briefing folder {size_brief / 1e6:.1f} MB, everything {size_all / 1e6:.1f} MB")
    print(f"  largest page: {pages[-1][1]} {pages[-1][0] / 1e6:.1f} MB")
    if tmp:
        tmp.cleanup()


if __name__ == "__main__":
    main()
