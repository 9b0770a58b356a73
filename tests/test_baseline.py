"""The human baseline: Choenni et al.'s search-engine data as a run directory."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from stereoprobe.studies.fillin.baseline import FORMAT, build_baseline, load_group_map, read_choenni
from stereoprobe.errors import DataError
from stereoprobe.records import probe_id_for
from stereoprobe.store import read_completions

DATA = Path(__file__).parent / "data" / "choenni"
SYNTHETIC = DATA / "single_word_synthetic.csv"
# tests/data/choenni/single_word_synthetic.csv, by hand: 15 rows in Choenni et al.'s exact
# layout (tab-separated, input/group/completion quoted with a newline before the closing
# quote). 'millenials' is their spelling (mapped to 'millennials'), 'belgium' and 'Belgium'
# differ only in case, 'surfers' is in no catalog, 'sorrority girls' is mapped.


def test_reads_the_quoted_multiline_tab_format():
    rows = read_choenni(SYNTHETIC)
    assert len(rows) == 15
    first = rows[0]
    assert (first.input, first.category, first.group, first.completion, first.search_engine) == (
        "why are old people so", "age", "old people", "grumpy", "google"
    )
    assert first.line == 2 and rows[1].line == 6  # each record spans four physical lines
    assert SYNTHETIC.read_text().count("\n") == 1 + 15 * 4


def test_builds_one_record_per_group_and_query(tmp_path):
    b = build_baseline(SYNTHETIC, tmp_path / "people")
    recs = {(r.category, r.group, r.prompt): r for r in read_completions(tmp_path / "people")}
    assert len(recs) == 10 and len(b.records) == 10
    old = recs[("age", "old people", "why are old people so ...")]
    assert old.words == ["grumpy", "wise", "slow", "grumpy"]  # repeats kept: one word per row
    assert old.format == FORMAT and old.template == "why_are_so"
    assert old.probe_id == "55ca1ffe4e01"  # the catalog's probe 'why are old people so ...'
    assert [e["search_engine"] for e in json.loads(old.raw)] == ["google", "multiple", "duckduckgo", "yahoo"]
    # their misspelling is mapped, and the query then finds the catalog probe
    mill = recs[("age", "millennials", "why are millennials so ...")]
    assert mill.words == ["lazy", "anxious"] and mill.template == "why_are_so"
    # two spellings differing in case are one group and one probe
    bel = recs[("country", "Belgium", "why is belgium so ...")]
    assert bel.words == ["rich", "divided"] and bel.template == "why_is_so"
    # a query that is not a catalog template gets an id by the same rule from its own text
    makes = recs[("age", "old people", "what makes old people so ...")]
    assert makes.template == "what_makes_so"
    assert makes.probe_id == probe_id_for("age", "old people", "what makes <group> so ...")
    assert b.probes_in_catalog == 5
    assert b.unmatched == [("lifestyle", "surfers")]
    assert recs[("lifestyle", "sorrorty girls", "how come sorrorty girls are so ...")].words == ["dumb"]


def test_manifest_cites_the_source_and_lists_unmatched(tmp_path):
    b = build_baseline(SYNTHETIC, tmp_path / "people")
    m = json.loads((tmp_path / "people" / "manifest.json").read_text())
    assert m == b.manifest
    assert m["kind"] == "baseline" and m["mode"] == FORMAT and m["status"] == "complete"
    assert "Choenni" in m["source"]["citation"] and "EMNLP 2021" in m["source"]["citation"]
    assert m["source"]["repository"].endswith("RochelleChoenni/stereotypes_in_lms")
    assert m["source"]["licence"] == "MIT" and m["source"]["rows"] == 15
    assert m["source"]["search_engines"] == {"google": 3, "multiple": 4, "duckduckgo": 3, "yahoo": 5}
    assert m["groups"]["unmatched"] == ["lifestyle/surfers"]
    assert m["groups"]["renamed"] == {
        "age/millenials": "age/millennials", "country/belgium": "country/Belgium",
        "lifestyle/sorrority girls": "lifestyle/sorrorty girls",
    }
    assert m["groups"]["matched"] == 7  # names as spelt in the file; 'surfers' is the 8th
    assert m["counts"]["records"] == 10 and m["counts"]["ok"] == 10


def test_sentiment_and_report_work_on_a_baseline(tmp_path, run_cli):
    run = tmp_path / "people"
    assert run_cli("baseline", SYNTHETIC, "--out", run).exit_code == 0
    result = run_cli("sentiment", run, "--no-synonyms")
    assert result.exit_code == 0, result.output
    import pandas as pd

    t4 = pd.read_csv(run / "sentiment" / "table4.csv").set_index("category")
    # bundled NRC, no synonyms, 15 occurrences: negative cold x2, grumpy x2, angry, anxious,
    # dumb, lazy (8); positive wise, football (2); chill, divided, entitled, rich, slow are
    # not in the subset. 8 / 10 = 80%; age: 6 negative (cold x2, grumpy x2, anxious, lazy)
    # and 1 positive (wise) = 85.71%.
    assert t4.loc["all", "negative"] == 80.0 and t4.loc["age", "negative"] == 85.71
    assert t4.loc["country", "negative"] == 0.0  # football
    # the search-engine format is neither question nor statement: those columns stay empty
    assert pd.isna(t4.loc["all", "question_negative"]) and pd.isna(t4.loc["all", "statement_negative"])
    report = run_cli("report", run)
    assert report.exit_code == 0, report.output
    assert (run / "briefing" / "index.html").is_file()


def test_refuses_to_overwrite_a_run(tmp_path):
    build_baseline(SYNTHETIC, tmp_path / "people")
    before = (tmp_path / "people" / "completions.jsonl").read_bytes()
    with pytest.raises(DataError, match="already holds a run"):
        build_baseline(SYNTHETIC, tmp_path / "people")
    assert (tmp_path / "people" / "completions.jsonl").read_bytes() == before


@pytest.mark.parametrize(
    "text, message",
    [
        ("input,target_category,target_group,completion,search_engine\n", "tab-separated header"),
        ("", "an empty file"),
        ("input\ttarget_category\ttarget_group\tcompletion\tsearch_engine\n", "no rows"),
        ('input\ttarget_category\ttarget_group\tcompletion\tsearch_engine\n"why are x so\n"\tage\t"x\n"\n', "line 2: 3 tab-separated values"),
    ],
    ids=["comma-header", "empty", "header-only", "short-row"],
)
def test_bad_files_are_one_line_errors(tmp_path, text, message):
    path = tmp_path / "bad.csv"
    path.write_text(text)
    with pytest.raises(DataError) as err:
        read_choenni(path)
    assert message in str(err.value) and "\n" not in str(err.value)


def test_missing_file_says_where_to_get_it(tmp_path, run_cli):
    result = run_cli("baseline", tmp_path / "nope.csv", "--out", tmp_path / "r")
    assert result.exit_code == 2
    assert "RochelleChoenni/stereotypes_in_lms" in result.output
    assert not (tmp_path / "r").exists()


def test_mapping_file_points_only_at_catalog_groups():
    from stereoprobe.studies.fillin.catalog import load_catalog

    known = {(g.category, g.group) for g in load_catalog().groups}
    mapping = load_group_map()
    assert mapping[("age", "millenials")] == ("age", "millennials")
    assert set(mapping.values()) <= known


def test_a_mapping_to_an_unknown_group_is_an_error(tmp_path):
    bad = tmp_path / "map.csv"
    bad.write_text("choenni_category,choenni_group,category,group\nlifestyle,surfers,lifestyle,surfers\n")
    with pytest.raises(DataError, match="not a group of the catalog"):
        build_baseline(SYNTHETIC, tmp_path / "people", mapping=bad)


def test_a_mapping_not_in_utf8_is_one_line(tmp_path, run_cli):
    """A --mapping file saved in another encoding stopped on a UnicodeDecodeError traceback."""
    bad = tmp_path / "map.csv"
    bad.write_bytes("choenni_category,choenni_group,category,group\nage,caf\xe9,age,old people\n".encode("latin-1"))
    result = run_cli("baseline", SYNTHETIC, "--out", tmp_path / "people", "--mapping", bad)
    assert result.exit_code == 2
    assert result.output.strip() == f"Error: {bad}: not UTF-8 text (invalid continuation byte); save the mapping as UTF-8."
    assert not (tmp_path / "people").exists()


def test_a_users_mapping_to_an_unknown_group_is_named_and_the_shipped_one_fits_any_catalog(tmp_path):
    """The refusal named groups/choenni_groups.csv when the user's --mapping was at fault; and with
    the user's own --catalog lacking a group the shipped mapping names (millennials), baseline
    refused to run and said to fix the shipped file. That group is now only not in the catalog."""
    bad = tmp_path / "map.csv"
    bad.write_text("choenni_category,choenni_group,category,group\nlifestyle,surfers,lifestyle,surfers\n")
    with pytest.raises(DataError) as err:
        build_baseline(SYNTHETIC, tmp_path / "people", mapping=bad)
    assert str(err.value) == f"{bad}: lifestyle/surfers is not a group of the catalog; fix the mapping."
    from stereoprobe.studies.fillin.catalog import default_catalog_dir

    mine = tmp_path / "catalog"
    mine.mkdir()
    for name in ("categories.csv", "templates.csv", "groups.csv"):
        lines = (default_catalog_dir() / name).read_text(encoding="utf-8").splitlines(keepends=True)
        (mine / name).write_text("".join(x for x in lines if "millennials" not in x), encoding="utf-8")
    b = build_baseline(SYNTHETIC, tmp_path / "people", catalog=mine)
    assert b.unmatched == [("age", "millenials"), ("age", "millennials"), ("lifestyle", "surfers")]
    assert b.summary().endswith("(kept under their own names; add them to groups/choenni_groups.csv): "
                                "age/millenials, age/millennials, lifestyle/surfers.")
    # with the user's own --mapping, the groups go there (it said the shipped file whatever was read)
    ok = tmp_path / "ok.csv"
    ok.write_text("choenni_category,choenni_group,category,group\nage,millenials,age,millennials\n")
    b = build_baseline(SYNTHETIC, tmp_path / "people2", mapping=ok)
    # (this mapping lacks the shipped one's sorority girls, so they are not matched either)
    assert b.summary().endswith(f"(kept under their own names; add them to {ok}): lifestyle/surfers, "
                                "lifestyle/sorrority girls.")


def test_the_summary_of_one_row_is_singular(tmp_path):
    one = tmp_path / "one.csv"
    one.write_text("".join(SYNTHETIC.read_text().splitlines(keepends=True)[:5]))
    assert build_baseline(one, tmp_path / "people").summary() == (
        f"1 row -> 1 record (group x query) in {tmp_path / 'people'}; 1 of 1 group matched to the catalog, "
        "1 record is a catalog probe.")
