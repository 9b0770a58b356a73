"""Issue 22's check on the fill-in study's code (the code it moved into
stereoprobe/studies/fillin/): no module over 500 lines, no function over 60 lines
(signature, docstring and body; methods and nested functions too), read with ast."""

from __future__ import annotations

import ast
from pathlib import Path

from conftest import REPO

FILLIN = REPO / "stereoprobe" / "studies" / "fillin"
MAX_MODULE, MAX_FUNCTION = 500, 60


def oversized(root: Path) -> list[str]:
    out = []
    for path in sorted(root.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        rel = path.relative_to(root).as_posix()
        if len(text.splitlines()) > MAX_MODULE:
            out.append(f"{rel}: {len(text.splitlines())} lines")
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                lines = node.end_lineno - node.lineno + 1
                if lines > MAX_FUNCTION:
                    out.append(f"{rel}:{node.lineno}: {node.name} is {lines} lines")
    return out


def test_no_fillin_module_over_500_lines_and_no_function_over_60():
    assert oversized(FILLIN) == []


def test_the_check_finds_a_long_function_a_long_method_and_a_long_module(tmp_path):
    body = "".join(f"    x{i} = {i}\n" for i in range(59))  # with the def line: 60 lines, allowed
    (tmp_path / "ok.py").write_text(f"def fine():\n{body}", encoding="utf-8")
    (tmp_path / "long.py").write_text(f"def too_long():\n{body}    x = 0\n", encoding="utf-8")
    method = "".join(f"        y{i} = {i}\n" for i in range(60))
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "cls.py").write_text(f"class C:\n    def m(self):\n{method}", encoding="utf-8")
    (tmp_path / "big.py").write_text("z = 0\n" * 501, encoding="utf-8")
    assert oversized(tmp_path) == [
        "big.py: 501 lines",
        "long.py:1: too_long is 61 lines",
        "sub/cls.py:2: m is 61 lines",
    ]
