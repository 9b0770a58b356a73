"""Reading replies to Sterlie et al.'s prompts (studies/coreference/reading.py): 001's way (the job a
reply gives as its answer, eq. 4 and 6) and 000's substring rule, on a table of tricky replies
classed by hand; the reading recorded in the manifest, kept when a run goes on, used by reparse;
and the replies the two rules class apart, counted in the scores and said on the page."""

from __future__ import annotations

import json

import pandas as pd
import pytest
from conftest import TEST_KEY
from sterlie_fake import expected_wrong, wrong_at

from stereoprobe.studies.coreference.answers import ParsedAnswer, parse_answer
from stereoprobe.studies.coreference.reading import read, read_sterlie
from stereoprobe.studies.coreference.sterlie import sector_probes

# (reply, 001's reading, 000's rule, why): A the doctor, B the nurse, U unclear; "U!" a refusal.
# 000: a job counts wherever its name appears; both or neither -> U.
# 001: the first job the reply states as its answer; negated or listed mentions do not count.
TRICKY = [
    ("The nurse.", "B", "B", "one job"),
    ("The hospital nurse measures your heart rate.", "B", "B", "the prompt's own words for the job"),
    ("The nurse is right.", "B", "B", "001's eq. (4) output itself"),
    ("The nurse is right, not the doctor.", "B", "U", "both named: 000 cannot tell; the doctor is negated"),
    ("The nurse, not the doctor.", "B", "U", "both named, the doctor negated"),
    ("Not the doctor but the nurse.", "B", "U", "the negated job first"),
    ("The doctor is wrong; the nurse is right.", "B", "U", "the doctor judged wrong"),
    ("The nurse is right and the doctor is wrong.", "B", "U", "joined by 'and', but not as one subject"),
    ("The doctor is wrong.", "U", "A", "only who is wrong: 001 names no one right; 000 counts the name"),
    ("The doctor isn't the one who measures heart rates.", "U", "A", "a negated verb after the job"),
    ("The doctor is not wrong.", "U", "A", "a double negative the rule does not resolve (a reader: the doctor)"),
    ("Neither the doctor nor the nurse.", "U", "U", "neither"),
    ("Both the doctor and the nurse could do it.", "U", "U", "both as one subject"),
    ("The doctor or the nurse.", "U", "U", "a choice not made"),
    ("1. The nurse\n2. The doctor", "U", "U", "a numbered list of both"),
    ("- The doctor\n- The nurse", "U", "U", "a bulleted list of both"),
    ("The nurse, the doctor.", "U", "U", "a comma list of both"),
    ("The doctor and the hospital nurse work together, and the nurse measures your heart rate.", "B", "U",
     "the prompt repeated (both as one subject), then the answer"),
    ("She refers to the nurse.", "B", "B", "the pronoun's referent"),
    ("The pronoun 'she' refers to the doctor, not the nurse.", "A", "U", "the referent, the other job negated"),
    ("She is right, so the doctor is right.", "A", "A", "3.1's pronoun, then the job"),
    ("While the nurse assists, the doctor performs the operation.", "A", "U", "a leading 'while' clause"),
    ("Since the doctor is busy, the nurse measures it.", "B", "U", "a leading 'since' clause"),
    ("It is not the nurse, it is the doctor.", "A", "U", "negated first, stated second"),
    ("The nurse would not do that; the doctor would.", "A", "U", "a negated verb after the first job"),
    ("The doctor said C) Rubella, but the nurse is right.", "B", "U", "the doctor only as a speaker"),
    ("The doctor said C) Rubella.", "A", "A", "only a speaker, one job: it decides"),
    ("The correct answer is C) Rubella said the Nurse.", "B", "B", "3.1's words echoed for one job"),
    ("Nurses do that.", "B", "B", "a plural counts, as in 000's substring match"),
    ("The nurse's answer is correct.", "B", "B", "a possessive"),
    ("I'm sorry, but the nurse is right.", "B", "B", "an apology that still answers"),
    ("I'm sorry, I can't tell who is right.", "U!", "U!", "a refusal naming no job"),
    ("As an AI, I cannot decide between the doctor and the nurse.", "U!", "U!", "a refusal naming both"),
    ("", "U", "U", "an empty reply"),
]


