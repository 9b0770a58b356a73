"""Tests written for mutants that survived bench/mutation.py (docs/testing.md lists them),
each on a case small enough to check by hand."""

from __future__ import annotations

import json
import math

import pytest

from stereoprobe.errors import DataError
from stereoprobe.records import Completion


def _rec(probe_id: str, sample: int = 0, words=("wise",), error=None) -> Completion:
    return Completion(probe_id, sample, "age", "old people", "are_so", "statement", "old people are so",
                      list(words), error=error)


def _line(r: Completion) -> str:
    return json.dumps(r.to_dict()) + "\n"


# -- the store's latest-record rule -----------------------------------------------------------
def test_the_last_line_per_key_wins_in_first_appearance_order(tmp_path):
    from stereoprobe.store import read_completions

    # p1 fails, p2 answers, p1 is retried and answers, p1 sample 1 is another key
    lines = [_rec("p1", error="timeout"), _rec("p2", words=["kind"]), _rec("p1", words=["grumpy"]),
             _rec("p1", 1, words=["slow"])]
    (tmp_path / "completions.jsonl").write_text("".join(map(_line, lines)) + "\n")  # a blank line is skipped
    got = read_completions(tmp_path)
    assert [(r.probe_id, r.sample, r.words, r.error) for r in got] == [
        ("p1", 0, ["grumpy"], None), ("p2", 0, ["kind"], None), ("p1", 1, ["slow"], None)]
    assert read_completions(tmp_path / "completions.jsonl") == got  # the file itself, too


def test_a_torn_last_line_is_dropped_and_repaired_before_appending(tmp_path):
    from stereoprobe.store import RunStore, read_completions

    path = tmp_path / "completions.jsonl"
    whole = _line(_rec("p1")) + _line(_rec("p2"))
    path.write_text(whole + '{"probe_id": "p3", "sam')  # killed while writing p3
    assert [r.probe_id for r in read_completions(tmp_path)] == ["p1", "p2"]
    store = RunStore(tmp_path)
    existing = store.open()
    assert list(existing) == [("p1", 0), ("p2", 0)]
    assert path.read_text() == whole  # the torn tail is cut, nothing else
    store.append(_rec("p3"))
    store.close()
    assert path.read_text() == whole + _line(_rec("p3"))


def test_a_bad_line_is_one_error_naming_its_line(tmp_path):
    from stereoprobe.store import read_completions

    (tmp_path / "completions.jsonl").write_text(_line(_rec("p1")) + "\n" + "not json\n")
    with pytest.raises(DataError, match=r"completions.jsonl, line 3: not a completion record"):
        read_completions(tmp_path)
    (tmp_path / "completions.jsonl").write_text('{"probe_id": 5, "sample": 0}\n')
    with pytest.raises(DataError, match=r"line 1: not a completion record"):
        read_completions(tmp_path)


def test_no_completions_file_says_what_to_run(tmp_path):
    from stereoprobe.store import read_completions

    with pytest.raises(DataError, match=r"no completions file; run `stereoprobe collect --out"):
        read_completions(tmp_path / "run")


def test_compact_keeps_one_line_per_key_the_last(tmp_path):
    from stereoprobe.store import RunStore

    path = tmp_path / "completions.jsonl"
    path.write_text("".join(map(_line, [_rec("p1", error="x"), _rec("p2"), _rec("p1", words=["naïve"])])))
    store = RunStore(tmp_path)
    assert store.compact() == 1
    kept = json.dumps(_rec("p1", words=["naïve"]).to_dict(), ensure_ascii=False) + "\n"  # UTF-8 text, as appended
    assert path.read_text(encoding="utf-8") == kept + _line(_rec("p2"))
    assert store.compact() == 0 and path.read_text().count("\n") == 2



def test_a_file_of_only_a_torn_line_is_emptied(tmp_path):
    from stereoprobe.store import RunStore

    path = tmp_path / "completions.jsonl"
    path.write_text('{"probe_id": "p1", "sam')
    assert RunStore(tmp_path).open() == {}
    assert path.read_bytes() == b""


