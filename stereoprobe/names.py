"""First name -> gender, and the titles that are never names: one resource for every study.

The table is the PyPI package nomquamgender's (Van Buskirk, Clauset & Larremore 2023,
"An open-source cultural consensus approach to name-based gender classification", ICWSM;
MIT licence): p(gf), the estimated probability that a person with the name is typically
gendered female, for about 720,000 names from 36 sources. Two rules read it:

- ``majority`` (the default; Marin & Eger's, seed 000: a name takes the gender most of its
  bearers have): ``female`` when p(gf) > 0.5, ``male`` when p(gf) < 0.5, ``unclassified``
  at exactly 0.5;
- ``consensus`` (the package's own ``NBGC.classify``, threshold 0.1): ``female`` when
  p(gf) >= 0.9, ``male`` when <= 0.1, ``unclassified`` in between (Alex, Jamie, Kai).

A name not in the table is ``unknown``: counted and shown, never guessed. Titles (Mr,
Mrs, Ms, Miss, Sir, Lady, Dr, Captain, Professor ...; ``TITLES``) are never looked up as
names: ``title_gender`` says which gender a title itself marks (Mrs: female, Sir: male,
Dr: none), and ``first_name`` skips them to the name that follows ("Dr. Elena Park" ->
Elena). Names are keyed as the package keys them (transliterated with unidecode,
lower-cased, stripped).

The package's table is a 22 MB JSON file; reading it takes seconds and 250 MB, so it is
converted once into an SQLite file in stereoprobe's cache folder (``$STEREOPROBE_CACHE``
or ``~/.cache/stereoprobe``; datafiles.cache_dir) and looked up there. Nothing is downloaded.
"""

from __future__ import annotations

import re
import sqlite3
import threading
from importlib import metadata
from pathlib import Path
from typing import Iterable, Mapping, Sequence

from stereoprobe.errors import DataError

PACKAGE = "nomquamgender"
THRESHOLD = 0.1  # the package's default (rule "consensus"): at most this far from 0 or 1 to be classified
RULES = ("majority", "consensus")
CLASSES = ("female", "male", "unclassified", "unknown")
#: Titles and forms of address, lower-case without the full stop, with the gender each marks
#: ("" : none). Never names, whatever a name table says ("Sir" and "Captain" are in it as male).
TITLES: dict[str, str] = {
    "mr": "male", "mister": "male", "sir": "male", "lord": "male", "master": "", "king": "male",
    "prince": "male", "duke": "male", "earl": "male", "baron": "male", "father": "", "brother": "",
    "uncle": "male", "grandpa": "male", "monsieur": "male", "señor": "male", "senor": "male", "herr": "male",
    "mrs": "female", "ms": "female", "miss": "female", "mx": "", "madam": "female", "madame": "female",
    "ma'am": "female", "lady": "female", "dame": "female", "queen": "female", "princess": "female",
    "duchess": "female", "countess": "female", "baroness": "female", "sister": "", "aunt": "female",
    "auntie": "female", "grandma": "female", "mademoiselle": "female", "mlle": "female", "mme": "female",
    "señora": "female", "senora": "female", "frau": "female",
    "dr": "", "doctor": "", "prof": "", "professor": "", "captain": "", "capt": "", "cpt": "",
    "detective": "", "det": "", "inspector": "", "officer": "", "sergeant": "", "sgt": "", "lieutenant": "",
    "lt": "", "colonel": "", "col": "", "major": "", "general": "", "gen": "", "admiral": "", "commander": "",
    "chief": "", "judge": "", "justice": "", "senator": "", "sen": "", "governor": "", "gov": "", "mayor": "",
    "president": "", "pres": "", "rev": "", "reverend": "", "pastor": "", "rabbi": "", "imam": "", "nurse": "",
    "coach": "", "agent": "", "constable": "", "sheriff": "", "deputy": "", "chef": "", "saint": "", "st": "",
}
_LOCK = threading.Lock()
_WORD = re.compile(r"[A-Z][a-z]+(?:[-'][A-Z]?[a-z]+)?")


#: the compass points: places ("the North", "North Broadway", "West Virginia"), though a name table
#: lists North and West as men's names; the readers take them for a name only where a text gives one
COMPASS = frozenset({"north", "south", "east", "west"})
#: words that open a place's name ("St. Louis", "San Antonio", "Santa Monica", "Fort Smith", "Los Angeles")
PLACE_OPENERS = frozenset({"st", "saint", "san", "santa", "fort", "mount", "mt", "los", "las"})
#: the US states of one word, and the first words of two others ("New", "Rhode"; the compass points are above)
US_STATES = frozenset((
    "alabama alaska arizona arkansas california colorado connecticut delaware florida georgia hawaii idaho illinois "
    "indiana iowa kansas kentucky louisiana maine maryland massachusetts michigan minnesota mississippi missouri "
    "montana nebraska nevada ohio oklahoma oregon pennsylvania tennessee texas utah vermont virginia washington "
    "wisconsin wyoming new rhode").split())


