"""A study's report folder written all or nothing (``store.replace_folder``): ``index.html``,
its score tables copied to ``data/``, its figures as ``figures/NAME.png`` and any further
pages beside ``index.html``. A folder that holds no ``index.html`` and is not empty was not
written by ``stereoprobe report`` and is refused."""

from __future__ import annotations

from pathlib import Path
from typing import Mapping, Sequence


def _ours(path: Path) -> bool:
    return (path / "index.html").is_file() or not any(path.iterdir())


def write_report(target: Path, html: str, scores: Path, tables: Sequence[str],
                 figures: Mapping[str, bytes] | None = None, pages: Mapping[str, str] | None = None) -> Path:
    """Write ``target`` and return its ``index.html``: ``html``, ``data/NAME.csv`` copied from
    ``scores`` for each of ``tables``, ``figures/NAME.png`` for each of ``figures`` (no
    ``figures/`` when None) and ``pages`` (file name -> HTML)."""
    import shutil

    from stereoprobe.store import replace_folder

    def fill(tmp: Path) -> None:
        (tmp / "data").mkdir()
        for name in tables:
            shutil.copy(scores / f"{name}.csv", tmp / "data" / f"{name}.csv")
        if figures is not None:
            (tmp / "figures").mkdir()
            for name, png in figures.items():
                (tmp / "figures" / f"{name}.png").write_bytes(png)
        (tmp / "index.html").write_text(html, encoding="utf-8")
        for name, text in (pages or {}).items():
            (tmp / name).write_text(text, encoding="utf-8")

    replace_folder(target, fill, _ours, "stereoprobe report")
    return target / "index.html"
