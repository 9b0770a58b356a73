"""The coreference study through the CLI: chat mode over HTTP against the fake server's biased
model (tests/coref_fake.py), logprob mode against its toy completions model, samples,
refusals, reparse, resume, the lock, kill -9, and bad input (one line, exit 2, nothing created)."""

from __future__ import annotations

import html
import json
import math
import os
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
from conftest import REPO, TEST_KEY, kill_9_then_resume
from coref_fake import NAMED, OTHER, against, is_flipped
from fake_scoring import ScoringModel

from stereoprobe.studies import get_study

WOMEN, MEN = ["nurse", "secretary", "receptionist"], ["pilot", "plumber", "electrician"]
BIAS = 0.3


def near(x):
    """CSV values carry 6 significant digits."""
    return pytest.approx(x, rel=1e-5, abs=1e-9)


def one_line(res) -> str:
    lines = res.output.strip().splitlines()
    assert res.exit_code == 2 and len(lines) == 1, res.output
    return lines[0]


def jobs_args(jobs=WOMEN + MEN) -> list[str]:
    return [x for j in jobs for x in ("--job", j)]


def collect(fake, out, *extra, jobs=WOMEN + MEN):
    from click.testing import CliRunner

    from stereoprobe.cli import cli

    args = ["collect", "--study", "coreference", "--model", "fake-chat", "--base-url", fake.base_url,
            "--out", str(out), "-q", *jobs_args(jobs), *extra]
    return CliRunner().invoke(cli, args, env={"OPENAI_API_KEY": TEST_KEY})


def records(out: Path) -> list[dict]:
    return [json.loads(line) for line in (out / "completions.jsonl").read_text().splitlines()]


def table(out: Path, name: str) -> pd.DataFrame:
    return pd.read_csv(out / "coreference" / f"{name}.csv", keep_default_na=False, na_values=[""])


@pytest.fixture(scope="module")
def biased_run(tmp_path_factory):
    """Chat mode over HTTP: 3 x 3 jobs, both roles, 7 scenes, 3 pronouns (378 prompts), 30% bias; scored."""
    from click.testing import CliRunner

    from fake_openai import FakeOpenAI
    from stereoprobe.cli import cli

    out = tmp_path_factory.mktemp("coref") / "run"
    with FakeOpenAI(api_key=TEST_KEY, coreference_bias=BIAS) as fake:
        res = collect(fake, out)
        assert res.exit_code == 0, res.output
        asked = len(fake.asked())
    res = CliRunner().invoke(cli, ["score", str(out), "--bootstrap", "300"])
    assert res.exit_code == 0, res.output
    probes = get_study("coreference").list_probes({"job": WOMEN + MEN})
    return out, probes, asked


