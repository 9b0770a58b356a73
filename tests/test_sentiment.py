"""Sentiment stage: word labels with provenance, hand-computed shares, outputs, CLI."""

from __future__ import annotations

import csv
import json
import math
import re
from pathlib import Path

import pandas as pd
import pytest

from stereoprobe.errors import DataError
from stereoprobe.studies.fillin.lexicon import Override, load_bundled, load_official
from stereoprobe.studies.fillin.sentiment import Labeller, analyse, score, vote, write_outputs
from stereoprobe.studies.fillin.sentiment.label import normalise, spacy_lemmatizer

SYNTHETIC = Path(__file__).parent / "data" / "lexicon" / "emolex-synthetic.txt"
FILES = {"table4.csv", "table4.md", "groups.csv", "templates.csv", "words.csv", "occurrences.csv",
         "coverage.json", "meta.json", "format_test.csv", "criteria.csv", "robustness.csv"}


# --- word -> label ----------------------------------------------------------------------


def test_papers_rambunctious_example_with_the_real_lexicon_and_wordnet():
    # 'rambunctious' is not in EmoLex; of its WordNet synonyms, 'unruly' is negative and
    # 'boisterous' both: one positive vote, two negative votes -> negative (paper, sec. 3.2).
    wl = Labeller(load_bundled()).label("rambunctious")
    assert (wl.label, wl.source) == ("negative", "synonyms")
    assert sorted(wl.voters) == [("boisterous", "both"), ("unruly", "negative")]
    assert (wl.votes_positive, wl.votes_negative) == (1, 2)
    assert wl.voters_text() == " ".join(f"{w}:{lab}" for w, lab in wl.voters)


def test_each_provenance_path():
    lab = Labeller(load_official(SYNTHETIC))
    happy = lab.label("happy")
    assert (happy.label, happy.source, happy.voters) == ("positive", "lexicon", ())
    lazier = lab.label("lazier")  # spaCy's lookup table: lazier -> lazy
    assert (lazier.label, lazier.source, lazier.lemma) == ("negative", "lemma", "lazy")
    assert lazier.voters_text() == "lemma:lazy"
    ramb = lab.label("rambunctious")
    assert (ramb.label, ramb.source) == ("negative", "synonyms")
    none = lab.label("xyzzy")
    assert (none.label, none.source, none.voters) == ("unassigned", "none", ())


def test_neutral_word_stops_at_the_lexicon_but_a_missing_one_falls_back(tmp_path):
    # 'feisty' is neutral in the synthetic file; its WordNet synonym 'touchy' is negative.
    assert Labeller(load_official(SYNTHETIC)).label("feisty").label == "neutral"
    without = tmp_path / "lex.txt"
    without.write_text("".join(line for line in SYNTHETIC.read_text().splitlines(True) if not line.startswith("feisty")))
    wl = Labeller(load_official(without)).label("feisty")
    assert (wl.label, wl.source, wl.voters) == ("negative", "synonyms", (("touchy", "negative"),))


def test_no_synonyms_turns_the_fallback_off():
    wl = Labeller(load_official(SYNTHETIC), synonyms=False).label("rambunctious")
    assert (wl.label, wl.source) == ("unassigned", "none")


def test_overridden_word_reports_its_source_and_votes_with_its_new_label():
    lex = load_official(SYNTHETIC).with_overrides([Override("boisterous", "negative", "our study")])
    lab = Labeller(lex)
    assert (lab.label("boisterous").label, lab.label("boisterous").source) == ("negative", "override")
    ramb = lab.label("rambunctious")
    assert (ramb.votes_positive, ramb.votes_negative) == (0, 2)


def test_vote_rules():
    assert vote([("unruly", "negative"), ("boisterous", "both")]) == ("negative", 1, 2)
    assert vote([("a", "positive"), ("b", "positive"), ("c", "negative")]) == ("positive", 2, 1)
    assert vote([("a", "positive"), ("b", "negative")]) == ("both", 1, 1)  # tie
    assert vote([("a", "both")]) == ("both", 1, 1)
    assert vote([("a", "neutral"), ("b", "positive")]) == ("positive", 1, 0)  # neutral abstains
    assert vote([("a", "neutral")]) == ("neutral", 0, 0)
    assert vote([]) == ("unassigned", 0, 0)


