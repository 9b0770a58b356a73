"""Benchmark `stereoprobe sentiment` on a full 2,292-probe run (not a test).

    python bench/bench_sentiment.py [RUN_DIR ...]

Without arguments it synthesises a run: every probe of stereoprobe.load_probes() answered
with ten words drawn (Zipf-weighted, seeded) from 1,500 single-word WordNet adjectives,
about 1% refused and 0.5% failed records, so about 22,700 word occurrences. Real run
directories (e.g. runs/gemma-3-270m) given as arguments, or found under ./runs, are
measured too, on a temporary copy. Each measurement runs `python -m stereoprobe sentiment RUN_DIR` in a fresh
process: wall time and peak RSS include imports, lexicon and WordNet loading. Results are
recorded in docs/sentiment.md.

The statistics (intervals, tests, criteria, robustness; docs/statistics.md) are measured
against a reference taken in the same run: the same scoring in a fresh process with the
statistics step replaced by a pass-through (``score()`` only, nothing written), so the
ratio "with statistics / without" does not depend on how busy the machine is.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # run from a checkout without installing

import stereoprobe  # noqa: E402
from stereoprobe.records import Completion  # noqa: E402

VOCABULARY = 1500
SEED = 2023


def adjectives(n: int, seed: int) -> list[str]:
    """``n`` single-word WordNet adjectives, 57% of them in EmoLex as in the paper (834/1,456)."""
    from stereoprobe.studies.fillin.lexicon import load_bundled
    from stereoprobe.studies.fillin.wordnet import load_wordnet

    lex = load_bundled()
    reader, names = load_wordnet(), set()
    with open(reader.root / "data.adj", "rb") as data:  # every adjective synset (satellites too), as NLTK's all_synsets("a")
        for line in data:
            if not line.startswith(b"  "):  # the licence's lines
                names.update(n.lower() for n in reader.lemma_names("a", int(line[:8])) if n.isalpha())
    names = sorted(names)
    rng = random.Random(seed)
    known = rng.sample([w for w in names if w in lex], round(n * 0.57))
    unknown = rng.sample([w for w in names if w not in lex], n - len(known))
    vocab = known + unknown
    rng.shuffle(vocab)
    return vocab


def synthesise(run_dir: Path, seed: int = SEED) -> int:
    rng = random.Random(seed)
    vocab = adjectives(VOCABULARY, seed)
    weights = [1.0 / (rank + 1) ** 0.8 for rank in range(len(vocab))]
    n = 0
    with (run_dir / "completions.jsonl").open("w", encoding="utf-8") as f:
        for probe in stereoprobe.load_probes():
            roll = rng.random()
            refused, error, words = roll < 0.01, None, []
            if 0.01 <= roll < 0.015:
                error = "synthetic failure"
            elif not refused:
                words = rng.choices(vocab, weights, k=10)
            n += len(words)
            rec = Completion(probe.probe_id, 0, probe.category, probe.group, probe.template, probe.format,
                             probe.text, words=words, refused=refused, error=error)
            f.write(json.dumps(rec.to_dict()) + "\n")
    (run_dir / "manifest.json").write_text(json.dumps({"model": "synthetic-wordnet-adjectives", "created_at": None}))
    return n


def run_child(argv: list[str], env: dict) -> tuple[int, str, str, float, float, float]:
    """Run ``argv``; (exit code, stdout, stderr, wall s, CPU s, peak RSS MB) of that one process."""
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        start = time.perf_counter()
        proc = subprocess.Popen(argv, stdout=out, stderr=err, text=True, env=env)
        _, status, usage = os.wait4(proc.pid, 0)  # this child's own rusage
        wall = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        return (proc.returncode, out.read(), err.read(), wall, usage.ru_utime + usage.ru_stime,
                usage.ru_maxrss / 1024)


def measure(run_dir: Path, cache: Path | None = None) -> dict:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    if cache is not None:  # an empty cache: this run makes the WordNet copy first
        env["STEREOPROBE_CACHE"] = str(cache)
    code, stdout, stderr, wall, cpu, rss = run_child(
        [sys.executable, "-m", "stereoprobe", "sentiment", str(run_dir)], env)
    if code != 0:
        raise SystemExit(f"sentiment failed on {run_dir}: {stderr.strip()}")
    cov = json.loads((run_dir / "sentiment" / "coverage.json").read_text())
    return {"run": str(run_dir), "wall_s": round(wall, 2), "cpu_s": round(cpu, 2), "peak_rss_mb": round(rss, 1),
            "occurrences": cov["occurrences"]["total"], "unique_words": cov["unique_words"],
            "in_lexicon": cov["in_lexicon"], "via_lemma": cov["via_lemma"],
            "via_synonyms": cov["via_synonyms"], "ignored": cov["ignored"], "stdout": stdout}


WITHOUT_STATISTICS = """
import sys
import stereoprobe.stats.analysis as a
if sys.argv[2] == "off":
    a.add_statistics = lambda occ, records, t4, g, t, options: a.Statistics(t4, g, t, None, None, None, {})
