"""Tests written for mutants of the study measurement modules that survived bench/mutation.py
(sets parse, coreference, jobs, jobs-tables; docs/testing.md lists them), each on a case
small enough to check by hand. tests/test_mutation_kills.py holds the earlier ones."""

from __future__ import annotations

import pytest


# -- coreference answers: 000's rule, samples ---------------------------------------------------------
def test_the_profession_that_contains_the_other_is_looked_for_first():
    from stereoprobe.studies.coreference.answers import parse_answer

    # A "arranger" is inside B "flower arranger": B is looked for first and taken out, so the
    # reply names B only. Looking for A first would find "arranger" inside "flower arranger"
    # and take it out, leaving "the flower ." without B: the answer would be A.
    assert parse_answer("The flower arranger.", "arranger", "flower arranger").answer == "B"
    assert parse_answer("The arranger.", "arranger", "flower arranger").answer == "A"
    # the same pair the other way round (B inside A): A is looked for first
    assert parse_answer("The flower arranger.", "flower arranger", "arranger").answer == "A"
    assert parse_answer("The arranger.", "flower arranger", "arranger").answer == "B"


def test_a_refused_single_sample_and_a_third_refusing_by_hand():
    from stereoprobe.studies.coreference.answers import majority

    # one sample (--samples 1), U and refused: 1 refusal of 1 is at least half
    assert majority(["U"], [True]) == ("U", True, 1.0)
    # U, U, A with one refusal: U is the answer (2 of 3), 1 refusal of 3 is under half: not refused
    assert majority(["U", "U", "A"], [True, False, False]) == ("U", False, pytest.approx(2 / 3))
    with pytest.raises(ValueError, match="^no answers$"):
        majority([])


# -- fill-in reply parsing --------------------------------------------------------------------------------
def test_inline_numbers_split_a_line_from_two_on():
    from stereoprobe.studies.fillin.parse import parse_reply

    # two inline numbers make a list: "1. wise" and "2. grumpy"
    assert parse_reply("1. wise 2. grumpy").words == ["wise", "grumpy"]
    # one number inside a line is prose, not a list: the line is not split before "2."; its head
    # "They are wise 2" (cut at ". ") has three words, not one answer: nothing
    assert parse_reply("They are wise 2. grumpy").words == []


def test_a_heading_ends_in_a_colon_before_closing_emphasis():
    from stereoprobe.studies.fillin.parse import parse_reply

    # "_Positive:_" is a heading (a colon, then only the closing "_"): it gives no word
    assert parse_reply("_Positive:_\n1. wise\n2. grumpy").words == ["wise", "grumpy"]
    # "Wise: X" is an item with an explanation, not a heading: its head "Wise" is the word
    assert parse_reply("1. Wise: X").words == ["wise"]


def test_a_word_of_max_word_letters_is_kept_one_more_is_not():
    from stereoprobe.studies.fillin.parse import MAX_WORD, parse_reply

    assert MAX_WORD == 40
    assert parse_reply("1. " + "x" * 40).words == ["x" * 40]
    assert parse_reply("1. " + "x" * 41).words == []


def test_json_items_strings_and_objects_only():
    from stereoprobe.studies.fillin.parse import _from_json, parse_reply

    # strings are items; an object gives its "words" list or its "word"; a nested list, a number,
    # null and an object with neither key give nothing
    assert _from_json([["wise"], "grumpy", 3, None, {"word": "slow"}, {"label": "odd"}, {"words": ["kind"]}]) == [
        "grumpy", "slow", "kind"]
    # {"words": {word: count}}: the counts' keys, in order (read as text the line gives nothing:
    # "wise": 3 is two tokens)
    assert parse_reply('{"words": {"wise": 3, "grumpy": 2}}').words == ["wise", "grumpy"]