def test_chat_over_http_gives_the_counts_the_bias_implies(biased_run):
    out, probes, asked = biased_run
    assert asked == len(probes) == 9 * 2 * 7 * 3
    flipped = [p for p in probes if against(p) and is_flipped(p.probe_id, BIAS)]
    # the criteria and WinoBias leave book owner out (its pronoun does not refer to the right answer)
    anti = {pr: [p for p in probes if p.pronoun == pr and p.stereotype == "anti" and p.template != "book owner"]
            for pr in ("he", "she")}
    flips = {pr: sum(1 for p in flipped if p.pronoun == pr and p.template != "book owner") for pr in ("he", "she")}
    assert all(abs(flips[pr] / len(anti[pr]) - BIAS) < 0.12 for pr in flips)  # the hash's realised share
    t3 = table(out, "table3").set_index("template")
    overall = t3.loc["Overall"]
    # each flipped answer is wrong and makes its triple (and its he/she pair) inconsistent
    assert (overall.incorrect_k, overall.incorrect_n) == (len(flipped), len(probes))
    assert (overall.inconsistent_k, overall.inconsistent_n) == (len(flipped), len(probes) // 3)
    assert overall.binary_inconsistent_k == len(flipped)
    assert overall.incorrect_pct == near(100 * len(flipped) / len(probes))
    assert overall.incorrect_low < overall.incorrect_pct < overall.incorrect_high
    for template in ("late", "book owner"):
        assert t3.loc[template, "incorrect_k"] == sum(1 for p in flipped if p.template == template)
    # Sterlie et al.: he is wrong only where the women-dominated job is right (FN), she only where the men's is (FP)
    n1 = n0 = len(probes) // 3 // 2 * 6 // 7  # per pronoun: truth 1 and truth 0 prompts of the six scenes
    st = table(out, "criteria").set_index("pronoun")
    assert st.loc["he", ["tp", "fn", "fp", "tn"]].tolist() == [n1 - flips["he"], flips["he"], 0, n0]
    assert st.loc["she", ["tp", "fn", "fp", "tn"]].tolist() == [n1, 0, flips["she"], n0 - flips["she"]]
    assert st.loc["he", "fnr_pct"] == near(100 * flips["he"] / n1)
    assert st.loc["he", "npv_pct"] == near(100 * n0 / (n0 + flips["he"]))
    assert st.loc["she", "ppv_pct"] == near(100 * n1 / (n1 + flips["she"]))
    assert st.loc["they", ["fnr_pct", "fpr_pct", "ppv_pct", "npv_pct"]].tolist() == [0, 0, 100, 100]
    wb = table(out, "winobias").set_index("pronoun")
    assert wb.loc["he", "gap"] == near(100 * flips["he"] / len(anti["he"]))
    assert wb.loc["she", ["pro_pct", "anti_pct"]].tolist() == [100, near(100 * (1 - flips["she"] / len(anti["she"])))]
    ff = table(out, "four_fifths").query("comparison == 'he vs she'").set_index("rate")
    assert ff.loc["fnr", "ratio"] == 0 and ff.loc["fnr", "passes"] in (False, "False")  # she: FNR 0
    assert ff.loc["ppv", "ratio"] == near(n1 / (n1 + flips["she"]))
    assert (ff["p"] < 0.05).all()  # every ratio is below what shuffling the pronouns gives
    meta = json.loads((out / "coreference" / "meta.json").read_text())
    assert meta["method"] == ["chat"] and meta["statistics"]["bootstrap"] == 300


def test_the_report_shows_the_findings_and_links_every_inconsistent_triple(biased_run, run_cli):
    out, probes, _ = biased_run
    res = run_cli("report", out)
    assert res.exit_code == 0, res.output
    page = (out / "report" / "index.html").read_text()
    assert "Key findings" in page and "data:image/png;base64," in page and 'href="data/table3.csv"' in page
    assert "chat mode" in page and "offline smoke path" not in page
    triples = (out / "report" / "triples.html").read_text()
    flipped = [p for p in probes if against(p) and is_flipped(p.probe_id, BIAS)]
    late = [p for p in flipped if p.template == "late"]
    assert f'href="triples.html#t0-late">{len(late)} of ' in page
    assert 'id="t0-late"' in triples and triples.count("<tr><th scope=\"row\">") == len(flipped)
    he_prompt = next(p for p in probes if p.triple_id == late[0].triple_id and p.pronoun == "he").text
    assert html.escape(he_prompt) in triples


def test_samples_are_asked_k_times_and_combined_by_majority(fake_openai, tmp_path, run_cli):
    fake_openai.coreference_bias = BIAS
    out = tmp_path / "run"
    res = collect(fake_openai, out, "--prompt", "late", "--samples", "3", "--temperature", "1")
    assert res.exit_code == 0, res.output
    assert len(fake_openai.asked()) == 9 * 2 * 3 * 3 and len(records(out)) == 9 * 2 * 3 * 3
    assert run_cli("score", out, "--bootstrap", "200").exit_code == 0
    answers = table(out, "answers")
    assert len(answers) == 9 * 2 * 3 and (answers.samples == 3).all() and (answers.agreement == 1).all()
    assert set(answers.votes) <= {"A 3 B 0 U 0", "A 0 B 3 U 0"}
    body = fake_openai.asked()[0].body
    assert body["temperature"] == 1 and body["messages"] == [{"role": "user", "content": fake_openai.asked()[0].message}]



@pytest.mark.parametrize("logprobs", [False, True])
def test_chat_replies_carry_each_professions_probability_where_logprobs_come(fake_openai, tmp_path, run_cli,
                                                                             logprobs):
    fake_openai.coreference_bias, fake_openai.reply_logprobs = BIAS, logprobs
    out = tmp_path / "run"
    assert collect(fake_openai, out, "--prompt", "late").exit_code == 0
    assert fake_openai.asked()[0].body.get("logprobs") is True  # asked either way
    got = records(out)
    assert run_cli("score", out, "--bootstrap", "200").exit_code == 0
    answers = table(out, "answers")
    if not logprobs:  # nothing changes: no fields stored, empty columns
        assert not any("p_a" in r or "logprobs" in r for r in got)
        assert answers.p_a.isna().all() and answers.p_b.isna().all()
        return
    for r in got:  # the named profession 0.8, the other its alternative 0.15 (coref_fake.answer_logprobs)
        named_a = r["raw"].startswith(f"The {r['profession_a']} ")
        assert (r["p_a"], r["p_b"]) == ((near(NAMED), near(OTHER)) if named_a else (near(OTHER), near(NAMED)))
        assert [e["token"] for e in r["logprobs"]["content"]][:2] == ["The", " " + r["profession_" + r["answer"].lower()]]
    said_a = pd.Series([raw.startswith(f"The {a} ") for raw, a in zip(answers.raw, answers.profession_a)])
    assert answers.p_a[said_a].round(6).eq(NAMED).all() and answers.p_b[said_a].round(6).eq(OTHER).all()
    assert answers.p_a[~said_a].round(6).eq(OTHER).all() and said_a.any() and (~said_a).any()

@pytest.mark.parametrize("refusal_field", [False, True])
def test_refusals_are_recorded_and_counted(fake_openai, tmp_path, run_cli, refusal_field):
    fake_openai.coreference_bias = 0.0
    fake_openai.refuse_marker, fake_openai.refusal_field = "plumber", refusal_field
    out = tmp_path / "run"
    assert collect(fake_openai, out, "--prompt", "late").exit_code == 0
    got = records(out)
    refused = [r for r in got if "plumber" in r["text"]]
    assert refused and all(r["refused"] and r["answer"] == "U" for r in refused)
    assert all(not r["refused"] and r["answer"] == r["expected"] for r in got if "plumber" not in r["text"])
    assert run_cli("score", out, "--bootstrap", "200").exit_code == 0
    row = table(out, "table3").set_index("template").loc["Overall"]
    assert (row.refused, row.incorrect_k) == (len(refused), len(refused))


def test_reparse_parses_the_stored_replies_again(fake_openai, tmp_path, run_cli):
    fake_openai.coreference_bias = BIAS
    out = tmp_path / "run"
    assert collect(fake_openai, out, "--prompt", "late").exit_code == 0
    lines = records(out)
    before = [dict(r) for r in lines]
    for r in lines[:2]:  # as an older parser might have left them
        r["answer"] = "U"
    (out / "completions.jsonl").write_text("".join(json.dumps(r) + "\n" for r in lines))
    res = run_cli("reparse", out)
    assert res.exit_code == 0 and res.stdout.startswith("Parser 1: 2 records changed, 52 unchanged."), res.output
    assert records(out) == before
    assert json.loads((out / "manifest.json").read_text())["parser_version"] == "1"
    assert run_cli("reparse", out).stdout.startswith("Parser 1: 0 records changed")


def test_completions_logprob_mode_scores_both_replies(fake_openai, tmp_path, run_cli):
    fake_openai.scoring = ScoringModel(probability={" The": 0.5, " nurse": 0.3, " pilot": 0.1})
    out = tmp_path / "run"
    res = collect(fake_openai, out, "--mode", "next-word", "--prompt", "late", jobs=["nurse", "pilot"])
    assert res.exit_code == 0, res.output
    got = records(out)
    assert len(got) == 6 and len(fake_openai.seen) == 12  # two echo requests per prompt
    for r in got:
        nurse, pilot = math.log(0.5 * 0.3), math.log(0.5 * 0.1)
        expected = (nurse, pilot) if r["profession_a"] == "nurse" else (pilot, nurse)
        assert (r["logprob_a"], r["logprob_b"]) == pytest.approx(expected)
        assert r["method"] == "logprob" and r["answer"] == ("A" if r["profession_a"] == "nurse" else "B")
    body = next(s.body for s in fake_openai.seen if s.path.endswith("/completions"))
    assert body["echo"] is True and body["logprobs"] == 1
    assert body["prompt"].endswith(("Who was late? The nurse", "Who was late? The pilot"))
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["study"] == "coreference" and manifest["mode"] == "next-word"
    assert manifest["parser_version"] is None
    assert "only chat replies are parsed" in one_line(run_cli("reparse", out))


# -- resume, lock, kill -9 ---------------------------------------------------------------
def test_resume_asks_only_what_is_missing(fake_openai, tmp_path, run_cli):
    fake_openai.coreference_bias = BIAS
    out = tmp_path / "run"
    assert collect(fake_openai, out, "--prompt", "late").exit_code == 0
    asked = len(fake_openai.asked())
    assert collect(fake_openai, out, "--prompt", "late", "--prompt", "cake").exit_code == 0
    assert len(fake_openai.asked()) - asked == 9 * 2 * 3  # only cake
    mine = tmp_path / "pairs.csv"
    mine.write_text("profession_a,profession_b\nnurse,pilot\n")
    res = collect(fake_openai, out, "--prompt", "late", "--pairs-file", mine, jobs=[])
    assert "other settings (another catalog)" in one_line(res)
    res = run_cli("collect", "--study", "jobs", "--model", "fake-chat", "--base-url", fake_openai.base_url,
                  "--out", out, "--job", "nurse", env={"OPENAI_API_KEY": TEST_KEY})
    assert "holds a coreference run, not a jobs one" in one_line(res)


def test_a_locked_run_is_refused(fake_openai, tmp_path):
    from stereoprobe.store import RunStore

    holder = RunStore(tmp_path / "run")
    holder.lock()
    try:
        assert "is in use by pid" in one_line(collect(fake_openai, tmp_path / "run", "--prompt", "late"))
    finally:
        holder.unlock()


def test_kill_9_then_the_same_command_completes_the_run(tmp_path):
    server = subprocess.Popen([sys.executable, str(REPO / "tests" / "fake_openai.py"), "--latency", "0.02",
                               "--coreference-bias", str(BIAS)], stdout=subprocess.PIPE, text=True)
    try:
        url = server.stdout.readline().strip()
        out = tmp_path / "run"
        argv = [sys.executable, "-m", "stereoprobe", "collect", "--study", "coreference", "--model", "fake-chat",
                "--base-url", url, "--prompt", "late", "--prompt", "cash", "--out", str(out), "-q",
                "--concurrency", "2", *jobs_args()]
        env = {**os.environ, "OPENAI_API_KEY": TEST_KEY}
        done = kill_9_then_resume(argv, env, out)
        assert done.returncode == 0, done.stderr
        rows = records(out)
        assert len(rows) == len({r["probe_id"] for r in rows}) == 9 * 2 * 2 * 3
        assert all(r["error"] is None for r in rows)
        assert json.loads((out / "manifest.json").read_text())["status"] == "complete"
    finally:
        server.terminate()
        server.wait()


# -- bad input: one line, exit 2, nothing created -------------------------------------------
@pytest.mark.parametrize("content, needle", [
    ("profession_a\nnurse\n", "lacks column(s) profession_b"),
    ("profession_a,profession_b\nnurse,Nurse\n", "the pair names 'nurse' twice"),
    ("profession_a,profession_b,gender_a\nnurse,pilot,female\n", "gender_a must be women, men or empty"),
])
def test_a_bad_pairs_file_is_one_line_and_creates_nothing(tmp_path, run_cli, content, needle):
    mine = tmp_path / "pairs.csv"
    mine.write_text(content, encoding="utf-8")
    out = tmp_path / "run"
    res = run_cli("collect", "--study", "coreference", "--pairs-file", mine, "--out", out)
    assert needle in one_line(res) and str(mine) in res.output
    assert not out.exists()


def test_a_template_without_an_expected_answer_is_one_line_and_creates_nothing(tmp_path, run_cli, monkeypatch):
    import shutil

    from stereoprobe.studies.coreference import templates

    data = tmp_path / "data"
    shutil.copytree(templates.data_dir(), data)
    text = (data / "templates.csv").read_text().replace("late.,B,B,", "late.,,B,", 1)
    (data / "templates.csv").write_text(text)
    monkeypatch.setattr(templates, "data_dir", lambda: data)
    out = tmp_path / "run"
    res = run_cli("collect", "--study", "coreference", "--out", out)
    assert "(late): the expected answer is missing; write A or B" in one_line(res)
    assert not out.exists()


@pytest.mark.parametrize("argv, needle", [
    (["--pairs", "0"], "--pairs must be a whole number of at least 1 (got 0)"),
    (["--pairs", "3", "--pairs-file", "x.csv"], "give one of them"),
    (["--seed", "3"], "--seed applies to --pairs N"),
    (["--job", "astronaut"], "Unknown profession 'astronaut' in --job"),
    (["--job", "nurse", "--job", "secretary"], "No pair has both of its professions among the --job given"),
    (["--prompt", "lunch"], "Unknown template 'lunch' in --prompt"),
    (["--debias", "9"], "--debias '9': give all, none, or numbers from 0 to 6"),
    (["--templates", "choenni"], "Unknown template set 'choenni' for the coreference study"),
    (["--setting", "with dialogue"], "--setting does not apply to the coreference study"),
    (["--instruction", "x"], "--instruction does not apply to the coreference study"),
    (["--catalog", "x.csv"], "--catalog does not apply to the coreference study"),
    (["--samples", "3"], "--samples apply to chat mode; logprob mode"),
    (["--temperature", "1"], "--temperature apply to chat mode"),
    (["--mode", "chat"], "The embedded model is a base model and cannot chat"),
])
def test_flags_and_values_that_do_not_apply_are_refused(tmp_path, run_cli, argv, needle):
    out = tmp_path / "run"
    res = run_cli("collect", "--study", "coreference", "--out", out, *argv)
    assert needle in one_line(res)
    assert not out.exists()


@pytest.mark.parametrize("argv, needle", [
    (["probes", "--study", "jobs", "--pairs", "3"], "--pairs does not apply to the jobs study"),
    (["probes", "--pairs-file", "x.csv"], "--pairs-file does not apply to the fill-in study"),
])
def test_coreference_flags_are_refused_by_the_other_studies(run_cli, argv, needle):
    assert needle in one_line(run_cli(*argv))


def test_probes_lists_the_default_design_and_the_other_sources(tmp_path, run_cli):
    res = run_cli("probes", "--study", "coreference")
    assert res.exit_code == 0 and "16,800 probes." in res.stderr
    res = run_cli("probes", "--study", "coreference", "--pairs", "10", "--seed", "3", "--prompt", "late",
                  "--output", tmp_path / "p.csv")
    rows = pd.read_csv(tmp_path / "p.csv")
    assert len(rows) == 30 and rows.stereotype.isna().all()
    mine = tmp_path / "pairs.csv"
    mine.write_text("profession_a,profession_b,gender_a,gender_b\nmidwife,undertaker,women,men\n")
    res = run_cli("probes", "--study", "coreference", "--pairs-file", mine, "--debias", "0,2", "--prompt", "cash")
    assert res.exit_code == 0 and "6 probes." in res.stderr
    assert "Please do not think based on gender stereotypes. Answer in one sentence" in res.stdout


def test_the_readme_coreference_command_runs_as_written(run_cli):
    import re
    import shlex

    text = (REPO / "README.md").read_text()
    block = re.search(r"<!-- coreference-command -->\s*```bash\n(.+?)\n```", text, re.S).group(1)
    steps = [shlex.split(part.strip()) for part in block.split("&&")]
    assert [s[1] for s in steps] == ["collect", "score", "report"]
    assert steps[0][2:4] == ["--study", "coreference"]
    res = run_cli(*steps[0][1:], "--dry-run")
    assert res.exit_code == 0 and "16800 requests" in res.output.replace(",", "")
    assert steps[1][2] == steps[2][2] == str(get_study("coreference").run_dir({})) == "runs/coreference-gemma-3-270m"


@pytest.mark.parametrize("change, needle", [
    ({"answer": "C"}, "field 'answer' has the wrong value (string 'C')"),
    ({"debias": "5"}, "field 'debias' has the wrong value (string '5')"),
    ({"answer": None}, "field 'answer' must be A, B or U unless 'error' is set"),
    ({"method": None}, "field 'method' has the wrong value"),
])
def test_a_stored_record_of_the_wrong_type_is_one_line(fake_openai, tmp_path, run_cli, change, needle):
    fake_openai.coreference_bias = BIAS
    out = tmp_path / "run"
    assert collect(fake_openai, out, "--prompt", "late", jobs=["nurse", "pilot"]).exit_code == 0
    lines = records(out)
    lines[4].update(change)
    (out / "completions.jsonl").write_text("".join(json.dumps(r) + "\n" for r in lines))
    message = one_line(run_cli("score", out))
    assert "completions.jsonl, line 5: not a completion record" in message and needle in message
    assert not (out / "coreference").exists()


def test_dry_run_counts_the_requests_of_each_mode(run_cli, api_key):
    base = ["collect", "--study", "coreference", "--prompt", "late", "--job", "nurse", "--job", "pilot", "--dry-run"]
    chat = run_cli(*base, "--model", "m", "--samples", "3", "--temperature", "1")
    assert chat.exit_code == 0 and chat.output.startswith("18 requests")  # 6 prompts x 3 samples
    echo = run_cli(*base, "--model", "m", "--base-url", "http://127.0.0.1:9/v1", "--mode", "next-word")
    assert echo.exit_code == 0 and echo.output.startswith("about 12 requests (2 per probe")  # two replies each
