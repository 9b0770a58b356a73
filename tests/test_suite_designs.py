"""The quick designs (docs/designs.md): each study's subset file is exactly its seeded draw (so it
never changes by accident), each design asks what its one line says, and what it refuses."""

from __future__ import annotations

import pytest

from stereoprobe.designs import apply, designs_of, draw, read_subset
from stereoprobe.errors import DataError
from stereoprobe.studies import get_study

SUBSETS = ["fill-in", "jobs", "coreference", "anecdotes", "stories", "hobbies"]


@pytest.mark.parametrize("name", SUBSETS)
def test_the_subset_file_is_the_seeded_draw(name):
    module = get_study(name).designs()
    drawn = module.draw_quick()
    assert read_subset(module.quick_file(), list(drawn[0])) == drawn
    text = module.quick_file().read_text(encoding="utf-8")
    assert text.startswith(f"# The {name} study's quick design") and "seeded with" in text.splitlines()[0]


def test_the_draw_is_numpys_seeded_choice_kept_in_order():
    import numpy as np

    items = list("abcdefghij")
    picked = sorted(np.random.default_rng([33, 1]).choice(10, size=4, replace=False))
    assert draw(items, 4, [33, 1]) == [items[i] for i in picked]
    assert draw(items, 20, 0) == items  # fewer items than asked: all of them


def test_the_draws_keep_each_side_and_category():
    from collections import Counter

    fillin = get_study("fill-in").designs().draw_quick()
    per = Counter(r["category"] for r in fillin)
    # a third of each category, at least 4: profession 116 -> 39, race 99 -> 33, religion 10 -> 4, political 9 -> 4
    assert (per["profession"], per["race"], per["religion"], per["political"]) == (39, 33, 4, 4)
    assert len(fillin) == 131
    for name, each in (("jobs", 10), ("coreference", 8), ("anecdotes", 10)):
        sides = Counter(r["dominated_by"] for r in get_study(name).designs().draw_quick())
        assert sides == {"women": each, "men": each}, name
    assert Counter(r["gender"] for r in get_study("hobbies").designs().draw_quick()) == {"female": 20, "male": 20}


@pytest.mark.parametrize("name, extra, probes", [
    ("fill-in", {}, 131 * 6),
    ("jobs", {}, 20 * 13),  # 13 prompts a job: 4 prompts x 2 settings and 5 story prompts
    ("coreference", {}, 8 * 8 * 2 * 7 * 3),
    ("coreference", {"templates": "sterlie"}, 18),
    ("anecdotes", {}, 20),
    ("stories", {}, 8 * 5),
    ("hobbies", {}, 40),
])
def test_each_quick_design_asks_what_its_line_says(name, extra, probes):
    study = get_study(name)
    options = apply(study, "quick", {**extra, "given": frozenset(extra)})
    assert len(study.list_probes(options)) == probes
    assert options["design"] == "quick"


def test_the_multiple_choice_quick_design_asks_the_first_14_questions(tmp_path):
    import json

    path = tmp_path / "q.jsonl"
    path.write_text("".join(json.dumps({"question": f"Q{i}?", "options": {"A": "a", "B": "b", "C": "c", "D": "d"},
                                        "answer_idx": "B"}) + "\n" for i in range(20)))
    study = get_study("coreference")
    options = apply(study, "quick", {"templates": "sterlie", "questions": str(path),
                                     "given": frozenset({"templates", "questions"})})
    probes = study.list_probes(options)
    assert len(probes) == 70 and {p.cluster for p in probes} == {f"q{i}" for i in range(1, 15)}


def test_a_quick_design_is_of_the_built_in_data_only():
    study = get_study("anecdotes")
    assert "quick" not in designs_of(study, {"catalog": "mine.csv"})
    with pytest.raises(DataError, match="The anecdotes study has no quick design here"):
        apply(study, "quick", {"catalog": "mine.csv", "given": frozenset({"catalog"})})
    with pytest.raises(DataError, match="--samples 5 conflicts with the quick design of the hobbies study, which "
                                        "sets 2"):
        apply(get_study("hobbies"), "quick", {"samples": 5, "given": frozenset({"samples"})})
