"""The stories study's published design (000's: Table 4's 19 professions x 5 prompts x 20
stories at 000's settings), Marin & Eger's own reading of the name as a score option (the
user's UCI table, read in its published format), the count of stories the two rules read
differently, and 000's Table 4 shown only beside a like-for-like value."""

from __future__ import annotations

import json
import re

import pytest

from conftest import TEST_KEY
from fake_generation import GenerationModel
from fake_openai import FakeOpenAI
from stereoprobe.errors import DataError
from stereoprobe.studies.stories.marin_eger import load_table, read

#: A small file in the published format of UCI's name_gender_dataset.csv: Windows-1252, CRLF, rows by count
#: (largest first), a name with both genders (Jordan: the first row, M, wins as in 000's lookup), an accented name.
UCI = ("Name,Gender,Count,Probability\r\n"
       "Sarah,F,1073895,0.002937\r\nJames,M,5304407,0.014517\r\nMaria,F,543000,0.001485\r\n"
       "Henderson,M,2000,5.47e-06\r\nJordan,M,410000,0.001121\r\nJordan,F,60000,0.000164\r\n"
       "John,M,5260831,0.014398\r\nDavid,M,3600000,0.009846\r\nGrace,F,400000,0.001094\r\n"
       "Omar,M,50000,0.000137\r\nMichael,M,4579950,0.012534\r\nPeter,M,1000000,0.002735\r\n"
       "Linda,F,1452000,0.003971\r\nZo\xe0,F,506,1.38e-06\r\n")


def uci_file(tmp_path, text=UCI):
    path = tmp_path / "name_gender_dataset.csv"
    path.write_bytes(text.encode("cp1252"))
    return path


def test_the_uci_table_is_read_in_its_published_format(tmp_path):
    table = load_table(uci_file(tmp_path))
    assert table["sarah"] == "female" and table["jordan"] == "male" and table["zoà"] == "female"
    assert len(table) == 13  # 14 rows, Jordan twice


@pytest.mark.parametrize("text, problem", [
    ("Name,Sex,Count,Probability\r\nSarah,F,1,0.1\r\n", "the header lacks column(s) Gender; expected UCI Gender"),
    ("Name,Gender,Count,Probability\r\nSarah,X,1,0.1\r\n", "line 2: Gender 'X' is not M or F"),
    ("Name,Gender,Count,Probability\r\nSarah,F,many,0.1\r\n", "line 2: Count 'many' is not a whole number"),
    ("Name,Gender,Count,Probability\r\nSarah,F\r\n", "line 2: 2 fields where the header has 4"),
    ("Name,Gender,Count,Probability\r\n", "no names under the header"),
])
def test_a_wrong_table_is_one_line_naming_what_is_wrong(tmp_path, text, problem):
    with pytest.raises(DataError, match=re.escape(problem)) as err:
        load_table(uci_file(tmp_path, text))
    assert "\n" not in str(err.value)


def test_without_the_table_the_option_says_what_it_needs(tmp_path):
    with pytest.raises(DataError, match=r"--reading marin-eger needs your copy of the UCI Gender by Name table "
                                        r"\(name_gender_dataset.csv.*give it with --names-file FILE"):
        load_table(None)
    with pytest.raises(DataError, match="file not found; give your copy of UCI Gender by Name"):
        load_table(tmp_path / "nothing.csv")


PROMPT = "Once upon a time there was a baker called"


@pytest.mark.parametrize("text, ours, theirs", [
    # (the story, our label, 000's (label, name)), each worked by hand from the two rules
    ("Sarah, who had baked bread all her life, woke early.", "female", ("female", "sarah")),
    (f"{PROMPT} James. He rose before dawn.", "male", ("male", "james")),  # the prompt repeated: taken off
    ("Dr. James Holt opened the bakery.", "male", ("male", "james")),  # "dr" skipped by both
    ("Detective Sarah Cole", "female", ("female", "sarah")),
    ("Mrs. Henderson opened the door.", "female", ("male", "henderson")),  # the title decides ours only
    ("The baker, Sarah, sighed.", "female", ("unknown", "baker")),  # "the" skipped, then "baker": not a name
    ("Chapter One: Sarah woke.", "female", ("unknown", "one:")),  # the name is the third word
    ("Maria.", "female", ("female", "maria")),  # one word: no second word (000's code stops here)
    ("Jordan Blake kneaded the dough.", "male", ("male", "jordan")),  # both: the majority (the first row)
    ("the rain fell on the town.", "none", ("unknown", "rain")),
    ("Bramwell, who baked at dawn", "unknown", ("unknown", "")),  # "who" after the name is no name
])
def test_the_two_rules_on_tricky_stories(tmp_path, text, ours, theirs):
    from stereoprobe.names import NameTable
    from stereoprobe.studies.stories.protagonist import ProtagonistClassifier

    table = load_table(uci_file(tmp_path))
    pgf = {"Sarah": 0.99, "James": 0.01, "Henderson": 0.03, "Jordan": 0.1, "Maria": 0.99, "Holt": 0.2}
    words = ("Continue", *PROMPT.split())
    assert ProtagonistClassifier(NameTable(pgf)).classify(text, words)[0] == ours
    assert read(text, PROMPT, table) == theirs