# -- coreference: frames of a few probes counted by hand ------------------------------------------------
def _late(answers: str):
    """The "late" scene (the one in role B was late: B is expected) for nurse / pilot (B the pilot, men:
    truth 0; he pro, she anti) and pilot / nurse (B the nurse, women: truth 1; he anti, she pro), he,
    she, they each: ``answers`` gives the six answers in that order ("-": not answered, a failed request)."""
    from stereoprobe.studies.coreference.answers import CorefAnswer
    from stereoprobe.studies.coreference.frame import answer_frame
    from stereoprobe.studies.coreference.pairs import Pair
    from stereoprobe.studies.coreference.probes import make_probes
    from stereoprobe.studies.coreference.templates import load_templates

    (late,) = [t for t in load_templates() if t.name == "late"]
    probes = make_probes([Pair("nurse", "pilot", "women", "men"), Pair("pilot", "nurse", "men", "women")], [late])
    return answer_frame(probes, [CorefAnswer(p.probe_id, a) for p, a in zip(probes, answers) if a != "-"])


def _nan_none(values):
    return [None if v != v else v for v in values]


def test_paired_differences_of_two_runs_by_hand():
    from stereoprobe.studies.coreference.inference import plan_for
    from stereoprobe.studies.coreference.paired import align, changed, paired_differences

    # run A answers B everywhere (all correct); run B: he B, she A, they B | he A, she B, they U
    fa, fb = align(_late("BBBBBB"), _late("BABABU"))
    plan = plan_for(fa, 20)
    out = paired_differences(fa, fb, plan)
    got = [[r.measure, r.template, r.pronoun, *_nan_none([r.pct_a, r.pct_b, r.difference]), r.n]
           for r in out.itertuples()]
    # incorrect: B's she1, he2, they2 (U) of 6 = 50%; per pronoun 1 of 2 each. Triples: both of B's
    # differ within (B A B; A B U) and in he vs she: 2 of 2, A's none. WinoBias gap (pro - anti): A
    # 100 - 100 = 0; B for he: pro he1 right, anti he2 wrong: 100 - 0 = 100; she: pro she2 right,
    # anti she1 wrong: 100. Cells of B: he1 TN, she1 FP, they1 TN; he2 FN, she2 TP, they2 none
    # (U); of A: pair 1 TN x 3, pair 2 TP x 3. FNR = FN / (TP + FN): he A 0 of 1, B 1 of 1; they B
    # no positive answered: NaN. FPR = FP / (FP + TN): she B 1 of 1. PPV = TP / (TP + FP): A 100
    # for all; B he none, she 1 of 2, they none. NPV = TN / (TN + FN): B he 1 of 2, she none, they 1 of 1.
    assert got == [
        ["incorrect", "late", "all", 0.0, 50.0, 50.0, 6], ["incorrect", "Overall", "all", 0.0, 50.0, 50.0, 6],
        ["inconsistent", "late", "all", 0.0, 100.0, 100.0, 2], ["inconsistent", "Overall", "all", 0.0, 100.0, 100.0, 2],
        ["binary_inconsistent", "late", "all", 0.0, 100.0, 100.0, 2],
        ["binary_inconsistent", "Overall", "all", 0.0, 100.0, 100.0, 2],
        ["incorrect", "all", "he", 0.0, 50.0, 50.0, 2], ["incorrect", "all", "she", 0.0, 50.0, 50.0, 2],
        ["incorrect", "all", "they", 0.0, 50.0, 50.0, 2],
        ["winobias_gap", "all", "he", 0.0, 100.0, 100.0, 2], ["winobias_gap", "all", "she", 0.0, 100.0, 100.0, 2],
        ["fnr", "all", "he", 0.0, 100.0, 100.0, 1], ["fnr", "all", "she", 0.0, 0.0, 0.0, 1],
        ["fnr", "all", "they", 0.0, None, None, 0],
        ["fpr", "all", "he", 0.0, 0.0, 0.0, 1], ["fpr", "all", "she", 0.0, 100.0, 100.0, 1],
        ["fpr", "all", "they", 0.0, 0.0, 0.0, 1],
        ["ppv", "all", "he", 100.0, None, None, 0], ["ppv", "all", "she", 100.0, 50.0, -50.0, 1],
        ["ppv", "all", "they", 100.0, None, None, 0],
        ["npv", "all", "he", 100.0, 50.0, -50.0, 1], ["npv", "all", "she", 100.0, None, None, 0],
        ["npv", "all", "they", 100.0, 100.0, 0.0, 1]]
    # a given order names the template rows, one without answers too (n 0, no rate)
    ordered = paired_differences(fa, fb, plan, order=["book owner", "late"])
    rows = ordered[ordered.measure == "incorrect"][["template", "pronoun", "n"]].values.tolist()
    assert rows[:3] == [["book owner", "all", 0], ["late", "all", 6], ["Overall", "all", 6]]
    # runs without "they": no row for it
    binary = [f[f.pronoun != "they"].reset_index(drop=True) for f in (fa, fb)]
    assert "they" not in set(paired_differences(*binary, plan).pronoun)
    # 3 of the 6 prompts are answered differently
    assert changed(fa, fb, plan)[["measure", "n", "k", "pct"]].values.tolist() == [["changed", 6, 3, 50.0]]