def test_normalise_strips_case_punctuation_and_quotes():
    assert normalise("“Grumpy,”") == "grumpy"
    assert normalise("'self-centered'.") == "self-centered"
    assert normalise("  hard   working ") == "hard working"


def test_lemma_table_agrees_with_spacys_lookup_lemmatizer():
    import spacy

    nlp = spacy.blank("en")
    nlp.add_pipe("lemmatizer", config={"mode": "lookup"})
    nlp.initialize()
    ours = spacy_lemmatizer()
    words = ["corrupted", "wiser", "hated", "loving", "lazier", "wives", "lesbians", "people",
             "rambunctious", "greediest", "unruly", "xyzzy", "children", "boring"]
    assert [ours(w) for w in words] == [nlp(w)[0].lemma_ for w in words]


# --- a small run, computed by hand --------------------------------------------------------

RECORDS = [
    # probe_id, sample, category, group, template, format, words, refused, error
    ("a1", 0, "age", "old people", "are_so", "statement", ["wise", "Grumpy", "happy", "old"], False, None),
    ("a2", 0, "age", "old people", "why_are_so", "question", ["grumpy", "lazier", "rambunctious", "abacus"], False, None),
    ("a2", 1, "age", "old people", "why_are_so", "question", ["happy"], True, None),
    ("s1", 0, "sexuality", "lesbians", "are_so", "statement", ["kind", "lesbian", "boisterous", "xyzzy"], False, None),
    ("s2", 0, "sexuality", "lesbians", "why_are_so", "question", ["rude", "happy", "kind"], False, None),
    ("s2", 1, "sexuality", "lesbians", "why_are_so", "question", [], False, "timeout after 3 attempts"),
]
# With the synthetic lexicon (tests/data/lexicon/emolex-synthetic.txt):
#   a1: wise +, grumpy -, happy +, 'old' names the group 'old people' -> left out
#   a2/0: grumpy -, lazier - (lemma lazy), rambunctious - (synonyms), abacus neutral
#   a2/1 refused, s2/1 failed: skipped even though a2/1 lists a word
#   s1: kind +, 'lesbian' names the group 'lesbians' -> left out, boisterous both, xyzzy unassigned
#   s2/0: rude -, happy +, kind +
# age:       statement 1- 2+ -> 33.33/66.67; question 3- 0+ -> 100/0; all 4- 2+ -> 66.67/33.33
# sexuality: statement 0- 1+ -> 0/100;       question 1- 2+ -> 33.33/66.67; all 1- 3+ -> 25/75
# all:       statement 1- 3+ -> 25/75;       question 4- 2+ -> 66.67/33.33; all 5- 5+ -> 50/50
# Without synonyms rambunctious is unassigned: age 3- 2+ -> 60/40, all 4- 5+ -> 44.44/55.56.
EXPECTED_TABLE4 = {
    #            neg    pos    q_neg   q_pos  s_neg  s_pos
    "age": (66.67, 33.33, 100.0, 0.0, 33.33, 66.67),
    "sexuality": (25.0, 75.0, 33.33, 66.67, 0.0, 100.0),
    "all": (50.0, 50.0, 66.67, 33.33, 25.0, 75.0),
}


def _write_run(run_dir: Path) -> Path:
    run_dir.mkdir(parents=True, exist_ok=True)
    with (run_dir / "completions.jsonl").open("w", encoding="utf-8") as f:
        for pid, sample, cat, group, tpl, fmt, words, refused, error in RECORDS:
            rec = {"probe_id": pid, "sample": sample, "category": cat, "group": group, "template": tpl,
                   "format": fmt, "prompt": f"{group} ...", "words": words if error is None else [],
                   "probabilities": None, "raw": None, "refused": refused, "error": error,
                   "attempts": 1, "latency_s": 0.1, "usage": None}
            f.write(json.dumps(rec) + "\n")
    (run_dir / "manifest.json").write_text(json.dumps({"model": "hand-made", "created_at": "2026-11-21T10:00:00+00:00"}))
    return run_dir