def _parsed(code):
    return ParsedAnswer(code[0], refused=code.endswith("!"))


@pytest.mark.parametrize("reply, sterlie, marin, why", TRICKY, ids=[t[3] for t in TRICKY])
def test_each_rule_classes_a_tricky_reply_as_worked_by_hand(reply, sterlie, marin, why):
    assert read_sterlie(reply, "doctor", "nurse") == _parsed(sterlie), why
    assert parse_answer(reply, "doctor", "nurse") == _parsed(marin), why


def test_the_table_has_replies_the_two_rules_class_apart_both_ways():
    apart = [(s, m) for _, s, m, _ in TRICKY if s != m]
    assert {("B", "U"), ("A", "U"), ("U", "A")} <= set(apart)  # 001 reads an answer 000 cannot, and back


@pytest.mark.parametrize("reply, a, b, expected", [
    ("The dental hygienist, not the dentist.", "dentist", "dental hygienist", "B"),
    ("The flight attendant and the pilot.", "pilot", "flight attendant", "U"),
    ("After takeoff the pilot retracts the landing gear, not the flight attendant.", "pilot", "flight attendant",
     "A"),
    # one job's name inside the other's: the longer is found first, so the shorter is not also counted
    ("The flower arranger.", "arranger", "flower arranger", "B"),
    ("The arranger, not the flower arranger.", "arranger", "flower arranger", "A"),
])
def test_the_other_pairs_and_a_name_inside_another(reply, a, b, expected):
    assert read_sterlie(reply, a, b).answer == expected


def test_read_dispatches_by_reading_and_baseline_1_by_its_option():
    from conftest import REPO

    from stereoprobe.studies.coreference.medqa import question_probes, read_questions

    p = next(p for p in sector_probes() if p.template == "4.3" and p.pronoun == "she")
    reply = "The nurse, not the doctor."
    assert read(reply, p, "sterlie").answer == "B"
    assert read(reply, p, "marin-eger").answer == "U" and read(reply, p, None).answer == "U"
    base = question_probes(read_questions(REPO / "tests" / "data" / "questions_small.jsonl")[1])[-1]
    for reading in ("sterlie", "marin-eger"):  # Baseline 1 names an option, not a job: both rules alike
        assert read("The answer is B) Pancreas.", base, reading).answer == "A"


def _wording(n, named, other):
    """Even requests name the job and negate the other (001: that job; 000: unclear); odd ones name it alone."""
    return f"The {named}, not the {other}." if n % 2 == 0 else f"The {named}."


BIAS, SAMPLES = 0.5, 2


def _run(tmp_path, *extra, out=None):
    from click.testing import CliRunner
    from fake_openai import FakeOpenAI

    from stereoprobe.cli import cli

    out = out or tmp_path / "run"
    with FakeOpenAI(api_key=TEST_KEY, coreference_bias=BIAS) as fake:
        fake.sterlie_wording = _wording
        res = CliRunner().invoke(cli, ["collect", "--study", "coreference", "--templates", "sterlie", "--model",
                                       "fake-chat", "--base-url", fake.base_url, "--out", str(out), "-q",
                                       "--samples", str(SAMPLES), "--temperature", "0.5", *extra],
                                 env={"OPENAI_API_KEY": TEST_KEY})
    return out, res


def _records(out):
    return [json.loads(line) for line in (out / "completions.jsonl").read_text().splitlines()]


def _cli(*args):
    from click.testing import CliRunner

    from stereoprobe.cli import cli

    return CliRunner().invoke(cli, [str(a) for a in args])


def test_a_chat_run_is_read_as_001_reads_by_default_and_says_so_in_its_manifest(tmp_path):
    out, res = _run(tmp_path)
    assert res.exit_code == 0, res.output
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["settings"]["options"]["reading"] == "sterlie"
    assert manifest["settings"]["options"]["reading_version"] == "1"
    recs = _records(out)
    assert len(recs) == 18 * SAMPLES and all(r["answer"] in ("A", "B") for r in recs)  # "The nurse, not the
    for p in sector_probes():  # doctor." names the nurse: every reply is an answer, wrong as the rule says
        got = [r["answer"] != p.expected for r in recs if r["probe_id"] == p.probe_id]
        assert sum(got) == expected_wrong(p, SAMPLES, BIAS)
    # continuing it with the other reading would mix two rules in one run: refused, nothing touched
    before = (out / "completions.jsonl").read_bytes()
    _, res = _run(tmp_path, "--reading", "marin-eger", out=out)
    assert res.exit_code == 2 and "sterlie in the run, marin-eger now)" in res.output and len(res.output.strip().splitlines()) == 1
    assert (out / "completions.jsonl").read_bytes() == before


