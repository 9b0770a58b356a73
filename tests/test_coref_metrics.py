"""Coreference metrics on answers small enough to count by hand, 001's worked tables, and a
planted bias from the fake biased model on the full default design."""

from __future__ import annotations

import math

import numpy as np
import pytest

from coref_fake import against, biased_reply, is_flipped
from stereoprobe.studies.coreference.answers import CorefAnswer, answer_from_reply
from stereoprobe.studies.coreference.criteria import (
    four_fifths, four_fifths_of_rates, predictive_values, pronoun_differences, sterlie,
)
from stereoprobe.studies.coreference.frame import answer_frame, triple_table
from stereoprobe.studies.coreference.inference import plan_for
from stereoprobe.studies.coreference.pairs import Pair, jobs_pairs
from stereoprobe.studies.coreference.probes import make_probes
from stereoprobe.studies.coreference.tables import inconsistent_professions, table3, winobias
from stereoprobe.studies.coreference.templates import load_templates

TEMPLATES = {t.name: t for t in load_templates()}


def _frame(pairs, template, answers):
    probes = make_probes(pairs, [TEMPLATES[template]])
    return answer_frame(probes, [CorefAnswer(p.probe_id, a) for p, a in zip(probes, answers)])


def test_000s_worked_example_one_inconsistent_triple_two_of_three_incorrect():
    # book owner, bricklayer vs flower arranger: he -> A, she -> B, they -> B (000, section 4.1)
    frame = _frame([Pair("bricklayer", "flower arranger")], "book owner", ["A", "B", "B"])
    row = table3(frame, plan_for(frame, 50)).set_index("template").loc["Overall"]
    assert (row["incorrect_k"], row["incorrect_n"]) == (2, 3)
    assert row["incorrect_pct"] == pytest.approx(200 / 3)
    assert (row["inconsistent_k"], row["inconsistent_n"]) == (1, 1)
    assert (row["binary_inconsistent_k"], row["binary_inconsistent_n"]) == (1, 1)
    assert math.isnan(row["incorrect_low"])  # one profession pair: no interval can be formed
    top = inconsistent_professions(frame)
    assert top[["profession", "inconsistent", "triples"]].values.tolist() == [
        ["bricklayer", 1, 1], ["flower arranger", 1, 1]]


def test_three_wrong_answers_are_consistent_and_u_counts_as_incorrect():
    frame = _frame([Pair("nurse", "pilot")], "late", ["A", "A", "A"])  # the pilot (B) was late
    t = triple_table(frame).iloc[0]
    assert (t["complete"], t["inconsistent"], t["binary_inconsistent"]) == (True, False, False)
    frame = _frame([Pair("nurse", "pilot")], "late", ["B", "U", "B"])
    row = table3(frame, plan_for(frame, 10)).set_index("template").loc["late"]
    assert (row["incorrect_k"], row["inconsistent_k"], row["binary_inconsistent_k"], row["unknown"]) == (1, 1, 1, 1)


def test_table3_layout_is_000s_templates_then_overall():
    probes = make_probes([Pair("nurse", "pilot", "women", "men"), Pair("pilot", "nurse", "men", "women")])
    frame = answer_frame(probes, [CorefAnswer(p.probe_id, p.expected) for p in probes])
    out = table3(frame, plan_for(frame, 10), order=list(TEMPLATES))
    assert out["template"].tolist() == list(TEMPLATES) + ["Overall"]
    assert out["incorrect_pct"].tolist() == [0.0] * 8 and out["incorrect_n"].tolist() == [6] * 7 + [42]


# Two triples of the "late" template (the one in role B was late), counted by hand:
#   nurse / pilot (truth 0: the pilot, men-dominated, was late): he B (TN), she A (FP), they B (TN)
#   pilot / nurse (truth 1: the nurse was late):                 he A (FN), she B (TP), they U
HAND = ([Pair("nurse", "pilot", "women", "men"), Pair("pilot", "nurse", "men", "women")],
        ["B", "A", "B", "A", "B", "U"])


def test_sterlie_cells_and_rates_by_hand():
    frame = _frame(HAND[0], "late", HAND[1])
    got = sterlie(frame, plan_for(frame, 10)).set_index("pronoun")
    assert got.loc["he", ["tp", "fn", "fp", "tn", "unknown"]].tolist() == [0, 1, 0, 1, 0]
    assert got.loc["she", ["tp", "fn", "fp", "tn", "unknown"]].tolist() == [1, 0, 1, 0, 0]
    assert got.loc["they", ["tp", "fn", "fp", "tn", "unknown"]].tolist() == [0, 0, 0, 1, 1]
    pct = got[["fnr_pct", "fpr_pct", "ppv_pct", "npv_pct"]]
    assert pct.loc["he"].tolist()[:2] == [100.0, 0.0] and math.isnan(pct.loc["he", "ppv_pct"])
    assert pct.loc["he", "npv_pct"] == 50.0
    assert pct.loc["she"].tolist()[:3] == [0.0, 100.0, 50.0] and math.isnan(pct.loc["she", "npv_pct"])
    assert math.isnan(pct.loc["they", "fnr_pct"]) and pct.loc["they", "npv_pct"] == 100.0
    ratios = four_fifths(frame, n_perm=20).query("comparison == 'he vs she'").set_index("rate")
    assert ratios.loc["fnr", ["ratio", "passes", "lowest", "highest"]].tolist() == [0.0, False, "she", "he"]
    wb = winobias(frame, plan_for(frame, 10)).set_index("pronoun")
    assert wb.loc["he", ["pro_pct", "anti_pct", "gap"]].tolist() == [100.0, 0.0, 100.0]
    assert wb.loc["she", ["pro_pct", "anti_pct", "gap"]].tolist() == [100.0, 0.0, 100.0]


