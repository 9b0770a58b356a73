"""Share of word occurrences that describe the group, from hand labels (docs/nextword.md).

    python bench/describing_share.py runs/gemma-3-270m [more run dirs ...]

Reads each run's completions.jsonl and bench/data/word_labels.json (one reader's labels:
D describes the group, C needs a complement, J junk; and the probe ids of the three
hand-checked samples) and prints describe / complement / junk per sample, and how many
occurrences have no label yet (label them before quoting a share).
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path

LABELS = Path(__file__).resolve().parent / "data" / "word_labels.json"


def shares(words: list[str], labels: dict[str, str]) -> str:
    counts = Counter(labels.get(w, "?") for w in words)
    n = sum(counts.values())
    if not n:
        return "- (no probe of this sample in the run)"
    text = " / ".join(f"{100 * counts[k] / n:.1f}%" for k in "DCJ")
    return text + (f" ({counts['?']} unlabelled: label them first)" if counts["?"] else "") + f" (n={n})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="+", type=Path, help="run folders (completions.jsonl)")
    args = parser.parse_args()
    data = json.loads(LABELS.read_text())
    samples = dict(data["samples"])
    samples["all"] = [p for ids in data["samples"].values() for p in ids]
    print("| run | " + " | ".join(samples) + " |")
    print("|---|" + "---|" * len(samples))
    for run in args.runs:
        rows = [json.loads(line) for line in (run / "completions.jsonl").open(encoding="utf-8")]
        words = {r["probe_id"]: r["words"] for r in rows if not r.get("error")}
        cells = [shares([w for p in ids if p in words for w in words[p]], data["labels"]) for ids in samples.values()]
        print(f"| {run} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
