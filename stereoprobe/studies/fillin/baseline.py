"""A human baseline: Choenni et al.'s search-engine completions as a run directory.

Choenni, Shutova & van Rooij (2021), *Stepmothers are mean and academics are pretentious:
What do pretrained language models learn about you?*, EMNLP 2021, collected the
autocomplete suggestions of Google, Yahoo and DuckDuckGo for queries such as "why are
academics so". Their repository (RochelleChoenni/stereotypes_in_lms, MIT licence)
releases them as ``data_collection/stereo_dataset/stereo_dataset.csv`` and
``single_word_stereo_dataset.csv``. Users download a file themselves; nothing is
downloaded here.

The files are tab-separated despite the name, with the header
``input<TAB>target_category<TAB>target_group<TAB>completion<TAB>search_engine``, and the
quoted values hold a newline before the closing quote, so one record spans several
physical lines. :func:`read_choenni` reads that with ``csv`` (tab delimiter, normal
quoting) and strips the whitespace.

:func:`build_baseline` turns the rows into a run directory whose records have format
``search-engine``: one record per group and query input, its words the completions
people were shown (one word per row of the file, repeats kept). A group is matched to
the catalog in its category by name (case and spaces ignored), else through
``groups/choenni_groups.csv``; a query that is a catalog probe's text ("why are
academics so" = "why are <group> so ...") takes that probe's id, so ``compare`` aligns
the baseline with model runs on those probes. Other queries ("what makes X so", "how
come X are so") get an id by the same rule from their own text.
"""

from __future__ import annotations

import csv
import hashlib
import json
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from stereoprobe.errors import DataError
from stereoprobe.records import MASK, Completion, probe_id_for

HEADER = ("input", "target_category", "target_group", "completion", "search_engine")
FORMAT = "search-engine"
MAPPING_FILE = "choenni_groups.csv"
MAPPING_COLUMNS = ("choenni_category", "choenni_group", "category", "group")
SOURCE = {
    "citation": (
        "Rochelle Choenni, Ekaterina Shutova and Robert van Rooij. 2021. Stepmothers are mean and "
        "academics are pretentious: What do pretrained language models learn about you? "
        "In Proceedings of EMNLP 2021, pages 1477-1491."
    ),
    "repository": "https://github.com/RochelleChoenni/stereotypes_in_lms",
    "folder": "data_collection/stereo_dataset/",
    "licence": "MIT",
    "what": "search-engine autocomplete suggestions (Google, Yahoo, DuckDuckGo) for stereotype queries",
}


@dataclass(frozen=True)
class SearchRow:
    """One row of Choenni et al.'s file (values stripped), with its first physical line."""

    input: str
    category: str
    group: str
    completion: str
    search_engine: str
    line: int


@dataclass
class Baseline:
    """What :func:`build_baseline` made."""

    run_dir: Path
    records: list[Completion]
    rows: int
    matched: dict[tuple[str, str], tuple[str, str]]  # (their category, group) -> catalog's
    unmatched: list[tuple[str, str]]
    probes_in_catalog: int  # records whose query is a catalog probe
    manifest: dict[str, Any] = field(default_factory=dict)
    mapping_file: str | Path | None = None  # the user's --mapping (None: the shipped one)

    def summary(self) -> str:
        from stereoprobe.page.numbers import counted

        groups = len(self.matched) + len(self.unmatched)
        probes = self.probes_in_catalog
        text = (
            f"{counted(self.rows, 'row')} -> {counted(len(self.records), 'record')} (group x query) in {self.run_dir}; "
            f"{len(self.matched):,} of {counted(groups, 'group')} matched to the catalog, "
            f"{counted(probes, 'record')} {'is a catalog probe' if probes == 1 else 'are catalog probes'}."
        )
        if self.unmatched:
            names = ", ".join(f"{c}/{g}" for c, g in self.unmatched)
            where = self.mapping_file or f"groups/{MAPPING_FILE}"  # the mapping this run read
            text += f" Not in the catalog (kept under their own names; add them to {where}): {names}."
        return text


def _key(text: str) -> str:
    return re.sub(r"\s+", " ", text.strip().lower())


