"""The hobbies study's labels against a reader: per label, how often the word lists agree
with hand labels (tests/data/hobbies_hand_labels.csv; who labelled and how: its header).

    python bench/hobbies_agreement.py        # prints the Markdown table for docs/hobbies.md

Per label, a text is *yes* for the reader when its labels list the label, and *yes* for
the word lists when the label has at least one matching word (score > 0). Reported:
texts yes for the reader and for the lists, agreement (share of texts where both say the
same), precision and recall of the lists against the reader, Cohen's kappa; and the share
of texts whose top label (the lists' ``top``) is one of the reader's labels, among texts
the reader gave at least one label, and the share of texts the reader gave no label that
the lists also leave at ``none``. tests/test_hobbies_parts.py checks that docs/hobbies.md
shows this table.
"""

from __future__ import annotations

import csv
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data" / "hobbies_hand_labels.csv"


def rows() -> list[dict[str, str]]:
    with DATA.open(encoding="utf-8") as f:
        return list(csv.DictReader(line for line in f if not line.startswith("#")))


def table() -> list[str]:
    from stereoprobe.studies.hobbies.labels import load_labels

    lex = load_labels()
    data = rows()
    scored = [lex.score(r["text"], [r["name"]]) for r in data]
    reader = [{x.strip() for x in r["labels"].split(";") if x.strip()} for r in data]
    n = len(data)
    out = [f"{n} texts. Per label (yes: the reader lists it / the word lists find a word of it):", "",
           "| label | reader yes | lists yes | agreement | precision | recall | kappa |",
           "|---|---:|---:|---:|---:|---:|---:|"]
    for label in lex.names:
        h = [label in s for s in reader]
        c = [s.scores[label] > 0 for s in scored]
        both = sum(a and b for a, b in zip(h, c))
        agree = sum(a == b for a, b in zip(h, c)) / n
        ph, pc = sum(h) / n, sum(c) / n
        expected = ph * pc + (1 - ph) * (1 - pc)
        kappa = (agree - expected) / (1 - expected) if expected < 1 else float("nan")
        prec = both / sum(c) if sum(c) else float("nan")
        rec = both / sum(h) if sum(h) else float("nan")
        out.append(f"| {label} | {sum(h)} | {sum(c)} | {agree:.0%} | {prec:.0%} | {rec:.0%} | {kappa:.2f} |")
    labelled = [(s, r) for s, r in zip(scored, reader) if r]
    top_ok = sum(s.top in r for s, r in labelled)
    empty = [s for s, r in zip(scored, reader) if not r]
    out += ["", f"Top label among the reader's labels: {top_ok} of {len(labelled)} texts the reader labelled "
                f"({top_ok / max(1, len(labelled)):.0%}); texts the reader gave no label that the lists leave at "
                f"none: {sum(s.top == 'none' for s in empty)} of {len(empty)}."]
    return out


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    print("\n".join(table()))
