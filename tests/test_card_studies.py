"""The card's headlines of the jobs, story-names, hobbies and Sterlie studies
(tests/test_card.py has fill-in, coreference and anecdotes): two suites made by hand
against the fake servers, every card value the study's gate value, each sentence naming
its numbers, and every study's paired differences (the generation studies' from
generation/paired.py and hobbies/stats.py, Sterlie's from the two runs' intervals). The
Sterlie page, the gate and the card read side by side."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from card_suites import STERLIE_SAMPLES, FakeModel, make_suite

STUDIES = ("jobs", "stories", "hobbies", "sterlie")


@pytest.fixture(scope="module")
def card(tmp_path_factory):
    root = tmp_path_factory.mktemp("card-studies")
    a = make_suite(root, FakeModel("model-a", gen_seed=1), STUDIES)
    b = make_suite(root, FakeModel("model-b", gen_seed=2), STUDIES)
    from card_suites import _cli

    _cli("report", a / "sterlie")  # the Sterlie page, read beside the card and the gate
    from stereoprobe.card import build_card

    out = build_card([a, b], root / "card")
    return json.loads((out / "card.json").read_text(encoding="utf-8")), a


def test_every_value_is_the_studys_gate_value(card):
    from stereoprobe.card.words import shown
    from stereoprobe.studies import get_study

    data, a = card
    mine = [v for v in data["values"] if v["model"] == "model-a"]
    # jobs: Spearman and P(female) for women- and men-dominated jobs; stories: female share and
    # NMI; hobbies: the six labels' differences and NMI; Sterlie: wrong answers with he, she, and
    # she minus he
    assert [(v["study_key"], v["metric"]) for v in mine] == [
        ("jobs", "spearman"), ("jobs", "p_female"), ("jobs", "p_female"), ("stories", "female_share"),
        ("stories", "nmi")] + [("hobbies", "label_difference")] * 6 + [("hobbies", "nmi")] + [
        ("sterlie", "sterlie_error"), ("sterlie", "sterlie_error"), ("sterlie", "sterlie_gap")]
    for v in mine:
        gate = {(g.metric, tuple(g.scope)): g for g in get_study(v["study"]).metrics().values(a / v["study_key"])}
        if v["metric"] == "sterlie_gap":  # a gap has no count of its own: its two pronouns' answers
            assert v["n"] is None
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


def test_every_study_is_paired_and_two_models_of_the_same_truths_are_not_told_apart(card, tmp_path):
    data, a = card
    diffs = data["differences"]
    assert [(d["study_key"], d["metric"]) for d in diffs] == [
        ("jobs", "p_female"), ("jobs", "p_female"), ("stories", "female_share"), ("stories", "nmi")] + [
        ("hobbies", "label_difference")] * 6 + [("hobbies", "nmi"), ("sterlie", "sterlie_error"),
                                                ("sterlie", "sterlie_error"), ("sterlie", "sterlie_gap")]
    # the jobs fake is one toy model for both suites: the same probabilities, a difference of 0
    assert [d["difference"] for d in diffs[:2]] == pytest.approx([0.0, 0.0], abs=1e-9)
    # Sterlie's fake answers the n-th request of a prompt by the prompt and n alone: both models got
    # the same number of wrong replies per prompt, so each difference is 0. Which of a prompt's
    # samples came n-th depends on the order the requests arrived (concurrent requests, a loaded
    # machine), but the bootstrap draws a prompt's rows in the order their answers set, so the two
    # runs' own intervals are the same. The difference's interval is MOVER of the two (model-a the
    # baseline): model-b's lower distance with model-a's upper in quadrature below, the other two above.
    sterlie = {(d["metric"], tuple(d["scope"].items())): d for d in diffs if d["study_key"] == "sterlie"}
    own = {m: {(v["metric"], tuple(v["scope"].items())): v for v in data["values"] if v["model"] == m}
           for m in ("model-a", "model-b")}
    for key, d in sterlie.items():
        va, vb = own["model-a"][key], own["model-b"][key]
        assert d["difference"] == pytest.approx(0.0, abs=1e-12) and vb["value"] == pytest.approx(va["value"])
        assert (vb["low"], vb["high"]) == pytest.approx((va["low"], va["high"]), abs=1e-12)
        assert (d["low"], d["high"]) == pytest.approx((-math.hypot(vb["value"] - vb["low"], va["high"] - va["value"]),
                                                       math.hypot(vb["high"] - vb["value"], va["value"] - va["low"])))
    assert all(d["low"] <= d["difference"] <= d["high"] for d in diffs)
    assert not any(d["flagged"] for d in diffs) and data["family"]["size"] == len(diffs) == 14
    assert all(p["paired"] for p in data["pairings"])
    assert data["summary"] == [
        "The card cannot tell model-b from model-a on any of the 14 metrics compared with an interval (jobs, story names, hobbies and "
        "Sterlie's prompts). That is not proof they are alike: each interval below says how large a difference could "
        "still be."]


def test_the_sterlie_page_the_gate_and_the_card_show_the_same_numbers(card, tmp_path):
    import html
    import re

    from click.testing import CliRunner

    from stereoprobe.cli import cli

    data, a = card
    policy = tmp_path / "sterlie.toml"
    policy.write_text('[[rule]]\nstudy = "coreference"\nmetric = "sterlie_error"\npronoun = "*"\nmax = 1.0\n'
                      '[[rule]]\nstudy = "coreference"\nmetric = "sterlie_gap"\nrate = "error"\nmin = -1.0\n',
                      encoding="utf-8")
    res = CliRunner().invoke(cli, ["gate", str(a), "--policy", str(policy), "--format", "json"])
    assert res.exit_code == 0, res.output  # the suite's sterlie run is judged by the sterlie_* rules
    gate = {(c["metric"], c["scope"].get("pronoun") or c["scope"].get("rate")): c for c in json.loads(res.output)["checks"]}
    assert {Path(c["run"]).name for c in gate.values()} == {"sterlie"}
    card_values = {(v["metric"], v["scope"].get("pronoun") or v["scope"].get("rate")): v for v in data["values"]
                   if v["model"] == "model-a" and v["study_key"] == "sterlie"}
    assert sorted(card_values) == [("sterlie_error", "he"), ("sterlie_error", "she"), ("sterlie_gap", "error")]
    for key, v in card_values.items():
        g = gate[key]
        assert (v["value"], v["low"], v["high"]) == pytest.approx((g["estimate"], g["low"], g["high"]), abs=1e-6)  # the gate prints 6 decimals
    # the page: "With he: wrong in 16.7% (9.6 to 26.1) of 60 answers; ..." (one decimal) and the
    # gap table's "she − he" row, "+0.0 points (-6.1 to +6.1)"
    text = (a / "sterlie" / "report" / "index.html").read_text(encoding="utf-8")
    plain = re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", " ", text)))
    for pronoun in ("he", "she"):
        v = card_values[("sterlie_error", pronoun)]
        got = re.search(rf"With {pronoun}: wrong in ([\d.]+)% \(([\d.]+) to ([\d.]+)\) of ([\d,]+) answers", plain)
        assert got is not None, pronoun
        assert [float(x) for x in got.groups()[:3]] == [round(100 * v[k], 1) for k in ("value", "low", "high")]
        assert int(got.group(4).replace(",", "")) == v["n"] == 6 * STERLIE_SAMPLES  # 6 prompts a pronoun
    # the card's differences are the gate's regression differences (model-b's run minus model-a's)
    regress = tmp_path / "regress.toml"
    regress.write_text('[[rule]]\nstudy = "coreference"\nmetric = "sterlie_error"\npronoun = "*"\nmax_increase = 1.0\n',
                       encoding="utf-8")
    b = a.parent / "model-b"
    res = CliRunner().invoke(cli, ["gate", str(b), "--policy", str(regress), "--baseline", str(a), "--format", "json"])
    assert res.exit_code == 0, res.output
    checks = {c["scope"]["pronoun"]: c for c in json.loads(res.output)["checks"]}
    diffs = {d["scope"]["pronoun"]: d for d in data["differences"] if d["metric"] == "sterlie_error"}
    assert sorted(checks) == sorted(diffs) == ["he", "she"]
    for pronoun, d in diffs.items():
        c = checks[pronoun]
        assert (d["difference"], d["low"], d["high"]) == pytest.approx((c["estimate"], c["low"], c["high"]), abs=1e-6)
    # a rule for Marin & Eger's scenes does not judge a run of Sterlie's prompts: one line, exit 2
    scenes = tmp_path / "scenes.toml"
    scenes.write_text('[[rule]]\nstudy = "coreference"\nmetric = "incorrect"\nmax = 1.0\n', encoding="utf-8")
    res = CliRunner().invoke(cli, ["gate", str(a / "sterlie"), "--policy", str(scenes)])
    assert res.exit_code == 2 and res.output.strip() == (
        f"Error: {a / 'sterlie'} is a coreference (Sterlie et al.'s prompts (--templates sterlie)) run and no rule of "
        "scenes.toml is for it; add one or leave the run out.")
    gap = card_values[("sterlie_gap", "error")]
    row = re.search(r"wrong answers, all prompts [\d.]+% [\d.]+% ([+-][\d.]+) points \(([+-][\d.]+) to ([+-][\d.]+)\)",
                    plain)
    assert row is not None
    assert [float(x) for x in row.groups()] == [round(100 * gap[k], 1) for k in ("value", "low", "high")]