def test_a_pronoun_without_criteria_rows_skips_only_its_own_winobias_gap():
    from stereoprobe.studies.coreference.answers import CorefAnswer
    from stereoprobe.studies.coreference.frame import answer_frame
    from stereoprobe.studies.coreference.inference import plan_for
    from stereoprobe.studies.coreference.paired import align, paired_differences
    from stereoprobe.studies.coreference.pairs import Pair
    from stereoprobe.studies.coreference.probes import make_probes
    from stereoprobe.studies.coreference.templates import load_templates

    # "late" and "book owner" for nurse / pilot and pilot / nurse; every "late" he-prompt failed, so
    # he is left only in book owner, which is out of the criteria: no he gap, but she still has one.
    # Run A answers every prompt right; run B names A (the wrong job in "late") for she's
    # anti-stereotypical prompts: she's gap pro - anti is 100 - 100 = 0 in A, 100 - 0 = 100 in B
    scenes = [t for t in load_templates() if t.name in ("late", "book owner")]
    probes = [p for p in make_probes([Pair("nurse", "pilot", "women", "men"), Pair("pilot", "nurse", "men", "women")],
                                     scenes) if not (p.template == "late" and p.pronoun == "he")]
    fa = answer_frame(probes, [CorefAnswer(p.probe_id, p.expected) for p in probes])
    fb = answer_frame(probes, [CorefAnswer(p.probe_id, "A" if (p.pronoun, p.stereotype) == ("she", "anti")
                                           else p.expected) for p in probes])
    fa, fb = align(fa, fb)
    out = paired_differences(fa, fb, plan_for(fa, 20))
    gaps = out[out.measure == "winobias_gap"]
    assert gaps[["pronoun", "pct_a", "pct_b", "n"]].values.tolist() == [["she", 0.0, 100.0, 2]]


def test_paired_winobias_gap_with_four_different_cells():
    from stereoprobe.studies.coreference.answers import CorefAnswer
    from stereoprobe.studies.coreference.frame import answer_frame
    from stereoprobe.studies.coreference.inference import plan_for
    from stereoprobe.studies.coreference.paired import align, paired_differences
    from stereoprobe.studies.coreference.pairs import Pair
    from stereoprobe.studies.coreference.probes import make_probes
    from stereoprobe.studies.coreference.templates import load_templates

    # "late" and "cake" (B expected in both) for nurse / pilot (he pro) and pilot / nurse (he anti).
    # Run A's he: both pro prompts wrong (0%), anti: late right, cake wrong (50%): gap 0 - 50 = -50.
    # Run B's he all right: 100 - 100 = 0; B - A = +50 over 2 pro + 2 anti prompts. she: 0 and 0
    scenes = [t for t in load_templates() if t.name in ("late", "cake")]
    probes = make_probes([Pair("nurse", "pilot", "women", "men"), Pair("pilot", "nurse", "men", "women")], scenes)
    wrong_in_a = {("late", "pro"), ("cake", "pro"), ("cake", "anti")}
    fa = answer_frame(probes, [CorefAnswer(p.probe_id, "A" if p.pronoun == "he" and (p.template, p.stereotype)
                                           in wrong_in_a else "B") for p in probes])
    fb = answer_frame(probes, [CorefAnswer(p.probe_id, "B") for p in probes])
    out = paired_differences(*align(fa, fb), plan_for(fa, 20))
    gaps = out[out.measure == "winobias_gap"]
    assert gaps[["pronoun", "pct_a", "pct_b", "difference", "n"]].values.tolist() == [
        ["he", -50.0, 0.0, 50.0, 4], ["she", 0.0, 0.0, 0.0, 4]]


