"""Batch files by hand (docs/batch.md, recipe 3): `collect --batch-file` needs no server,
and a results file is a few lines written here, so each case reads as a user meets it:
what ingest says, what it stores, what it refuses."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from stereoprobe.cli import cli

NOWHERE = "http://127.0.0.1:9/v1"  # --batch-file asks nothing: no server behind it


def run(*args):
    return CliRunner().invoke(cli, [str(a) for a in args], env={"OPENAI_API_KEY": None})


def file_run(tmp_path: Path, *select: str, limit: int = 3) -> tuple[Path, Path, list[str]]:
    """A fill-in run whose requests were written to a file: (run dir, request file, custom_ids)."""
    run_dir, requests = tmp_path / "run", tmp_path / "requests.jsonl"
    res = run("collect", "--model", "fake-chat", "--base-url", NOWHERE, "--limit", limit, *select,
              "--batch-file", requests, "--out", run_dir)
    assert res.exit_code == 0, res.output
    return run_dir, requests, [json.loads(x)["custom_id"] for x in requests.read_text().splitlines()]


def answer(cid: str, text: str = "1. lazy\n2. old") -> str:
    """An OpenAI-format output line: a chat completion of fake-chat."""
    body = {"id": "chatcmpl-1", "object": "chat.completion", "created": 0, "model": "fake-chat",
            "choices": [{"index": 0, "finish_reason": "stop", "logprobs": None,
                         "message": {"role": "assistant", "content": text}}]}
    return json.dumps({"id": "r", "custom_id": cid, "response": {"status_code": 200, "body": body},
                       "error": None}) + "\n"


def failure(cid: str) -> str:
    return json.dumps({"id": "r", "custom_id": cid, "response": {"status_code": 400, "body": None},
                       "error": "prompt is too long"}) + "\n"


def stored(run_dir: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in run_dir.iterdir() if p.is_file() and p.name != ".lock"}


def test_the_request_file_given_to_ingest_is_refused_and_nothing_is_stored(tmp_path):
    run_dir, requests, _ = file_run(tmp_path)
    before = stored(run_dir)
    res = run("ingest", run_dir, requests, "-q")
    lines = res.output.strip().splitlines()
    assert res.exit_code == 2 and len(lines) == 1, res.output
    assert "line 1: a request line (custom_id, method, url, body), not a result" in lines[0]
    assert "(nothing was stored)" in lines[0]
    assert stored(run_dir) == before


def test_an_empty_results_file_is_refused_and_nothing_is_stored(tmp_path):
    run_dir, _, _ = file_run(tmp_path)
    before = stored(run_dir)
    (tmp_path / "results.jsonl").write_text("\n")
    res = run("ingest", run_dir, tmp_path / "results.jsonl", "-q")
    lines = res.output.strip().splitlines()
    assert res.exit_code == 2 and len(lines) == 1, res.output
    assert "results.jsonl holds no results" in lines[0] and "(nothing was stored)" in lines[0]
    assert stored(run_dir) == before


def test_after_ingest_the_next_step_is_an_ingest_or_a_request_file_not_the_same_command(tmp_path):
    run_dir, _, ids = file_run(tmp_path)
    results = tmp_path / "results.jsonl"
    results.write_text(answer(ids[0]) + failure(ids[1]))  # the third probe's result is not there
    res = run("ingest", run_dir, results, "-q")
    assert res.exit_code == 0, res.output
    assert "repeat the same command" not in res.output and "sentiment" not in res.output  # not complete
    assert (f"Next: `stereoprobe ingest {run_dir} MORE.jsonl` with the results of the 1 probe not answered yet, or "
            "the collect command that wrote the requests, with --retry-failed --batch-file NEW.jsonl, writes them "
            "and the 1 failed probe again.") in res.output
    results.write_text(answer(ids[2]))
    res = run("ingest", run_dir, results, "-q")
    assert res.exit_code == 0, res.output
    assert ("Next: the collect command that wrote the requests, with --retry-failed --batch-file NEW.jsonl, writes "
            f"the 1 failed probe again (then ingest its results), or `stereoprobe sentiment {run_dir}` scores the "
            "run without it.") in res.output
    results.write_text(answer(ids[1]))
    res = run("ingest", run_dir, results, "-q")
    assert res.exit_code == 0 and res.output.strip().endswith(f"Next: `stereoprobe sentiment {run_dir}`."), res.output


def test_a_probe_of_several_requests_is_stored_from_one_file_that_has_them_all(tmp_path):
    select = ("--study", "coreference", "--job", "nurse", "--job", "pilot", "--prompt", "late", "--mode", "next-word")
    run_dir, _, ids = file_run(tmp_path, *select, limit=1)
    assert ids == [ids[0][:-2] + "-0", ids[0][:-2] + "-1"]  # one probe, two continuations scored
    first, rest, both = tmp_path / "first.jsonl", tmp_path / "rest.jsonl", tmp_path / "both.jsonl"
    first.write_text(failure(ids[0]))
    rest.write_text(failure(ids[1]))
    both.write_text(failure(ids[0]) + failure(ids[1]))
    res = run("ingest", run_dir, first, "-q")
    assert res.exit_code == 0, res.output
    assert ("1 probe has results for only some of its requests; it is not stored: give all of a probe's results "
            "in one file (join the files: cat A.jsonl B.jsonl > ALL.jsonl).") in res.output
    assert run("ingest", run_dir, rest, "-q").exit_code == 0
    assert (run_dir / "completions.jsonl").read_text() == ""  # the rest alone is as incomplete
    assert run("ingest", run_dir, both, "-q").exit_code == 0
    assert len((run_dir / "completions.jsonl").read_text().splitlines()) == 1


def test_a_run_begun_with_a_relative_file_is_ingested_from_another_folder(tmp_path, monkeypatch):
    project = tmp_path / "project"
    project.mkdir()
    (project / "pairs.csv").write_text("profession_a,profession_b\nnurse,pilot\n")
    monkeypatch.chdir(project)
    res = run("collect", "--study", "coreference", "--model", "fake-chat", "--base-url", NOWHERE, "--pairs-file",
              "pairs.csv", "--prompt", "late", "--batch-file", "requests.jsonl", "--out", "runs/p")
    assert res.exit_code == 0, res.output
    ids = [json.loads(x)["custom_id"] for x in (project / "requests.jsonl").read_text().splitlines()]
    (project / "results.jsonl").write_text("".join(answer(i, "The nurse was late.") for i in ids))
    monkeypatch.chdir(tmp_path)
    res = run("ingest", project / "runs" / "p", project / "results.jsonl", "-q")
    assert res.exit_code == 0, res.output
    assert f"Stored {len(ids)} answers ({len(ids)} ok" in res.output


def test_one_request_one_result_one_answer_are_singular(tmp_path):
    run_dir, requests, ids = file_run(tmp_path, limit=1)
    res = run("collect", "--model", "fake-chat", "--base-url", NOWHERE, "--limit", 2, "--batch-file",
              tmp_path / "more.jsonl", "--out", run_dir)
    assert res.exit_code == 0 and "Wrote 2 requests to" in res.output, res.output
    (tmp_path / "results.jsonl").write_text(answer(ids[0]))
    res = run("ingest", run_dir, tmp_path / "results.jsonl", "-q")
    assert res.exit_code == 0, res.output
    assert f"Read 1 result from {tmp_path / 'results.jsonl'}." in res.output
    assert "Stored 1 answer (1 ok, 0 refused, 0 unparseable, 0 failed); 0 already stored." in res.output
    res = run("collect", "--model", "fake-chat", "--base-url", NOWHERE, "--limit", 1, "--batch", "openai",
              "--dry-run", "--out", tmp_path / "dry")
    assert res.exit_code == 0 and "1 request in 1 openai batch (at most" in res.output, res.output
    fresh = tmp_path / "fresh.jsonl"
    res = run("collect", "--model", "fake-chat", "--base-url", NOWHERE, "--limit", 1, "--batch-file", fresh,
              "--out", tmp_path / "one")
    assert res.exit_code == 0 and f"Wrote 1 request to {fresh} (" in res.output, res.output


def test_a_recorded_file_since_deleted_is_named_as_the_run_was_begun(tmp_path):
    """Ingest replays the collect options the run recorded: a --instruction-file deleted since read
    "Invalid value for '--instruction-file' ... (see `stereoprobe ingest --help`)", an option ingest
    does not have."""
    instruction = tmp_path / "instruction.txt"
    instruction.write_text("Give ten words that fill the blank, one per line.", encoding="utf-8")
    run_dir, _, ids = file_run(tmp_path, "--instruction-file", str(instruction))
    (tmp_path / "results.jsonl").write_text("".join(answer(i) for i in ids))
    instruction.unlink()
    res = run("ingest", run_dir, tmp_path / "results.jsonl", "-q")
    assert res.exit_code == 2 and res.output.strip().splitlines() == [
        f"Error: {run_dir} was begun with --instruction-file {instruction}: File '{instruction}' does not exist. "
        "Restore it, then run this command again."], res.output
    assert (run_dir / "completions.jsonl").read_text() == ""


def test_results_of_a_request_file_written_before_one_with_other_probes_are_still_stored(tmp_path):
    """A later `collect --batch-file` with other probes (here another --category) records its own
    options; the first file's results were refused as "not a request of this run" (a paid batch
    that could not be stored). The run's status and next step are those of all its requests."""
    run_dir, _, gender = file_run(tmp_path, "--category", "gender", limit=2)
    res = run("collect", "--model", "fake-chat", "--base-url", NOWHERE, "--limit", 2, "--category", "race",
              "--batch-file", tmp_path / "race.jsonl", "--out", run_dir)
    assert res.exit_code == 0, res.output
    race = [json.loads(x)["custom_id"] for x in (tmp_path / "race.jsonl").read_text().splitlines()]
    assert len(race) == 2 and not set(race) & set(gender)
    (tmp_path / "both.jsonl").write_text(answer(gender[0]) + answer(race[0]))  # one file answers no one request file
    before = stored(run_dir)
    res = run("ingest", run_dir, tmp_path / "both.jsonl", "-q")
    assert res.exit_code == 2 and "is not a request of this run" in res.output and stored(run_dir) == before
    (tmp_path / "gender_out.jsonl").write_text("".join(answer(i) for i in gender))
    res = run("ingest", run_dir, tmp_path / "gender_out.jsonl", "-q")
    assert res.exit_code == 0, res.output
    assert "Stored 2 answers (2 ok, 0 refused, 0 unparseable, 0 failed); 0 already stored." in res.output
    assert res.output.strip().splitlines()[-1] == (f"Next: `stereoprobe ingest {run_dir} MORE.jsonl` with the results of "
                                                  "the 2 probes not answered yet, or the collect command that wrote the "
                                                  "requests, with --batch-file NEW.jsonl, writes them again.")
    assert json.loads((run_dir / "manifest.json").read_text())["status"] == "stopped"
    (tmp_path / "race_out.jsonl").write_text("".join(answer(i) for i in race))
    res = run("ingest", run_dir, tmp_path / "race_out.jsonl", "-q")
    assert res.exit_code == 0 and res.output.strip().splitlines()[-1] == f"Next: `stereoprobe sentiment {run_dir}`."
    assert json.loads((run_dir / "manifest.json").read_text())["status"] == "complete"
    records = [json.loads(x) for x in (run_dir / "completions.jsonl").read_text().splitlines()]
    assert sorted(f"{r['probe_id']}-{r['sample']}" for r in records) == sorted(gender + race)


