"""NRC lexicons: the bundled nrclex subset, the official word-level format, overrides."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from stereoprobe.errors import DataError
from stereoprobe.studies.fillin.lexicon import (
    Lexicon,
    Override,
    load_bundled,
    load_lexicon,
    load_official,
    load_overrides,
    polarity,
)

DATA = Path(__file__).parent / "data" / "lexicon"
SYNTHETIC = DATA / "emolex-synthetic.txt"
EXAMPLE_OVERRIDES = Path(__file__).parent.parent / "lexicons" / "overrides.example.tsv"

# tests/data/lexicon/emolex-synthetic.txt, by hand: 13 words, ten rows each.
# positive only: happy, kind, wise; negative only: black, grumpy, lazy, lesbian, rude,
# touchy, unruly; both: boisterous; neutral: abacus (trust only), feisty (all 0).
SYNTHETIC_COUNTS = {"words": 13, "positive": 4, "negative": 8, "both": 1, "neutral": 2}


def test_bundled_subset_has_the_counts_the_issue_gives():
    lex = load_bundled()
    assert lex.counts() == {"words": 6468, "positive": 2312, "negative": 3324, "both": 81, "neutral": 913}
    assert lex.path.endswith("nrc_en.json")
    assert lex.version == "4.1.0"


def test_bundled_labels_of_the_papers_example_words():
    lex = load_bundled()
    assert lex.get("unruly") == "negative"
    assert lex.get("boisterous") == "both"
    assert lex.get("wise") == "positive"
    assert lex.get("abacus") == "neutral"  # trust only: in the lexicon, no polarity
    assert "rambunctious" not in lex


def test_bundled_load_does_not_import_nrclex_or_textblob():
    # nrclex's package __init__ imports its core, which imports textblob
    for name in [m for m in sys.modules if m.startswith(("nrclex", "textblob"))]:
        del sys.modules[name]
    load_bundled()
    assert not [m for m in sys.modules if m.startswith(("nrclex", "textblob"))]


def test_official_format_parses_to_hand_counted_labels():
    lex = load_official(SYNTHETIC)
    assert lex.counts() == SYNTHETIC_COUNTS
    assert lex.get("happy") == "positive"
    assert lex.get("rude") == "negative"
    assert lex.get("boisterous") == "both"
    assert "13 words, 4 positive, 8 negative, 1 both, 2 neutral" in lex.describe()


def test_official_neutral_is_not_missing():
    lex = load_official(SYNTHETIC)
    assert lex.get("feisty") == "neutral" and "feisty" in lex
    assert lex.get("abacus") == "neutral"
    assert lex.get("rambunctious") is None and "rambunctious" not in lex


@pytest.mark.parametrize(
    "variant",
    [
        lambda text: text.replace("\n", "\r\n"),
        lambda text: "Word\tEmotion\tScore\n" + text,
        lambda text: "\ufeffword\temotion\tassociation\r\n" + text.replace("\n", "\r\n"),
        lambda text: text + "\n\n",
    ],
    ids=["crlf", "header", "bom-header-crlf", "trailing-blank-lines"],
)
def test_official_variants_give_the_same_lexicon(tmp_path, variant):
    path = tmp_path / "lex.txt"
    path.write_bytes(variant(SYNTHETIC.read_text()).encode("utf-8"))
    assert load_official(path).labels == load_official(SYNTHETIC).labels


def _edit(tmp_path: Path, lineno: int, new: str | None) -> Path:
    lines = SYNTHETIC.read_text().splitlines()
    if new is None:
        del lines[lineno - 1]
    else:
        lines[lineno - 1] = new
    path = tmp_path / "bad.txt"
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.mark.parametrize(
    "line, new, expect_line, words",
    [
        (15, "black\tjoy", 15, "got 2 field(s)"),  # the 0/1 column dropped
        (15, "black\tjoy\t2", 15, "not word<TAB>emotion<TAB>0|1"),
        (15, "black\tjoyful\t0", 15, "ten EmoLex emotions"),
        (15, "black\tanger\t0", 15, "repeats line 11"),
        (27, None, 21, "'boisterous' has no positive row"),  # line 27 = boisterous positive
    ],
    ids=["two-columns", "bad-score", "unknown-emotion", "repeated-row", "missing-polarity-row"],
)
def test_malformed_official_file_names_the_line(tmp_path, line, new, expect_line, words):
    path = _edit(tmp_path, line, new)
    with pytest.raises(DataError) as err:
        load_official(path)
    message = str(err.value)
    assert f"line {expect_line}:" in message
    assert words in message
    assert "\n" not in message


def test_header_is_only_allowed_on_the_first_line(tmp_path):
    path = _edit(tmp_path, 5, "Word\tEmotion\tScore")
    with pytest.raises(DataError, match="line 5"):
        load_official(path)


def test_empty_lexicon_is_an_error(tmp_path):
    path = tmp_path / "empty.txt"
    path.write_text("Word\tEmotion\tScore\n")
    with pytest.raises(DataError, match="empty"):
        load_official(path)


def test_missing_lexicon_file_says_what_to_pass(tmp_path):
    with pytest.raises(DataError, match="NRC-Emotion-Lexicon-Wordlevel"):
        load_official(tmp_path / "nope.txt")


def test_polarity_from_emotions():
    assert polarity(["positive", "trust"]) == "positive"
    assert polarity(["negative", "positive"]) == "both"
    assert polarity(["fear"]) == "neutral"
    assert polarity([]) == "neutral"


def test_example_overrides_file_holds_the_papers_radical_case():
    overrides = load_overrides(EXAMPLE_OVERRIDES)
    assert [(o.word, o.label) for o in overrides] == [("radical", "negative")]
    assert "counterintuitive" in overrides[0].reason


def test_overrides_apply_on_top_and_are_recorded():
    lex = load_lexicon(SYNTHETIC, [Override("Happy".lower(), "negative", "test"), Override("radical", "negative", "r")])
    assert lex.get("happy") == "negative"
    assert lex.get("radical") == "negative"
    assert lex.counts() == {"words": 14, "positive": 3, "negative": 10, "both": 1, "neutral": 2}
    assert [o["word"] for o in lex.meta()["overrides"]] == ["happy", "radical"]
    assert load_official(SYNTHETIC).get("happy") == "positive"  # the original is untouched


def test_overrides_file_with_comments_header_and_crlf(tmp_path):
    path = tmp_path / "o.tsv"
    path.write_bytes(b"# mine\r\nword\tlabel\treason\r\n\r\nWise\tneutral\tsarcastic in our data\r\n")
    assert load_overrides(path) == [Override("wise", "neutral", "sarcastic in our data")]


@pytest.mark.parametrize(
    "line, message",
    [
        ("wise\tpositive", "line 2: expected word<TAB>label<TAB>reason"),
        ("wise\tpositive\t", "non-empty reason"),
        ("wise\tgood\tbecause", "line 2: label 'good' is not one of"),
    ],
)
def test_bad_overrides_name_the_line(tmp_path, line, message):
    path = tmp_path / "o.tsv"
    path.write_text("# comment\n" + line + "\n")
    with pytest.raises(DataError, match="line 2") as err:
        load_overrides(path)
    assert message in str(err.value)


def test_lexicon_object_passes_through_load_lexicon():
    lex = Lexicon("demo", "", {"a": "positive"})
    assert load_lexicon(lex) is lex


@pytest.mark.skipif(
    not os.environ.get("STEREOPROBE_NRC_FILE"),
    reason="set STEREOPROBE_NRC_FILE to your copy of NRC-Emotion-Lexicon-Wordlevel-v0.92.txt (never committed)",
)
def test_a_users_official_file_has_the_published_counts():
    lex = load_official(os.environ["STEREOPROBE_NRC_FILE"])
    assert lex.counts() == {"words": 14182, "positive": 2312, "negative": 3324, "both": 81, "neutral": 7714}
    # every word with a polarity in the official file is in the bundled subset too
    bundled = load_bundled()
    assert {w for w, label in lex.labels.items() if label != "neutral"} <= set(bundled.labels)


# --- the other lexicons: the data files of the pinned PyPI packages -----------------------
#
# Counts recountable by hand from the shipped files, e.g. for AFINN:
#   awk -F'\t' '$2>0' afinn/data/AFINN-en-165.txt | wc -l     -> 1176
#   awk -F'\t' '$2<0' afinn/data/AFINN-en-165.txt | wc -l     -> 2204
# VADER: 7,520 lines, 7,494 after merging entries that differ only in case (the one
# written in lower case wins); |valence| >= 0.2 is polar. TextBlob: 2,918 senses of 1,528
# forms.
from stereoprobe.studies.fillin.lexicon import NAMES, RULES, load_afinn, load_named, load_textblob, load_vader, vader_label  # noqa: E402

NAMED_COUNTS = {
    "vader": {"words": 7494, "positive": 3243, "negative": 4083, "both": 0, "neutral": 168},
    "afinn": {"words": 3382, "positive": 1176, "negative": 2204, "both": 0, "neutral": 2},
    "textblob": {"words": 1528, "positive": 575, "negative": 679, "both": 0, "neutral": 274},
}
NAMED_VERSIONS = {"vader": "3.3.2", "afinn": "0.1", "textblob": "0.20.1"}


@pytest.mark.parametrize("name", sorted(NAMED_COUNTS))
def test_named_lexicons_have_the_counts_of_the_shipped_files(name):
    lex = load_lexicon(name)
    assert lex.counts() == NAMED_COUNTS[name]
    assert lex.version == NAMED_VERSIONS[name]
    assert lex.meta()["rule"] == RULES[name]
    assert lex.meta()["name"] == name


def test_nrc_is_the_bundled_subset_and_names_ignore_case():
    assert load_lexicon("nrc").labels == load_bundled().labels
    assert load_lexicon(" VADER ").name == "vader"
    assert set(NAMES) == {"nrc", "vader", "afinn", "textblob"}


def test_unknown_name_is_a_one_line_error():
    with pytest.raises(DataError, match="use one of nrc, vader, afinn, textblob"):
        load_named("sentiwordnet")


def test_loading_the_word_lists_imports_no_analyser():
    for name in [m for m in sys.modules if m.startswith(("vaderSentiment", "afinn", "textblob", "nltk.sentiment"))]:
        del sys.modules[name]
    load_vader(), load_afinn(), load_textblob()
    assert not [m for m in sys.modules if m.startswith(("vaderSentiment", "afinn", "textblob"))]


def test_vader_threshold_is_vaders_compound_rule_for_one_word():
    # compound = v / sqrt(v^2 + 15); >= 0.05 positive: v >= 0.1939
    assert [vader_label(v) for v in (-0.2, -0.1, 0.0, 0.1, 0.19, 0.2, 3.4)] == [
        "negative", "neutral", "neutral", "neutral", "neutral", "positive", "positive"
    ]
    lex = load_vader()
    assert lex.get("rude") == "negative" and lex.get("wise") == "positive"


def test_textblob_word_is_the_mean_over_its_senses():
    lex = load_textblob()
    # en-sentiment.xml: ridiculous (JJ) -1.0, 1.0, -1.0 -> mean -1/3; cheap (JJ) 0.4
    assert lex.get("ridiculous") == "negative"
    assert lex.get("cheap") == "positive"


def _oracle_label(score, threshold=0.0):
    return "positive" if score > threshold else "negative" if score < -threshold else "neutral"


def test_labels_agree_with_the_packages_own_analysers_on_every_plain_word():
    """The analysers are imported here only, as an oracle: a one-word text's verdict."""
    import re

    from afinn import Afinn
    from textblob import TextBlob
    from vaderSentiment.vaderSentiment import SentimentIntensityAnalyzer

    plain = re.compile("[a-z]+")
    sia, afinn = SentimentIntensityAnalyzer(), Afinn()
    vader = load_vader()
    for word, label in vader.labels.items():
        if plain.fullmatch(word):
            compound = sia.polarity_scores(word)["compound"]
            assert label == ("positive" if compound >= 0.05 else "negative" if compound <= -0.05 else "neutral"), word
    for word, label in load_afinn().labels.items():
        if plain.fullmatch(word):
            assert label == _oracle_label(afinn.score(word)), word
    mismatched = [
        w for w, label in load_textblob().labels.items()
        if plain.fullmatch(w) and label != _oracle_label(TextBlob(w).sentiment.polarity)
    ]
    assert mismatched == ["really"]  # TextBlob reads 'really' as an intensifier, not a word