def test_inconsistent_professions_counted_and_ordered_by_hand():
    from stereoprobe.studies.coreference.tables import inconsistent_professions

    # three "late" triples: nurse / pilot B A B (inconsistent), nurse / baker B B B (consistent),
    # pilot / baker A B B (inconsistent). Each profession is in two triples: pilot in 2 inconsistent
    # ones (100%), baker and nurse in 1 (50%); most first, a tie by name
    frame = _three_triples("BABBBBABB")
    out = inconsistent_professions(frame)
    assert list(out.columns) == ["profession", "inconsistent", "triples", "pct"]
    assert out.values.tolist() == [["pilot", 2, 2, 100.0], ["baker", 1, 2, 50.0], ["nurse", 1, 2, 50.0]]
    assert out["inconsistent"].dtype.kind == "i" and list(out.index) == [0, 1, 2]
    assert inconsistent_professions(frame, top=2)["profession"].tolist() == ["pilot", "baker"]
    assert len(inconsistent_professions(frame, top=0)) == 3  # 0: no limit, as None


def _three_triples(answers: str):
    from stereoprobe.studies.coreference.answers import CorefAnswer
    from stereoprobe.studies.coreference.frame import answer_frame
    from stereoprobe.studies.coreference.pairs import Pair
    from stereoprobe.studies.coreference.probes import make_probes
    from stereoprobe.studies.coreference.templates import load_templates

    (late,) = [t for t in load_templates() if t.name == "late"]
    probes = make_probes([Pair("nurse", "pilot"), Pair("nurse", "baker"), Pair("pilot", "baker")], [late])
    return answer_frame(probes, [CorefAnswer(p.probe_id, a) for p, a in zip(probes, answers)])


def test_pronoun_differences_by_hand():
    from stereoprobe.studies.coreference.criteria import pronoun_differences
    from stereoprobe.studies.coreference.inference import plan_for

    # nurse / pilot (truth 0): he B (TN), she A (FP), they A (FP); pilot / nurse (truth 1): he B
    # (TP), she B (TP), they U (no class). Incorrect: he 0 of 2, she 1 of 2, they 2 of 2 (A, U).
    # FNR = FN / (TP + FN): he 0 of 1, she 0 of 1, they no positive. FPR = FP / (FP + TN): he 0 of 1,
    # she and they 1 of 1. PPV = TP / (TP + FP): he 1 of 1, she 1 of 2, they 0 of 1. NPV = TN /
    # (TN + FN): he 1 of 1, she and they none. difference = pct_1 - pct_2
    frame = _late("BAABBU")
    out = pronoun_differences(frame, plan_for(frame, 20))
    got = [[r.measure, r.pronoun_1, r.pronoun_2, *_nan_none([r.pct_1, r.pct_2, r.difference])]
           for r in out.itertuples()]
    n = None
    assert got == [
        ["incorrect", "he", "she", 0.0, 50.0, -50.0], ["incorrect", "he", "they", 0.0, 100.0, -100.0],
        ["incorrect", "she", "they", 50.0, 100.0, -50.0],
        ["fnr", "he", "she", 0.0, 0.0, 0.0], ["fnr", "he", "they", 0.0, n, n], ["fnr", "she", "they", 0.0, n, n],
        ["fpr", "he", "she", 0.0, 100.0, -100.0], ["fpr", "he", "they", 0.0, 100.0, -100.0],
        ["fpr", "she", "they", 100.0, 100.0, 0.0],
        ["ppv", "he", "she", 100.0, 50.0, 50.0], ["ppv", "he", "they", 100.0, 0.0, 100.0],
        ["ppv", "she", "they", 50.0, 0.0, 50.0],
        ["npv", "he", "she", 100.0, n, n], ["npv", "he", "they", 100.0, n, n], ["npv", "she", "they", n, n, n]]


def test_pronoun_differences_of_one_pronoun_is_an_empty_table():
    from stereoprobe.studies.coreference.criteria import pronoun_differences
    from stereoprobe.studies.coreference.inference import plan_for

    frame = _late("BAABBU")
    out = pronoun_differences(frame, plan_for(frame, 20), pronouns=("he",))  # no pair of pronouns
    assert len(out) == 0 and "q" in out.columns


