"""`stereoprobe suite` against the fake servers (tests/fake_openai.py with its coreference and
generation modes): a suite of fill-in, coreference and anecdotes end to end, each run folder what
`collect` writes, the same command again asking and redoing nothing, Ctrl-C and kill mid-suite
keeping every answer and never starting the next study, the dry run's counts, batches."""

from __future__ import annotations

import importlib.util
import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

from conftest import AS_FROM_A_TERMINAL, TEST_KEY
from fake_generation import GenerationModel
from fake_openai import FakeOpenAI

from stereoprobe.suite.record import read_suite

ENV = {"OPENAI_API_KEY": TEST_KEY}


def rows(run: Path) -> list[dict]:
    return [json.loads(line) for line in (run / "completions.jsonl").read_text().splitlines()]


def server() -> FakeOpenAI:
    fake = FakeOpenAI(api_key=TEST_KEY, coreference_bias=0.3)
    fake.generation = GenerationModel({}, seed=1)  # every profession: half its texts about a woman
    return fake


def suite(run_cli, fake: FakeOpenAI, out: Path, *args: str):
    return run_cli("suite", "--model", "fake-chat", "--base-url", fake.base_url, "--design", "quick", "--out", out,
                   *args, env=ENV)


def texts_asked(fake: FakeOpenAI) -> Counter:
    """(prompt, how many texts) over every request the server answered: a generation request asks n."""
    out: Counter = Counter()
    for seen in fake.seen:
        if seen.outcome == "ok":
            out[seen.message] += int((seen.body or {}).get("n") or 1)
    return out


# -- one suite of fill-in, coreference and anecdotes, shared by the tests below --------------------
@pytest.fixture(scope="module")
def done(tmp_path_factory):
    from click.testing import CliRunner

    from stereoprobe.cli import cli

    out = tmp_path_factory.mktemp("suite") / "s"
    argv = ["suite", "--design", "quick", "--studies", "fill-in,coreference,anecdotes", "--limit", "60",
            "--out", str(out)]
    with server() as fake:
        model = ["--model", "fake-chat", "--base-url", fake.base_url]
        first = CliRunner().invoke(cli, [*argv, *model], env=ENV, catch_exceptions=False)
        asked = texts_asked(fake)
        before = {p: p.stat().st_mtime_ns for p in out.rglob("*")  # the data, not the locks' holder lines
                  if p.is_file() and "card" not in p.parts and p.name != ".lock"}
        again = CliRunner().invoke(cli, [*argv, *model], env=ENV, catch_exceptions=False)
        yield {"out": out, "first": first, "again": again, "asked": asked, "after": texts_asked(fake),
               "before": before, "base_url": fake.base_url}


def test_a_suite_runs_scores_and_reports_each_study_in_its_own_run_folder(done):
    out, first = done["out"], done["first"]
    assert first.exit_code == 0, first.output
    record = read_suite(out)
    assert record.model == "fake-chat" and record.design == "quick"
    assert [(e.key, e.state) for e in record.studies] == [("fill-in", "reported"), ("coreference", "reported"),
                                                          ("anecdotes", "reported")]
    # --limit 60: the first 60 probes of each study's quick design (tests/test_suite_designs.py checks
    # the designs' full sizes); anecdotes has 20 probes (professions), each asked 4 times
    sizes = {"fill-in": 60, "coreference": 60, "anecdotes": 20 * 4}
    for e in record.studies:
        assert e.counts["records"] == sizes[e.key] == len(rows(out / e.run))
        manifest = json.loads((out / e.run / "manifest.json").read_text())
        assert manifest["design"] == "quick" and manifest["status"] == "complete"
        assert manifest["study"] == {"fill-in": "fill-in"}.get(e.key, e.key)
    assert (out / "fill-in" / "sentiment" / "table4.csv").is_file()
    assert (out / "fill-in" / "briefing" / "index.html").is_file()
    for key in ("coreference", "anecdotes"):
        assert (out / key / key / "meta.json").is_file() and (out / key / "report" / "index.html").is_file()
    # each prompt asked once: the server answered every answer the runs hold, and no more
    assert sum(done["asked"].values()) == sum(sizes.values())


def test_one_progress_display_for_the_whole_suite(done):
    progress = done["first"].stderr.splitlines()
    assert any(line.startswith("3/3 studies done") for line in progress)
    assert any("0/3 studies done · fill-in collecting" in line for line in progress)
    assert not any(" probes (" in line or line.endswith("/s") for line in progress)  # no collect's own lines


