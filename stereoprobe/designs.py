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
            raise DataError(f"{flag} {options.get(key)!r} conflicts with the {name} design of the {study.name} "
                            f"study, which {sets}; drop {flag} or drop --design {name}.")
    return {**options, **design.options, "given": frozenset(given) | frozenset(design.options), "design": name}