def _table4(result) -> dict:
    """Table 4 rounded to two decimals, as table4.csv writes it (the DataFrame keeps full precision)."""
    return {r.category: tuple(round(v, 2) for v in (r.negative, r.positive, r.question_negative, r.question_positive,
                                                     r.statement_negative, r.statement_positive))
            for r in result.table4.itertuples()}


def test_hand_computed_shares(tmp_path):
    result = score(_write_run(tmp_path / "run"), lexicon=SYNTHETIC)
    assert list(result.table4["category"]) == ["age", "sexuality", "all"]
    assert _table4(result) == EXPECTED_TABLE4
    age = result.table4.iloc[0]
    assert (age.n_words, age.n_negative, age.n_positive, age.n_neutral, age.n_left_out) == (7, 4, 2, 1, 1)


def test_hand_computed_coverage(tmp_path):
    cov = score(_write_run(tmp_path / "run"), lexicon=SYNTHETIC).coverage
    assert (cov["unique_words"], cov["in_lexicon"], cov["via_lemma"], cov["via_synonyms"], cov["ignored"]) == (10, 7, 1, 1, 1)
    assert cov["records"] == {"total": 6, "ok": 4, "refused": 1, "failed": 1, "unparseable": 0}
    assert cov["left_out_records"] == {"refused": 1, "failed": 1}
    assert cov["group_name_words"] == {"occurrences": 2, "words": {"lesbian": 1, "old": 1}}
    assert cov["occurrences"] == {"total": 13, "counted": 10, "positive": 5, "negative": 5, "both": 1,
                                  "neutral": 1, "unassigned": 1, "left_out": 3}
    assert cov["by_category"]["sexuality"]["unique_words"] == 5  # kind boisterous xyzzy rude happy
    assert cov["without_synonyms"]["age"] == {"negative": 60.0, "positive": 40.0}
    assert cov["without_synonyms"]["all"] == {"negative": 44.44, "positive": 55.56}


def test_no_synonyms_run(tmp_path):
    result = score(_write_run(tmp_path / "run"), lexicon=SYNTHETIC, synonyms=False)
    assert tuple(result.table4.iloc[0][["negative", "positive"]]) == (60.0, 40.0)
    assert result.coverage["via_synonyms"] == 0 and result.coverage["ignored"] == 2
    assert result.coverage["without_synonyms"] is None and result.meta["synonyms"] is False


def test_refused_and_failed_records_never_reach_the_tables(tmp_path):
    result = score(_write_run(tmp_path / "run"), lexicon=SYNTHETIC)
    occ = result.occurrences
    assert set(zip(occ["probe_id"], occ["sample"])) == {("a1", 0), ("a2", 0), ("s1", 0), ("s2", 0)}
    assert int(result.words.set_index("word").loc["happy", "count"]) == 2  # a1 and s2, not a2/1


def test_group_name_rule_is_per_group(tmp_path):
    # 'lesbian' (negative in EmoLex) leaves the group 'lesbians' but counts for 'women'.
    from stereoprobe.records import Completion

    recs = [Completion("x", 0, "sexuality", "lesbians", "are_so", "statement", "", words=["Lesbian", "kind"]),
            Completion("y", 0, "gender", "women", "are_so", "statement", "", words=["lesbian", "kind"]),
            Completion("z", 0, "race", "black people", "are_so", "statement", "", words=["black", "People", "rude"])]
    result = score(recs, lexicon=SYNTHETIC, synonyms=False)
    shares = {r.category: (r.negative, r.positive) for r in result.table4.itertuples()}
    assert shares["sexuality"] == (0.0, 100.0)
    assert shares["gender"] == (50.0, 50.0)
    assert shares["race"] == (100.0, 0.0)
    assert result.coverage["group_name_words"] == {"occurrences": 3, "words": {"black": 1, "lesbian": 1, "people": 1}}


