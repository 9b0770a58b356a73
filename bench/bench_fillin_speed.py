"""`stereoprobe sentiment` and `stereoprobe report` on a full 2,292-probe chat run, this
checkout against an earlier revision, in the same run (docs/benchmarks.md).

    PYTHONPATH=. python bench/bench_fillin_speed.py --before REV [--run DIR] [--repeat 2]

The run is bench/fillin_chat_run.py's (made in a temporary folder unless ``--run`` names
one). ``--before REV``'s ``stereoprobe/`` is exported with ``git archive`` and both versions
run each command as a child process on their own copy of the run, alternately, so they
share the machine's load; the reference is a fixed CPU task measured in the same run
(zlib on 32 MB), and each time is given as a ratio to it. Then every file both versions
wrote is compared byte for byte (sentiment-written/meta.json differs in its created_at only).
"""

from __future__ import annotations

import argparse
import filecmp
import io
import json
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

from timing import ROOT, timed  # bench/timing.py

REFERENCE = "import zlib, random; r = random.Random(0); d = bytes(r.getrandbits(8) for _ in range(1 << 22)) * 8; zlib.compress(d, 6)"


def export(rev: str, into: Path) -> Path:
    data = subprocess.run(["git", "archive", rev, "stereoprobe", "groups", "lexicons"], cwd=ROOT, capture_output=True,
                          check=True).stdout
    tarfile.open(fileobj=io.BytesIO(data)).extractall(into)
    return into


def command(code: Path, *args: str) -> list[str]:
    """``stereoprobe ARGS`` with ``code``'s package first on the path (before the working
    directory, which ``python -m`` would put first)."""
    run = (f"import runpy, sys; sys.path.insert(0, {str(code)!r}); sys.argv = ['stereoprobe', *{list(args)!r}]; "
           "runpy.run_module('stereoprobe', run_name='__main__', alter_sys=True)")
    return [sys.executable, "-c", run]


def differing(a: Path, b: Path) -> list[str]:
    out = []
    for path in sorted(p for p in a.rglob("*") if p.is_file()):
        rel = path.relative_to(a)
        other = b / rel
        if not other.is_file() or not filecmp.cmp(path, other, shallow=False):
            out.append(str(rel))
    return out + [str(p.relative_to(b)) for p in b.rglob("*") if p.is_file() and not (a / p.relative_to(b)).exists()]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--before", required=True)
    ap.add_argument("--run", type=Path)
    ap.add_argument("--repeat", type=int, default=2)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        run = args.run
        if run is None:
            run = root / "run"
            subprocess.run([sys.executable, str(ROOT / "bench" / "fillin_chat_run.py"), str(run)], check=True,
                           env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
        versions = {"before": export(args.before, root / "before"), "after": ROOT}
        rows = []
        for i in range(args.repeat):
            for name, code in versions.items():
                copy = root / f"{name}-{i}"
                shutil.rmtree(copy, ignore_errors=True)
                shutil.copytree(run, copy, ignore=shutil.ignore_patterns("sentiment", "figures", "briefing"))
                ref = timed([sys.executable, "-c", REFERENCE])
                sent = timed(command(code, "sentiment", str(copy)))
                (copy / "sentiment").rename(copy / "sentiment-written")  # compared below
                shutil.copytree(run / "sentiment", copy / "sentiment")  # report reads the same scores
                rep = timed(command(code, "report", str(copy)))
                rows.append((name, ref, sent, rep))
                print(json.dumps({"version": name, "reference": round(ref["wall"], 2), "sentiment": round(sent["wall"], 2),
                                  "sentiment_cpu": round(sent["cpu"], 2), "report": round(rep["wall"], 2),
                                  "report_cpu": round(rep["cpu"], 2), "load": round(ref["load_before"], 1)}), flush=True)
        diff = differing(root / "before-0", root / "after-0")
        print("\n| version | reference s | sentiment s (CPU) | x ref | report s (CPU) | x ref | load |")
        print("|---|---|---|---|---|---|---|")
        for name, ref, sent, rep in rows:
            print(f"| {name} | {ref['wall']:.2f} | {sent['wall']:.1f} ({sent['cpu']:.1f}) | {sent['wall'] / ref['wall']:.2f} "
                  f"| {rep['wall']:.1f} ({rep['cpu']:.1f}) | {rep['wall'] / ref['wall']:.2f} | {ref['load_before']:.1f} |")
        print(f"\nFiles that differ between the versions' outputs: {diff or 'none'}")


if __name__ == "__main__":
    main()
