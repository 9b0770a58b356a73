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
# wise: positive; rude: negative; feisty: neutral in the synthetic lexicon (neither is in the bundled one)
RECORDS = [Completion("p1", 0, "age", "old people", "are_so", "statement", "old people are so",
                      ["wise", "rude", "feisty"])]


@pytest.mark.parametrize("extra", [dict(lexicon=SYNTHETIC), dict(overrides=SYNTHETIC), dict(synonyms=False)])
def test_a_labeller_with_lexicon_overrides_or_synonyms_is_refused(extra):
    labeller = Labeller(load_lexicon(SYNTHETIC), synonyms=False)
    with pytest.raises(DataError, match=r"pass either a labeller or lexicon/overrides/synonyms, not both"):
        score(RECORDS, labeller=labeller, **extra)
    # the labeller's own lexicon labels the words: 3 words, 1 positive, 1 negative, 1 neutral;
    # shares over the 2 polar words: 50% negative, 50% positive (the bundled lexicon has
    # neither rude nor feisty: it would give 1 word of 1 polar, 100% positive, 2 unassigned)
    row = score(RECORDS, labeller=labeller).table4.set_index("category").loc["age"]
    counts = row[["n_words", "n_positive", "n_negative", "n_neutral", "n_unassigned"]].tolist()
    assert counts == [3, 1, 1, 1, 0]
    assert (row["negative"], row["positive"]) == (50.0, 50.0)
