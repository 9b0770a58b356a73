"""The probe catalog: social groups and templates as editable CSV data, expanded to probes.

A catalog is a directory with three CSV files (see groups/README.md):

- ``categories.csv``: ``category, template_set, note``
- ``groups.csv``: ``category, group, added_by_paper``
- ``templates.csv``: ``template_set, template, format, text``: the template family
  ``paper`` (Busker et al.'s Table 2); another family NAME lives in
  ``templates-NAME.csv`` with the same columns and is chosen with ``--templates NAME``.

Every group is crossed with every template of its category's template set.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Iterable, Sequence

from stereoprobe.datafiles import read_rows as _read_rows
from stereoprobe.errors import DataError
from stereoprobe.records import FORMATS, MASK, Probe, probe_id_for

PLACEHOLDER = "<group>"
DEFAULT_FAMILY = "paper"
FILES = {
    "categories.csv": ("category", "template_set"),
    "groups.csv": ("category", "group"),
    "templates.csv": ("template_set", "template", "format", "text"),
}


@dataclass(frozen=True)
class Template:
    template_set: str
    template: str
    format: str
    text: str


@dataclass(frozen=True)
class Group:
    category: str
    group: str
    added_by_paper: bool


@dataclass(frozen=True)
class Catalog:
    """Categories, groups and templates read from one directory."""

    path: Path
    categories: dict[str, str]  # category -> template set
    notes: dict[str, str]  # category -> note
    groups: tuple[Group, ...]
    templates: dict[str, tuple[Template, ...]]  # template set -> templates
    family: str = DEFAULT_FAMILY  # the template family (templates.csv or templates-NAME.csv)

    def probes(self) -> list[Probe]:
        """Every group crossed with its category's templates, in file order."""
        out = []
        for g in self.groups:
            for t in self.templates[self.categories[g.category]]:
                out.append(
                    Probe(
                        probe_id=probe_id_for(g.category, g.group, t.text),
                        category=g.category,
                        group=g.group,
                        template=t.template,
                        format=t.format,
                        text=t.text.replace(PLACEHOLDER, g.group),
                    )
                )
        return out

    @property
    def sha256(self) -> str:
        """A hash of the expanded probes; it changes when any probe changes."""
        canon = json.dumps([p.to_dict() for p in self.probes()], sort_keys=True)
        return hashlib.sha256(canon.encode("utf-8")).hexdigest()

    def select(
        self,
        categories: Sequence[str] = (),
        groups: Sequence[str] = (),
        format: str | None = None,
    ) -> list[Probe]:
        """The probes matching all given filters (names match case-insensitively).

        An unknown category, group or format raises DataError listing what exists.
        """
        cats = _resolve(categories, list(self.categories), "category", "--category")
        names = _resolve(groups, [g.group for g in self.groups], "group", "--group")
        if format is not None and format not in FORMATS:
            raise DataError(f"Unknown format {format!r}: use --format question or --format statement.")
        return [
            p
            for p in self.probes()
            if (not cats or p.category in cats)
            and (not names or p.group in names)
            and (format is None or p.format == format)
        ]


def _resolve(wanted: Sequence[str], known: list[str], what: str, flag: str) -> set[str]:
    """The names matching `wanted`, case-insensitively (every spelling of a name)."""
    by_lower: dict[str, set[str]] = {}
    for k in known:
        by_lower.setdefault(k.lower(), set()).add(k)
    out: set[str] = set()
    for name in wanted:
        if name.lower() not in by_lower:
            hint = ", ".join(sorted(set(known))[:12])
            more = ", ..." if len(set(known)) > 12 else ""
            raise DataError(
                f"Unknown {what} {name!r} in {flag}: choose one of {hint}{more} "
                f"(`stereoprobe probes` lists them all)."
            )
        out |= by_lower[name.lower()]
    return out


def default_catalog_dir() -> Path:
    """groups/ as installed in the package, or the repository's groups/ in a checkout."""
    installed = Path(str(resources.files("stereoprobe"))) / "_data" / "groups"
    if (installed / "groups.csv").is_file():
        return installed
    return Path(__file__).resolve().parents[3] / "groups"


def read_rows(path: Path, required: Iterable[str]) -> list[tuple[int, dict[str, str]]]:
    """A catalog file's rows (``datafiles.read_rows``); a missing one names the catalog's files."""
    return _read_rows(path, required, missing_hint=f"a catalog directory needs {', '.join(FILES)}")


def template_families(root: Path) -> list[str]:
    """The template families of a catalog directory: paper, then templates-NAME.csv's NAMEs."""
    return [DEFAULT_FAMILY] + sorted(p.stem[len("templates-"):] for p in root.glob("templates-*.csv"))