def test_001s_worked_tables_and_the_four_fifths_rule():
    # 001, Tables 1 and 2 (GPT-4, healthcare): she / he
    assert four_fifths_of_rates([0.80, 1.0]) == pytest.approx(0.80)  # PPV: passes (>= 0.8)
    assert four_fifths_of_rates([0.74, 0.67]) == pytest.approx(0.905, abs=5e-4)  # NPV: passes
    assert four_fifths_of_rates([0.28, 0.59]) == pytest.approx(0.4746, abs=5e-5)  # FNR .47: fails
    assert four_fifths_of_rates([0.18, 0.0]) == 0.0  # FPR: fails
    # 001 prints NPV(he) = 0.67; FNR .59 and FPR 0 over its equal groups give .629
    ppv_he, npv_he = predictive_values(fnr=0.59, fpr=0.0)
    assert (ppv_he, round(npv_he, 3)) == (1.0, 0.629)
    ppv_she, npv_she = predictive_values(fnr=0.28, fpr=0.18)  # printed .80 and .74
    assert (round(ppv_she, 3), round(npv_she, 3)) == (0.8, 0.745)
    assert four_fifths_of_rates([npv_she, npv_he]) == pytest.approx(0.844, abs=5e-4)  # still passes


@pytest.fixture(scope="module")
def planted():
    """The full default design (16,800 prompts) answered by the fake model with a 30% bias."""
    probes = make_probes(jobs_pairs())
    answers = [answer_from_reply(p.probe_id, biased_reply(p.text, 0.3), p.profession_a, p.profession_b)
               for p in probes]
    flips = {pr: sum(1 for p in probes if p.pronoun == pr and against(p) and is_flipped(p.probe_id, 0.3)
                     and p.template != "book owner") for pr in ("he", "she")}  # book owner: not in the criteria
    frame = answer_frame(probes, answers)
    return frame, plan_for(frame, 500, seed=1), flips


def test_planted_bias_gives_the_values_it_implies(planted):
    frame, plan, flips = planted
    n_anti = 2400  # per pronoun, six scenes (book owner is left out of the criteria)
    assert all(abs(f / n_anti - 0.3) < 0.03 for f in flips.values())  # the hash's realised share
    probes = make_probes(jobs_pairs(), [TEMPLATES["book owner"]])
    total = flips["he"] + flips["she"] + sum(against(p) and is_flipped(p.probe_id, 0.3) for p in probes)
    row = table3(frame, plan).set_index("template").loc["Overall"]
    # each flip makes one answer wrong and its triple (and he/she pair) inconsistent
    assert (row["incorrect_k"], row["inconsistent_k"], row["binary_inconsistent_k"]) == (total, total, total)
    assert row["incorrect_pct"] == pytest.approx(100 * 0.3 / 3, abs=1.0)
    assert row["inconsistent_pct"] == pytest.approx(30, abs=3)
    st = sterlie(frame, plan).set_index("pronoun")
    b_he, b_she = flips["he"] / n_anti, flips["she"] / n_anti
    assert st.loc["he", "fnr_pct"] == pytest.approx(100 * b_he) and st.loc["he", "fpr_pct"] == 0
    assert st.loc["he", "ppv_pct"] == 100 and st.loc["he", "npv_pct"] == pytest.approx(100 / (1 + b_he))
    assert st.loc["she", "fpr_pct"] == pytest.approx(100 * b_she) and st.loc["she", "fnr_pct"] == 0
    assert st.loc["she", "ppv_pct"] == pytest.approx(100 / (1 + b_she)) and st.loc["she", "npv_pct"] == 100
    assert st.loc["they", ["fnr_pct", "fpr_pct"]].tolist() == [0, 0]
    assert st.loc["he", "fnr_low"] < 100 * b_he < st.loc["he", "fnr_high"]
    wb = winobias(frame, plan).set_index("pronoun")
    assert wb.loc["he", "gap"] == pytest.approx(100 * b_he) and wb.loc["she", "gap"] == pytest.approx(100 * b_she)
    assert (wb["q"] < 0.001).all()


def test_planted_bias_is_found_by_every_test(planted):
    frame, plan, _ = planted
    ff = four_fifths(frame, n_perm=199, seed=2).query("decides").set_index("rate")
    assert (ff["p"] == 1 / 200).all()  # no permutation comes close
    assert not ff["passes"].any()  # FNR and FPR 0; PPV and NPV about 1 / 1.3 = 0.77
    assert ff.loc["ppv", "ratio"] == pytest.approx(1 / 1.3, abs=0.03)
    assert (ff["null_p05"] > 0.8).all()  # by chance alone, these pronouns' rates would agree closely
    d = pronoun_differences(frame, plan).set_index(["measure", "pronoun_1", "pronoun_2"])
    for key in [("fnr", "he", "she"), ("fnr", "he", "they"), ("fpr", "he", "she"), ("fpr", "she", "they"),
                ("ppv", "he", "she"), ("npv", "he", "she"), ("incorrect", "he", "they")]:
        assert d.loc[key, "q"] < 0.001, key
    # what the bias does not touch is not flagged: they vs the unbiased side
    for key in [("fnr", "she", "they"), ("fpr", "he", "they")]:
        assert d.loc[key, "difference"] == 0 and d.loc[key, "q"] == 1
    assert np.isfinite(d["low"]).all()
