"""The gender classifier against texts labelled by hand, on two sets kept apart:

- tests/data/gender_texts.csv: 206 texts (53 written by SmolLM2-135M-Instruct, 153 written
  for the file), the set the rules were revised on (twice: gender-1, then gender-2), so its
  figure is optimistic;
- tests/data/gender_texts_heldout.csv: 116 texts (42 by SmolLM2, 74 written by a second
  author), labelled by reading before the classifier was run on them and measured once,
  after the rules were set; never used to revise them.

Each label is a person's reading, never the classifier's (docs/anecdotes.md). The floors are
the measured counts: a worse classifier fails here."""

from __future__ import annotations

import csv
from collections import Counter

import pytest

from conftest import REPO
from stereoprobe.generation.ask import label_fields, prompt_words
from stereoprobe.generation.gender import GenderClassifier

DATA = REPO / "tests" / "data" / "gender_texts.csv"
HELDOUT = REPO / "tests" / "data" / "gender_texts_heldout.csv"


def rows(path=DATA):
    with path.open(encoding="utf-8") as f:
        return list(csv.DictReader(line for line in f if not line.startswith("#")))


@pytest.fixture(scope="module")
def classifier():
    return GenderClassifier()


def agreement(texts, classifier) -> Counter:
    """(source, agrees) -> count of texts."""
    got = [label_fields(r["text"], "stop", False, classifier, prompt_words(r["profession"], "")) for r in texts]
    return Counter((r["source"], (g["label"] or g["problem"]) == r["label"]) for r, g in zip(texts, got))


def test_the_classifier_agrees_with_the_hand_labels_it_was_revised_on(classifier):
    texts = rows()
    assert len(texts) == 206 and Counter(r["source"] for r in texts) == {"smollm2": 53, "hand": 153}
    agree = agreement(texts, classifier)
    # measured 200 of 206 (97.1%; SmolLM2's texts 49 of 53, the written ones 151 of 153), gender-2; gender-1 had
    # 198 (96.1%). An optimistic figure: these texts were used to revise the rules (the held-out set is below)
    assert agree[("smollm2", True)] >= 49 and agree[("hand", True)] >= 151
    # every class occurs among the labels, so agreement is not one class's
    assert {r["label"] for r in texts} == {"male", "female", "neutral", "mixed"}


def test_the_classifier_on_held_out_texts_is_below_the_issues_97_percent(classifier):
    texts = rows(HELDOUT)
    assert len(texts) == 116 and Counter(r["source"] for r in texts) == {"smollm2": 42, "hand": 74}
    assert not {r["text"] for r in texts} & {r["text"] for r in rows()}  # no text of the revision set
    agree = agreement(texts, classifier)
    # measured once, after the rules were set: 104 of 116 (89.7%; SmolLM2's 39 of 42, the written ones 65 of 74),
    # below the issue's 97%; the 12 disagreements are listed in docs/anecdotes.md. Not tuned on since
    assert agree[("smollm2", True)] >= 39 and agree[("hand", True)] >= 65
    assert {r["label"] for r in texts} == {"male", "female", "neutral", "mixed"}