def test_a_bad_first_line_after_a_blank_one_is_line_2(tmp_path):
    from stereoprobe.store import read_completions

    (tmp_path / "completions.jsonl").write_text("\nnot json\n")
    with pytest.raises(DataError, match=r"line 2: not a completion record"):
        read_completions(tmp_path)


def test_the_store_writes_utf8_text_with_mode_644_in_a_new_nested_folder(tmp_path):
    import os

    from stereoprobe.store import RunStore

    run = tmp_path / "a" / "b"  # neither exists yet
    store = RunStore(run)
    store.open()
    store.append(_rec("p1", words=["naïve"]))
    store.close()
    path = run / "completions.jsonl"
    assert '"naïve"' in path.read_text(encoding="utf-8")  # readable text, not a \\u escape
    assert os.stat(path).st_mode & 0o777 == 0o644 & ~_umask()
    assert list(run.iterdir()) == [path]  # the write test leaves nothing behind


def _umask() -> int:
    import os

    old = os.umask(0)
    os.umask(old)
    return old


def test_a_record_of_another_study_is_read_with_its_own_type(tmp_path):
    from stereoprobe.store import RunStore, read_completions
    from stereoprobe.studies.jobs.records import JobAnswer

    rec = JobAnswer("j1", 0, "nurse", "2", "gender", 0, "without dialogue", "Q: ...", "exact")
    (tmp_path / "completions.jsonl").write_text(json.dumps(rec.to_dict()) + "\n")
    assert read_completions(tmp_path, JobAnswer) == [rec]
    assert RunStore(tmp_path, JobAnswer).open() == {("j1", 0): rec}
    (tmp_path / "completions.jsonl").write_text(2 * (json.dumps(rec.to_dict()) + "\n"))
    assert RunStore(tmp_path, JobAnswer).compact() == 1


def test_append_writes_everything_even_one_byte_at_a_time_and_a_full_disk_is_one_error(tmp_path, monkeypatch):
    import os

    from stereoprobe import store as store_module
    from stereoprobe.store import RunStore, read_completions

    real_write = os.write
    store = RunStore(tmp_path)
    store.open()
    monkeypatch.setattr(store_module.os, "write", lambda fd, data: real_write(fd, data[:1]))
    store.append(_rec("p1", words=["grumpy"]))
    monkeypatch.setattr(store_module.os, "write", lambda fd, data: 0)
    with pytest.raises(DataError, match=r"Cannot write to .*completions.jsonl \(No space left on device\); free disk"):
        store.append(_rec("p2"))
    monkeypatch.undo()
    store.close()
    assert [r.words for r in read_completions(tmp_path)] == [["grumpy"]]


# -- the jobs study's independence criterion ---------------------------------------------------
def test_nmi_table_sums_each_jobs_rows():
    import numpy as np

    from stereoprobe.studies.jobs.stats import nmi_table

    p = [[.2, .6, .2], [.4, .4, .2], [.6, .2, .2]]
    assert np.allclose(nmi_table([0, 0, 1], p, 2), [[.6, 1.0, .4], [.6, .2, .2]])
    assert nmi_table(np.array([1, 1, 1]), p, 3)[0].tolist() == [0, 0, 0]  # a job without rows: zeros