def read_choenni(path: str | Path) -> list[SearchRow]:
    """The rows of stereo_dataset.csv or single_word_stereo_dataset.csv (see the module docstring)."""
    p = Path(path)
    try:
        with p.open(newline="", encoding="utf-8-sig") as f:
            reader = csv.reader(f, delimiter="\t")
            header = next(reader, None)
            if header is None or tuple(h.strip() for h in header) != HEADER:
                got = "an empty file" if header is None else repr("\t".join(header)[:80])
                raise DataError(
                    f"{p}: expected Choenni et al.'s tab-separated header {'<TAB>'.join(HEADER)}, got {got}; "
                    "give their stereo_dataset.csv or single_word_stereo_dataset.csv."
                )
            rows = []
            start = reader.line_num + 1
            for fields in reader:
                line, start = start, reader.line_num + 1
                if not any(x.strip() for x in fields):
                    continue
                if len(fields) != len(HEADER):
                    raise DataError(
                        f"{p}, line {line}: {len(fields)} tab-separated values instead of {len(HEADER)}; "
                        "the file looks damaged, download it again."
                    )
                vals = [x.strip() for x in fields]
                if not all(vals[:4]):
                    raise DataError(f"{p}, line {line}: an empty input, category, group or completion; fix or remove that row.")
                rows.append(SearchRow(*vals, line=line))
    except FileNotFoundError:
        raise DataError(f"{p}: file not found; download it from {SOURCE['repository']} ({SOURCE['folder']}).") from None
    except UnicodeDecodeError as exc:
        raise DataError(f"{p}: not UTF-8 text ({exc.reason}); download the file again.") from None
    except csv.Error as exc:
        raise DataError(f"{p}: not readable as tab-separated values ({exc}).") from None
    if not rows:
        raise DataError(f"{p}: no rows under the header.")
    return rows


def load_group_map(path: str | Path | None = None) -> dict[tuple[str, str], tuple[str, str]]:
    """``groups/choenni_groups.csv``: (their category, their group) -> (category, group) of the catalog."""
    if path is None:
        from stereoprobe.studies.fillin.catalog import default_catalog_dir

        path = default_catalog_dir() / MAPPING_FILE
    p = Path(path)
    out: dict[tuple[str, str], tuple[str, str]] = {}
    try:
        with p.open(newline="", encoding="utf-8-sig") as f:
            reader = csv.DictReader(f)
            if tuple(h.strip() for h in reader.fieldnames or ()) != MAPPING_COLUMNS:
                raise DataError(f"{p}: the header must be {','.join(MAPPING_COLUMNS)}.")
            for row in reader:
                vals = [(row[c] or "").strip() for c in MAPPING_COLUMNS]
                if not all(vals):
                    raise DataError(f"{p}, line {reader.line_num}: every column needs a value.")
                out[(_key(vals[0]), _key(vals[1]))] = (vals[2], vals[3])
    except FileNotFoundError:
        raise DataError(f"{p}: mapping file not found; it ships in groups/ ({MAPPING_FILE}).") from None
    except UnicodeDecodeError as exc:
        raise DataError(f"{p}: not UTF-8 text ({exc.reason}); save the mapping as UTF-8.") from None
    return out


def _template_id(query: str) -> str:
    """'what makes <group> so' -> 'what_makes_so'."""
    words = [w for w in re.split(r"[^a-z0-9<>]+", query.lower()) if w and w != "<group>"]
    return "_".join(words) or "query"


def _match_groups(rows, catalog, mapping, mapping_file=None):
    """A group the mapping sends to a group the catalog lacks is an error naming ``mapping_file``
    (the user's --mapping); with the shipped mapping (None) and the user's own --catalog it is
    only not in the catalog."""
    known = {(_key(g.category), _key(g.group)): (g.category, g.group) for g in catalog.groups}
    matched: dict[tuple[str, str], tuple[str, str]] = {}
    unmatched: list[tuple[str, str]] = []
    for cat, grp in dict.fromkeys((r.category, r.group) for r in rows):
        key = (_key(cat), _key(grp))
        hit = known.get(key) or mapping.get(key)
        if hit is not None and (_key(hit[0]), _key(hit[1])) not in known:
            if mapping_file is not None:
                raise DataError(f"{mapping_file}: {hit[0]}/{hit[1]} is not a group of the catalog; fix the mapping.")
            hit = None
        if hit is None:
            unmatched.append((cat, grp))
        else:
            matched[(cat, grp)] = known[(_key(hit[0]), _key(hit[1]))]
    return matched, unmatched


