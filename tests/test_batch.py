"""Batch collect (docs/batch.md): every study through OpenAI's and Anthropic's batch APIs
(tests/fake_batches.py, answering with the live fake server's rule) gives the records of a
live run, probe by probe; --batch-file lines are OpenAI's documented batch input; vLLM's
output format is ingested; bad results files, faults, Ctrl-C and kill -9."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import AS_FROM_A_TERMINAL, TEST_KEY
from fake_batches import FakeBatches
from fake_openai import FakeOpenAI
from fake_scoring import ScoringModel

from stereoprobe.cli import cli

ENV = {"OPENAI_API_KEY": TEST_KEY, "ANTHROPIC_API_KEY": TEST_KEY}
JOBS_TOY = dict(first_tokens=[("She", .5), ("He", .3), ("They", .1), ("Sarah", .05)], replies=["She"])
STUDIES = {  # study -> (its selection, how the live fake answers it)
    "fill-in": (["--limit", "8"], {"refuse_marker": "children are always", "refusal_field": True}),
    "jobs": (["--study", "jobs", "--job", "nurse", "--job", "plumber", "--setting", "without dialogue"], {}),
    "coreference": (["--study", "coreference", "--job", "nurse", "--job", "pilot", "--job", "secretary"],
                    {"coreference_bias": 0.5}),
    "coreference-sterlie": (["--study", "coreference", "--templates", "sterlie"], {"coreference_bias": 0.4}),
}


def run(*args, env=ENV):
    return CliRunner().invoke(cli, [str(a) for a in args], env=env)


def records(out: Path) -> dict[tuple[str, int], dict]:
    rows = [json.loads(x) for x in (out / "completions.jsonl").read_text().splitlines()]
    by_key = {(r["probe_id"], r["sample"]): r for r in rows}
    assert len(by_key) == len(rows), "a key stored twice"
    return by_key


def without_time(rows: dict) -> dict:
    return {k: {f: v for f, v in r.items() if f != "latency_s"} for k, r in rows.items()}


def manifest(out: Path) -> dict:
    return json.loads((out / "manifest.json").read_text())


@pytest.fixture
def fakes():
    with FakeOpenAI(api_key=TEST_KEY) as live, FakeBatches(live, api_key=TEST_KEY) as batches:
        yield live, batches


def configure(live: FakeOpenAI, study: str, provider: str = "openai") -> list[str]:
    select, answers = STUDIES[study]
    for name, value in answers.items():
        setattr(live, name, value)
    extra = []
    if study == "jobs":
        live.scoring = ScoringModel(**JOBS_TOY)
        if provider == "anthropic":  # no logprobs there: the sampled estimate
            extra = ["--samples", "2", "--temperature", "1"]
    return [*select, *extra]


# -- every study through both providers equals a live run -------------------------------------
@pytest.mark.parametrize("provider", ["openai", "anthropic"])
@pytest.mark.parametrize("study", list(STUDIES))
def test_every_study_through_a_provider_batch_gives_the_live_records(fakes, tmp_path, study, provider):
    live, batches = fakes
    select = configure(live, study, provider)
    res = run("collect", "--model", "fake-chat", "--base-url", live.base_url, "--out", tmp_path / "live", "-q", *select)
    assert res.exit_code == 0, res.output
    live.__dict__.pop("sterlie_counts", None)  # Sterlie's prompts: the n-th request of a prompt, counted anew
    batches.in_progress_polls = 1  # every batch is still in progress at its first poll
    url = batches.base_url if provider == "openai" else batches.anthropic_url
    res = run("collect", "--model", "fake-chat", "--base-url", url, "--batch", provider, "--poll-interval", "0",
              "--batch-limit", "10", "--out", tmp_path / "batch", "-q", *select)
    assert res.exit_code == 0, res.output
    want, got = records(tmp_path / "live"), records(tmp_path / "batch")
    assert got.keys() == want.keys()
    assert without_time(got) == without_time(want)  # probe by probe, every field but the time taken
    statuses = {r["status"] if "status" in r else None for r in got.values()}
    assert statuses and sum(r["error"] is None for r in got.values()) == len(got)
    n = len(want)
    assert len(batches.created) == -(-n // 10)  # split at --batch-limit 10
    assert batches.polls >= 2 * len(batches.created)  # each polled in progress, then ended
    state = manifest(tmp_path / "batch")
    assert state["status"] == "complete" and [b["id"] for b in state["batch"]["batches"]] == batches.created
    if study == "fill-in":
        assert sum(r["refused"] for r in got.values()) == 1  # the refusal, through either provider


LOGPROB = {  # --mode next-word: several independent completions requests per probe, echoed logprobs
    "jobs": (["--study", "jobs", "--job", "nurse", "--setting", "without dialogue", "--prompt", "1", "--prompt", "2",
              "--prompt", "once"],
             dict(probability={" He": .02, " She": .06, " They": .02, " Non": .1, "-": .5, "binary": .8},
                  next_tokens=[(" Sarah", .3), (" the", .2), (" John", .1)])),
    "coreference": (["--study", "coreference", "--job", "nurse", "--job", "pilot", "--prompt", "late"],
                    dict(probability={" The": 0.5, " nurse": 0.3, " pilot": 0.1})),
}


@pytest.mark.parametrize("study", list(LOGPROB))
def test_logprob_modes_through_a_batch_file_and_openai_give_the_live_records(fakes, tmp_path, study):
    live, batches = fakes
    select, toy = LOGPROB[study]
    live.scoring = ScoringModel(**toy)
    argv = ["--model", "fake-chat", "--mode", "next-word", "-q", *select]
    assert run("collect", *argv, "--base-url", live.base_url, "--out", tmp_path / "live").exit_code == 0
    sent = sorted(json.dumps(x.body, sort_keys=True) for x in live.seen)
    want = without_time(records(tmp_path / "live"))
    res = run("collect", *argv, "--base-url", batches.base_url, "--batch", "openai", "--poll-interval", "0",
              "--batch-limit", "7", "--out", tmp_path / "batch")
    assert res.exit_code == 0, res.output
    assert without_time(records(tmp_path / "batch")) == want
    requests = tmp_path / "requests.jsonl"
    assert run("collect", *argv, "--base-url", live.base_url, "--batch-file", requests,
               "--out", tmp_path / "file").exit_code == 0
    lines = check_openai_batch_input(requests)
    assert sorted(json.dumps(x["body"], sort_keys=True) for x in lines) == sent  # the very requests sent live
    assert len(lines) > len(want) and {x["url"] for x in lines} == {"/v1/completions"}
    vllm_results(live, requests, tmp_path / "results.jsonl")
    every = (tmp_path / "results.jsonl").read_text().splitlines()
    ids = [json.loads(x)["custom_id"] for x in every]
    several = next(i for i in ids if i.endswith("-0") and i[:-2] + "-1" in ids)
    (tmp_path / "part.jsonl").write_text(every[ids.index(several)] + "\n")  # one probe's first request of several
    res = run("ingest", tmp_path / "file", tmp_path / "part.jsonl", "-q")
    assert res.exit_code == 0 and "1 probe has results for only some of its requests" in res.output, res.output
    assert (tmp_path / "file" / "completions.jsonl").read_text() == ""
    assert run("ingest", tmp_path / "file", tmp_path / "results.jsonl", "-q").exit_code == 0
    assert without_time(records(tmp_path / "file")) == want
    res = run("collect", *argv, "--base-url", batches.anthropic_url, "--batch", "anthropic", "--out", tmp_path / "a")
    assert res.exit_code == 2 and "not the completions with echoed logprobs" in res.output


# -- --batch-file: OpenAI's documented input, the live request's body ----------------------------
OPENAI_URLS = {"/v1/responses", "/v1/chat/completions", "/v1/embeddings", "/v1/completions", "/v1/moderations"}


def check_openai_batch_input(path: Path) -> list[dict]:
    """OpenAI's batch input file, as the Batch API guide and API reference document it:
    JSONL, each line an object of exactly custom_id (a string, unique in the file), method
    ("POST"), url (an endpoint the Batch API serves) and body (that endpoint's request
    object); one model in a file; at most 50,000 requests and 200 MB."""
    assert path.stat().st_size <= 200 * 1024 * 1024
    lines = path.read_text(encoding="utf-8").splitlines()
    assert 0 < len(lines) <= 50_000
    seen, models, out = set(), set(), []
    for number, text in enumerate(lines, 1):
        obj = json.loads(text)
        assert isinstance(obj, dict) and set(obj) == {"custom_id", "method", "url", "body"}, number
        assert isinstance(obj["custom_id"], str) and obj["custom_id"] and obj["custom_id"] not in seen, number
        seen.add(obj["custom_id"])
        assert obj["method"] == "POST" and obj["url"] in OPENAI_URLS, number
        body = obj["body"]
        assert isinstance(body, dict) and isinstance(body.get("model"), str), number
        models.add(body["model"])
        if obj["url"] == "/v1/chat/completions":
            assert isinstance(body["messages"], list) and body["messages"], number
            assert all(m.get("role") in {"system", "user", "assistant", "developer"} and isinstance(m.get("content"), str)
                       for m in body["messages"]), number
        out.append(obj)
    assert len(models) == 1
    return out


@pytest.mark.parametrize("study", list(STUDIES))
def test_a_batch_file_is_openai_batch_input_with_the_live_bodies(fakes, tmp_path, study):
    live, _ = fakes
    select = configure(live, study)
    res = run("collect", "--model", "fake-chat", "--base-url", live.base_url, "--out", tmp_path / "live", "-q", *select)
    assert res.exit_code == 0, res.output
    sent = [s.body for s in live.seen]
    path = tmp_path / "requests.jsonl"
    res = run("collect", "--model", "fake-chat", "--base-url", live.base_url, "--batch-file", path,
              "--out", tmp_path / "run", *select, env={})  # no key needed to write a file
    assert res.exit_code == 0, res.output
    lines = check_openai_batch_input(path)
    assert len(live.seen) == len(sent)  # nothing was asked
    assert sorted(f"{k[0]}-{k[1]}" for k in records(tmp_path / "live")) == sorted(x["custom_id"] for x in lines)
    bodies = sorted(json.dumps(b, sort_keys=True) for b in sent)
    assert sorted(json.dumps(x["body"], sort_keys=True) for x in lines) == bodies  # the very bodies sent live
    state = manifest(tmp_path / "run")
    assert state["status"] == "stopped" and state["batch"]["files"][0]["requests"] == len(lines)


def vllm_results(live: FakeOpenAI, requests: Path, out: Path, fail: str | None = None) -> None:
    """What `vllm run-batch -i requests -o out` writes (vllm/entrypoints/openai/run_batch.py:
    BatchRequestOutput: id, custom_id, response {status_code, request_id, body}, error),
    each request answered by the live fake server; ``fail``: a custom_id vLLM errors on."""
    import urllib.request

    lines = []
    for n, text in enumerate(requests.read_text().splitlines()):
        line = json.loads(text)
        if line["custom_id"] == fail:
            lines.append({"id": f"vllm-{n}", "custom_id": fail, "error": "prompt is too long",
                          "response": {"status_code": 400, "request_id": f"vllm-batch-{n}", "body": None}})
            continue
        request = urllib.request.Request(live.base_url.removesuffix("/v1") + line["url"],
                                         data=json.dumps(line["body"]).encode(),
                                         headers={"Authorization": f"Bearer {TEST_KEY}", "Content-Type": "application/json"})
        with urllib.request.urlopen(request) as reply:
            body = json.loads(reply.read())
        lines.append({"id": f"vllm-{n}", "custom_id": line["custom_id"], "error": None,
                      "response": {"status_code": 200, "request_id": f"vllm-batch-{n}", "body": body}})
    out.write_text("".join(json.dumps(x) + "\n" for x in reversed(lines)))  # in another order than asked


def test_a_vllm_results_file_is_ingested_and_retry_failed_writes_the_failures_again(fakes, tmp_path):
    live, _ = fakes
    select = configure(live, "coreference")
    base = ["collect", "--model", "fake-chat", "--base-url", live.base_url, *select]
    assert run(*base, "--out", tmp_path / "live", "-q").exit_code == 0
    run_dir, requests, results = tmp_path / "run", tmp_path / "requests.jsonl", tmp_path / "results.jsonl"
    assert run(*base, "--batch-file", requests, "--out", run_dir).exit_code == 0
    failing = json.loads(requests.read_text().splitlines()[3])["custom_id"]
    vllm_results(live, requests, results, fail=failing)
    res = run("ingest", run_dir, results, "-q")
    assert res.exit_code == 0, res.output
    got, want = records(run_dir), records(tmp_path / "live")
    key = (failing.rsplit("-", 1)[0], 0)
    assert got[key]["error"] == "batch: prompt is too long"
    del got[key], want[key]
    assert without_time(got) == without_time(want)
    assert manifest(run_dir)["status"] == "complete" and manifest(run_dir)["counts"]["failed"] == 1
    again = tmp_path / "again.jsonl"
    res = run(*base, "--batch-file", again, "--out", run_dir, "--retry-failed")
    assert res.exit_code == 0, res.output
    assert [x["custom_id"] for x in check_openai_batch_input(again)] == [failing]
    vllm_results(live, again, tmp_path / "again-results.jsonl")
    assert run("ingest", run_dir, tmp_path / "again-results.jsonl", "-q").exit_code == 0
    assert manifest(run_dir)["counts"]["failed"] == 0 and len(records(run_dir)) == len(records(tmp_path / "live"))


@pytest.mark.parametrize("damage, needle", [
    (lambda lines: lines[:2] + [lines[1]] + lines[3:], "line 3: custom_id '{1}' again (first on line 2)"),
    (lambda lines: lines[:1] + [lines[1].replace('"custom_id": "', '"custom_id": "f00')] + lines[2:],
     "line 2: custom_id 'f00{1}' is not a request of this run"),
    (lambda lines: lines[:4] + [lines[4].replace('"model": "fake-chat"', '"model": "other-model"', 1)] + lines[5:],
     "line 5: a reply of model 'other-model', but this run asks 'fake-chat'"),
    (lambda lines: lines[:5] + ["{not json"] + lines[6:], "line 6: not JSON"),
])
def test_a_bad_results_line_is_one_line_with_its_number_and_nothing_stored_changes(fakes, tmp_path, damage, needle):
    live, _ = fakes
    select = configure(live, "coreference")
    run_dir, requests, results = tmp_path / "run", tmp_path / "requests.jsonl", tmp_path / "results.jsonl"
    assert run("collect", "--model", "fake-chat", "--base-url", live.base_url, "--batch-file", requests,
               "--out", run_dir, *select).exit_code == 0
    vllm_results(live, requests, results)
    good = results.read_text().splitlines()
    results.write_text("\n".join(good[:3]) + "\n")
    assert run("ingest", run_dir, results, "-q").exit_code == 0  # three answers stored
    stored = lambda: {p.name: p.read_bytes() for p in run_dir.iterdir() if p.is_file() and p.name != ".lock"}  # noqa: E731
    before = stored()
    ids = [json.loads(x)["custom_id"] for x in good]
    results.write_text("\n".join(damage(good)) + "\n")
    res = run("ingest", run_dir, results, "-q")
    lines = res.output.strip().splitlines()
    assert res.exit_code == 2 and len(lines) == 1, res.output
    assert needle.format(*ids) in lines[0] and "(nothing was stored)" in lines[0]
    assert stored() == before


# -- faults ---------------------------------------------------------------------------------
FAILURES = {"openai": ("batch: batch_expired: This request could not be executed before the completion window "
                        "expired.", "batch: HTTP 500: The server had an error."),
            "anthropic": ("batch: expired: the request expired before it was processed",
                          "batch: api_error: The server had an error.")}


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_errored_and_expired_requests_are_failures_and_retry_failed_submits_only_them(fakes, tmp_path, provider):
    live, batches = fakes
    select = configure(live, "coreference")
    requests = tmp_path / "requests.jsonl"
    url = batches.base_url if provider == "openai" else batches.anthropic_url
    base = ["collect", "--model", "fake-chat", "--base-url", url, "--out", tmp_path / "run", "-q",
            "--poll-interval", "0", *select]
    assert run(*base[:-len(select) - 2], "--batch-file", requests, *select).exit_code == 0  # to know the ids
    ids = [json.loads(x)["custom_id"] for x in requests.read_text().splitlines()]
    (tmp_path / "run").rename(tmp_path / "file-run")
    batches.errored, batches.expire, batches.expire_after = {ids[0], ids[5]}, True, 30  # 30 answered, then expired
    res = run(*base, "--batch", provider)
    assert res.exit_code == 0, res.output
    rows = records(tmp_path / "run")
    failed = sorted(f"{k[0]}-{k[1]}" for k, r in rows.items() if r["error"])
    assert failed == sorted({ids[0], ids[5], *ids[30:]})
    expired, errored = FAILURES[provider]
    assert all(rows[(i.rsplit("-", 1)[0], 0)]["error"] == expired for i in ids[30:])
    assert rows[(ids[0].rsplit("-", 1)[0], 0)]["error"] == errored
    assert "--retry-failed" in res.output
    batches.errored, batches.expire = set(), False
    res = run(*base, "--batch", provider)  # the same command: nothing new to ask, nothing resubmitted
    assert res.exit_code == 0 and len(batches.created) == 1, res.output
    res = run(*base, "--batch", provider, "--retry-failed")
    assert res.exit_code == 0, res.output
    assert sorted(batches.requests_of(batches.created[-1])) == failed
    assert all(r["error"] is None for r in records(tmp_path / "run").values())
    assert manifest(tmp_path / "run")["status"] == "complete"


def test_a_batch_runs_failures_can_be_asked_again_live(fakes, tmp_path):
    live, batches = fakes
    select = configure(live, "coreference")
    base = ["collect", "--model", "fake-chat", "--base-url", batches.base_url, "--out", tmp_path / "run", "-q", *select]
    batches.expire, batches.expire_after = True, 80
    assert run(*base, "--batch", "openai", "--poll-interval", "0").exit_code == 0
    assert sum(r["error"] is not None for r in records(tmp_path / "run").values()) == 4
    asked = len(live.seen)
    res = run(*base, "--retry-failed")  # live, at the same endpoint
    assert res.exit_code == 0 and "Asked 4 (4 ok" in res.output, res.output
    assert len(live.seen) == asked + 4 and len(batches.created) == 1
    assert all(r["error"] is None for r in records(tmp_path / "run").values())


def test_a_failed_upload_is_one_line_and_the_same_command_submits(fakes, tmp_path):
    live, batches = fakes
    select = configure(live, "coreference")
    argv = ["collect", "--model", "fake-chat", "--base-url", batches.base_url, "--batch", "openai", "--max-retries",
            "0", "--poll-interval", "0", "--out", tmp_path / "run", "-q", *select]
    batches.fail_uploads = 1
    res = run(*argv)
    lines = res.output.strip().splitlines()
    assert res.exit_code == 2 and len(lines) == 1 and "could not upload the requests (HTTP 500" in lines[0], res.output
    assert batches.created == [] and not manifest(tmp_path / "run")["batch"].get("batches")
    res = run(*argv)
    assert res.exit_code == 0 and len(batches.created) == 1, res.output
    assert manifest(tmp_path / "run")["status"] == "complete"


# -- Ctrl-C, cancel, kill -9: a subprocess polling the fake ---------------------------------------
def wait_for(condition, process, what: str) -> None:
    """Wait for a state (120 s bound a run that never gets there)."""
    deadline = time.monotonic() + 120
    while not condition():
        assert process.poll() is None and time.monotonic() < deadline, f"the run ended before {what}"
        time.sleep(0.02)


def polling(tmp_path: Path, batches: FakeBatches, *extra: str, provider: str = "openai") -> tuple[list[str], dict]:
    url = batches.base_url if provider == "openai" else batches.anthropic_url
    argv = [sys.executable, "-m", "stereoprobe", "collect", "--model", "fake-chat", "--base-url", url,
            "--batch", provider, "--poll-interval", "0.01", "--batch-limit", "25", "--out", str(tmp_path / "run"),
            "-q", *STUDIES["coreference"][0], *extra]
    return argv, {**os.environ, **ENV}


@pytest.mark.parametrize("provider, cancelling, why", [
    ("openai", "cancelling", "batch: the batch cancelled before this request ran"),
    ("anthropic", "canceling", "batch: canceled: the batch was cancelled before this request ran"),
])
def test_ctrl_c_stops_polling_not_the_batch_and_batch_cancel_cancels(fakes, tmp_path, provider, cancelling, why):
    live, batches = fakes
    configure(live, "coreference")
    batches.hold = True
    argv, env = polling(tmp_path, batches, provider=provider)
    first = subprocess.Popen([sys.executable, "-c", AS_FROM_A_TERMINAL, *argv[3:]], env=env, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)  # a Ctrl-C it can hear, however the suite was started
    wait_for(lambda: len(batches.created) == 4 and batches.polls >= 8, first, "polling")
    first.send_signal(signal.SIGINT)
    _, err = first.communicate(timeout=60)
    assert first.returncode == 130 and "Run the same command again" in err, err
    assert {batches.batches[b]["status"] for b in batches.created} == {"in_progress"}  # the batches go on
    assert [b["id"] for b in manifest(tmp_path / "run")["batch"]["batches"]] == batches.created
    res = run("batch", "cancel", tmp_path / "run")
    assert res.exit_code == 0 and res.output.count(f": {cancelling}.") == 4, res.output
    res = run(*argv[3:])  # the same command: stores the cancelled batches' requests as failures
    assert res.exit_code == 0, res.output
    rows = records(tmp_path / "run")
    assert len(rows) == 84 and all(r["error"] == why for r in rows.values())
    batches.release()
    res = run(*argv[3:], "--retry-failed")
    assert res.exit_code == 0 and len(batches.created) == 8, res.output
    assert all(r["error"] is None for r in records(tmp_path / "run").values())


def test_kill_9_while_polling_then_the_same_command_stores_every_answer_once(fakes, tmp_path):
    live, batches = fakes
    configure(live, "coreference")
    batches.hold = {"batch_2", "batch_3"}  # the first batch ends; the others are polled
    argv, env = polling(tmp_path, batches)
    first = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    path = tmp_path / "run" / "completions.jsonl"
    wait_for(lambda: path.is_file() and path.read_text().count("\n") >= 25
             and batches.batches["batch_3"]["polls"] >= 3, first, "the kill")
    first.send_signal(signal.SIGKILL)
    first.wait()
    batches.release()
    done = subprocess.run(argv, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert len(batches.created) == 4  # nothing submitted twice
    lines = path.read_text().splitlines()
    assert len(lines) == len({(json.loads(x)["probe_id"], json.loads(x)["sample"]) for x in lines}) == 84
    assert all(json.loads(x)["error"] is None for x in lines)
    assert manifest(tmp_path / "run")["status"] == "complete"


# -- dry run and refusals --------------------------------------------------------------------
def test_dry_run_prints_requests_batches_tokens_and_the_batch_price(tmp_path):
    from stereoprobe.studies import get_study

    select = STUDIES["coreference"][0]
    probes = get_study("coreference").list_probes({"job": ["nurse", "pilot", "secretary"]})
    prompt = sum(-(-len(p.text) // 4) + 7 for p in probes)
    res = run("collect", "--model", "fake-chat", "--batch", "openai", "--dry-run", "--batch-limit", "25",
              "--price-in", "1", "--price-out", "2", "--out", tmp_path / "run", *select, env={})
    assert res.exit_code == 0, res.output
    assert len(probes) == 84  # nurse and secretary with pilot, both roles: 4 pairs x 7 scenes x 3 pronouns
    cost = (prompt * 1 + 84 * 300 * 2) / 1e6 / 2
    assert ("84 requests in 4 openai batches (at most 25 requests and 200 MB each" in res.output
            and f"about {prompt:,} prompt tokens, at most 25,200 completion tokens" in res.output
            and f"at most {cost:.4f} at the batch price" in res.output), res.output
    assert not (tmp_path / "run").exists()


@pytest.mark.parametrize("argv, needle", [
    (["--model", "m", "--base-url", "http://127.0.0.1:9/v1", "--mode", "next-word", "--limit", "2"],
     "Remote next-word mode walks each probe in dependent requests"),
    (["--study", "coreference", "--job", "nurse", "--job", "pilot"], "the embedded model and --model-file run"),
    (["--model", "claude-x", "--limit", "2", "--batch", "anthropic"], "No API key for the anthropic batch API: set "
     "ANTHROPIC_API_KEY"),
    (["--study", "jobs", "--job", "nurse", "--model", "m", "--batch", "anthropic"], "Anthropic's API returns no "
     "log-probabilities, which the first-token estimate reads"),
])
def test_what_a_batch_cannot_carry_is_refused_in_one_line_before_anything_is_made(tmp_path, argv, needle):
    batch = [] if "--batch" in argv else ["--batch-file", tmp_path / "r.jsonl"]
    res = run("collect", *argv, *batch, "--out", tmp_path / "run", env={"OPENAI_API_KEY": None, "ANTHROPIC_API_KEY": None})
    lines = res.output.strip().splitlines()
    assert res.exit_code == 2 and len(lines) == 1 and needle in lines[0], res.output
    assert not (tmp_path / "r.jsonl").exists() and not (tmp_path / "run").exists()


def test_ingest_refuses_a_live_run_and_an_existing_request_file(fakes, tmp_path):
    live, _ = fakes
    select = configure(live, "coreference")
    base = ["collect", "--model", "fake-chat", "--base-url", live.base_url, "--out", tmp_path / "run", *select]
    assert run(*base, "-q").exit_code == 0
    (tmp_path / "r.jsonl").write_text("{}\n")
    res = run("ingest", tmp_path / "run", tmp_path / "r.jsonl")
    assert res.exit_code == 2 and "holds no batch run (it was collected live)" in res.output
    res = run(*base, "--batch-file", tmp_path / "r.jsonl", "--out", tmp_path / "other")
    assert res.exit_code == 2 and "exists; give --batch-file a new path" in res.output
    assert (tmp_path / "r.jsonl").read_text() == "{}\n"