def test_groups_templates_words_tables(tmp_path):
    result = score(_write_run(tmp_path / "run"), lexicon=SYNTHETIC)
    groups = result.groups.set_index("group")
    assert tuple(groups.loc["lesbians", ["negative", "positive", "n_words", "n_both", "n_unassigned"]]) == (25.0, 75.0, 6, 1, 1)
    tpl = result.templates.set_index(["category", "template"]).loc[("age", "why_are_so")]
    assert (tpl.format, tpl.question_negative, tpl.n_neutral) == ("question", 100.0, 1)
    assert math.isnan(tpl.statement_negative)
    words = result.words.set_index("word")
    assert tuple(words.loc["rambunctious", ["label", "source", "votes_negative", "votes_positive"]]) == ("negative", "synonyms", 2, 1)
    assert words.loc["lazier", "voters"] == "lemma:lazy"
    assert words.loc["grumpy", "count"] == 2


# --- inputs ---------------------------------------------------------------------------------


def test_jsonl_and_csv_inputs_give_the_same_table(tmp_path):
    jsonl = tmp_path / "answers.jsonl"
    rows = [r for r in RECORDS if not r[7] and r[8] is None]
    jsonl.write_text("".join(json.dumps({"category": r[2], "group": r[3], "format": r[5], "words": r[6], "template": r[4]}) + "\n" for r in rows))
    table = tmp_path / "answers.csv"
    with table.open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["category", "group", "template", "format", "word"])
        for r in rows:
            for word in r[6]:
                w.writerow([r[2], r[3], r[4], r[5], word])
    a = score(jsonl, lexicon=SYNTHETIC)
    b = score(table, lexicon=SYNTHETIC)
    assert _table4(a) == _table4(b) == EXPECTED_TABLE4
    assert a.meta["input"]["kind"] == "file"


@pytest.mark.parametrize(
    "name, text, message",
    [
        ("a.jsonl", '{"category": "age", "group": "kids", "words": ["x"]}\n', "line 1 has no 'format' field"),
        ("a.csv", "category,group,format\nage,kids,question\n", "no 'word' column"),
        ("a.jsonl", '{"category": "age", "group": "kids", "format": "q", "words": ["x"]}\n', "format 'q' is not one of"),
        ("a.jsonl", "not json\n", "line 1: not JSON"),
        ("a.jsonl", '{"category": "age", "group": "kids", "format": "question", "words": "x"}\n', "list of strings"),
        ("a.jsonl", "", "no records"),
    ],
)
def test_bad_input_files_name_the_file_and_the_problem(tmp_path, name, text, message):
    path = tmp_path / name
    path.write_text(text)
    with pytest.raises(DataError) as err:
        score(path, lexicon=SYNTHETIC)
    assert str(path) in str(err.value) and message in str(err.value)


def test_missing_run_dir_and_empty_run(tmp_path):
    with pytest.raises(DataError, match="no such run directory"):
        score(tmp_path / "nope")
    (tmp_path / "empty").mkdir()
    with pytest.raises(DataError, match="not a run directory"):
        score(tmp_path / "empty")
    run = tmp_path / "refusals"
    run.mkdir()
    (run / "completions.jsonl").write_text(json.dumps({"probe_id": "p", "sample": 0, "category": "age", "group": "kids",
                                                       "template": "t", "format": "question", "prompt": "", "refused": True}) + "\n")
    with pytest.raises(DataError, match="No words to score: 1 records \\(1 refused"):
        score(run, lexicon=SYNTHETIC)


# --- outputs ----------------------------------------------------------------------------------


