"""A study's named designs: how much of it is asked, and at what settings (docs/designs.md).

Three names, the same for every study:

- ``default``: what ``stereoprobe collect --study S`` asks with no ``--design``, each
  study's own defaults (its page in docs/ says which);
- ``quick``: a documented subset of the study (fewer groups, jobs, pairs or samples),
  chosen once with a fixed seed, so that ``stereoprobe suite`` on the embedded model fits
  its time budget;
- ``published``: the paper's own settings, so that a paper's figures can stand beside the
  run's (the same design, the same unit).

A study lists its designs in its folder's ``designs.py``: a function
``designs(options) -> {name: Design}`` (it takes the collect options because a design can
depend on them: the coreference study's on its template family). ``default`` needs no
entry. ``apply`` turns a design's name into the options a collect runs with; the run's
manifest records the name (``RunManifest.design``) and a run is never continued under
another design.

>>> d = Design("quick", {"samples": 3}, "3 samples a prompt", "docs/anecdotes.md")
>>> d.name, dict(d.options)
('quick', {'samples': 3})
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import PurePath
from typing import Any, Mapping

from stereoprobe.errors import DataError

NAMES = ("default", "quick", "published")
DEFAULT = "default"


@dataclass(frozen=True)
class Design:
    """One named design of one study."""

    name: str  # one of NAMES
    options: Mapping[str, Any]  # the collect options it sets (the CLI's parameter names)
    what: str  # one line: what is asked ("40 professions x 30 samples at temperature 0.5")
    source: str  # where the settings come from ("Sterlie et al. (2024), section 5.1")
    notes: tuple[str, ...] = field(default_factory=tuple)  # what differs from the paper, how it was chosen
    #: How much wider its 95% intervals are than the default design's, measured on real runs of
    #: both (the median over the study's gate metrics of width ratios; docs/designs.md); None:
    #: not measured, or the default itself.
    width_cost: float | None = None


def designs_of(study: Any, options: Mapping[str, Any] | None = None) -> dict[str, Design]:
    """The designs ``study`` offers for these options: its folder's ``designs.py``, with
    ``default`` (the study's own defaults) always there."""
    found: dict[str, Design] = {}
    module = study.designs()
    if module is not None:
        found.update(module.designs(dict(options or {})))
    found.setdefault(DEFAULT, Design(DEFAULT, {}, "the study's own defaults",
                                     f"docs ({study.name}): the settings collect uses without --design"))
    return found


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return tuple(a) == tuple(b)
    return a == b


def apply(study: Any, name: str | None, options: Mapping[str, Any]) -> dict[str, Any]:
    """The options a collect of ``study`` runs with under the design ``name`` (None: the
    default). The design's options count as given; an option the user gave that the design
    sets to another value is refused in one line (a run is one design or another).

    ``options["given"]``: the option names set on the command line (the CLI passes them; a
    Python caller's non-None values count as given when it is absent).
    """
    name = name or DEFAULT
    available = designs_of(study, options)
    if name not in NAMES:
        raise DataError(f"Unknown design {name!r}: choose {', '.join(NAMES)}.")
    if name not in available:
        raise DataError(f"The {study.name} study has no {name} design here; choose "
                        f"{', '.join(n for n in NAMES if n in available)} (docs/designs.md).")
    design = available[name]
    given = options.get("given")
    if given is None:
        given = frozenset(k for k, v in options.items() if v not in (None, (), []))
    for key, value in design.options.items():
        if key in given and not _same(options.get(key), value):
            flag = "--" + key.replace("_", "-")
            sets = "does not use it" if value is None else f"sets {value!r}"
            given_value = options.get(key)
            shown = repr(str(given_value)) if isinstance(given_value, PurePath) else repr(given_value)  # not PosixPath(...)
            raise DataError(f"{flag} {shown} conflicts with the {name} design of the {study.name} "
                            f"study, which {sets}; drop {flag} or drop --design {name}.")
    return {**options, **design.options, "given": frozenset(given) | frozenset(design.options), "design": name}


# -- the quick designs' subsets: drawn once, kept as data (docs/designs.md) ----------------------
def draw(items: Any, k: int, seed: Any) -> list[Any]:
    """``k`` of ``items`` (all of them when fewer) drawn without replacement by numpy's generator
    seeded with ``seed`` (an int or a list of ints), kept in their own order.

    >>> draw(["a", "b", "c", "d", "e"], 2, 33)
    ['c', 'd']
    """
    import numpy as np

    items = list(items)
    picked = np.random.default_rng(seed).choice(len(items), size=min(k, len(items)), replace=False)
    return [items[i] for i in sorted(int(i) for i in picked)]


def write_subset(path: Any, how: str, columns: Any, rows: Any) -> None:
    """A quick design's subset as a CSV file in the study's ``data/`` folder, headed by comment
    lines saying how it was drawn (``how``), read back with ``datafiles.read_rows``."""
    import csv
    import io
    from pathlib import Path

    out = io.StringIO()
    out.write("".join(f"# {line}\n" for line in how.splitlines()))
    writer = csv.DictWriter(out, fieldnames=list(columns), lineterminator="\n")
    writer.writeheader()
    writer.writerows({c: row[c] for c in columns} for row in rows)
    Path(path).write_text(out.getvalue(), encoding="utf-8")


def read_subset(path: Any, columns: Any) -> list[dict[str, str]]:
    """The rows of a quick design's subset file (``write_subset``)."""
    from stereoprobe.datafiles import read_rows

    from pathlib import Path

    return [row for _, row in read_rows(Path(path), list(columns))]


def redraw(study: Any) -> Any:
    """Draw ``study``'s quick subset afresh (its designs module's ``draw_quick``) and write it to
    its file (``quick_file``), headed by the draw's docstring; the path, or None for a study whose
    quick design keeps no subset. Run once, when a design is made (``redraw_all``)."""
    import inspect

    module = study.designs()
    if module is None or not hasattr(module, "draw_quick"):
        return None
    rows = module.draw_quick()
    how = " ".join(inspect.getdoc(module.draw_quick).split())
    write_subset(module.quick_file(), f"The {study.name} study's quick design (docs/designs.md). {how}\n"
                 "Written by stereoprobe.designs.redraw_all(); tests/test_suite_designs.py checks it is that draw.",
                 list(rows[0]), rows)
    return module.quick_file()


def redraw_all() -> list[Any]:
    """Every study's quick subset drawn and written (``redraw``): ``python -c "from
    stereoprobe.designs import redraw_all; redraw_all()"``, once, when a quick design is made."""
    from stereoprobe.studies import get_study, names

    return [path for path in (redraw(get_study(name)) for name in names()) if path is not None]
