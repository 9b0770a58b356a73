"""The speed-ups of `stereoprobe report` and `sentiment` change nothing: word clouds drawn with
the cached fonts are the pixels wordcloud draws with Pillow's own, and the lazily built
WordNet index answers as NLTK's eager one (docs/benchmarks.md)."""

from __future__ import annotations

import random
import warnings

import pytest

from stereoprobe.studies.fillin.report.words import Word


def test_clouds_with_cached_fonts_are_the_same_pixels():
    import wordcloud.wordcloud
    from PIL import ImageFont

    from stereoprobe.studies.fillin.report import clouds

    rng = random.Random(1)
    vocab = ["lonely", "kind", "greedy", "wise", "loud", "proud", "calm", "rude", "honest", "lazy", "brave", "shy"]
    sets = [[Word(w, rng.randint(1, 30), rng.choice(["positive", "negative", "neutral"])) for w in rng.sample(vocab, 9)]
            for _ in range(4)]
    cached = [clouds.cloud_image(words).tobytes() for words in sets * 2]  # the second round hits the caches
    original = clouds._wordcloud_fonts
    try:
        clouds._wordcloud_fonts = lambda: ImageFont  # Pillow's own, as wordcloud imports it
        plain = [clouds.cloud_image(words).tobytes() for words in sets * 2]
    finally:
        clouds._wordcloud_fonts = original
        wordcloud.wordcloud.ImageFont = original()
    assert cached == plain
    assert len(set(plain)) == 4


def test_lazy_wordnet_index_answers_as_nltks():
    from nltk.corpus.reader.wordnet import WordNetCorpusReader

    from stereoprobe.studies.fillin import wordnet

    lazy = wordnet.load_wordnet()

    class Eager(type(lazy)):  # the same reader with NLTK's own loading
        _scan_satellites = WordNetCorpusReader._scan_satellites
        _load_lemma_pos_offset_map = WordNetCorpusReader._load_lemma_pos_offset_map

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        eager = Eager(lazy.root, None)
    names = sorted(eager._lemma_pos_offset_map)
    words = random.Random(0).sample(names, 300) + ["corrupted", "geese", "went", "better", "xyzzy", "Running"]
    with wordnet._LOCK:
        for w in words:
            for pos in (None, "a", "s", "n", "asr"):
                assert [s.name() for s in lazy.synsets(w, pos=pos)] == [s.name() for s in eager.synsets(w, pos=pos)], w
            assert lazy.morphy(w) == eager.morphy(w)
        assert "xyzzy" not in lazy._lemma_pos_offset_map
        assert list(lazy.all_lemma_names("s")) == list(eager.all_lemma_names("s"))  # iterating loads all, in order


@pytest.mark.parametrize("word, satellites", [("rambunctious", 1), ("big", None)])
def test_lazy_index_marks_satellites(word, satellites):
    from stereoprobe.studies.fillin import wordnet

    with wordnet._LOCK:
        entry = wordnet.load_wordnet()._lemma_pos_offset_map[word]
    assert set(entry) >= {"a", "s"}
    if satellites is not None:
        assert len(entry["s"]) == satellites