def test_requests_in_a_provider_batch_still_open_are_not_written_again(tmp_path):
    """`collect --batch openai` stopped by Ctrl-C leaves its batches running; a later --batch-file wrote their
    requests again (each paid twice). The manifest is what a provider run records: a batch not done and its
    input file in RUN_DIR/batch/."""
    run_dir, requests, ids = file_run(tmp_path, limit=4)
    data = json.loads((run_dir / "manifest.json").read_text())
    (run_dir / "batch").mkdir()
    lines = requests.read_text().splitlines()
    (run_dir / "batch" / "input_1.jsonl").write_text("\n".join(lines[:3]) + "\n")
    data["batch"].update(provider="openai", batches=[{"id": "batch_1", "input": "batch/input_1.jsonl", "requests": 3,
                                                      "done": False}])
    (run_dir / "manifest.json").write_text(json.dumps(data))
    res = run("collect", "--model", "fake-chat", "--base-url", NOWHERE, "--limit", 4, "--batch-file",
              tmp_path / "again.jsonl", "--out", run_dir)
    assert res.exit_code == 0, res.output
    assert [json.loads(x)["custom_id"] for x in (tmp_path / "again.jsonl").read_text().splitlines()] == ids[3:]
    assert ("Wrote 1 request to" in res.output and "0 already answered" in res.output
            and "3 requests in openai batches not ended yet are not written" in res.output), res.output
    (tmp_path / "one.jsonl").write_text(answer(ids[3]))
    assert run("ingest", run_dir, tmp_path / "one.jsonl", "-q").exit_code == 0
    res = run("collect", "--model", "fake-chat", "--base-url", NOWHERE, "--limit", 4, "--batch-file",
              tmp_path / "none.jsonl", "--out", run_dir)
    assert res.exit_code == 0 and not (tmp_path / "none.jsonl").exists(), res.output
    assert f"No file written: every request of {run_dir} not answered yet is in a batch; 3 requests" in res.output
    (run_dir / "batch" / "input_1.jsonl").unlink()  # the open batch's requests lost: one line, not a traceback
    res = run("collect", "--model", "fake-chat", "--base-url", NOWHERE, "--limit", 4, "--batch-file",
              tmp_path / "lost.jsonl", "--out", run_dir)
    assert res.exit_code == 2 and not (tmp_path / "lost.jsonl").exists()
    assert res.output.strip().splitlines() == [f"Error: {run_dir / 'batch' / 'input_1.jsonl'}, the requests of batch "
                                               "batch_1 (its answers not stored yet), is missing or damaged; restore it from a copy "
                                               "of the run directory: without it the run cannot tell which of its "
                                               "probes the batch holds."], res.output


