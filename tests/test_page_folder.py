"""The report folder every study's page writes (stereoprobe/page/folder.py): all or nothing,
and never over a folder another stage wrote."""

from __future__ import annotations

import pytest

from stereoprobe.errors import DataError
from stereoprobe.page.folder import write_report


def scores(tmp_path):
    folder = tmp_path / "run" / "study"
    folder.mkdir(parents=True)
    (folder / "a.csv").write_text("x\n1\n", encoding="utf-8")
    (folder / "b.csv").write_text("y\n2\n", encoding="utf-8")
    return folder


def test_the_page_its_tables_figures_and_pages_are_written(tmp_path):
    target = tmp_path / "run" / "report"
    index = write_report(target, "<p>page</p>", scores(tmp_path), ("a", "b"), {"f": b"\x89PNG"}, {"t.html": "<p>t</p>"})
    assert index == target / "index.html" and index.read_text() == "<p>page</p>"
    assert (target / "data" / "b.csv").read_text() == "y\n2\n"
    assert (target / "figures" / "f.png").read_bytes() == b"\x89PNG"
    assert (target / "t.html").read_text() == "<p>t</p>"
    assert sorted(p.name for p in target.iterdir()) == ["data", "figures", "index.html", "t.html"]


def test_no_figures_folder_without_figures_and_an_old_report_is_replaced(tmp_path):
    target = tmp_path / "run" / "report"
    write_report(target, "old", scores(tmp_path), ("a",), {"f": b"png"})
    write_report(target, "new", tmp_path / "run" / "study", ("b",))
    assert sorted(p.name for p in target.iterdir()) == ["data", "index.html"]
    assert [p.name for p in (target / "data").iterdir()] == ["b.csv"] and (target / "index.html").read_text() == "new"


def test_a_missing_table_leaves_the_old_report_whole(tmp_path):
    target = tmp_path / "run" / "report"
    write_report(target, "old", scores(tmp_path), ("a",))
    with pytest.raises(DataError, match="Cannot write"):
        write_report(target, "new", tmp_path / "run" / "study", ("a", "missing"))
    assert (target / "index.html").read_text() == "old" and [p.name for p in (target / "data").iterdir()] == ["a.csv"]
    assert sorted(p.name for p in target.parent.iterdir()) == ["report", "study"]  # no temporary folder left


def test_a_folder_another_stage_wrote_is_refused_and_kept(tmp_path):
    target = tmp_path / "run" / "report"
    target.mkdir(parents=True)
    (target / "notes.txt").write_text("mine", encoding="utf-8")
    with pytest.raises(DataError, match="was not written by `stereoprobe report`"):
        write_report(target, "new", scores(tmp_path), ("a",))
    assert [p.name for p in target.iterdir()] == ["notes.txt"]