def test_outputs_are_written_as_designed(tmp_path):
    run = _write_run(tmp_path / "run")
    result, out = analyse(run, lexicon=SYNTHETIC)
    assert out == run / "sentiment" and {p.name for p in out.iterdir()} == FILES
    t4 = pd.read_csv(out / "table4.csv")
    shares = ["negative", "positive", "question_negative", "question_positive", "statement_negative",
              "statement_positive"]
    assert list(t4.columns) == ["category", *[c for x in shares for c in (x, f"{x}_ci_low", f"{x}_ci_high")],
                                "n_probes", "too_few_probes"]
    assert t4.iloc[0][["category", *shares]].tolist() == ["age", 66.67, 33.33, 100.0, 0.0, 33.33, 66.67]
    # the hand-made run has two probes per category (four overall): too few for an interval
    assert t4["too_few_probes"].tolist() == [True, True, False] and t4["negative_ci_low"][:2].isna().all()
    assert list(pd.read_csv(out / "words.csv").columns)[:5] == ["word", "label", "source", "voters", "count"]
    occ = pd.read_csv(out / "occurrences.csv")
    assert list(occ.columns) == ["probe_id", "sample", "category", "group", "template", "format", "word", "label", "source"]
    assert len(occ) == 13
    md = (out / "table4.md").read_text()
    assert "| age | 66.7 | 33.3 | 100.0 | 0.0 | 33.3 | 66.7 |" in md
    meta = json.loads((out / "meta.json").read_text())
    assert meta["model"] == "hand-made" and meta["run_created_at"] == "2026-11-21T10:00:00+00:00"
    assert meta["lexicon"]["counts"]["words"] == 13 and meta["synonyms"] is True
    assert meta["wordnet"]["version"] == "3.0"
    assert json.loads((out / "coverage.json").read_text())["unique_words"] == 10
    assert not [p for p in run.iterdir() if p.name.startswith(".")]  # no temp folders left


def test_failure_leaves_no_partial_outputs_and_keeps_the_old_ones(tmp_path):
    run = _write_run(tmp_path / "run")
    good, out = analyse(run, lexicon=SYNTHETIC)
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    broken = score(run, lexicon=SYNTHETIC, synonyms=False)
    broken.meta["unserialisable"] = object()  # meta.json is written last: all CSVs are done by then
    with pytest.raises(TypeError):
        write_outputs(broken, out)
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before
    assert sorted(p.name for p in run.iterdir()) == ["completions.jsonl", "manifest.json", "sentiment"]
    fresh = tmp_path / "fresh" / "sentiment"
    with pytest.raises(TypeError):
        write_outputs(broken, fresh)
    assert not fresh.exists() and list(fresh.parent.iterdir()) == []


def test_a_folder_not_written_by_sentiment_is_never_replaced(tmp_path):
    result = score(_write_run(tmp_path / "run"), lexicon=SYNTHETIC, synonyms=False)
    theirs = tmp_path / "theirs"
    theirs.mkdir()
    (theirs / "notes.txt").write_text("mine")
    with pytest.raises(DataError, match="not written by `stereoprobe sentiment`"):
        write_outputs(result, theirs)
    assert (theirs / "notes.txt").read_text() == "mine"


# --- CLI ----------------------------------------------------------------------------------------


def test_cli_prints_table4_and_coverage(run_cli, tmp_path):
    run = _write_run(tmp_path / "run")
    result = run_cli("sentiment", run, "--lexicon", SYNTHETIC)
    assert result.exit_code == 0, result.stderr
    out = result.stdout
    assert "Lexicon nrc-emolex-wordlevel" in out and "13 words, 4 positive, 8 negative, 1 both, 2 neutral" in out
    assert "age" in out and "66.7" in out and "Social group" in out
    assert "10 unique words: 7 in lexicon, 1 via lemma, 1 via synonyms, 1 ignored" in out
    assert "50.0% negative / 50.0% positive with synonyms, 44.4% / 55.6% without" in out
    assert (run / "sentiment" / "table4.csv").is_file()


def test_cli_input_and_out(run_cli, tmp_path):
    path = tmp_path / "a.jsonl"
    path.write_text(json.dumps({"category": "age", "group": "kids", "format": "question", "words": ["happy", "rude", "lazy"]}) + "\n")
    result = run_cli("sentiment", "--input", path, "--out", tmp_path / "elsewhere", "--lexicon", SYNTHETIC, "--no-synonyms")
    assert result.exit_code == 0, result.stderr
    t4 = pd.read_csv(tmp_path / "elsewhere" / "sentiment" / "table4.csv")
    assert t4.iloc[-1][["category", "negative", "positive"]].tolist() == ["all", 66.67, 33.33]
    assert "Synonym fallback off" in result.stdout


