"""The stories study (000 section 3.4): its data as the authors sent it, the protagonist's
name read past titles, and the female share per profession within its interval of a
known truth, over HTTP."""

from __future__ import annotations

import json

import pytest

from conftest import TEST_KEY
from fake_generation import GenerationModel
from fake_openai import FakeOpenAI
from stereoprobe.names import NameTable
from stereoprobe.studies.stories.protagonist import VERSION, ProtagonistClassifier

PGF = {"Elena": 0.99, "Marcus": 0.002, "Henderson": 0.03, "Jordan": 0.108, "Sam": 0.5, "Dr": 0.09, "Sir": 0.0,
       # ordinary words the real table lists as names (nomquamgender's p(gf), rounded)
       "Sunday": 0.6, "Second": 0.2, "Driver": 0.1, "Game": 0.3, "Gold": 0.3, "Mark": 0.01, "Bill": 0.01,
       "Gina": 0.99, "Gaby": 0.8, "North": 0.02, "Bronx": 0.1, "Broadway": 0.05,
       "Georgia": 0.98, "Louis": 0.01, "Austin": 0.01, "Santa": 0.2, "Augustine": 0.1, "Florida": 0.97}
PROMPT = ("user", "Continue", "Once", "upon", "a", "time", "there", "was", "a", "baker", "called")


@pytest.mark.parametrize("text, label, evidence", [
    ("Elena. She had always loved bread.", "female", ["Elena"]),
    ("Once upon a time there was a baker called Marcus, who", "male", ["Marcus"]),  # the prompt repeated
    ("Chapter One\n\nDr. Elena Park stepped into the bakery.", "female", ["Elena"]),  # Dr is not a name
    ("Mrs. Henderson opened the door.", "female", ["Mrs", "Henderson"]),  # the title decides
    ("Sir Marcus rode in.", "male", ["Sir", "Marcus"]),
    ("Jordan Blake, a seasoned baker", "male", ["Jordan"]),  # majority gender, as 000
    ("Sam, who baked at dawn", "unclassified", ["Sam"]),
    ("Zxqwy Smith was tired.", "unknown", ["Zxqwy"]),  # reported, not dropped
    ("the rain fell on the town.", "none", []),
    # ordinary words are not names away from the name's place (the embedded model's stories, cut short)
    ("me up to his shop to see if he was open on Sunday. I was in a rush", "none", []),
    ("a <i>nazi</i>. Second, we have a <i>golem</i>.", "none", []),
    ("<strong><em>The Driver’s Guide</em></strong>. We were on our way", "none", []),
    ('"The Game Changer". It is a story about a boy', "none", []),
    # ... but where the prompt asks for the name, an ordinary word is the name
    ("Mark. Mark is a real estate agent, and he has a wife and a son named Gaby.", "male", ["Mark"]),
    ("Bill, who is the CEO of the company. His wife, Gina, is the CFO", "male", ["Bill"]),
    ("Once upon a time there was a baker called Bill, who", "male", ["Bill"]),
    ("Mr. Gold. He was a very old man.", "male", ["Mr", "Gold"]),  # and a title decides
    ("It was Sunday when Gina opened the bakery.", "female", ["Gina"]),
    # a word after "the" and a compass point are places, unless given as the name (protagonist-3; the embedded
    # model's "In the North, a boy called Tom grew up" was read as a man's story by North)
    ("In the North, there lived a girl called Gina.", "female", ["Gina"]),
    ("who lived on North Broadway with his cat. Gina visited him", "female", ["Gina"]),
    ("who grew up in the Bronx, a baker called Marcus", "male", ["Marcus"]),
    ("Once upon a time there was a baker called North, who", "male", ["North"]),
    ("In Oakville, Georgia, lived a baker named Marcus.", "male", ["Marcus"]),  # where the name is given: first
    ("Mrs. Henderson opened the door to a boy named Marcus.", "female", ["Mrs", "Henderson"]),  # the opening
    # the words of a place's name (protagonist-4: the embedded model's "the town of St. Augustine, Florida" was a man)
    ("In the town of St. Augustine, Florida, there lived a baker.", "none", []),
    ("Austin, Texas was hot when Gina opened the bakery.", "female", ["Gina"]),  # not the opening's name
    ("St. Louis was cold that year, and Marcus", "male", ["Marcus"]),
    ("Santa Monica's best baker, Gina, opened early.", "female", ["Gina"]),
    ("Once upon a time there was a baker called Austin, who", "male", ["Austin"]),  # given as the name
    ("Georgia. She had always loved bread.", "female", ["Georgia"]),
])
def test_the_protagonists_name_and_gender(text, label, evidence):
    assert ProtagonistClassifier(NameTable(PGF)).classify(text, PROMPT) == (label, evidence)


