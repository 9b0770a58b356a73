"""Time `build_report` on a synthetic full run: 382 groups, 2,292 probes, ~23,000 words.

The sentiment outputs are synthetic (no model is asked): every probe of the paper's
catalog gets ten words drawn with Zipf-like weights from 1,500 words of the nrclex
EmoLex subset, labelled as EmoLex labels them (positive, negative, both, or neutral),
with a fifth of the vocabulary marked "unassigned" as if not found. The tables are
written the way `stereoprobe sentiment` writes them (tests/test_report.write_sentiment).

    /work/venv/bin/python bench/bench_report.py [--workers N] [--keep DIR]
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

from test_report import write_sentiment  # noqa: E402

import stereoprobe  # noqa: E402
from stereoprobe.report import build_report  # noqa: E402


def synthetic_occurrences(seed: int = 0, vocabulary: int = 1500, per_probe: int = 10):
    rng = random.Random(seed)
    lexicon = json.loads(resources.files("nrclex.data").joinpath("nrc_en.json").read_text())
    words = rng.sample(sorted(lexicon), vocabulary)
    unassigned = set(rng.sample(words, vocabulary // 5))

    def label(word: str) -> str:
        if word in unassigned:
            return "unassigned"
        tags = set(lexicon[word])
        pos, neg = "positive" in tags, "negative" in tags
        return "both" if pos and neg else "positive" if pos else "negative" if neg else "neutral"

    labels = {w: label(w) for w in words}
    weights = [1 / (rank + 1) for rank in range(vocabulary)]
    out = []
    for probe in stereoprobe.load_probes():
        picked = set()
        while len(picked) < per_probe:
            picked.add(rng.choices(words, weights)[0])
        out += [(probe.category, probe.group, probe.template, w, labels[w]) for w in sorted(picked)]
    return out


def cpu_seconds() -> float:
    """CPU time of this process and its reaped children (the pool's workers)."""
    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--workers", type=int, default=None, help="processes (default: one per CPU)")
    ap.add_argument("--keep", type=Path, help="build in DIR and keep it (default: a temporary directory)")
    args = ap.parse_args()
    tmp = None if args.keep else tempfile.TemporaryDirectory()
    run = args.keep or Path(tmp.name) / "run"

    t0 = time.perf_counter()
    occ = synthetic_occurrences()
    write_sentiment(run, occ, model="synthetic (bench)")
    t1 = time.perf_counter()
    groups = len({(c, g) for c, g, *_ in occ})
    print(f"synthetic run: {groups} groups, {len(stereoprobe.load_probes())} probes, {len(occ)} word occurrences "
          f"({t1 - t0:.1f} s to write)")

    load0, cpu0 = os.getloadavg()[0], cpu_seconds()
    result = build_report(run, workers=args.workers)
    cpu = cpu_seconds() - cpu0
    size = sum(p.stat().st_size for p in result.paths)
    pages = sorted((p.stat().st_size, p.name) for p in result.briefing if p.suffix == ".html")
    print(f"build_report: {result.seconds:.1f} s wall, workers={args.workers or os.cpu_count()}, "
          f"cpus={os.cpu_count()}")
    print(f"  {cpu:.1f} CPU-s in all processes; load average {load0:.1f} before, "
          f"{os.getloadavg()[0]:.1f} after (other work on the machine inflates wall time)")
    print(f"  {len(result.figures)} figure files, {len(result.briefing)} briefing files, {size / 1e6:.0f} MB")
    print(f"  largest page: {pages[-1][1]} {pages[-1][0] / 1e6:.1f} MB")
    if tmp:
        tmp.cleanup()


if __name__ == "__main__":
    main()
