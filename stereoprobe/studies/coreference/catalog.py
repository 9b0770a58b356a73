"""Which coreference probes a run asks: the pairs' source, the filters, the prefixes, and the
run's catalog identity (what ``collect`` refuses to change when it continues a run).

Sources of pairs (docs/coreference.md): the jobs study's 40 occupations (default), ``--pairs
N --seed S`` (random pairs of the fill-in catalog's professions) or ``--pairs-file CSV``.
Filters: ``--job`` keeps the pairs both of whose professions are named, ``--prompt`` the
templates named, ``--debias`` the prefixes (none by default; ``all``: none and 1-6),
``--limit`` the first N probes. Probes are ordered by prefix, template, pair and pronoun,
so the three probes of a triple (which share their start) follow each other.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Mapping, Sequence

from stereoprobe.errors import DataError
from stereoprobe.studies.coreference.pairs import Pair, jobs_pairs, random_pairs, read_pairs_csv
from stereoprobe.studies.coreference.probes import CorefProbe, make_probes
from stereoprobe.studies.coreference.templates import load_instruction, load_pronouns, load_templates

FAMILY = "marin-eger-2024"
BUILT_IN = "built-in: the jobs study's 40 occupations, women- x men-dominated, both roles"


@dataclass(frozen=True)
class Source:
    """Where a run's pairs come from: what makes its catalog identity."""

    path: str  # BUILT_IN, "random: N pairs, seed S", or the pairs file
    pairs: tuple[Pair, ...]


def pairs_source(options: Mapping[str, Any]) -> Source:
    """The pairs of ``--pairs N --seed S``, ``--pairs-file CSV`` or the default, checked."""
    n, seed, path = options.get("pairs"), options.get("seed"), options.get("pairs_file")
    if n is not None and path is not None:
        raise DataError("--pairs N draws pairs from the catalog's professions and --pairs-file reads yours: "
                        "give one of them.")
    if seed is not None and n is None:
        raise DataError("--seed applies to --pairs N (random pairs); add --pairs N or drop --seed.")
    if n is not None:
        seed = 0 if seed is None else seed
        return Source(f"random: {n} pairs of the catalog's professions, seed {seed}", tuple(random_pairs(n, seed)))
    if path is not None:
        if Path(path).is_dir():
            raise DataError(f"{path} is a directory; --pairs-file is a CSV file with profession_a,profession_b.")
        return Source(str(path), tuple(read_pairs_csv(path)))
    return Source(BUILT_IN, tuple(jobs_pairs()))


def _filter_pairs(pairs: Sequence[Pair], jobs: Sequence[str]) -> list[Pair]:
    if not jobs:
        return list(pairs)
    known = {p.a.lower() for p in pairs} | {p.b.lower() for p in pairs}
    bad = [j for j in jobs if j.lower() not in known]
    if bad:
        raise DataError(f"Unknown profession {bad[0]!r} in --job: it is in none of the pairs "
                        "(`stereoprobe probes --study coreference` lists them).")
    wanted = {j.lower() for j in jobs}
    out = [p for p in pairs if p.a.lower() in wanted and p.b.lower() in wanted]
    if not out:
        raise DataError("No pair has both of its professions among the --job given; name at least two that are paired.")
    return out


def select(options: Mapping[str, Any]) -> tuple[list[CorefProbe], Source]:
    """The probes a run asks (module docstring) and their source (``--templates sterlie``: sterlie.py)."""
    from stereoprobe.debias import parse_debias
    from stereoprobe.studies.coreference import sterlie

    if sterlie.check_set(options) == sterlie.SET:
        return sterlie.select(options)  # type: ignore[return-value]

    source = pairs_source(options)
    pairs = _filter_pairs(source.pairs, options.get("job") or ())
    templates = load_templates()
    names = [t.name for t in templates]
    wanted = list(options.get("prompt") or ())
    bad = [w for w in wanted if w not in names]
    if bad:
        raise DataError(f"Unknown template {bad[0]!r} in --prompt: choose {', '.join(names)}.")
    chosen = [t for t in templates if not wanted or t.name in wanted]
    pronouns, instruction = load_pronouns(), load_instruction()
    probes = [p for d in parse_debias(options.get("debias"))
              for p in make_probes(pairs, chosen, pronouns, instruction, debias=d)]
    limit = options.get("limit")
    return (probes[:limit] if limit else probes), source


def catalog_info(source: Source) -> Any:
    """The run's catalog identity: the pairs, templates, pronouns and instruction (not the
    filters or prefixes, so a run can be continued with more templates, jobs or prefixes)."""
    from stereoprobe.manifest import CatalogInfo

    if hasattr(source, "catalog_info"):  # --templates sterlie (sterlie.SterlieSource)
        return source.catalog_info()

    templates = load_templates()
    canon = json.dumps({"pairs": [asdict(p) for p in source.pairs], "templates": [asdict(t) for t in templates],
                        "pronouns": [asdict(p) for p in load_pronouns()], "instruction": load_instruction()},
                       sort_keys=True)
    return CatalogInfo(path=source.path, sha256=hashlib.sha256(canon.encode("utf-8")).hexdigest(),
                       probes=len(source.pairs) * len(templates) * len(load_pronouns()), template_family=FAMILY,
                       templates={t.name: {"text": f"{t.sentence} {t.question}", "format": t.answer_format}
                                  for t in templates})
