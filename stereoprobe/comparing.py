"""The comparison frame every study's ``compare.py`` shares: two or more runs named
apart, the meta record, the page (in the core's page shell: key findings, the model
caveat, a table of paired differences, how to read it, the statistics) and the output
folder written all or nothing (``store.replace_folder``, its meta.json marked).

A study brings what is its own: how its runs are loaded and aligned, the differences and
their statistics, the findings in words and the table's rows.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Mapping, Sequence

from stereoprobe.errors import DataError


def run_paths(runs: Sequence[str | Path]) -> list[Path]:
    """The run directories to compare; fewer than two is refused in one line. One run may be
    both (the gate's regression rules judge a run against itself as its own baseline:
    ``metrics.differences``); the command refuses it (:func:`distinct_runs`)."""
    paths = [Path(r) for r in runs]
    if len(paths) < 2:
        raise DataError("compare needs at least two run directories, e.g. `stereoprobe compare runs/a runs/b --out cmp`.")
    return paths


def distinct_runs(runs: Sequence[str | Path]) -> None:
    """`stereoprobe compare`'s runs: one given twice (also under another spelling of its path) is
    refused in one line, as fill-in's compare refuses it."""
    seen: dict[Path, Path] = {}
    for p in map(Path, runs):
        if p.resolve() in seen:
            other = seen[p.resolve()]
            also = f" (also as {other})" if str(other) != str(p) else ""
            raise DataError(f"{p} is given twice{also}; give each run once.")
        seen[p.resolve()] = p


def run_names(names: Sequence[str], paths: Sequence[Path]) -> list[str]:
    """The runs' names in tables: their folder names, or their paths when two share one.

    >>> run_names(["a", "a"], [Path("x/a"), Path("y/a")])
    ['x/a', 'y/a']
    """
    return list(names) if len(set(names)) == len(names) else [str(p) for p in paths]


def comparison_meta(mark: str, runs: Sequence[Mapping[str, Any]], statistics: Mapping[str, Any]) -> dict[str, Any]:
    """meta.json of a comparison: the stage's mark, the runs, the statistics, version and time."""
    from stereoprobe import __version__
    from stereoprobe.store import now_iso

    return {mark: True, "runs": list(runs), "statistics": dict(statistics), "stereoprobe_version": __version__,
            "created_at": now_iso()}


def comparison_page(title: str, meta: Mapping[str, Any], findings: Sequence[str], model: str, links: Sequence[str],
                    caption: str, head: Sequence[str], rows: str, note: str) -> str:
    """The page: ``findings`` in words (or the given "nothing is clear" line), ``model``
    (which runs, what they are not), links to the CSV files, the table (``head``: column
    names, ``rows``: its ``<tr>`` rows), ``note`` (how to read it), the statistics."""
    from stereoprobe.page.shell import esc, fill_shell

    columns = "".join(f"<th>{esc(c)}</th>" for c in head)
    files = ", ".join(f'<a href="{name}">{name}</a>' for name in links)
    body = (f'<p class="small">{files}</p><table><caption>{caption}</caption><thead><tr>{columns}</tr></thead>'
            f"<tbody>{rows}</tbody></table>")
    return fill_shell(title, esc(", ".join(m["run"] for m in meta["runs"])), findings, model, body, note,
                      [("statistics", json.dumps(meta["statistics"]))])


def write_comparison_folder(out: str | Path, mark: str, tables: Mapping[str, Any], html: str,
                            meta: Mapping[str, Any]) -> Path:
    """``out``: each of ``tables`` (name -> DataFrame) as NAME.csv, index.html and meta.json,
    written all or nothing; a folder another stage wrote is refused (``store.marked``)."""
    from stereoprobe.store import marked, replace_folder

    def fill(tmp: Path) -> None:
        for name, table in tables.items():
            table.to_csv(tmp / name, index=False, float_format="%.6g")
        (tmp / "index.html").write_text(html, encoding="utf-8")
        (tmp / "meta.json").write_text(json.dumps(meta, indent=2) + "\n", encoding="utf-8")

    study = mark.removeprefix("stereoprobe_").removesuffix("_comparison")  # stereoprobe_jobs_comparison: jobs
    return replace_folder(Path(out), fill, marked(mark), "stereoprobe compare", of=study)