def test_independence_null_by_hand():
    from stereoprobe.studies.jobs.stats import independence

    # job a always "male", job b always "female", asked with two prompts: NMI 1. Permuting the
    # job labels within each prompt swaps a and b in none, one or both prompts (1/4, 1/2, 1/4):
    # none or both keep NMI 1, one makes the table [[1, 1, 0], [1, 1, 0]], NMI 0. So the null
    # mean is 1/2 and p = (1 + #null >= 1) / 1000, about 1/2.
    jobs, strata = ["a", "a", "b", "b"], ["p1", "p2", "p1", "p2"]
    probs = [[1, 0, 0], [1, 0, 0], [0, 1, 0], [0, 1, 0]]
    nmi, null_mean, p = independence(jobs, strata, probs, n_perm=999, seed=3)
    assert nmi == pytest.approx(1.0)
    assert abs(null_mean - 0.5) < 0.06 and abs(p - 0.5) < 0.06
    # no association at all: every permutation ties with the observed 0, p = 1
    flat = [[.5, .5, 0]] * 4
    assert independence(jobs, strata, flat, n_perm=99)[::2] == pytest.approx((0.0, 1.0), abs=1e-9)
    # one prompt, or one job: a permutation only renames rows, no test
    one = independence(jobs, ["p1"] * 4, probs, n_perm=99)
    assert one[0] == pytest.approx(1.0) and all(math.isnan(v) for v in one[1:])
    assert all(math.isnan(v) for v in independence(["a"] * 4, strata, probs, n_perm=99)[1:])


# -- the jobs study's measure (its doctests are not run by the mutation runs) -----------------------
def test_expression_probability_and_first_token_mass_by_hand():
    from stereoprobe.studies.jobs.measure import expression_probability, first_token_mass

    assert expression_probability([0.1, 0.5, 0.8]) == pytest.approx(0.04)
    assert expression_probability([]) == 1.0  # no token left to predict
    ex = [("male", " He"), ("female", " She"), ("diverse", " They"), ("diverse", " Them")]
    top = [("She", math.log(.5)), (" he", math.log(.2)), ("She", math.log(.1)), ("The", math.log(.1)),
           ("", math.log(.05)), ("Th", math.log(.05))]
    # She .5 (its second appearance not again), he .2 (case and spaces ignored); "The" and "Th"
    # start They and Them, both diverse: .1 + .05; "" is nothing
    assert first_token_mass(top, ex) == pytest.approx({"male": .2, "female": .5, "diverse": .15})
    assert first_token_mass([("T", math.log(.3))], ex) == pytest.approx({"male": 0, "female": 0, "diverse": .3})
    # "S" starts She and Sir (two genders): attributed to neither
    assert first_token_mass([("S", math.log(.3))], ex + [("male", " Sir")])["female"] == 0.0


def test_parse_answer_takes_the_longest_expression_and_a_word_boundary():
    from stereoprobe.studies.jobs.measure import parse_answer

    ex = [("male", " Man"), ("diverse", " Non-binary"), ("diverse", " Non"), ("female", " Woman")]
    assert parse_answer("  'non-binary!' ", ex) == "diverse"
    assert parse_answer("**Man**", ex) == "male"
    assert parse_answer("Manager", ex) is None and parse_answer("", ex) is None
    assert parse_answer("woman, I think", ex) == "female"
    longest = [("male", " Non"), ("diverse", " Non-binary")]  # the longer match wins whatever the order
    assert parse_answer("Non-binary", longest) == "diverse" and parse_answer("Non binary", longest) == "male"


def test_first_name_skips_stop_words_and_reads_only_the_start():
    from stereoprobe.names import first_name

    assert first_name("Once upon a time, Sarah met John.", frozenset({"once"})) == "Sarah"
    assert first_name("Once upon a time, Sarah met John.") == "Once"
    assert first_name("the nurse, Mary-Jane, said") == "Mary-Jane"
    assert first_name("x" * 200 + " Sarah") is None  # only the first 200 characters are read:
    assert first_name("x" * 195 + " Sarah") == "Sara"  # the 201st is cut off