def in_place_name(words: Sequence[str], gaps: Sequence[str], i: int) -> bool:
    """Whether the capitalised ``words[i]`` is part of a place's name by its neighbours, though a name table lists
    Louis, Antonio, Smith, Augustine, Georgia and Austin: a :data:`PLACE_OPENERS` word before a capitalised word
    ("Santa Monica") and that word ("St. Louis", "San Antonio"); a US state after a capitalised word and a comma
    ("Oakville, Georgia"); a capitalised word before a comma and a US state ("Austin, Texas"). ``gaps[j]``: the
    text between ``words[j - 1]`` and ``words[j]``.

    >>> w = ["in", "St.", "Augustine", "Florida", "and", "Austin", "Texas", "Santa", "Maria", "Santa", "said"]
    >>> g = ["", " ", " ", ", ", " ", " ", ", ", ". ", " ", ". ", " "]
    >>> [in_place_name(w, g, i) for i in range(len(w))]
    [False, True, True, True, False, True, True, True, True, False, False]
    """
    def low(j: int) -> str:
        return words[j].rstrip(".").lower() if 0 <= j < len(words) else ""

    def upper(j: int) -> bool:
        return 0 <= j < len(words) and words[j][:1].isupper()

    def gap(j: int) -> str:
        return gaps[j].strip() if 0 <= j < len(words) else "?"

    if not upper(i):
        return False
    opened = low(i) in PLACE_OPENERS and upper(i + 1) and not gap(i + 1)  # "Santa" of "Santa Monica"
    after_opener = low(i - 1) in PLACE_OPENERS and upper(i - 1) and not gap(i)  # "Monica" of it
    state = low(i) in US_STATES and upper(i - 1) and gap(i) == ","  # "Oakville, Georgia"
    before_state = low(i + 1) in US_STATES and upper(i + 1) and gap(i + 1) == ","  # "Austin, Texas"
    return opened or after_opener or state or before_state


def is_title(word: str) -> bool:
    """Whether ``word`` (with or without its full stop) is a title, not a name.

    >>> [is_title(w) for w in ("Dr.", "Captain", "Sir", "Mrs", "Ms.", "Elena", "Miss")]
    [True, True, True, True, True, False, True]
    """
    return word.strip().rstrip(".").lower() in TITLES


def title_gender(word: str) -> str:
    """The gender a title marks: "female", "male" or "" (none, or not a title).

    >>> [title_gender(w) for w in ("Mrs.", "Ms", "Sir", "Dr", "Captain", "Elena")]
    ['female', 'female', 'male', '', '', '']
    """
    return TITLES.get(word.strip().rstrip(".").lower(), "")


def first_name(text: str, stop_words: frozenset[str] = frozenset(), window: int = 200) -> str | None:
    """The first capitalised word of ``text`` that is neither a stop word nor a title
    (Marin & Eger look at the first words for a name and skip "the", "dr", "detective").

    >>> first_name("Dr. Elena Park had been ...")
    'Elena'
    >>> first_name("The old Mr. Brown", frozenset({"the", "old"}))
    'Brown'
    >>> first_name("Sir Lancelot rode out") , first_name("...and then nothing") is None
    ('Lancelot', True)
    """
    for word in _WORD.findall(text[:window]):
        if word.lower() not in stop_words and not is_title(word):
            return word
    return None


def classify_pgf(pgf: float | None, rule: str = "majority", threshold: float = THRESHOLD) -> str:
    """The class of a name from its p(gf) (None: not in the table).

    >>> [classify_pgf(p) for p in (0.992, 0.001, 0.347, 0.5, 0.6, None)]
    ['female', 'male', 'male', 'unclassified', 'female', 'unknown']
    >>> [classify_pgf(p, "consensus") for p in (0.992, 0.001, 0.347, 0.1, 0.9, None)]
    ['female', 'male', 'unclassified', 'male', 'female', 'unknown']
    """
    if pgf is None:
        return "unknown"
    if rule == "majority":
        return "female" if pgf > 0.5 else "male" if pgf < 0.5 else "unclassified"
    if pgf <= threshold:
        return "male"
    if pgf >= 1 - threshold:
        return "female"
    return "unclassified"


def key(name: str) -> str:
    """How the package normalises a name before looking it up.

    >>> key("  Zoë ")
    'zoe'
    """
    from unidecode import unidecode

    return unidecode(name).lower().strip()


