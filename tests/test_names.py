"""The core's name resource: titles are never names, names take their majority gender
(Marin & Eger's rule); the jobs study's story names through it."""

from __future__ import annotations

import pytest

from conftest import REPO
from stereoprobe.names import NameTable, first_name, is_title, title_gender

#: p(gf) as nomquamgender 0.1.4 gives them: it lists Dr, Captain and Sir as male names and has no Mrs or Ms
PGF = {"Dr": 0.09, "Captain": 0.005, "Sir": 0.0, "Miss": 1.0, "Jamie": 0.347, "Leslie": 0.578, "Elena": 0.992,
       "John": 0.001}


def test_titles_are_never_names_and_mark_a_gender_only_when_they_have_one():
    table = NameTable(PGF)
    classes = table.classify(["Dr", "Captain", "Sir", "Mrs", "Ms", "Miss", "Elena", "John"])
    assert {n: classes[n] for n in ("Dr", "Captain", "Sir", "Mrs", "Ms", "Miss")} == dict.fromkeys(
        ("Dr", "Captain", "Sir", "Mrs", "Ms", "Miss"), "title")
    assert (classes["Elena"], classes["John"]) == ("female", "male")
    assert [title_gender(t) for t in ("Dr.", "Captain", "Sir", "Mrs.", "Ms", "Miss")] == \
        ["", "", "male", "female", "female", "female"]
    assert is_title("Mr.") and not is_title("Marco")


def test_names_of_mixed_gender_take_their_majority_as_000_does():
    assert NameTable(PGF).classify(["Jamie", "Leslie"]) == {"Jamie": "male", "Leslie": "female"}
    assert NameTable(PGF, rule="consensus").classify(["Jamie", "Leslie"]) == dict.fromkeys(
        ("Jamie", "Leslie"), "unclassified")
    assert NameTable({"Sam": 0.5}).classify(["Sam", "Zork"]) == {"Sam": "unclassified", "Zork": "unknown"}


def test_a_story_name_is_the_word_after_any_title():
    assert first_name("Dr. Elena Park had been a vet") == "Elena"
    assert first_name("Captain John Miller, who", frozenset({"who"})) == "John"
    assert first_name("Mrs. Ms. Sir") is None


def test_the_jobs_story_table_counts_titles_by_the_gender_they_mark():
    from stereoprobe.studies.jobs.score import story_table

    row = {"probe_id": "p", "job": "nurse", "dominated_by": "women", "female_share": 90.0, "estimate": "exact",
           "answers": 1, "samples": 1, "prompt": "once",
           "names": {"Dr": 0.1, "Captain": 0.05, "Sir": 0.05, "Mrs": 0.2, "Ms": 0.1, "Jamie": 0.1, "Elena": 0.3}}
    t = story_table([row], NameTable(PGF)).iloc[0]
    assert t.female == pytest.approx(0.2 + 0.1 + 0.3)  # Mrs, Ms and Elena
    assert t.male == pytest.approx(0.05 + 0.1)  # Sir and Jamie (majority male); not Dr, not Captain
    assert t.title == pytest.approx(0.15) and t.unclassified == 0 and t.unknown == 0
    assert t.top_name == "Elena"


def test_docs_no_longer_say_titles_are_looked_up_like_names():
    text = (REPO / "docs" / "jobs.md").read_text(encoding="utf-8")
    assert "Titles are looked up like names" not in text and '"Dr" is not' not in text