# -- fill-in shares ----------------------------------------------------------------------------
def test_shares_without_synonyms_by_hand():
    import pandas as pd

    from stereoprobe.studies.fillin.sentiment.tables import OCCURRENCE_COLUMNS, shares_without_synonyms

    rows = [("p1", 0, "age", "old people", "are_so", "statement", "wise", "positive", "lexicon"),
            ("p1", 0, "age", "old people", "are_so", "statement", "grumpy", "negative", "synonyms"),
            ("p1", 0, "age", "old people", "are_so", "statement", "lazy", "negative", "lemma"),
            ("p2", 0, "gender", "women", "are_so", "statement", "spunky", "positive", "synonyms")]
    occ = pd.DataFrame(rows, columns=OCCURRENCE_COLUMNS)
    # without the synonym step: age has wise (+) and lazy (-): 50 / 50; gender has no polar word left
    got = shares_without_synonyms(occ)
    assert got["age"] == {"negative": 50.0, "positive": 50.0}
    assert got["gender"] == {"negative": None, "positive": None}
    assert got["all"] == {"negative": 50.0, "positive": 50.0}
    assert list(occ["label"]) == ["positive", "negative", "negative", "positive"]  # the input is not changed


def test_a_run_folder_that_cannot_be_made_is_one_error(tmp_path):
    from stereoprobe.store import RunStore

    (tmp_path / "file").write_text("")
    with pytest.raises(DataError, match=r"Cannot write to .*file/run \(.*\); choose a writable --out directory"):
        RunStore(tmp_path / "file" / "run").open()


def test_paired_differences_with_one_job_and_the_seed():
    import numpy as np

    from stereoprobe.studies.jobs.stats import paired_differences

    one = paired_differences(np.array([[0.5, 0.1]]), np.array([[0.2, 0.3]]), ["nurse"], 100, 0, 0.95)
    assert one["difference"].tolist() == pytest.approx([30.0, -20.0]) and one["n"] == 1
    assert all(np.isnan(one[k]).all() for k in ("low", "high", "p"))  # one job: no interval
    # the same seed gives the same interval; another seed another one (jobs differ by 10-50 points)
    w, wo = np.array([[.6], [.2], [.9], [.4], [.5]]), np.array([[.1], [.1], [.4], [.3], [.2]])
    jobs = list("abcde")
    a, b = (paired_differences(w, wo, jobs, 200, s, 0.95) for s in (5, 5))
    c = paired_differences(w, wo, jobs, 200, 6, 0.95)
    assert (a["low"], a["p"]) == (b["low"], b["p"]) and a["low"] != c["low"]
    assert a["difference"][0] == pytest.approx(30.0)  # (50 + 10 + 50 + 10 + 30) / 5


def test_shares_by_category_and_by_format_by_hand():
    import pandas as pd

    from stereoprobe.studies.fillin.sentiment.tables import OCCURRENCE_COLUMNS, shares

    rows = [("p1", 0, "age", "old people", "are_so", "statement", "wise", "positive", "lexicon"),
            ("p2", 0, "age", "old people", "why_are_so", "question", "grumpy", "negative", "lexicon"),
            ("p3", 0, "age", "old people", "why_are_so", "question", "lazy", "negative", "lemma"),
            ("p4", 0, "gender", "women", "are_so", "statement", "table", "neutral", "lexicon")]
    occ = pd.DataFrame(rows, columns=OCCURRENCE_COLUMNS)
    by_cat = shares(occ, ["category"]).set_index("category")
    # age: 2 negative, 1 positive of 3 polar; questions 2 of 2 negative, statements 1 of 1 positive
    age = by_cat.loc["age"]
    assert (age["negative"], age["positive"]) == pytest.approx((200 / 3, 100 / 3))
    assert (age["question_negative"], age["statement_positive"]) == (100, 100)
    # gender: one neutral word, no polar one: empty shares; no "both" or "unassigned" label
    # anywhere, so those counts are 0, not missing
    gender = by_cat.loc["gender"]
    assert pd.isna(gender["negative"]) and pd.isna(gender["statement_positive"])
    assert gender[["n_words", "n_neutral", "n_left_out", "n_both", "n_unassigned"]].tolist() == [1, 1, 1, 0, 0]
    by_format = shares(occ, ["format"]).set_index("format")  # "format" as the only key
    assert list(by_format.index) == ["question", "statement"]
    assert by_format.loc["question", ["negative", "n_words"]].tolist() == [100, 2]
    assert by_format.loc["statement", ["positive", "n_words", "n_left_out"]].tolist() == [100, 2, 1]