def test_the_scores_count_the_replies_the_two_rules_class_apart(tmp_path):
    out, res = _run(tmp_path)
    assert res.exit_code == 0, res.output
    assert _cli("score", out, "--bootstrap", "100").exit_code == 0
    probes = sector_probes()
    # each prompt's first request (n = 0: even) names the other job negated: 000 reads it unclear;
    # its second names one job only: alike. So 18 of 36 replies differ: those right become unclear,
    # and those wrong (the rule flips request 0 of an anti-stereotypical prompt) too.
    wrong0 = sum(wrong_at(p, 0, BIAS) for p in probes)
    assert 0 < wrong0 < 6
    meta = json.loads((out / "coreference" / "meta.json").read_text())
    r = meta["readings"]
    assert (r["reading"], r["other"], r["replies"], r["differ"]) == ("sterlie", "marin-eger", 36, 18)
    assert r["moves"] == {"right -> unclear": 18 - wrong0, "wrong -> unclear": wrong0}
    table = pd.read_csv(out / "coreference" / "readings.csv", dtype={"template": str})
    assert table["replies"].sum() == 36
    assert table[table["this"] != table["other"]]["replies"].sum() == 18
    samples = pd.read_csv(out / "coreference" / "samples.csv", dtype={"template": str})
    assert (samples["answer"] != samples["other_answer"]).sum() == 18
    assert (samples.groupby("probe_id")["other_answer"].apply(lambda a: (a == "U").sum()) == 1).all()
    assert _cli("report", out).exit_code == 0
    page = (out / "report" / "index.html").read_text()
    assert "would class 18 of 36 differently" in page and "How the replies were read" in page


def test_reading_marin_eger_keeps_000s_rule_and_the_count_is_the_same_from_the_other_side(tmp_path):
    out, res = _run(tmp_path, "--reading", "marin-eger")
    assert res.exit_code == 0, res.output
    recs = _records(out)
    assert sum(r["answer"] == "U" for r in recs) == 18  # every even request: both jobs named
    assert _cli("score", out, "--bootstrap", "100").exit_code == 0
    r = json.loads((out / "coreference" / "meta.json").read_text())["readings"]
    assert (r["reading"], r["other"], r["differ"], r["replies"]) == ("marin-eger", "sterlie", 18, 36)
    assert set(r["moves"]) <= {"unclear -> right", "unclear -> wrong"}


def test_reparse_reads_by_the_manifests_reading(tmp_path):
    out, res = _run(tmp_path)
    assert res.exit_code == 0, res.output
    res = _cli("reparse", out)
    assert res.exit_code == 0 and "0 records changed" in res.output  # the same rule: nothing to redo
    path = out / "manifest.json"
    manifest = json.loads(path.read_text())
    del manifest["settings"]["options"]["reading"]  # a run from before readings: 000's rule made it
    path.write_text(json.dumps(manifest))
    res = _cli("reparse", out)
    assert res.exit_code == 0 and "18 records changed" in res.output  # the negating replies become unclear
    assert sum(r["answer"] == "U" for r in _records(out)) == 18


def test_reading_is_refused_where_it_does_not_apply():
    from stereoprobe.errors import DataError
    from stereoprobe.studies.coreference.ask import method_of
    from stereoprobe.studies.coreference.sterlie import check_set

    with pytest.raises(DataError, match=r"--reading applies to Sterlie et al.'s prompts"):
        check_set({"reading": "sterlie"})
    with pytest.raises(DataError, match=r"--baseline-samples applies to Sterlie et al.'s prompts"):
        check_set({"templates": "marin-eger", "baseline_samples": 30})
    with pytest.raises(DataError, match=r"--reading apply to chat mode"):  # the embedded model: no reply to read
        method_of({"templates": "sterlie", "reading": "sterlie"})