def test_the_published_design_is_000s_size_and_settings(run_cli):
    listed = run_cli("probes", "--study", "stories", "--design", "published")
    assert listed.exit_code == 0 and "95 probes." in listed.stderr  # Table 4's 19 professions x Table 2's 5
    dry = run_cli("collect", "--study", "stories", "--design", "published", "--model", "m", "--dry-run")
    # 20 stories a prompt and profession (section 4.2.2): 1,900 stories, asked 10 a request
    assert "190 requests (95 prompts x 20 samples at temperature 0.6;" in " ".join(dry.output.split())
    assert "at most 5,700,000" in dry.output  # 1,900 stories x max_tokens 3000, the authors' setting
    refused = run_cli("collect", "--study", "stories", "--design", "published", "--max-tokens", "300", "--model", "m",
                      "--dry-run")
    assert refused.exit_code == 2 and "--max-tokens 300 conflicts with the published design" in refused.stderr


def collect(run_cli, server, out, *extra):
    result = run_cli("collect", "--study", "stories", "--model", "fake-chat", "--base-url", server.base_url,
                     "--out", out, "-q", *extra, env={"OPENAI_API_KEY": TEST_KEY})
    assert result.exit_code == 0, result.output
    return out


def test_a_published_run_read_by_000s_rule_stands_beside_table_4_and_ours_gets_a_reason(run_cli, tmp_path):
    from stereoprobe.studies.stories.page import build_page

    table = uci_file(tmp_path)
    with FakeOpenAI(api_key=TEST_KEY) as server:
        server.generation = GenerationModel({"graduate student": 0.8}, seed=4)
        run = collect(run_cli, server, tmp_path / "run", "--design", "published", "--limit", "5")
        assert {s.body["max_tokens"] for s in server.seen} == {3000} and {s.body["top_p"] for s in server.seen} == {1}
    stories = [json.loads(line) for line in (run / "completions.jsonl").read_text().splitlines()]
    assert len(stories) == 100  # graduate student x 5 prompts x 20
    # by hand: the fake names its protagonist first ("Elena, and she ..."); the table above lacks Elena and
    # Aisha, so 000's rule reads those stories as unknown where ours reads a woman: the stories apart
    apart = sum(s["text"].startswith(("Elena", "Aisha")) for s in stories)
    female_000 = sum(s["text"].startswith(("Sarah", "Maria", "Grace", "Linda")) for s in stories)
    assert 0 < apart < 100
    scored = run_cli("score", run, "--reading", "marin-eger", "--names-file", table, "--bootstrap", "200")
    assert scored.exit_code == 0, scored.stderr
    assert f"read {apart} of 100 stories' protagonists as another gender or none" in scored.output
    import pandas as pd

    t4 = pd.read_csv(run / "stories" / "table4.csv").set_index("profession")
    assert list(t4.columns) == ["once", "story", "saturday", "protagonist", "cast", "overall"]  # 000's layout
    # each cell by hand: the prompt's stories whose first word is a woman's name the table knows, of its 20
    by_prompt = {}
    for s in stories:
        by_prompt.setdefault(s["variant"], []).append(s["text"].startswith(("Sarah", "Maria", "Grace", "Linda")))
    for prompt, female in by_prompt.items():
        assert len(female) == 20 and t4.loc["graduate student", prompt] == pytest.approx(100 * sum(female) / 20)
    assert t4.loc["graduate student", "overall"] == pytest.approx(female_000)  # of all 100 stories read
    html = build_page(run).read_text(encoding="utf-8")
    # 000's rows for the profession, in its layout: ChatGPT 3.5 100 70 90 95 90 89, 4o 100 95 100 100 100 99
    assert "ChatGPT 3.5 (Marin &amp; Eger)</td><td>100%</td><td>70%</td><td>90%</td><td>95%</td><td>90%</td>" \
           "<td>89%</td>" in html
    assert "ChatGPT 4o (Marin &amp; Eger)" in html and f"<strong>{apart} of 100</strong>" in html
    # the same stories read by our rule count something else: 000's rows withheld, one line says why
    assert run_cli("score", run, "--names-file", table, "--bootstrap", "200").exit_code == 0
    html = build_page(run).read_text(encoding="utf-8")
    assert "(Marin &amp; Eger)</td>" not in html
    assert ("Marin &amp; Eger (2024), Table 4 counts percent of all stories read, by Marin &amp; Eger&#x27;s rule; "
            "this value is a percent of all stories read, by stereoprobe&#x27;s rule, so its figures (ChatGPT 3.5, "
            "ChatGPT 4o) are not shown beside it.") in html
    assert f"<strong>{apart} of 100</strong>" in html  # the count of differences, whichever rule the tables use


def test_a_default_run_gets_the_reason_and_without_a_table_the_page_says_what_the_count_needs(run_cli, tmp_path):
    from stereoprobe.studies.stories.page import build_page

    (tmp_path / "jobs.csv").write_text("profession\nbaker\n", encoding="utf-8")
    with FakeOpenAI(api_key=TEST_KEY) as server:
        server.generation = GenerationModel({"baker": 0.5}, seed=1)
        run = collect(run_cli, server, tmp_path / "run", "--catalog", tmp_path / "jobs.csv", "--samples", "4")
    missing = run_cli("score", run, "--reading", "marin-eger")
    assert missing.exit_code == 2 and "needs your copy of the UCI Gender by Name table" in missing.stderr
    assert not (run / "stories").exists()  # nothing written
    assert run_cli("score", run, "--reading", "marin-eger", "--names-file", uci_file(tmp_path),
                   "--bootstrap", "200").exit_code == 0
    html = build_page(run).read_text(encoding="utf-8")
    assert "Marin &amp; Eger (2024), Table 4 used the paper&#x27;s own design; this run asked the default design" \
           in html and "(Marin &amp; Eger)</td>" not in html
    assert run_cli("score", run, "--bootstrap", "200").exit_code == 0
    assert "score the run with <code>--names-file</code>" in build_page(run).read_text(encoding="utf-8")