def test_the_card_is_written_or_the_suite_says_what_it_needs(done):
    if importlib.util.find_spec("stereoprobe.card") is None:
        assert "the card needs stereoprobe.card" in done["first"].stdout
    else:
        assert (done["out"] / "card").exists()


def test_the_same_command_again_asks_nothing_and_redoes_nothing(done):
    again = done["again"]
    assert again.exit_code == 0, again.output
    assert done["after"] == done["asked"]  # not one request more
    after = {p: p.stat().st_mtime_ns for p in done["before"]}
    changed = sorted(str(p.relative_to(done["out"])) for p in after if after[p] != done["before"][p])
    assert changed == ["suite.json"]  # no run, score or report written again



def test_scores_deleted_since_are_scored_again_by_the_same_command(run_cli, tmp_path):
    """suite.json says reported on these answers, but the study's scores are gone: the same
    command scored nothing, the card then failed ("run stereoprobe score"), and the suite said
    "run the same command again", which did the same. Now it scores (and reports) that study
    again, asks nothing, and leaves the others alone."""
    import shutil

    out = tmp_path / "s"
    with server() as fake:
        assert suite(run_cli, fake, out, "--studies", "sterlie,anecdotes", "-q").exit_code == 0
        asked = texts_asked(fake)
        shutil.rmtree(out / "anecdotes" / "anecdotes")
        before = (out / "sterlie" / "coreference" / "meta.json").stat().st_mtime_ns
        again = suite(run_cli, fake, out, "--studies", "sterlie,anecdotes", "-q")
        assert texts_asked(fake) == asked  # nothing asked again
    assert again.exit_code == 0, again.output
    assert (out / "anecdotes" / "anecdotes" / "meta.json").is_file() and (out / "card" / "card.json").is_file()
    assert read_suite(out).entry("anecdotes").state == "reported"
    assert (out / "sterlie" / "coreference" / "meta.json").stat().st_mtime_ns == before  # not scored again

def test_a_suites_run_folder_is_what_collect_writes_and_every_command_works_on_it(done, run_cli, tmp_path):
    with server() as fake:
        res = run_cli("collect", "--study", "anecdotes", "--design", "quick", "--model", "fake-chat", "--base-url",
                      fake.base_url, "--out", tmp_path / "own", "-q", env=ENV)
    assert res.exit_code == 0, res.output
    suite_run, own = done["out"] / "anecdotes", tmp_path / "own"
    keep = ("probe_id", "sample", "group", "text", "label")
    assert sorted(tuple(r[k] for k in keep) for r in rows(suite_run)) == sorted(tuple(r[k] for k in keep)
                                                                                for r in rows(own))
    a, b = (json.loads((d / "manifest.json").read_text()) for d in (suite_run, own))
    for key in ("study", "design", "catalog"):
        assert a[key] == b[key]
    same = {k: v for k, v in a["settings"].items() if k != "endpoint"}
    assert same == {k: v for k, v in b["settings"].items() if k != "endpoint"}
    # score, report and compare take a suite's run folders as they take collect's
    assert run_cli("score", own).exit_code == 0
    compared = run_cli("compare", suite_run, own, "--out", tmp_path / "cmp")
    assert compared.exit_code == 0, compared.output
    scored = run_cli("score", done["out"] / "coreference", "--bootstrap", "200")
    assert scored.exit_code == 0, scored.output


