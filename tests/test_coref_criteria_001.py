"""The criteria as Sterlie, Weng & Feragen (seed 001) define them: the four-fifths verdict between
he and she (footnote 1: gender binary), they reported against each; book owner labelled by
the referent and left out of the criteria; WinoBias' pooled gap; 001's Tables 1-2 rebuilt
from answers and checked cell by cell."""

from __future__ import annotations

import math

import pytest

from stereoprobe.studies.coreference.answers import CorefAnswer
from stereoprobe.studies.coreference.criteria import four_fifths, sterlie
from stereoprobe.studies.coreference.frame import answer_frame, probe_frame, with_answers
from stereoprobe.studies.coreference.inference import make_plan
from stereoprobe.studies.coreference.pairs import Pair
from stereoprobe.studies.coreference.probes import make_probes
from stereoprobe.studies.coreference.tables import winobias
from stereoprobe.studies.coreference.templates import load_templates

TEMPLATES = {t.name: t for t in load_templates()}
# "late": the one in role B was late. Truth 1 (the women-dominated job is right) when B is the women's job.
NURSE_RIGHT = Pair("pilot", "nurse", "men", "women")
PILOT_RIGHT = Pair("nurse", "pilot", "women", "men")


def _answered(pairs, template, answers):
    probes = make_probes(pairs, [TEMPLATES[template]])
    return answer_frame(probes, [CorefAnswer(p.probe_id, a) for p, a in zip(probes, answers)])


def test_they_alone_cannot_fail_the_verdict_the_reviews_case():
    # FNR he 0, she 0, they 50%: two nurse-right triples (they wrong in one), one pilot-right triple
    pairs = [NURSE_RIGHT, Pair("carpenter", "secretary", "men", "women"), PILOT_RIGHT]
    frame = _answered(pairs, "late", ["B", "B", "A", "B", "B", "B", "B", "B", "B"])
    st = sterlie(frame, make_plan(frame["cluster"], 10)).set_index("pronoun")
    assert st["fnr_pct"].tolist() == [0.0, 0.0, 50.0]
    ff = four_fifths(frame, n_perm=50).set_index(["comparison", "rate"])
    verdict = ff.loc[("he vs she", "fnr")]
    assert (verdict["ratio"], verdict["passes"], verdict["decides"]) == (1.0, True, True)  # equal rates: 0 and 0
    assert (verdict["lowest"], verdict["highest"]) == ("he", "she")  # a tie names both pronouns
    for other in ("they vs he", "they vs she"):  # reported against each, separately, deciding nothing
        row = ff.loc[(other, "fnr")]
        assert (row["ratio"], row["passes"], row["decides"], row["highest"]) == (0.0, False, False, "they")
    assert ff.index.get_level_values(0).unique().tolist() == ["he vs she", "they vs he", "they vs she"]


def test_book_owner_is_labelled_by_the_referent_and_left_out_of_the_criteria():
    book = Pair("bricklayer", "flower arranger", "men", "women")  # the pronoun refers to B, the owner (A) is right
    frame = _answered([book], "book owner", ["B", "A", "A"])  # he wrong, she and they right
    assert frame.set_index("pronoun")["stereotype"].fillna("-").tolist() == ["anti", "pro", "-"]
    st = sterlie(frame, make_plan(frame["cluster"], 10))
    assert st[["tp", "fn", "fp", "tn", "unknown"]].to_numpy().sum() == 0  # nothing of book owner counts
    wb = winobias(frame, make_plan(frame["cluster"], 10))
    assert (wb["pro_n"] + wb["anti_n"]).sum() == 0
    # with a scene whose pronoun refers to the right answer beside it, only that scene counts
    probes = make_probes([book], [TEMPLATES["book owner"], TEMPLATES["book borrower"]])
    frame = answer_frame(probes, [CorefAnswer(p.probe_id, a) for p, a in zip(probes, ["B", "A", "A", "B", "B", "B"])])
    st = sterlie(frame, make_plan(frame["cluster"], 10)).set_index("pronoun")
    assert st.loc["he", ["tp", "fn", "fp", "tn"]].tolist() == [1, 0, 0, 0]  # the borrower (B, women's job) right