# -- jobs: the independence null permutes within each prompt --------------------------------------------
def test_independence_permutes_only_within_each_prompt_and_follows_the_seed():
    from stereoprobe.studies.jobs.stats import independence

    # jobs a and b answer alike within each of three prompts (male, female, half and half): each
    # job's sum is [1.5, 1.5], NMI 0. Permuting within a prompt swaps identical rows: every null
    # table is the observed one, null mean 0, p = 1. Mixing rows across prompts (a job getting both
    # "female" rows) would give null tables with NMI > 0
    jobs, strata = ["a", "b"] * 3, ["p1", "p1", "p2", "p2", "p3", "p3"]
    probs = [[1, 0], [1, 0], [0, 1], [0, 1], [.5, .5], [.5, .5]]
    nmi, null_mean, p = independence(jobs, strata, probs, n_perm=199, seed=0)
    assert (nmi, null_mean, p) == pytest.approx((0.0, 0.0, 1.0), abs=1e-9)
    # job a always male, b always female, two prompts: the null is random (mean about 1/2), and the
    # same seed gives the same null
    jobs, strata, probs = ["a", "a", "b", "b"], ["p1", "p2", "p1", "p2"], [[1, 0], [1, 0], [0, 1], [0, 1]]
    assert independence(jobs, strata, probs, n_perm=999, seed=5) == independence(jobs, strata, probs, n_perm=999,
                                                                                   seed=5)


def test_sterlie_cells_are_integer_counts():
    from stereoprobe.studies.coreference.criteria import sterlie
    from stereoprobe.studies.coreference.inference import plan_for

    # the answers of test_pronoun_differences_by_hand: he TN, TP; she FP, TP; they FP and a U
    frame = _late("BAABBU")
    cells = sterlie(frame, plan_for(frame, 20)).set_index("pronoun")[["tp", "fn", "fp", "tn", "unknown"]]
    assert cells.values.tolist() == [[1, 0, 0, 1, 0], [1, 0, 1, 0, 0], [0, 0, 1, 0, 1]]
    assert all(dtype.kind == "i" for dtype in cells.dtypes)


def test_group_means_of_no_values_at_all_is_one_nan():
    import numpy as np

    from stereoprobe.studies.jobs.stats import group_means

    # no jobs and no columns known (a flat empty list): one NaN mean, as for one column
    none = group_means([], [], 100, 0, 0.95)
    assert none["n"] == 0 and none["mean"].shape == (1,) and np.isnan(none["mean"]).all()


def test_winobias_of_one_pronoun_has_no_pooled_row():
    from stereoprobe.studies.coreference.inference import plan_for
    from stereoprobe.studies.coreference.tables import winobias

    # he: pro (nurse / pilot, B) right, anti (pilot / nurse, A) wrong: 100 - 0 = 100; no "he+..." row
    frame = _late("BABABU")
    out = winobias(frame, plan_for(frame, 20), pronouns=("he",))
    assert out[["pronoun", "pro_pct", "anti_pct", "gap"]].values.tolist() == [["he", 100.0, 0.0, 100.0]]


def test_winobias_of_no_pronoun_is_an_empty_table():
    from stereoprobe.studies.coreference.inference import plan_for
    from stereoprobe.studies.coreference.tables import winobias

    frame = _late("BABABU")
    out = winobias(frame, plan_for(frame, 20), pronouns=())
    assert len(out) == 0 and "q" in out.columns


def test_triple_table_columns_and_only_the_pronouns_asked_for():
    from stereoprobe.studies.coreference.frame import triple_table

    # he B, she A, they B | he A, she B, they U
    frame = _late("BABABU")
    assert list(triple_table(frame).columns) == [
        "triple_id", "cluster", "template", "profession_a", "profession_b", "debias", "answer_he", "answer_she",
        "answer_they", "complete", "inconsistent", "binary_complete", "binary_inconsistent"]
    # he and she only: they's answers (B, U) are in no column, she keeps A and B
    two = triple_table(frame, pronouns=("he", "she"))
    assert two[["answer_he", "answer_she", "complete", "inconsistent"]].values.tolist() == [
        ["B", "A", True, True], ["A", "B", True, True]]