from stereoprobe.studies.fillin.sentiment import score
score(sys.argv[1])
"""


def measure_score(run_dir: Path, statistics: bool) -> dict:
    """Wall, CPU and peak RSS of ``score(run_dir)`` in a fresh process, with or without the statistics."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    code, _, stderr, wall, cpu, rss = run_child(
        [sys.executable, "-c", WITHOUT_STATISTICS, str(run_dir), "on" if statistics else "off"], env)
    if code != 0:
        raise SystemExit(f"score failed on {run_dir}: {stderr.strip()}")
    return {"statistics": statistics, "wall_s": round(wall, 2), "cpu_s": round(cpu, 2), "peak_rss_mb": round(rss, 1)}


def statistics_ratio(run_dir: Path, repeats: int = 3) -> None:
    """Interleaved runs with and without the statistics; the median ratio of each measure."""
    import statistics as st

    pairs = [(measure_score(run_dir, False), measure_score(run_dir, True)) for _ in range(repeats)]
    for off, on in pairs:
        print(json.dumps(off), json.dumps(on))
    for key in ("wall_s", "cpu_s", "peak_rss_mb"):
        print(f"with / without statistics, {key}: median ratio "
              f"{st.median(on[key] / off[key] for off, on in pairs):.2f} "
              f"(without {st.median(off[key] for off, _ in pairs)}, with {st.median(on[key] for _, on in pairs)})")


def main(argv: list[str]) -> None:
    runs = [Path(a) for a in argv]
    if not runs and Path("runs").is_dir():
        runs = [p for p in sorted(Path("runs").iterdir()) if (p / "completions.jsonl").is_file()]
    print(f"machine: {os.cpu_count()} cores, python {sys.version.split()[0]}")
    with tempfile.TemporaryDirectory() as tmp:
        synthetic = Path(tmp) / "synthetic-run"
        synthetic.mkdir()
        n = synthesise(synthetic)
        print(f"synthetic run: {n} word occurrences")
        first = measure(synthetic, cache=Path(tmp) / "empty-cache")
        print("first run, empty cache:", json.dumps({k: v for k, v in first.items() if k != "stdout"}))
        copies = []
        for i, run in enumerate(runs):  # measured on a copy: the bench never writes into a real run
            copy = Path(tmp) / f"{i}-{run.name}"
            copy.mkdir()
            for name in ("completions.jsonl", "manifest.json"):
                if (run / name).is_file():
                    shutil.copy2(run / name, copy / name)
            copies.append(copy)
        print(f"load average before: {os.getloadavg()}")
        for run in [synthetic, *copies]:
            results = [measure(run) for _ in range(3)]
            print(results[0]["stdout"])
            for r in results:
                r.pop("stdout")
                print(json.dumps(r))
            statistics_ratio(run)
        print(f"load average after: {os.getloadavg()}")


if __name__ == "__main__":
    main(sys.argv[1:])