def load_catalog(path: str | Path | None = None, templates: str | None = None) -> Catalog:
    """Read and validate a catalog directory (default: the paper's catalog) with one
    template family (default: the paper's, templates.csv)."""
    root = Path(path) if path is not None else default_catalog_dir()
    if not root.is_dir():
        raise DataError(f"{root}: no such catalog directory; pass --catalog DIR holding {', '.join(FILES)}.")
    family = templates or DEFAULT_FAMILY
    if family not in template_families(root):
        raise DataError(
            f"Unknown template family {family!r} in --templates: choose one of "
            f"{', '.join(template_families(root))}."
        )
    tpath = root / ("templates.csv" if family == DEFAULT_FAMILY else f"templates-{family}.csv")
    sets = _templates(tpath)
    categories, notes = _categories(root / "categories.csv", sets)
    groups = _groups(root / "groups.csv", categories)
    empty = [c for c in categories if not any(g.category == c for g in groups)]
    if empty:
        raise DataError(f"{root / 'categories.csv'}: category {empty[0]!r} has no groups in groups.csv; add some or "
                        "remove it.")
    return Catalog(
        path=root,
        categories=categories,
        notes=notes,
        groups=tuple(groups),
        templates={k: tuple(v) for k, v in sets.items()},
        family=family,
    )


def _templates(tpath: Path) -> dict[str, list[Template]]:
    """A template family's rows, by template set, validated."""
    templates: dict[str, list[Template]] = {}
    for line, row in read_rows(tpath, FILES["templates.csv"]):
        where = f"{tpath}, line {line}"
        for col in FILES["templates.csv"]:
            if not row[col]:
                raise DataError(f"{where}: empty {col!r}.")
        text = row["text"]
        if text.count(PLACEHOLDER) != 1:
            raise DataError(f"{where}: template {row['template']!r} must contain {PLACEHOLDER} exactly once.")
        if not text.rstrip().endswith(MASK):
            raise DataError(f"{where}: template {row['template']!r} must end with the mask ' {MASK}'.")
        if row["format"] not in FORMATS:
            raise DataError(f"{where}: format {row['format']!r} must be 'question' or 'statement'.")
        tset = templates.setdefault(row["template_set"], [])
        if any(t.template == row["template"] for t in tset):
            raise DataError(f"{where}: template {row['template']!r} appears twice in set {row['template_set']!r}.")
        tset.append(Template(row["template_set"], row["template"], row["format"], text))
    if not templates:
        raise DataError(f"{tpath}: no templates; add rows of template_set,template,format,text.")
    return templates


def _categories(cpath: Path, templates: dict[str, list[Template]]) -> tuple[dict[str, str], dict[str, str]]:
    """category -> template set, and category -> note."""
    categories: dict[str, str] = {}
    notes: dict[str, str] = {}
    for line, row in read_rows(cpath, FILES["categories.csv"]):
        where = f"{cpath}, line {line}"
        if not row["category"]:
            raise DataError(f"{where}: empty 'category'.")
        if row["category"] in categories:
            raise DataError(f"{where}: category {row['category']!r} appears twice.")
        if row["template_set"] not in templates:
            raise DataError(
                f"{where}: template set {row['template_set']!r} is not in templates.csv "
                f"(known: {', '.join(templates)})."
            )
        categories[row["category"]] = row["template_set"]
        notes[row["category"]] = row.get("note", "")
    return categories, notes


def _groups(gpath: Path, categories: dict[str, str]) -> list[Group]:
    groups: list[Group] = []
    seen: set[tuple[str, str]] = set()
    for line, row in read_rows(gpath, FILES["groups.csv"]):
        where = f"{gpath}, line {line}"
        if row["category"] not in categories:
            raise DataError(
                f"{where}: category {row['category']!r} is not in categories.csv; add it there first."
            )
        if not row["group"]:
            raise DataError(f"{where}: empty 'group'.")
        if PLACEHOLDER in row["group"]:
            raise DataError(f"{where}: group {row['group']!r} contains {PLACEHOLDER}.")
        key = (row["category"], row["group"].casefold())
        if key in seen:
            raise DataError(
                f"{where}: group {row['group']!r} appears twice in category {row['category']!r} "
                "(names differing only in case are the same group for --group); keep one."
            )
        seen.add(key)
        added = row.get("added_by_paper", "no").lower()
        if added not in ("yes", "no", ""):
            raise DataError(f"{where}: added_by_paper must be 'yes' or 'no', not {added!r}.")
        groups.append(Group(row["category"], row["group"], added == "yes"))
    return groups


def load_probes(
    category: str | Sequence[str] | None = None,
    group: str | Sequence[str] | None = None,
    format: str | None = None,
    catalog: str | Path | Catalog | None = None,
    templates: str | None = None,
) -> list[Probe]:
    """The catalog's probes, optionally filtered: the Python face of `stereoprobe probes`."""
    cat = catalog if isinstance(catalog, Catalog) else load_catalog(catalog, templates)
    as_list = lambda v: [v] if isinstance(v, str) else list(v or [])  # noqa: E731
    return cat.select(as_list(category), as_list(group), format)