class NameTable:
    """name -> p(gf) lookups, from a mapping (tests) or the package's table (``load``).

    ``classify`` never looks a title up: a title's class is "title"."""

    def __init__(self, pgf: Mapping[str, float] | None = None, path: Path | None = None, source: str = "",
                 rule: str = "majority") -> None:
        if rule not in RULES:
            raise DataError(f"Unknown name rule {rule!r}: choose {' or '.join(RULES)}.")
        self._pgf = {key(k): v for k, v in (pgf or {}).items()}
        self._path = path
        self.rule = rule
        self.source = f"{source} (rule {rule})" if source else f"rule {rule}"

    def pgf(self, names: Iterable[str]) -> dict[str, float | None]:
        keys = {n: key(n) for n in names}
        if self._path is None:
            return {n: self._pgf.get(k) for n, k in keys.items()}
        found: dict[str, float] = {}
        wanted = sorted(set(keys.values()))
        with sqlite3.connect(f"file:{self._path}?mode=ro", uri=True) as db:
            for i in range(0, len(wanted), 500):
                chunk = wanted[i:i + 500]
                rows = db.execute(f"SELECT name, pgf FROM names WHERE name IN ({','.join('?' * len(chunk))})", chunk)
                found.update(rows.fetchall())
        return {n: found.get(k) for n, k in keys.items()}

    def classify(self, names: Iterable[str]) -> dict[str, str]:
        """Each name's class (``CLASSES``), or "title" for a title."""
        names = list(names)
        real = [n for n in names if not is_title(n)]
        out = {n: classify_pgf(p, self.rule) for n, p in self.pgf(real).items()}
        return {n: out.get(n, "title") for n in names}


CALENDAR = frozenset("monday tuesday wednesday thursday friday saturday sunday january february march april may june "
                     "july august september october november december christmas easter".split())
_LEXEME_PROB = "spacy_lookups_data"  # its en_lexeme_prob table: log-probabilities of a million word forms, by case


def common_words(words: Iterable[str]) -> set[str]:
    """The capitalised ``words`` that are ordinary words, not names: a weekday or month, a
    word in capitals ("CEO"), or one written more often in lower case than capitalised in
    spaCy's English word-frequency table ("Children", "Hope", "Will"; not "Grace", "John").
    The table (spacy-lookups-data, a spaCy dependency) is converted once into the cache
    folder, as the names table is; without it only the first two rules apply."""
    words = set(words)
    out = {w for w in words if w.lower() in CALENDAR or (len(w) > 1 and w.isupper())}
    rest = sorted(w for w in words - out if w[:1].isupper())
    path = _lexeme_path()
    if not rest or path is None:
        return out
    forms = sorted({f for w in rest for f in (w, w.lower())})
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as db:
        prob = dict(db.execute(f"SELECT form, prob FROM forms WHERE form IN ({','.join('?' * len(forms))})", forms))
    return out | {w for w in rest if prob.get(w.lower(), -99.0) > prob.get(w, -99.0)}


def _lexeme_path() -> Path | None:
    import gzip
    import json
    import os
    import tempfile
    from importlib import resources

    from stereoprobe.datafiles import cache_dir

    try:
        version = metadata.version("spacy-lookups-data")
        source = Path(str(resources.files(_LEXEME_PROB) / "data" / "en_lexeme_prob.json.gz"))
    except (metadata.PackageNotFoundError, ModuleNotFoundError):
        return None
    path = cache_dir() / "names" / f"lexeme-prob-{version}.sqlite"
    with _LOCK:
        if not path.is_file() and source.is_file():
            data = json.load(gzip.open(source, "rt", encoding="utf-8"))
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".sqlite")
            os.close(fd)
            with sqlite3.connect(tmp) as db:
                db.execute("CREATE TABLE forms (form TEXT PRIMARY KEY, prob REAL)")
                db.executemany("INSERT OR IGNORE INTO forms VALUES (?, ?)", data.items())
            os.replace(tmp, path)
    return path if path.is_file() else None


def _version() -> str:
    try:
        return metadata.version(PACKAGE)
    except metadata.PackageNotFoundError:
        raise DataError(f"Names need the names table: pip install {PACKAGE} (a dependency of stereoprobe).") from None


def load(rule: str = "majority") -> NameTable:
    """The package's table, converted into the cache folder on first use."""
    from importlib import resources

    from stereoprobe.datafiles import cache_dir

    version = _version()
    path = cache_dir() / "names" / f"{PACKAGE}-{version}.sqlite"
    with _LOCK:
        if not path.is_file():
            _convert(Path(str(resources.files(PACKAGE) / "name_data.json")), path)
    return NameTable(path=path, source=f"{PACKAGE} {version}", rule=rule)


def _convert(source: Path, target: Path) -> None:
    import json
    import os
    import tempfile

    try:
        data = json.loads(source.read_text(encoding="utf-8"))
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=target.parent, suffix=".sqlite")
        os.close(fd)
        with sqlite3.connect(tmp) as db:
            db.execute("CREATE TABLE names (name TEXT PRIMARY KEY, sources INTEGER, counts INTEGER, pgf REAL)")
            db.executemany("INSERT OR IGNORE INTO names VALUES (?, ?, ?, ?)",
                           ((n, v[0], v[1], v[2]) for n, v in data.items() if isinstance(v, list) and len(v) >= 3))
        os.chmod(tmp, 0o644)
        os.replace(tmp, target)
    except OSError as exc:
        raise DataError(f"Cannot write the names table under {target.parent} ({exc.strerror}); "
                        "set STEREOPROBE_CACHE to a writable folder.") from None