@pytest.mark.parametrize(
    "args, message",
    [
        (["{tmp}/missing"], "no such run directory"),
        (["{run}", "--lexicon", "{tmp}/bad.txt"], "bad.txt, line 1:"),
        (["{run}", "--overrides", "{tmp}/bad.txt"], "bad.txt, line 1:"),
        (["{run}", "--bootstrap", "5"], "--bootstrap 5: use at least 100"),
        (["{run}", "--ci", "1.5"], "--ci 1.5: give the interval level"),
    ],
)
def test_cli_bad_input_is_one_line_and_exit_2(run_cli, tmp_path, args, message):
    run = _write_run(tmp_path / "run")
    (tmp_path / "bad.txt").write_text("happy,positive\n")
    result = run_cli("sentiment", *[a.format(tmp=tmp_path, run=run) for a in args])
    assert result.exit_code == 2
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("Error: ") and message in result.stderr
    assert not (run / "sentiment").exists()


def test_cli_needs_run_dir_or_input(run_cli, tmp_path):
    assert run_cli("sentiment").exit_code == 2
    assert run_cli("sentiment", "--input", tmp_path / "a.jsonl").exit_code == 2


def test_a_missing_input_file_is_named_as_a_file(run_cli, tmp_path):
    """It read 'a.jsonl: no such run directory or file; give a run directory or --input FILE',
    to a user who had given --input FILE."""
    result = run_cli("sentiment", "--input", tmp_path / "a.jsonl", "--out", tmp_path / "out")
    assert result.exit_code == 2
    assert result.stderr == (f"Error: --input {tmp_path / 'a.jsonl'}: no such file; give a JSON Lines or CSV file "
                             "of completions.\n")
    assert not (tmp_path / "out").exists()


# --- statistics end to end ----------------------------------------------------------------------

NEGATIVE, POSITIVE = ["grumpy", "lazy", "rude"], ["happy", "kind", "wise"]
PAPER_TEMPLATES = [("are_so", "statement"), ("are_always_so", "statement"), ("all_are_so", "statement"),
                   ("why_are_so", "question"), ("why_are_always_so", "question"), ("why_are_all_so", "question")]


def _write_stats_run(run_dir: Path, seed: int = 0) -> Path:
    """2 categories x 8 groups x 6 templates; questions mostly negative, statements mostly positive.

    Group 'g0' of 'age' has one refused and one failed probe.
    """
    import random

    rng = random.Random(seed)
    run_dir.mkdir(parents=True)
    with (run_dir / "completions.jsonl").open("w", encoding="utf-8") as f:
        for cat in ("age", "gender"):
            for g in range(8):
                for i, (tpl, fmt) in enumerate(PAPER_TEMPLATES):
                    rate = 0.8 if fmt == "question" else 0.25
                    words = [rng.choice(NEGATIVE) if rng.random() < rate else rng.choice(POSITIVE) for _ in range(10)]
                    refused = cat == "age" and g == 0 and i == 0
                    error = "timeout" if cat == "age" and g == 0 and i == 1 else None
                    rec = {"probe_id": f"{cat}-g{g}-{tpl}", "sample": 0, "category": cat, "group": f"g{g}",
                           "template": tpl, "format": fmt, "prompt": "...",
                           "words": [] if refused or error else words, "refused": refused, "error": error}
                    f.write(json.dumps(rec) + "\n")
    (run_dir / "manifest.json").write_text(json.dumps({"model": "synthetic", "created_at": None}))
    return run_dir