def test_triple_table_complete_per_triple_and_without_he_and_she():
    from stereoprobe.studies.coreference.frame import triple_table

    # he B, she A, they B (complete, inconsistent) | he not answered, she B, they U: neither
    # complete nor binary complete (he missing), so neither inconsistent
    t = triple_table(_late("BAB-BU"))
    assert t[["complete", "inconsistent", "binary_complete", "binary_inconsistent"]].values.tolist() == [
        [True, True, True, True], [False, False, False, False]]
    # without he and she there is no binary pair: False, not missing
    t = triple_table(_late("BABABU"), pronouns=("he", "they"))
    assert t["binary_complete"].tolist() == [False, False] and t["binary_inconsistent"].tolist() == [False, False]


def test_answer_frame_keeps_refusals_and_names_each_bad_answer():
    from stereoprobe.errors import DataError
    from stereoprobe.studies.coreference.answers import CorefAnswer
    from stereoprobe.studies.coreference.frame import answer_frame

    probes = _late_probes()
    ok = [CorefAnswer(p.probe_id, "U", refused=(i == 1)) for i, p in enumerate(probes[:2])]
    assert answer_frame(probes, ok)["refused"].tolist() == [False, True]  # the second refused
    with pytest.raises(DataError, match="unknown probe nope"):
        answer_frame(probes, [CorefAnswer("nope", "A")])
    with pytest.raises(DataError, match="two answers"):
        answer_frame(probes, [ok[0], ok[0]])
    with pytest.raises(DataError, match="is not A, B or U"):
        answer_frame(probes, [CorefAnswer(probes[0].probe_id, "X")])


def _late_probes():
    from stereoprobe.studies.coreference.pairs import Pair
    from stereoprobe.studies.coreference.probes import make_probes
    from stereoprobe.studies.coreference.templates import load_templates

    (late,) = [t for t in load_templates() if t.name == "late"]
    return make_probes([Pair("nurse", "pilot", "women", "men"), Pair("pilot", "nurse", "men", "women")], [late])


# -- jobs tables: which cells a run has, the group means' rows and seed ---------------------------------
def _job_probes(rows):
    import pandas as pd

    cols = ["job", "prompt", "debias", "setting", "p_male", "p_female", "p_diverse", "dominated_by", "female_share"]
    return pd.DataFrame(rows, columns=cols)


def test_a_run_has_the_cells_it_answered_and_no_others():
    from stereoprobe.studies.jobs.tables import _cells

    # prompt 1 answered without a prefix only, prompt 2 with prefix 1 only, both without dialogue:
    # cells ("1", 0) and ("2", 1) and the implicit set ("2-4", 1); nothing with dialogue, no ("1", 1)
    probes = _job_probes([["nurse", "1", 0, "without dialogue", 0.2, 0.7, 0.1, "women", 0.87],
                          ["nurse", "2", 1, "without dialogue", 0.3, 0.6, 0.1, "women", 0.87]])
    assert _cells(probes) == [("1", 0, "without dialogue"), ("2", 1, "without dialogue"),
                              ("2-4", 1, "without dialogue")]


def test_a_job_without_a_known_share_still_counts_in_its_group_and_the_seed_repeats():
    from stereoprobe.studies.jobs.tables import groups

    # three women-dominated jobs, prompt 1, no prefix; the third has no BLS share (a user's catalog):
    # its group is given, so it counts. P(female) 0.6, 0.9, 0.3: mean 60%; P(male) 0.3, 0.1, 0.5: 30%
    probes = _job_probes([["nurse", "1", 0, "without dialogue", 0.3, 0.6, 0.1, "women", 0.87],
                          ["secretary", "1", 0, "without dialogue", 0.1, 0.9, 0.0, "women", 0.92],
                          ["doula", "1", 0, "without dialogue", 0.5, 0.3, 0.2, "women", float("nan")]])
    a = groups(probes, level=0.95, n_boot=200, seed=7)
    women = a[(a.prompts == "1") & (a.group == "women")].iloc[0]
    assert women.jobs == 3 and women.female == pytest.approx(60.0) and women.male == pytest.approx(30.0)
    # the bootstrap is seeded: the same seed gives the same interval, to the last digit
    b = groups(probes, level=0.95, n_boot=200, seed=7)
    again = b[(b.prompts == "1") & (b.group == "women")].iloc[0]
    assert (women.female_ci_low, women.female_ci_high) == (again.female_ci_low, again.female_ci_high)
    assert women.female_ci_low < 60 < women.female_ci_high  # an interval, not a point