def baseline_records(rows: list[SearchRow], catalog=None, mapping=None, mapping_file=None):
    """Rows -> one Completion per (group, query), plus the group matching (see the module docstring)."""
    from stereoprobe.studies.fillin.catalog import load_catalog

    catalog = catalog if catalog is not None else load_catalog()
    mapping = mapping if mapping is not None else load_group_map()
    matched, unmatched = _match_groups(rows, catalog, mapping, mapping_file)
    probes = {(p.category, p.group, _key(p.prefix)): p for p in catalog.probes()}
    buckets: dict[tuple[str, str, str], list[SearchRow]] = {}
    for r in rows:
        category, group = matched.get((r.category, r.group), (r.category, r.group))
        # their spelling of the name -> the catalog's, so "why are millenials so" finds its probe
        query = re.sub(rf"(?<!\w){re.escape(_key(r.group))}(?!\w)", lambda _: _key(group), _key(r.input), count=1)
        buckets.setdefault((category, group, query), []).append(r)
    records, in_catalog = [], 0
    for (category, group, query), items in buckets.items():
        probe = probes.get((category, group, query))
        if probe is not None:
            in_catalog += 1
            probe_id, template = probe.probe_id, probe.template
        else:
            # the query with the group's name as the placeholder, as the catalog writes templates
            name = re.escape(_key(group))
            text = re.sub(rf"(?<!\w){name}(?!\w)", "<group>", query, count=1)
            if "<group>" not in text:
                text = f"{query} (<group>)"
            template = _template_id(text)
            probe_id = probe_id_for(category, group, f"{text} {MASK}")
        raw = json.dumps([{"completion": r.completion, "search_engine": r.search_engine} for r in items])
        records.append(
            Completion(
                probe_id=probe_id, sample=0, category=category, group=group, template=template,
                format=FORMAT, prompt=f"{query} {MASK}", words=[r.completion for r in items],
                raw=raw, attempts=1,
            )
        )
    return records, matched, unmatched, in_catalog


def write_manifest(run_dir: Path, manifest: dict[str, Any]) -> None:
    """Write a baseline's manifest.json after checking that the run-record reader takes it
    (stereoprobe.manifest.RunManifest); the citation and group matching ride along as extra keys."""
    import json

    from stereoprobe.manifest import RunManifest
    from stereoprobe.store import MANIFEST, atomic_write

    RunManifest.from_dict(manifest, str(run_dir / MANIFEST))
    atomic_write(run_dir / MANIFEST, json.dumps(manifest, indent=2, ensure_ascii=False) + "\n")


def baseline_manifest(source: Path, rows: list[SearchRow], records: list[Completion], catalog,
                      matched: dict, unmatched: list) -> dict[str, Any]:
    """manifest.json of a baseline run: the source cited, the file's hash, counts, group matching."""
    from stereoprobe import __version__
    from stereoprobe.studies.fillin.catalog import default_catalog_dir
    from stereoprobe.store import now_iso

    now = now_iso()
    sha = hashlib.sha256(source.read_bytes()).hexdigest()
    where = "built-in" if catalog.path.resolve() == default_catalog_dir().resolve() else str(catalog.path)
    renamed = {f"{c}/{g}": f"{mc}/{mg}" for (c, g), (mc, mg) in matched.items() if (c, g) != (mc, mg)}
    return {
        "kind": "baseline",
        "created_at": now,
        "started_at": now,
        "finished_at": now,
        "status": "complete",
        "stereoprobe_version": __version__,
        "model": "people (search-engine autocomplete, Choenni et al. 2021)",
        "endpoint": None,
        "mode": FORMAT,
        "settings": {"mode": FORMAT, "source_file": source.name, "source_sha256": sha},
        "instruction": None,
        "source": {**SOURCE, "file": str(source.resolve()), "sha256": sha, "rows": len(rows),
                   "search_engines": dict(Counter(r.search_engine for r in rows))},
        "catalog": {"path": where, "sha256": catalog.sha256, "probes": len(records), "template_family": "search-engine"},
        "groups": {"matched": len(matched), "renamed": renamed, "unmatched": [f"{c}/{g}" for c, g in unmatched]},
        "counts": {"ok": len(records), "refused": 0, "unparseable": 0, "failed": 0, "records": len(records)},
    }


def build_baseline(source: str | Path, out: str | Path, catalog: str | Path | None = None,
                   mapping: str | Path | None = None) -> Baseline:
    """Read Choenni et al.'s file and write a run directory of human completions at ``out``.

    ``out`` must not hold a run already (nothing stored is overwritten).
    """
    from stereoprobe.studies.fillin.catalog import load_catalog
    from stereoprobe.store import COMPLETIONS, MANIFEST, RunStore

    src, out_dir = Path(source), Path(out)
    if (out_dir / COMPLETIONS).exists() or (out_dir / MANIFEST).exists():
        raise DataError(f"{out_dir} already holds a run; choose a new --out directory.")
    rows = read_choenni(src)
    cat = load_catalog(catalog)
    records, matched, unmatched, in_catalog = baseline_records(rows, cat, load_group_map(mapping), mapping)
    store = RunStore(out_dir)
    store.open()
    try:
        for rec in records:
            store.append(rec)
    finally:
        store.close()
    manifest = baseline_manifest(src, rows, records, cat, matched, unmatched)
    write_manifest(out_dir, manifest)
    return Baseline(out_dir, records, len(rows), matched, unmatched, in_catalog, manifest, mapping)