def test_cli_statistics_outputs_and_summary(run_cli, tmp_path):
    run = _write_stats_run(tmp_path / "run")
    result = run_cli("sentiment", run, "--lexicon", SYNTHETIC, "--no-synonyms", "--bootstrap", "300", "--seed", "3")
    assert result.exit_code == 0, result.stderr
    assert "Questions are more negative than statements for age:" in result.stdout
    assert "Questions are more negative than statements for all categories:" in result.stdout
    assert "Intervals: 95%, wording fixed: these templates" in result.stdout
    assert re.search(r"Negative share with 95% intervals \(these templates; positive = 100 - negative\):\n"
                     r"Category +All probes +Questions +Statements\nage +\d+\.\d \(\d+\.\d to \d+\.\d\)", result.stdout)
    out = run / "sentiment"
    groups = pd.read_csv(out / "groups.csv").set_index(["category", "group"])
    for col in ("negative_ci_low", "question_negative_ci_high", "statement_positive_ci_low", "probes_asked",
                "probes_answered", "probes_refused", "probes_failed", "vs_category", "vs_category_q",
                "too_few_probes"):
        assert col in groups.columns
    assert groups.loc[("age", "g0"), ["probes_asked", "probes_answered", "probes_refused", "probes_failed"]].tolist() \
        == [6, 4, 1, 1]
    assert set(groups["vs_category"]) <= {"more negative", "less negative", "not distinguishable", "too few probes"}
    ft = pd.read_csv(out / "format_test.csv")
    assert list(ft.columns)[:10] == ["category", "question_negative", "statement_negative", "difference", "ci_low",
                                     "ci_high", "p", "q", "cohens_h", "groups"]
    assert ft["category"].tolist() == ["age", "gender", "all"] and (ft["q"] < 0.05).all()
    # one method behind the verdict and the interval: significant, and the interval excludes 0
    assert (ft["ci_low"] > 0).all() and (ft["p"] < 0.05).all()
    crit = pd.read_csv(out / "criteria.csv")
    assert list(crit.columns)[:7] == ["category", "format", "nmi", "nmi_p", "four_fifths_ratio", "four_fifths_p",
                                      "four_fifths_null_p05"]
    rob = pd.read_csv(out / "robustness.csv")
    assert len(rob) == 12 and rob["sentence"].str.startswith("For ").all()
    meta = json.loads((out / "meta.json").read_text())["statistics"]
    assert (meta["bootstrap"], meta["level"], meta["seed"], meta["min_probes"], meta["wording"]) == (300, 0.95, 3, 3,
                                                                                                 "fixed")
    assert (out / "table4.md").read_text().count(" to ") >= 9  # Table 4 with intervals in table4.md too
    first = (out / "groups.csv").read_bytes()
    assert run_cli("sentiment", run, "--lexicon", SYNTHETIC, "--no-synonyms", "--bootstrap", "300",
                   "--seed", "3").exit_code == 0
    assert (out / "groups.csv").read_bytes() == first  # same run and options: same numbers


def test_score_api_carries_the_statistics(tmp_path):
    result = score(_write_stats_run(tmp_path / "run"), lexicon=SYNTHETIC, synonyms=False, ci=0.9, bootstrap=200)
    assert result.meta["statistics"]["level"] == 0.9
    t4 = result.table4.set_index("category")
    assert t4.loc["all", "negative_ci_low"] < t4.loc["all", "negative"] < t4.loc["all", "negative_ci_high"]
    assert len(result.format_test) == 3 and len(result.criteria) == 9 and len(result.robustness) == 12
    with pytest.raises(DataError, match="--bootstrap 50"):
        score(tmp_path / "run", lexicon=SYNTHETIC, bootstrap=50)


def test_sentiment_names_the_next_command(tmp_path):
    """The sentiment command ends by naming `stereoprobe report RUN_DIR` (issue 9, section 4)."""
    import json

    from click.testing import CliRunner

    from stereoprobe.cli import cli

    src = tmp_path / "in.jsonl"
    lines = [{"category": "age", "group": f"g{i}", "format": f, "words": ["happy", "angry", "sad"]}
             for i in range(4) for f in ("question", "statement")]
    src.write_text("\n".join(json.dumps(x) for x in lines) + "\n")
    result = CliRunner().invoke(cli, ["sentiment", "--input", str(src), "--out", str(tmp_path / "run"),
                                      "--bootstrap", "100"])
    assert result.exit_code == 0, result.output
    assert f"Next: `stereoprobe report {tmp_path / 'run'}`" in result.output