def test_replies_under_another_model_name_are_stored_when_ingest_is_told_that_name(tmp_path):
    """An Azure OpenAI deployment (the run's --model) replies with the model's own name: without
    --reply-model every line was refused as a reply of another model, and nothing said what to do."""
    run_dir, _, ids = file_run(tmp_path, limit=2)
    azure = [answer(i).replace('"model": "fake-chat"', '"model": "gpt-4o-2024-08-06"') for i in ids]
    (tmp_path / "azure.jsonl").write_text("".join(azure))
    before = stored(run_dir)
    res = run("ingest", run_dir, tmp_path / "azure.jsonl", "-q")
    assert res.exit_code == 2 and stored(run_dir) == before
    assert "a reply of model 'gpt-4o-2024-08-06', but this run asks 'fake-chat'" in res.output
    assert "pass --reply-model gpt-4o-2024-08-06 (nothing was stored)" in res.output
    (tmp_path / "mixed.jsonl").write_text(azure[0] + answer(ids[1]).replace("fake-chat", "gpt-4o-mini"))
    res = run("ingest", run_dir, tmp_path / "mixed.jsonl", "-q", "--reply-model", "gpt-4o-2024-08-06")
    assert res.exit_code == 2 and "line 2: a reply of model 'gpt-4o-mini'" in res.output and stored(run_dir) == before
    res = run("ingest", run_dir, tmp_path / "azure.jsonl", "-q", "--reply-model", "gpt-4o-2024-08-06")
    assert res.exit_code == 0 and "Stored 2 answers (2 ok" in res.output, res.output
    assert json.loads((run_dir / "manifest.json").read_text())["batch"]["ingested"][-1]["reply_model"] == \
        "gpt-4o-2024-08-06"
