"""score(labeller=...) takes its lexicon, overrides and synonyms from the labeller: giving
them too is refused instead of silently ignored."""

from __future__ import annotations

from pathlib import Path

import pytest

from stereoprobe.errors import DataError
from stereoprobe.studies.fillin.lexicon import load_lexicon
from stereoprobe.records import Completion
from stereoprobe.studies.fillin.sentiment import score
from stereoprobe.studies.fillin.sentiment.label import Labeller

SYNTHETIC = Path(__file__).resolve().parent / "data" / "lexicon" / "emolex-synthetic.txt"
RECORDS = [Completion("p1", 0, "age", "old people", "are_so", "statement", "old people are so", ["wise"])]


@pytest.mark.parametrize("extra", [dict(lexicon=SYNTHETIC), dict(overrides=SYNTHETIC), dict(synonyms=False)])
def test_a_labeller_with_lexicon_overrides_or_synonyms_is_refused(extra):
    labeller = Labeller(load_lexicon(SYNTHETIC), synonyms=False)
    with pytest.raises(DataError, match=r"pass either a labeller or lexicon/overrides/synonyms, not both"):
        score(RECORDS, labeller=labeller, **extra)
    assert score(RECORDS, labeller=labeller).table4 is not None