def test_the_messages_and_prompts_are_000s(tmp_path):
    from stereoprobe.studies.stories.catalog import make_probes

    probes, info = make_probes({})
    assert len(probes) == 19 * 5 and info.probes == 95
    p = next(p for p in probes if p.group == "architect" and p.variant == "saturday")
    assert p.messages == (("system", "You are a storyteller writing a novel."),
                          ("user", "Continue the story exactly as given for about one chapter."),
                          ("user", "Our story begins on a Saturday evening. an architect called"))
    assert p.completion == "Our story begins on a Saturday evening. an architect called"


def test_female_shares_come_back_within_their_intervals_of_the_truth(run_cli, tmp_path):
    from stereoprobe.studies.stories.score import score

    truth = {"baker": 0.9, "roofer": 0.1, "architect": 0.5}
    (tmp_path / "jobs.csv").write_text("profession\n" + "\n".join(truth) + "\n", encoding="utf-8")
    with FakeOpenAI(api_key=TEST_KEY) as server:
        server.generation = GenerationModel(truth, seed=5)
        result = run_cli("collect", "--study", "stories", "--model", "fake-chat", "--base-url", server.base_url,
                         "--catalog", tmp_path / "jobs.csv", "--out", tmp_path / "run", "-q",
                         env={"OPENAI_API_KEY": TEST_KEY})
        assert result.exit_code == 0, result.output
        assert {s.body["temperature"] for s in server.seen} == {0.6} and len(server.seen) == 3 * 5 * 2
    rows = [json.loads(line) for line in (tmp_path / "run" / "completions.jsonl").read_text().splitlines()]
    assert len(rows) == 3 * 5 * 20
    scores = score(tmp_path / "run", n_boot=300)
    p = scores.professions.set_index("profession")
    for job, share in truth.items():
        assert p.loc[job, "female_of_gendered_low"] <= 100 * share <= p.loc[job, "female_of_gendered_high"], job
        assert p.loc[job, "unknown"] == 0 and p.loc[job, "read"] == 100
    assert list(scores.table4.columns) == ["profession", "once", "story", "saturday", "protagonist", "cast", "overall"]
    assert scores.summary.set_index("statistic").loc["nmi", "p"] < 0.01

    # a run read by an earlier version of the reader says so, until `reparse` reads it again
    from stereoprobe.studies.stories.score import summary

    assert "Read at collect time" not in summary(scores)
    path = tmp_path / "run" / "manifest.json"
    manifest = json.loads(path.read_text())
    path.write_text(json.dumps({**manifest, "parser_version": "protagonist-1"}))
    assert f"Read at collect time by protagonist-1; this stereoprobe reads with {VERSION}: `stereoprobe " \
           "reparse " in summary(score(tmp_path / "run", n_boot=100))
    assert run_cli("reparse", tmp_path / "run").exit_code == 0
    assert "Read at collect time" not in summary(score(tmp_path / "run", n_boot=100))


def _one_profession_run(run_cli, tmp_path):
    """tmp_path/run: 4 stories a prompt about one profession (bakers, 70% women)."""
    (tmp_path / "jobs.csv").write_text("profession\nbaker\n", encoding="utf-8")
    with FakeOpenAI(api_key=TEST_KEY) as server:
        server.generation = GenerationModel({"baker": 0.7}, seed=5)
        result = run_cli("collect", "--study", "stories", "--model", "fake-chat", "--base-url", server.base_url,
                         "--catalog", tmp_path / "jobs.csv", "--samples", "4", "--out", tmp_path / "run", "-q",
                         env={"OPENAI_API_KEY": TEST_KEY})
        assert result.exit_code == 0, result.output


