"""Which gender a first name usually has: the names table of the PyPI package nomquamgender.

nomquamgender (Van Buskirk, Clauset & Larremore 2023, "An open-source cultural consensus
approach to name-based gender classification", ICWSM; MIT licence) ships p(gf), the
estimated probability that a person with the name is typically gendered female, for
about 720,000 names from 36 sources. Following the package's own rule (its
``NBGC.classify``, threshold 0.1), a name is

- ``female`` when p(gf) >= 0.9, ``male`` when p(gf) <= 0.1;
- ``unclassified`` when it is in the table but in between (Alex, Jamie, Kai);
- ``unknown`` when it is not in the table at all.

Unclassified and unknown names are counted, never guessed. Names are looked up as the
package does (transliterated with unidecode, lower-cased, stripped).

The table is a 22 MB JSON file inside the package; reading it takes seconds and 250 MB,
so it is converted once into an SQLite file in stereoprobe's cache folder
(``$STEREOPROBE_CACHE`` or ``~/.cache/stereoprobe``; datafiles.cache_dir) and looked up
there. Nothing is downloaded.
"""

from __future__ import annotations

import sqlite3
import threading
from importlib import metadata
from pathlib import Path
from typing import Iterable, Mapping

from stereoprobe.errors import DataError

PACKAGE = "nomquamgender"
THRESHOLD = 0.1  # the package's default: at most this far from 0 or 1 to be classified
CLASSES = ("female", "male", "unclassified", "unknown")
_LOCK = threading.Lock()


def classify_pgf(pgf: float | None, threshold: float = THRESHOLD) -> str:
    """The class of a name from its p(gf) (None: not in the table).

    >>> [classify_pgf(p) for p in (0.992, 0.001, 0.347, 0.1, 0.9, None)]
    ['female', 'male', 'unclassified', 'male', 'female', 'unknown']
    """
    if pgf is None:
        return "unknown"
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
    """name -> p(gf) lookups, from a mapping (tests) or the package's table (``load``)."""

    def __init__(self, pgf: Mapping[str, float] | None = None, path: Path | None = None, source: str = "") -> None:
        self._pgf = dict(pgf or {})
        self._path = path
        self.source = source

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
        return {n: classify_pgf(p) for n, p in self.pgf(names).items()}


def _version() -> str:
    try:
        return metadata.version(PACKAGE)
    except metadata.PackageNotFoundError:
        raise DataError(f"Story names need the names table: pip install {PACKAGE} (a dependency of stereoprobe).") from None


def load() -> NameTable:
    """The package's table, converted into the cache folder on first use."""
    from importlib import resources

    from stereoprobe.datafiles import cache_dir

    version = _version()
    path = cache_dir() / "names" / f"{PACKAGE}-{version}.sqlite"
    with _LOCK:
        if not path.is_file():
            _convert(Path(str(resources.files(PACKAGE) / "name_data.json")), path)
    return NameTable(path=path, source=f"{PACKAGE} {version} (threshold {THRESHOLD})")


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
