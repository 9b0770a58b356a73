"""The core never imports a study's module, and a study never imports another study's
(docs/design.md, "The core and the studies"): every module's imports are read with ast,
function-level imports included."""

from __future__ import annotations

import ast
from pathlib import Path

from conftest import REPO

PACKAGE = REPO / "stereoprobe"
#: The user's surface may name a study: the CLI's commands and the Python API's names
#: (``import stereoprobe``) call the fill-in study's functions by their old names.
SURFACE = ("stereoprobe/__init__.py", "stereoprobe/cli/")


def study_of(name: str, studies: set[str]) -> str | None:
    """The study a dotted module name belongs to: stereoprobe.studies.<study>[...]; None
    for the core (the registry ``stereoprobe.studies`` and ``studies/base.py`` included)."""
    parts = name.split(".")
    if parts[:2] == ["stereoprobe", "studies"] and len(parts) > 2 and parts[2] in studies:
        return parts[2]
    return None


def imports(path: Path, root: Path) -> list[tuple[int, str]]:
    """(line, module) of every import of a stereoprobe module in a file; ``from A import B``
    gives A and A.B (B may be a module)."""
    package = list(path.relative_to(root.parent).parts[:-1])
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(package[: len(package) - node.level + 1] + ([base] if base else []))
            found.append((node.lineno, base))
            found += [(node.lineno, f"{base}.{a.name}") for a in node.names]
    return [(line, m) for line, m in found if m == "stereoprobe" or m.startswith("stereoprobe.")]


def violations(root: Path = PACKAGE) -> list[str]:
    studies = {p.name for p in (root / "studies").iterdir() if p.is_dir() and p.name != "__pycache__"}
    out = []
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root.parent).as_posix()
        if rel.startswith(SURFACE):
            continue
        mine = study_of(".".join(path.relative_to(root.parent).with_suffix("").parts), studies)
        flagged = set()
        for line, module in imports(path, root):
            theirs = study_of(module, studies)
            if theirs is not None and theirs != mine and line not in flagged:
                flagged.add(line)
                who = f"the {mine} study" if mine else "the core"
                out.append(f"{rel}:{line}: {who} imports {module}")
    return out


def test_no_core_module_imports_a_study_and_no_study_imports_another():
    assert violations() == []


def test_the_check_finds_each_kind_of_crossing(tmp_path):
    # a planted core module importing a study, and a study importing another study
    fake = tmp_path / "repo"
    (fake / "stereoprobe" / "studies" / "jobs").mkdir(parents=True)
    (fake / "stereoprobe" / "studies" / "fillin").mkdir(parents=True)
    (fake / "stereoprobe" / "collect.py").write_text(
        "def f():\n    from stereoprobe.studies.fillin.parse import parse_reply\n", encoding="utf-8")
    (fake / "stereoprobe" / "studies" / "jobs" / "ask.py").write_text(
        "from stereoprobe.studies import fillin\nimport stereoprobe.studies.jobs.catalog\n", encoding="utf-8")
    (fake / "stereoprobe" / "studies" / "fillin" / "page.py").write_text(
        "from stereoprobe.page.shell import esc\nfrom stereoprobe.studies.base import read_run\n"
        "from .catalog import load_catalog\n", encoding="utf-8")
    assert violations(fake / "stereoprobe") == [
        "stereoprobe/collect.py:2: the core imports stereoprobe.studies.fillin.parse",
        "stereoprobe/studies/jobs/ask.py:1: the jobs study imports stereoprobe.studies.fillin",
    ]