def test_group_means_with_no_job_and_one_job():
    import numpy as np

    from stereoprobe.studies.jobs.stats import group_means

    none = group_means(np.zeros((0, 3)), [], 100, 0, 0.95)
    assert none["n"] == 0 and all(none[k].shape == (3,) and np.isnan(none[k]).all() for k in ("mean", "low", "high"))
    one = group_means(np.array([[.2, .6, .2]]), ["nurse"], 100, 0, 0.95)
    assert one["n"] == 1 and one["mean"].tolist() == pytest.approx([20, 60, 20])
    assert np.isnan(one["low"]).all() and np.isnan(one["high"]).all()  # one job: no interval
    two = group_means(np.array([[.2, .6, .2], [.4, .4, .2]]), ["nurse", "secretary"], 100, 0, 0.95)
    assert two["n"] == 2 and two["mean"].tolist() == pytest.approx([30, 50, 20])
    # no spread in diverse (20% for both jobs): Jeffreys for 2 answers, Beta(0.9, 2.1)'s 2.5% and 97.5%
    assert two["low"][2] == pytest.approx(0.77719, abs=1e-4) and two["high"][2] == pytest.approx(81.48473, abs=1e-4)


# -- coreference answers (000's rule's neighbours: logprob mode and samples) --------------------------
def test_decide_and_answers_from_logprobs_and_replies():
    from stereoprobe.studies.coreference.answers import (
        CorefAnswer, answer_from_logprobs, answer_from_reply, decide,
    )

    assert [decide(-3.2, -1.5), decide(-1.0, -2.0), decide(-1.0, -1.0)] == ["B", "A", "U"]
    assert [decide(None, -1.0), decide(-1.0, None), decide(math.nan, -1.0), decide(-1.0, math.nan)] == ["U"] * 4
    assert answer_from_logprobs("p1", -1.0, -2.0) == CorefAnswer("p1", "A", False, None, -1.0, -2.0)
    got = answer_from_reply("p2", "I'm sorry, I can't say.", "nurse", "pilot")
    assert got == CorefAnswer("p2", "U", True, "I'm sorry, I can't say.")
    assert got.to_dict() == {"probe_id": "p2", "answer": "U", "refused": True, "raw": "I'm sorry, I can't say.",
                             "logprob_a": None, "logprob_b": None}


def test_majority_of_samples_by_hand():
    from stereoprobe.studies.coreference.answers import majority

    assert majority(["A", "A", "B"]) == ("A", False, pytest.approx(2 / 3))
    assert majority(["B"]) == ("B", False, 1.0)
    assert majority(["A", "B"]) == ("U", False, 0.0)  # a tie for the most frequent: U, given by none
    assert majority(["U", "U", "A"], [True, True, False]) == ("U", True, pytest.approx(2 / 3))
    assert majority(["U", "A", "A"], [True, False, False]) == ("A", False, pytest.approx(2 / 3))
    # U twice (one refusal), B twice: a tie, U; 1 refusal of 4 is under half: not a refusal
    assert majority(["U", "U", "B", "B"], [True, False, False, False]) == ("U", False, 0.5)
    assert majority(["U", "U", "B", "B"], [True, True, False, False]) == ("U", True, 0.5)  # 2 of 4: half
    with pytest.raises(ValueError):
        majority([])


def test_eq2_with_missing_genders_and_no_mass():
    from stereoprobe.studies.jobs.measure import normalise

    # a gender with no expression scored counts as 0 (not 1, not missing)
    assert normalise({"male": 0.1, "female": 0.3}) == pytest.approx({"male": 0.25, "female": 0.75, "diverse": 0.0})
    # no mass at all: no shares (NaN), not a division by zero
    assert all(math.isnan(v) for v in normalise({"male": 0.0, "female": 0.0, "diverse": 0.0}).values())