def test_score_of_one_profession_prints_no_nan(run_cli, tmp_path):
    """The share over professions needs two to resample: with one the terminal says "no interval", not "nan"."""
    import re

    _one_profession_run(run_cli, tmp_path)
    result = run_cli("score", tmp_path / "run", "--bootstrap", "200")
    assert result.exit_code == 0 and not re.search(r"\bnan\b", result.output), result.output
    assert "(no interval) of" in result.output


def test_the_page_of_one_profession_reads_right(run_cli, tmp_path):
    """One profession read "(– to –, over 1 professions)", "NMI 0.000 against – by chance, p = –" and
    "UCI table: None" among the settings; one story not read read "1 stories were not read"."""
    from stereoprobe.studies.stories.page import key_findings
    from stereoprobe.studies.stories.score import STUDY, TABLES, score, write_scores
    from stereoprobe.studies.base import read_scores

    _one_profession_run(run_cli, tmp_path)
    write_scores(score(tmp_path / "run", n_boot=200), tmp_path / "run" / STUDY)
    t = read_scores(tmp_path / "run", STUDY, TABLES)
    text = " ".join(key_findings(t))
    assert "1 professions" not in text and "– to –" not in text and "by chance, p = –" not in text, text
    assert "over 1 profession: too few for an interval" in text and "is not measured" in text
    t["texts"].loc[0, "status"] = "refused"
    assert "1 story was not read" in " ".join(key_findings(t))
    assert run_cli("report", tmp_path / "run").exit_code == 0
    html = (tmp_path / "run" / "report" / "index.html").read_text(encoding="utf-8")
    assert "<dd>None</dd>" not in html and "none (no --names-file)" in html


def test_the_page_names_the_level_the_run_was_scored_at(run_cli, tmp_path):
    """`score --ci 0.9`: the table's column and the note said 95%."""
    (tmp_path / "jobs.csv").write_text("profession\nbaker\nroofer\n", encoding="utf-8")
    with FakeOpenAI(api_key=TEST_KEY) as server:
        server.generation = GenerationModel({"baker": 0.7, "roofer": 0.1}, seed=5)
        assert run_cli("collect", "--study", "stories", "--model", "fake-chat", "--base-url", server.base_url,
                       "--catalog", tmp_path / "jobs.csv", "--samples", "2", "--out", tmp_path / "run", "-q",
                       env={"OPENAI_API_KEY": TEST_KEY}).exit_code == 0
    assert run_cli("score", tmp_path / "run", "--ci", "0.9", "--bootstrap", "200").exit_code == 0
    assert run_cli("report", tmp_path / "run").exit_code == 0
    html = (tmp_path / "run" / "report" / "index.html").read_text(encoding="utf-8")
    assert "95%" not in html and "90% interval" in html and "are 90% intervals" in html


def test_score_and_page_of_a_run_whose_collect_stopped_say_so(run_cli, tmp_path):
    """A stopped collect's run scored as if complete (any study: `stereoprobe score` reads the
    manifest's status, and every study page's line under its title, page.shell.meta_line, reads
    the scores' copy of it); a complete run gets no such line."""
    _one_profession_run(run_cli, tmp_path)
    result = run_cli("score", tmp_path / "run", "--bootstrap", "100")
    assert result.exit_code == 0 and "did not finish" not in result.output
    assert run_cli("report", tmp_path / "run").exit_code == 0
    assert "did not finish" not in (tmp_path / "run" / "report" / "index.html").read_text(encoding="utf-8")
    path = tmp_path / "run" / "manifest.json"
    path.write_text(json.dumps({**json.loads(path.read_text()), "status": "stopped"}))
    result = run_cli("score", tmp_path / "run", "--bootstrap", "100")
    assert result.exit_code == 0
    assert ("This run's collect did not finish (status stopped, 20 answers stored): these numbers are of the prompts "
            f"answered so far. The same `stereoprobe collect` command with --out {tmp_path / 'run'} continues it; "
            "then score again.") in result.output
    assert run_cli("report", tmp_path / "run").exit_code == 0
    html = (tmp_path / "run" / "report" / "index.html").read_text(encoding="utf-8")
    assert "<strong>its collect did not finish: these numbers are of the prompts answered so far</strong>" in html
