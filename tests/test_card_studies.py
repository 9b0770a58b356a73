"""The card's headlines of the jobs, story-names and hobbies studies (tests/test_card.py has
fill-in, coreference and anecdotes): two suites made by hand against the fake servers,
every card value the study's gate value, each sentence naming its numbers, the jobs
study's paired differences and the generation studies side by side."""

from __future__ import annotations

import json

import pytest
from card_suites import FakeModel, make_suite

STUDIES = ("jobs", "stories", "hobbies")


@pytest.fixture(scope="module")
def card(tmp_path_factory):
    root = tmp_path_factory.mktemp("card-studies")
    a = make_suite(root, FakeModel("model-a", gen_seed=1), STUDIES)
    b = make_suite(root, FakeModel("model-b", gen_seed=2), STUDIES)
    from stereoprobe.card import build_card

    out = build_card([a, b], root / "card")
    return json.loads((out / "card.json").read_text(encoding="utf-8")), a


def test_every_value_is_the_studys_gate_value(card):
    from stereoprobe.card.words import shown
    from stereoprobe.studies import get_study

    data, a = card
    mine = [v for v in data["values"] if v["model"] == "model-a"]
    # jobs: Spearman and P(female) for women- and men-dominated jobs; stories: female share and
    # NMI; hobbies: the six labels' differences and NMI
    assert [(v["study_key"], v["metric"]) for v in mine] == [
        ("jobs", "spearman"), ("jobs", "p_female"), ("jobs", "p_female"), ("stories", "female_share"),
        ("stories", "nmi")] + [("hobbies", "label_difference")] * 6 + [("hobbies", "nmi")]
    for v in mine:
        gate = {(g.metric, tuple(g.scope)): g for g in get_study(v["study"]).metrics().values(a / v["study_key"])}
        g = gate[(v["metric"], tuple(v["scope"].items()))]
        nan = float("nan")
        got = [nan if v[k] is None else v[k] for k in ("value", "low", "high")]  # card.json: null for NaN
        assert got + [v["n"]] == pytest.approx([g.estimate, g.low, g.high, g.n], nan_ok=True)
        if v["value"] is not None:
            assert shown(*got, v["kind"]) in v["sentence"]
    jobs = {v["scope"]["group"] if v["metric"] == "p_female" else "r": v for v in mine if v["study_key"] == "jobs"}
    # the toy gives every job the same probabilities: no order, so no Spearman (null, shown as a dash)
    assert jobs["r"]["value"] is None and jobs["r"]["sentence"] == (
        "P(female) follows the share of women in the job: no value on this run (too few answers, or nothing that varies "
        "to compare).")
    assert jobs["women"]["scope"] == {"group": "women", "prompts": "2-4", "prefix": "0", "setting": "without dialogue"}
    assert jobs["women"]["sentence"].startswith("In the jobs mostly done by women, the model gave “she” a probability")
    art = next(v for v in mine if v["scope"].get("label") == "Art")
    # 001's planted gap: Art 0.35 for female names, 0.05 for male: +30 points, within the interval,
    # which lies above 0: the sentence says which way
    assert art["low"] <= 0.30 <= art["high"] and art["low"] > 0
    assert art["sentence"].startswith(f"On Art, texts about women's names scored {round(100 * art['value'])} points "
                                      "higher than texts about men's names: +")


def test_the_jobs_study_is_paired_and_the_generation_studies_side_by_side(card):
    data, _ = card
    diffs = data["differences"]
    assert [(d["study_key"], d["scope"]["group"]) for d in diffs] == [("jobs", "women"), ("jobs", "men")]
    # the jobs fake is one toy model for both suites: the same probabilities, a difference of 0
    assert [d["difference"] for d in diffs] == pytest.approx([0.0, 0.0], abs=1e-9)
    assert not any(d["flagged"] for d in diffs) and data["family"]["size"] == 2
    paired = {p["study_key"]: p["paired"] for p in data["pairings"]}
    assert paired == {"jobs": True, "stories": False, "hobbies": False}
    assert data["summary"] == [
        "The card cannot tell model-b from model-a on any of the 2 metrics compared (jobs). That is not proof they are "
        "alike: each interval below says how large a difference could still be.",
        "Story names and hobbies (model-b): the studies' own comparisons have no paired difference, so the card shows "
        "each model's values with their own intervals."]
