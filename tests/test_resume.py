"""Resume: a second run asks nothing already answered; a run killed with SIGKILL (even
mid-write) continues to one intact record per probe, asking again at most the
requests that were in flight at the kill."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

from conftest import REPO, TEST_KEY
from fake_openai import answer_words

from stereoprobe.studies.fillin.collect import run_collect
from stereoprobe.studies.fillin.catalog import load_catalog

MODEL = "fake-chat"


def lines(run_dir: Path) -> list[dict]:
    text = (run_dir / "completions.jsonl").read_text(encoding="utf-8")
    assert text == "" or text.endswith("\n")
    return [json.loads(line) for line in text.splitlines()]


def api(server, out, **kw):
    opts = dict(model=MODEL, base_url=server.base_url, out=out, max_retries=1, timeout=5.0)
    return run_collect(progress=False, **{**opts, **kw})


def test_second_run_asks_nothing(fake_openai, api_key, tmp_path):
    out = tmp_path / "run"
    first = api(fake_openai, out, categories=["religion"], format="question")
    assert (first.asked, first.skipped) == (30, 0)
    before = (out / "completions.jsonl").read_bytes()
    fake_openai.clear()

    again = api(fake_openai, out, categories=["religion"], format="question")
    assert (again.asked, again.skipped, again.totals["ok"]) == (0, 30, 30)
    assert fake_openai.seen == []
    assert (out / "completions.jsonl").read_bytes() == before
    m = json.loads((out / "manifest.json").read_text())
    assert [s["asked"] for s in m["sessions"]] == [30, 0]
    assert m["counts"]["records"] == 30


def test_a_larger_selection_asks_only_the_new_probes(fake_openai, api_key, tmp_path):
    out = tmp_path / "run"
    api(fake_openai, out, categories=["religion"], format="question", limit=10)
    asked_first = {s.message for s in fake_openai.asked()}
    fake_openai.clear()
    result = api(fake_openai, out, categories=["religion"], format="question")
    assert (result.asked, result.skipped) == (20, 10)
    asked_second = {s.message for s in fake_openai.asked()}
    assert len(asked_second) == 20 and not asked_first & asked_second
    assert len(lines(out)) == 30


def test_a_torn_last_line_is_dropped_and_its_probe_asked_again(fake_openai, api_key, tmp_path):
    out = tmp_path / "run"
    api(fake_openai, out, groups=["Sikhs"], limit=3)
    with (out / "completions.jsonl").open("ab") as f:
        f.write(b'{"probe_id": "b9b403320672", "sample": 0, "category": "reli')  # killed mid-write
    fake_openai.clear()
    result = api(fake_openai, out, groups=["Sikhs"])
    assert (result.asked, result.skipped) == (3, 3)
    recs = lines(out)
    assert len(recs) == 6 and len({r["probe_id"] for r in recs}) == 6


def _start_collect(server, out: Path, env: dict[str, str]) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "stereoprobe", "collect", "--model", MODEL, "--base-url", server.base_url,
         "--out", str(out), "--category", "religion", "--concurrency", "4", "--max-retries", "1", "-q"],
        cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )


def test_kill_9_mid_run_loses_at_most_the_requests_in_flight(fake_openai, tmp_path):
    # The server answers 40 requests and holds every later one for a minute, so the run is
    # killed in a known state, 40 answers stored and its 4 workers each waiting for one,
    # whatever the machine's load (killed after a time, a busy machine could let it finish).
    fake_openai.add_fault("delay", requests=set(range(41, 1000)), times=None, delay=60.0)
    out = tmp_path / "run"
    env = {**os.environ, "OPENAI_API_KEY": TEST_KEY, "PYTHONPATH": str(REPO)}
    proc = _start_collect(fake_openai, out, env)
    path = out / "completions.jsonl"
    deadline = time.monotonic() + 60  # a budget for a run that never gets there, not a wait
    while not (path.exists() and path.read_bytes().count(b"\n") == 40 and len(fake_openai.asked()) == 44):
        assert time.monotonic() < deadline and proc.poll() is None, "the run never reached 40 answers"
        time.sleep(0.02)
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=10)
    assert proc.returncode == -signal.SIGKILL

    stored = path.read_bytes()
    kept = stored[: stored.rfind(b"\n") + 1]
    done_at_kill = {json.loads(line)["prompt"] for line in kept.splitlines()}
    assert len(done_at_kill) == 40  # killed mid-run
    with path.open("ab") as f:
        f.write(b'{"probe_id": "fc96d9004ac6", "sample": 0, "cat')  # as if killed mid-write
    asked_before_kill = Counter(s.message for s in fake_openai.asked())
    in_flight = set(asked_before_kill) - done_at_kill  # asked, no answer stored
    assert len(in_flight) == 4  # --concurrency 4
    fake_openai.clear()
    proc = _start_collect(fake_openai, out, env)
    stdout, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 0, stderr.decode()
    assert b"Run " in stdout and b"60 ok, 0 refused, 0 unparseable, 0 failed." in stdout
    assert TEST_KEY.encode() not in stdout + stderr

    recs = lines(out)  # every line parses
    assert sorted(r["probe_id"] for r in recs) == sorted(p.probe_id for p in load_catalog().select(["religion"]))
    assert all(r["error"] is None and r["words"] == answer_words(r["prompt"]) for r in recs)
    asked_after = Counter(s.message for s in fake_openai.asked())
    assert max(asked_after.values()) == 1 and max(asked_before_kill.values()) == 1
    asked_twice = set(asked_after) & set(asked_before_kill)
    assert asked_twice <= in_flight  # only requests in flight at the kill were asked again
    assert not set(asked_after) & done_at_kill
    assert len(asked_after) == 60 - len(done_at_kill)
    assert json.loads((out / "manifest.json").read_text())["status"] == "complete"


def test_a_record_of_the_wrong_type_is_one_line_naming_it(tmp_path):
    import pytest

    from stereoprobe.errors import DataError
    from stereoprobe.store import read_completions

    good = {"probe_id": "p1", "sample": 0, "category": "age", "group": "old people", "template": "are_so",
            "format": "statement", "prompt": "old people are so", "words": ["wise"]}
    path = tmp_path / "completions.jsonl"
    path.write_text(json.dumps(good) + "\n" + json.dumps({**good, "sample": 1, "words": "notalist"}) + "\n")
    with pytest.raises(DataError) as info:
        read_completions(tmp_path)
    assert str(info.value) == (
        f"{path}, line 2: not a completion record (field 'words' has the wrong type (string)); "
        "fix or remove that line.")


def test_a_0_1_0_manifest_still_reads(tmp_path):
    import shutil

    from stereoprobe.manifest import read_manifest

    shutil.copy(Path(__file__).resolve().parent / "data" / "manifest-0.1.0-nextword.json", tmp_path / "manifest.json")  # as 0.1.0 wrote it
    m = read_manifest(tmp_path)
    assert (m.version, m.status, m.model, m.mode, m.endpoint) == (1, "complete", "gemma-3-270m-q4_k_m", "next-word", None)
    assert m.settings.backend == "local" and m.settings.samples == 1 and m.settings.options["n_ctx"] == 256
    assert m.catalog.template_family == "paper" and m.catalog.probes == 2292
    assert m.counts["ok"] == 114


def test_a_0_1_0_chat_manifest_maps_to_the_shared_key_names(tmp_path):
    from stereoprobe.manifest import read_manifest

    old = {"model": "gpt-x", "mode": "chat", "status": "complete", "instruction": "Ten words: {probe}",
           "settings": {"backend": "openai-chat", "model": "gpt-x", "endpoint": "https://api.example/v1/",
                        "parameters": {"temperature": 0.7, "max_tokens": 50, "top_p": 0.9},
                        "instruction": "Ten words: {probe}", "timeout_s": 30.0, "max_retries": 4, "samples": 1}}
    (tmp_path / "manifest.json").write_text(json.dumps(old))
    s = read_manifest(tmp_path).settings
    assert (s.endpoint, s.timeout, s.temperature, s.max_tokens, s.top_p) == ("https://api.example/v1/", 30.0, 0.7, 50, 0.9)
    assert s.options == {}
    nw = {"settings": {"backend": "openai-completions", "mode": "next-word", "model": "m",
                       "base_url": "http://127.0.0.1:1/v1", "timeout": 9.0, "top_n": 10}}
    (tmp_path / "manifest.json").write_text(json.dumps(nw))
    s = read_manifest(tmp_path).settings
    assert (s.endpoint, s.timeout, s.options) == ("http://127.0.0.1:1/v1", 9.0, {"top_n": 10})


def test_a_run_written_by_0_1_0_is_continued_not_refused(fake_openai, api_key, tmp_path):
    from stereoprobe.manifest import read_manifest

    out = tmp_path / "run"
    kw = dict(model="fake-chat", base_url=fake_openai.base_url, out=out, max_retries=1, timeout=5.0, progress=False)
    run_collect(groups=["Sikhs"], limit=3, **kw)
    m = json.loads((out / "manifest.json").read_text())
    s = m["settings"]  # rewrite it as 0.1.0 did: nested parameters, timeout_s, no version
    m["settings"] = {"backend": s["backend"], "model": s["model"], "endpoint": s["endpoint"],
                     "parameters": {k: s[k] for k in ("temperature", "max_tokens", "top_p")},
                     "instruction": s["instruction"], "timeout_s": 30.0, "max_retries": 4,
                     "mode": "chat", "samples": 1}
    for key in ("version", "parser_version"):
        m.pop(key)
    m["catalog"] = {k: m["catalog"][k] for k in ("path", "sha256", "probes")}
    (out / "manifest.json").write_text(json.dumps(m))
    fake_openai.clear()
    result = run_collect(groups=["Sikhs"], **kw)
    assert (result.skipped, result.asked) == (3, 3)
    after = read_manifest(out)
    assert after.version == 2 and after.settings.timeout == 5.0 and after.catalog.template_family == "paper"
    assert len(after.sessions) == 2 and after.counts["ok"] == 6


def test_a_run_continued_keeps_the_parser_version_its_records_were_read_with(fake_openai, api_key, tmp_path):
    """Records are parsed when they are collected: a run begun under an earlier parser and
    continued under this one holds both readings, so its manifest keeps the earlier version
    (what `reparse` then brings up to date), never this one's alone."""
    from stereoprobe.cli import cli
    from click.testing import CliRunner

    out = tmp_path / "run"
    kw = dict(model="fake-chat", base_url=fake_openai.base_url, out=out, max_retries=1, timeout=5.0, progress=False)
    run_collect(groups=["Sikhs"], limit=3, **kw)
    path = out / "manifest.json"
    current = json.loads(path.read_text())["parser_version"]
    path.write_text(json.dumps({**json.loads(path.read_text()), "parser_version": "0"}))
    assert run_collect(groups=["Sikhs"], **kw).asked == 3
    assert json.loads(path.read_text())["parser_version"] == "0"
    assert CliRunner().invoke(cli, ["reparse", str(out)]).exit_code == 0
    assert json.loads(path.read_text())["parser_version"] == current != "0"
