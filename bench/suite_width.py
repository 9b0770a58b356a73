"""What the quick designs cost in interval width: each study collected in its default and its
quick design (real runs), both scored, and the widths of the 95% intervals the study hands the
gate (its ``metrics.values``) compared, value by value, where both runs have the value.

    python bench/suite_width.py --dir /tmp/width                       # every study
    python bench/suite_width.py --dir /tmp/width --studies fill-in,jobs

Where each study's runs come from:

- ``embedded`` (fill-in, jobs, sterlie): the embedded Gemma 3 270M, as `stereoprobe suite` asks it;
- ``fake`` (coreference, anecdotes, stories, hobbies): the test suite's fake chat servers
  (tests/fake_openai.py's coreference mode with a stereotype bias of 0.3, tests/fake_generation.py
  with each profession's female share its BLS share, tests/hobbies_fake.py's planted truth),
  because their default designs on the embedded model take hours (coreference 16,800 prompts,
  the generation studies 7,380 texts); the widths depend on the designs' sizes and the data's
  spread, which these servers give like a chat model.

A run already in ``--dir`` is continued, not asked again. The width cost of a study is the
median, over its *pooled* values (every scope that pools several units: a category, a
pronoun, a label, the whole run; not a single group, profession or name, whose own interval
is made of the same few samples in both designs), of quick width / default width; the median
over every value both have is printed too. ``sqrt(n_default / n_quick)`` of the units the
intervals resample is printed beside it. Writes bench/results/suite-width-<time>.json.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

#: study key -> (registered study, extra options, where its runs come from, scope keys naming one unit,
#: the units its intervals resample: default, quick)
STUDIES = {
    "fill-in": ("fill-in", [], "embedded", {"group"}, (382, 131)),
    "jobs": ("jobs", [], "embedded", set(), (40, 20)),
    "sterlie": ("coreference", ["--templates", "sterlie"], "embedded", set(), (18, 18)),
    "coreference": ("coreference", [], "fake", set(), (40, 16)),
    "anecdotes": ("anecdotes", [], "fake", {"profession"}, (40, 20)),
    "stories": ("stories", [], "fake", {"profession"}, (19, 8)),
    "hobbies": ("hobbies", [], "fake", set(), (214, 40)),
}
KEY = "sk-width-0123456789"


def stereoprobe(*args: str, env: dict | None = None) -> None:
    out = subprocess.run([sys.executable, "-m", "stereoprobe", *args], capture_output=True, text=True,
                         env={**os.environ, **(env or {})})
    if out.returncode != 0:
        sys.exit(f"stereoprobe {' '.join(args)} failed:\n{out.stderr[-2000:]}")


def fake_server(key: str):
    """The fake chat server a study's width runs ask (module docstring), started."""
    from fake_openai import FakeOpenAI

    if key == "hobbies":
        import hobbies_synth
        from hobbies_fake import HobbiesFake

        return HobbiesFake(hobbies_synth.PLANTED).start()
    from fake_generation import GenerationModel

    from stereoprobe.occupations import read_jobs

    server = FakeOpenAI(api_key=KEY, coreference_bias=0.3)
    truth = {j.job: (j.female_share or 50) / 100 for j in read_jobs()}
    server.generation = GenerationModel(truth, seed=7)
    return server.start()


def collect_and_score(key: str, design: str, run: Path, base_url: str | None) -> None:
    """Collect (a complete run is kept: a fake's port, part of the run's settings, changes) and score."""
    from stereoprobe.manifest import read_manifest

    study, extra, _, _, _ = STUDIES[key]
    model = ["--model", "fake-chat", "--base-url", base_url] if base_url else []
    manifest = read_manifest(run)
    if manifest is None or manifest.status != "complete":
        stereoprobe("collect", "--study", study, *extra, "--design", design, *model, "--out", str(run), "-q",
                    env={"OPENAI_API_KEY": KEY})
    folder = "sentiment" if study == "fill-in" else study
    if not (run / folder / "meta.json").is_file():
        stereoprobe("score", str(run))


def widths(key: str, run: Path) -> dict:
    from stereoprobe.studies import get_study

    study = get_study(STUDIES[key][0])
    return {(v.metric, v.scope): v.high - v.low for v in study.metrics().values(run)
            if math.isfinite(v.high - v.low)}


def compare(key: str, default: dict, quick: dict) -> dict:
    units = STUDIES[key][3]
    ratios, pooled = [], []
    for k, w in default.items():
        if k in quick and w > 0:
            ratios.append(quick[k] / w)
            if not any(name in units and value not in ("all", "*") for name, value in k[1]):
                pooled.append(quick[k] / w)
    n_default, n_quick = STUDIES[key][4]
    return {"values": len(ratios), "pooled": len(pooled),
            "width_cost": round(statistics.median(pooled), 2) if pooled else None,
            "pooled_quartiles": [round(q, 2) for q in statistics.quantiles(pooled, n=4)] if len(pooled) > 1 else None,
            "all_values": round(statistics.median(ratios), 2) if ratios else None,
            "sqrt_units": round(math.sqrt(n_default / n_quick), 2)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dir", type=Path, required=True)
    parser.add_argument("--studies", default=",".join(STUDIES))
    args = parser.parse_args()
    result = {"date": time.strftime("%Y-%m-%d %H:%M"), "studies": {}}
    for key in args.studies.split(","):
        where = STUDIES[key][2]
        server = fake_server(key) if where == "fake" else None
        try:
            runs = {}
            for design in ("default", "quick"):
                run = args.dir / f"{key}-{design}"
                collect_and_score(key, design, run, server.base_url if server else None)
                runs[design] = widths(key, run)
        finally:
            if server is not None:
                server.stop()
        result["studies"][key] = {"runs": where, **compare(key, runs["default"], runs["quick"])}
        print(key, result["studies"][key], flush=True)
    print("\n| study | runs | width cost (median over pooled values) | quartiles | all values | sqrt(units) |")
    print("|---|---|---:|---|---:|---:|")
    for key, r in result["studies"].items():
        print(f"| {key} | {r['runs']} | {r['width_cost']} ({r['pooled']} values) | {r['pooled_quartiles']} | "
              f"{r['all_values']} ({r['values']}) | {r['sqrt_units']} |")
    folder = ROOT / "bench" / "results"
    folder.mkdir(exist_ok=True)
    (folder / f"suite-width-{time.strftime('%Y%m%d-%H%M')}.json").write_text(json.dumps(result, indent=1) + "\n")


if __name__ == "__main__":
    main()
