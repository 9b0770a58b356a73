"""Hobby labels made elsewhere: a CSV of label scores per text, checked whole before use.

Sterlie et al. (2024, 001 section 5.2) scored every text with a DeBERTa zero-shot
classifier on six labels; the tool's own labeller is word lists (labels.py). A user who
can run 001's classifier on another machine brings its scores back as a CSV::

    text_id,label,score[,labeller]
    3f2a9c1b7d10:0,Technology,0.031
    3f2a9c1b7d10:0,Science,0.012
    ...

- ``text_id``: the stored text's key, its probe id and sample number joined by a colon
  (``text_id``; the ``text_id`` column of ``RUN_DIR/hobbies/texts.csv``);
- ``label``: each of the run's labels (the six), once per text; ``score`` in [0, 1];
- ``labeller`` (optional, one value for the whole file): what made the scores, as the page
  will say ("MoritzLaurer/DeBERTa-v3-large-mnli-fever-anli-ling-wanli, zero-shot").

``read_brought`` checks the whole file against the run before anything is used: every
scored text (status ok) has a row for every label, no unknown label, no score outside
[0, 1], no row twice, no text id that is not a scored text of the run. Each problem is a
one-line DataError and nothing stored changes (``stereoprobe score`` writes its folder
only after). A text's top label is its highest score (``mixed`` when two tie, ``none``
when all are 0), as for the word lists.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping, Sequence

COLUMNS = ("text_id", "label", "score")


def text_id(probe_id: str, sample: int) -> str:
    """The key of one stored text (the rule the CSV and texts.csv share).

    >>> text_id("3f2a9c1b7d10", 4)
    '3f2a9c1b7d10:4'
    """
    return f"{probe_id}:{int(sample)}"


@dataclass(frozen=True)
class BroughtLabels:
    scores: Mapping[str, Mapping[str, float]]  # text_id -> label -> score
    source: str  # the file as given
    sha256: str
    labeller: str  # the file's labeller column, or "" when it has none

    def describe(self) -> str:
        who = self.labeller or "a labeller the file does not name"
        return f"{who} (scores brought from {Path(self.source).name}, sha256 {self.sha256[:12]})"


def top_label(scores: Mapping[str, float]) -> str:
    """The label with the highest score; ``mixed`` on a tie, ``none`` when every score is 0.

    >>> top_label({"Art": 0.7, "Sport": 0.2}), top_label({"Art": 0.4, "Sport": 0.4}), top_label({"Art": 0.0})
    ('Art', 'mixed', 'none')
    """
    best = max(scores.values())
    if best <= 0:
        return "none"
    tops = [k for k, v in scores.items() if v == best]
    return tops[0] if len(tops) == 1 else "mixed"


def read_brought(path: str | Path, labels: Sequence[str], texts: Mapping[str, str]) -> BroughtLabels:
    """The file at ``path`` checked against the run: ``labels`` (the run's label names) and ``texts``
    (text_id -> status for every stored text of the run). Module docstring: the checks."""
    import math

    from stereoprobe.datafiles import read_rows
    from stereoprobe.errors import DataError

    p = Path(path)
    rows = read_rows(p, COLUMNS, missing_hint="give the CSV of text_id,label,score made for this run")
    if not rows:
        raise DataError(f"{p} has no rows; give one row per scored text and label (text_id,label,score).")
    known = set(labels)
    scores: dict[str, dict[str, float]] = {}
    labellers = set()
    for line, row in rows:
        tid, label = row["text_id"], row["label"]
        if tid not in texts:
            raise DataError(f"{p}, line {line}: text id {tid!r} is not a text of this run; use the text_id column "
                            "of RUN_DIR/hobbies/texts.csv.")
        if texts[tid] != "ok":
            raise DataError(f"{p}, line {line}: text {tid} was {texts[tid]} and is not scored; drop its rows.")
        if label not in known:
            raise DataError(f"{p}, line {line}: label {label!r} is not one of the run's labels "
                            f"({', '.join(labels)}).")
        try:
            value = float(row["score"])
        except ValueError:
            value = math.nan
        if not 0 <= value <= 1:
            raise DataError(f"{p}, line {line}: score {row['score']!r} is not a number from 0 to 1.")
        if label in scores.setdefault(tid, {}):
            raise DataError(f"{p}, line {line}: text {tid} has a second {label} row; give each text's label once.")
        scores[tid][label] = value
        labellers.add(row.get("labeller", ""))
    wanted = [t for t, status in texts.items() if status == "ok"]
    missing = [t for t in wanted if len(scores.get(t, {})) < len(labels)]
    if missing:
        first = missing[0]
        lacks = [lab for lab in labels if lab not in scores.get(first, {})]
        raise DataError(f"{p}: {len(missing)} of the run's {len(wanted)} scored texts {'lacks' if len(missing) == 1 else 'lack'} a label row (first: "
                        f"{first}, {', '.join(lacks)}); give every scored text a row for every label.")
    if len(labellers) > 1:
        raise DataError(f"{p}: the labeller column holds {len(labellers)} different values; one file, one labeller.")
    digest = hashlib.sha256(p.read_bytes()).hexdigest()
    return BroughtLabels(scores, str(p), digest, labellers.pop() if labellers else "")


def status_by_id(records: Sequence[Any], status: Any) -> dict[str, str]:
    """text_id -> status (score.status) for every stored record."""
    return {text_id(r.probe_id, r.sample): status(r) for r in records}