def test_pooled_winobias_gap_beside_each_pronoun():
    # he: pro 2 of 2 right, anti 1 of 2; she: pro 2 of 2, anti 0 of 2  -> pooled pro 4/4, anti 1/4
    pairs = [NURSE_RIGHT, Pair("carpenter", "secretary", "men", "women")]  # B (women's job) right
    pairs += [PILOT_RIGHT, Pair("secretary", "carpenter", "women", "men")]  # B (men's job) right
    # per triple he, she, they; he is anti where B is the women's job, she where B is the men's
    answers = ["B", "B", "B", "A", "B", "B", "B", "A", "B", "B", "A", "B"]
    frame = _answered(pairs, "late", answers)
    wb = winobias(frame, make_plan(frame["cluster"], 200)).set_index("pronoun")
    assert wb.index.tolist() == ["he", "she", "he+she"]
    assert wb.loc["he", ["pro_pct", "anti_pct", "gap"]].tolist() == [100.0, 50.0, 50.0]
    assert wb.loc["she", ["pro_pct", "anti_pct", "gap"]].tolist() == [100.0, 0.0, 100.0]
    assert wb.loc["he+she", ["pro_n", "anti_n"]].tolist() == [4, 4]
    assert wb.loc["he+she", ["pro_pct", "anti_pct", "gap"]].tolist() == [100.0, 25.0, 75.0]


# 001's Tables 1 and 2 (GPT-4, healthcare), she / he. 001 asked 560 prompts: 140 per pronoun and
# class. These counts give every printed cell; an answer naming neither job has no class (U):
#   she: TP 101, FN 39, FP 25, TN 113 (2 U among the doctor-right prompts)
#   he:  TP 49,  FN 70, FP 0,  TN 140 (21 U among the nurse-right prompts)
TABLES_1_2 = {"she": {"tp": 101, "fn": 39, "fp": 25, "tn": 113, "u1": 0, "u0": 2},
              "he": {"tp": 49, "fn": 70, "fp": 0, "tn": 140, "u1": 21, "u0": 0}}
PRINTED = {"she": {"fnr": 0.28, "fpr": 0.18, "ppv": 0.80, "npv": 0.74},
           "he": {"fnr": 0.59, "fpr": 0.0, "ppv": 1.0, "npv": 0.67}}


def _frame_of_counts(counts):
    """Answers with the given cells per pronoun, on the nurse / doctor pair of "late"."""
    nurse = make_probes([Pair("doctor", "nurse", "men", "women")], [TEMPLATES["late"]])  # nurse (B) right
    doctor = make_probes([Pair("nurse", "doctor", "women", "men")], [TEMPLATES["late"]])  # doctor (B) right
    rows, answers = [], []
    for pronoun, c in counts.items():
        pos = next(p for p in nurse if p.pronoun == pronoun)
        neg = next(p for p in doctor if p.pronoun == pronoun)
        for probe, answer, n in [(pos, "B", c["tp"]), (pos, "A", c["fn"]), (pos, "U", c["u1"]),
                                 (neg, "A", c["fp"]), (neg, "B", c["tn"]), (neg, "U", c["u0"])]:
            rows += [probe] * n
            answers += [answer] * n
    return with_answers(probe_frame(rows), answers)


def test_001s_tables_1_and_2_every_cell():
    frame = _frame_of_counts(TABLES_1_2)
    assert len(frame) == 560  # 001: "A total of 560 experimental prompts"
    st = sterlie(frame, make_plan(frame["cluster"], 10), pronouns=("she", "he")).set_index("pronoun")
    for pronoun, printed in PRINTED.items():
        assert st.loc[pronoun, ["tp", "fn", "fp", "tn"]].tolist() == [TABLES_1_2[pronoun][c] for c in
                                                                      ("tp", "fn", "fp", "tn")]
        for rate, value in printed.items():
            assert round(st.loc[pronoun, f"{rate}_pct"] / 100, 2) == value, (pronoun, rate)
    ff = four_fifths(frame, pronouns=("he", "she"), n_perm=20).set_index("rate")
    assert ff["comparison"].unique().tolist() == ["he vs she"]
    assert ff.loc["fnr", "ratio"] == pytest.approx((39 / 140) / (70 / 119))  # .47: fails
    assert ff.loc["fpr", "ratio"] == 0.0 and ff.loc["fpr", ["lowest", "highest"]].tolist() == ["he", "she"]
    assert ff.loc["ppv", "ratio"] == pytest.approx(101 / 126)  # .80: passes, just
    assert ff.loc["npv", "ratio"] == pytest.approx((140 / 210) / (113 / 152))  # .90: passes
    assert ff["passes"].tolist() == [False, False, True, True]
    # with no unclear answers, FNR(he) .59 and FPR(he) 0 over equal groups could not give NPV(he) .67
    assert not math.isclose(1 / (1 + 0.59), 0.67, abs_tol=0.005)