# -- stopped mid-suite: Ctrl-C and kill ------------------------------------------------------------
def start(fake: FakeOpenAI, out: Path) -> subprocess.Popen:
    argv = ["suite", "--model", "fake-chat", "--base-url", fake.base_url, "--design", "quick", "--studies",
            "sterlie,anecdotes,stories", "--out", str(out), "-j", "1"]
    return subprocess.Popen([sys.executable, "-c", AS_FROM_A_TERMINAL, *argv], env={**os.environ, **ENV},
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


@pytest.mark.parametrize("how, code", [(signal.SIGINT, 130), (signal.SIGTERM, -signal.SIGTERM)])
def test_ctrl_c_or_kill_stops_the_whole_suite_with_every_answer_kept_and_the_same_command_finishes(
        how, code, tmp_path, run_cli):
    out = tmp_path / "s"
    with server() as fake:
        fake.latency = 0.1
        fake.generation = GenerationModel({}, seed=1, reject_n=True)  # one text a request: many to stop among
        child = start(fake, out)
        path, deadline = out / "anecdotes" / "completions.jsonl", time.monotonic() + 900  # bounds a hang only
        while not (path.is_file() and path.read_text().count("\n") >= 3):  # a state, not a time
            assert child.poll() is None and time.monotonic() < deadline, "the suite ended before the signal"
            time.sleep(0.05)
        child.send_signal(how)
        _, err = child.communicate(timeout=60)
        assert child.returncode == code, err
        received = [s for s in fake.seen if s.sent is not None and "30 word story" in (s.message or "")]
        stopped = read_suite(out)
        assert [(e.key, e.state) for e in stopped.studies] == [("sterlie", "reported"), ("anecdotes", "stopped"),
                                                               ("stories", "not started")]
        assert not (out / "stories").exists()  # the next study never started
        kept = rows(out / "anecdotes")
        assert json.loads((out / "anecdotes" / "manifest.json").read_text())["status"] == "stopped"
        # every answer the server finished sending is stored (one text a request), but for the one
        # reply the single worker may still have been reading
        assert len(received) >= 3 and len(kept) >= len(received) - 1
        fake.latency = 0  # the latency was there to stop mid-study; finishing needs none (saves 15 s a case)
        res = suite(run_cli, fake, out, "--studies", "sterlie,anecdotes,stories", "-j", "1")
        assert res.exit_code == 0, res.output
        assert [e.state for e in read_suite(out).studies] == ["reported"] * 3
        asked = texts_asked(fake)
        # every sample stored once: 20 professions x 4 samples, 8 x 5 prompts x 2 stories, 18 prompts; asked
        # once too, but for the one reply the single worker was reading when the signal came (abandoned,
        # never stored, so asked again)
        assert len(rows(out / "anecdotes")) == 80 and len(rows(out / "stories")) == 80
        anecdotes = sum(asked[m] for m in asked if "30 word story" in m)
        assert 80 <= anecdotes <= 81 and sum(asked.values()) == anecdotes + 80 + 18


# -- the dry run ----------------------------------------------------------------------------------
def test_the_dry_run_counts_each_study_as_its_own_dry_run_and_asks_nothing(run_cli, tmp_path):
    out = tmp_path / "s"
    with server() as fake:
        res = suite(run_cli, fake, out, "--studies", "sterlie,anecdotes", "--dry-run", "--price-in", "1",
                    "--price-out", "2")
        own = run_cli("collect", "--study", "anecdotes", "--design", "quick", "--model", "fake-chat", "--base-url",
                      fake.base_url, "--dry-run", "--price-in", "1", "--price-out", "2", env=ENV)
        assert fake.seen == []
    assert res.exit_code == 0, res.output
    assert not out.exists()
    table = {line.split()[0]: line.split() for line in res.stdout.splitlines()
             if line.split() and line.split()[0] in ("sterlie", "anecdotes", "total")}
    # sterlie: 6 prompts x (he, she, baseline), one request each; anecdotes: 20 professions x 4
    # samples, 4 texts per request (the API's n, up to 10): 20 requests
    assert table["sterlie"][1:3] == ["18", "18"] and table["anecdotes"][1:3] == ["80", "20"]
    assert table["total"][1:3] == ["98", "38"]
    # anecdotes: the study's own dry run's tokens and cost; no batch carries it
    assert "about 20 requests" in own.stdout and f"{table['anecdotes'][3]} prompt tokens" in own.stdout
    assert f"estimated cost {table['anecdotes'][6]}" in own.stdout and table["anecdotes"][7:] == ["live", "only"]
    # sterlie at the batch price: half the live price
    assert float(table["sterlie"][7]) == pytest.approx(float(table["sterlie"][6]) / 2, abs=1e-4)
    assert "anecdotes: no batch (A generation study asks for several texts per request" in res.stdout
    assert "Nothing was asked (--dry-run)." in res.stdout


# -- batches: every study a batch can carry, the others live ---------------------------------------
def test_batch_goes_to_every_study_a_batch_can_carry_and_says_which_cannot(run_cli, tmp_path):
    from fake_batches import FakeBatches

    out = tmp_path / "s"
    with server() as live, FakeBatches(live, api_key=TEST_KEY) as batches:
        res = run_cli("suite", "--model", "fake-chat", "--base-url", batches.base_url, "--design", "quick",
                      "--studies", "sterlie,anecdotes", "--batch", "openai", "--poll-interval", "0", "--out", out,
                      env=ENV)
        assert res.exit_code == 0, res.output
        assert len(batches.created) == 1  # sterlie's one batch
    assert "--batch openai cannot carry anecdotes (A generation study asks for several texts" in res.stdout
    sterlie = json.loads((out / "sterlie" / "manifest.json").read_text())
    assert sterlie["batch"]["provider"] == "openai" and sterlie["counts"]["records"] == 18
    assert json.loads((out / "anecdotes" / "manifest.json").read_text()).get("batch") is None
    assert [e.state for e in read_suite(out).studies] == ["reported", "reported"]