def test_score_without_statistics_gives_the_same_bare_shares(tmp_path):
    """statistics=False (what compare uses) skips intervals and tests but not the shares."""
    from stereoprobe.records import Completion
    from stereoprobe.studies.fillin.sentiment import score

    recs = [Completion(f"p{i}{f}", 0, "age", f"g{i}", "are_so" if f == "s" else "why_are_so",
                       "statement" if f == "s" else "question", "", ["happy", "angry", "sad"][: 1 + i % 3])
            for i in range(6) for f in ("s", "q")]
    full, bare = score(recs, bootstrap=100), score(recs, statistics=False)
    assert list(bare.table4["negative"].round(6)) == list(full.table4["negative"].round(6))
    assert bare.format_test is None and bare.meta["statistics"] is None
    assert "negative_ci_low" not in bare.table4 and "negative_ci_low" in full.table4


def test_out_holding_another_run_is_refused_and_its_sentiment_kept(run_cli, tmp_path):
    """`sentiment --input other.jsonl --out runs/mine` replaced runs/mine/sentiment/ (its own
    answers' numbers) by other.jsonl's, and wrote fill-in's sentiment/ into a jobs run."""
    run = _write_run(tmp_path / "run")
    assert run_cli("sentiment", run, "--lexicon", SYNTHETIC).exit_code == 0
    before = (run / "sentiment" / "table4.csv").read_bytes()
    other = tmp_path / "other.jsonl"
    other.write_text(json.dumps({"category": "age", "group": "kids", "format": "question", "words": ["rude"]}) + "\n")
    result = run_cli("sentiment", "--input", other, "--out", run)
    assert result.exit_code == 2
    assert result.stderr == (f"Error: {run} holds another run: the sentiment of {other} would be written into it "
                             "(replacing that run's own); give a new --out directory.\n")
    assert (run / "sentiment" / "table4.csv").read_bytes() == before
    # the run's own answers may still be named either way
    assert run_cli("sentiment", "--input", run / "completions.jsonl", "--out", run, "--lexicon", SYNTHETIC).exit_code == 0


def test_another_studys_run_is_named_with_its_article(run_cli, tmp_path):
    """It read 'RUN is a anecdotes run: sentiment scores fill-in runs'."""
    (tmp_path / "completions.jsonl").write_text("")
    (tmp_path / "manifest.json").write_text(json.dumps({"study": "anecdotes", "mode": "chat"}))
    result = run_cli("sentiment", tmp_path)
    assert result.exit_code == 2
    assert result.stderr == (f"Error: {tmp_path} is an anecdotes run: sentiment scores fill-in runs; use "
                             f"`stereoprobe score {tmp_path}`.\n")
    assert not (tmp_path / "sentiment").exists()


def test_the_coverage_line_of_one_word_is_singular(run_cli, tmp_path):
    """An input of one word read '1 unique words: ...; 1 word occurrences, ...; 1 group-name words left out'."""
    path = tmp_path / "one.csv"
    path.write_text("category,group,format,word\nage,kids,question,happy\nage,kids,question,kids\n")
    result = run_cli("sentiment", "--input", path, "--out", tmp_path / "out", "--lexicon", SYNTHETIC, "--no-synonyms")
    assert result.exit_code == 0, result.stderr
    assert ("1 unique word: 1 in lexicon, 0 via lemma, 0 via synonyms, 0 ignored; 1 word occurrence, 1 positive/negative "
            "(0 both/neutral/unassigned left out of the shares); records left out: 0 refused, 0 failed; 1 group-name "
            "word left out.") in result.stdout


def test_sentiment_of_a_run_whose_collect_stopped_says_so(run_cli, tmp_path):
    """As score says it (cli._common.unfinished_line): the shares are of the probes answered so far."""
    run = _write_run(tmp_path / "run")
    manifest = json.loads((run / "manifest.json").read_text())
    for status, said in (("complete", False), ("stopped", True)):
        (run / "manifest.json").write_text(json.dumps({**manifest, "status": status}))
        result = run_cli("sentiment", run, "--lexicon", SYNTHETIC)
        assert result.exit_code == 0, result.stderr
        line = (f"This run's collect did not finish (status stopped): these numbers are of the prompts answered so "
                f"far. The same `stereoprobe collect` command with --out {run} continues it; then run sentiment again.")
        assert (line in result.stdout) is said