@pytest.mark.parametrize(
    "name, word, lemma, label",
    [("textblob", "lazier", "lazy", "negative"), ("afinn", "rudest", "rude", "negative"), ("afinn", "kindest", "kind", "positive")],
)
def test_lemma_fallback_works_for_every_lexicon(name, word, lemma, label):
    from stereoprobe.studies.fillin.sentiment import Labeller

    lex = load_lexicon(name)
    assert word not in lex
    got = Labeller(lex, synonyms=False).label(word)
    assert (got.source, got.lemma, got.label) == ("lemma", lemma, label)


def test_sentiment_records_the_named_lexicon_in_meta():
    from stereoprobe.records import Completion
    from stereoprobe.studies.fillin.sentiment import score

    rec = Completion("p1", 0, "age", "old people", "are_so", "statement", "", words=["rude", "kind", "cheap"])
    result = score([rec], lexicon="afinn", synonyms=False)
    assert result.meta["lexicon"]["name"] == "afinn"
    assert result.meta["lexicon"]["version"] == "0.1"
    assert result.meta["lexicon"]["rule"] == RULES["afinn"]
    # AFINN: rude -2, kind 2 (hand-read from AFINN-en-165.txt); cheap is not in it
    row = result.table4[result.table4["category"] == "all"].iloc[0]
    assert (row["n_negative"], row["n_positive"], row["n_unassigned"]) == (1, 1, 1)
