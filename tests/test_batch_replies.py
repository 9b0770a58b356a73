"""What a provider's batch replies carry that a results file given by hand does not
(docs/batch.md, recipes 1 and 2): the replies of the run's own batches, however the
provider names the model that wrote them."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner
from conftest import TEST_KEY
from fake_batches import FakeBatches
from fake_openai import FakeOpenAI

from stereoprobe.cli import cli


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_a_batch_answered_under_the_models_dated_name_is_stored(tmp_path, provider):
    """An alias resolves to a dated model of another spelling (Anthropic's claude-sonnet-4-0
    replies as claude-sonnet-4-20250514): the run's own batch is stored, not refused."""
    with FakeOpenAI(api_key=TEST_KEY, models=("fake-4-0",)) as live, FakeBatches(live, api_key=TEST_KEY) as batches:
        asked = batches.answer

        def dated(url, body):
            status, reply = asked(url, body)
            return status, {**reply, "model": "fake-4-20250514"}

        batches.answer = dated
        url = batches.base_url if provider == "openai" else batches.anthropic_url
        res = CliRunner().invoke(cli, ["collect", "--model", "fake-4-0", "--base-url", url, "--limit", "2", "-q",
                                       "--batch", provider, "--poll-interval", "0", "--out", str(tmp_path / "run")],
                                 env={"OPENAI_API_KEY": TEST_KEY, "ANTHROPIC_API_KEY": TEST_KEY})
    assert res.exit_code == 0, res.output
    assert "Stored 2 answers (2 ok" in res.output
    rows = [json.loads(x) for x in (tmp_path / "run" / "completions.jsonl").read_text().splitlines()]
    assert [r["error"] for r in rows] == [None, None]



def test_a_batch_of_one_request_is_told_in_the_singular(tmp_path):
    with FakeOpenAI(api_key=TEST_KEY) as live, FakeBatches(live, api_key=TEST_KEY) as batches:
        batches.expire, batches.expire_after = True, 0  # the one request expires: a failed probe
        res = CliRunner().invoke(cli, ["collect", "--model", "fake-chat", "--base-url", batches.base_url, "--limit",
                                       "1", "-q", "--batch", "openai", "--poll-interval", "0", "--out",
                                       str(tmp_path / "run")], env={"OPENAI_API_KEY": TEST_KEY})
        assert res.exit_code == 0, res.output
        assert "Stored 1 answer (0 ok, 0 refused, 0 unparseable, 1 failed); 0 already stored." in res.output
        assert "to ask the 1 failed probe again" in res.output
        manifest = tmp_path / "run" / "manifest.json"  # as if killed before its batch was marked stored
        state = json.loads(manifest.read_text())
        state["batch"]["batches"][0]["done"] = False
        manifest.write_text(json.dumps(state))
        res = CliRunner().invoke(cli, ["batch", "cancel", str(tmp_path / "run")], env={"OPENAI_API_KEY": TEST_KEY})
    assert res.exit_code == 0 and "Batch batch_1 (1 request): expired." in res.output, res.output


def test_an_endpoint_without_a_batch_api_is_told_to_check_the_url_not_to_run_again(tmp_path):
    with FakeOpenAI(api_key=TEST_KEY) as live:  # chat completions only: no /v1/files, no /v1/batches
        url = live.base_url
        res = CliRunner().invoke(cli, ["collect", "--model", "fake-chat", "--base-url", url, "--limit", "1",
                                       "--batch", "openai", "--out", str(tmp_path / "run")],
                                 env={"OPENAI_API_KEY": TEST_KEY})
    lines = res.output.strip().splitlines()
    assert res.exit_code == 2 and len(lines) == 1, res.output
    assert "could not upload the requests (HTTP 404" in lines[0]
    assert lines[0].endswith(f"nothing is lost: check that --base-url {url} serves the openai batch API.")
    assert "run the same command again" not in lines[0]  # it would be refused again


def test_anthropic_takes_a_base_url_written_the_openai_way(tmp_path):
    """--batch anthropic --base-url http://host/v1 asked /v1/v1/messages/batches (a 404): Anthropic's
    client adds /v1 itself (batch.clients.without_v1)."""
    with FakeOpenAI(api_key=TEST_KEY) as live, FakeBatches(live, api_key=TEST_KEY) as batches:
        assert batches.base_url.endswith("/v1")
        res = CliRunner().invoke(cli, ["collect", "--model", "fake-chat", "--base-url", batches.base_url, "--limit",
                                       "2", "-q", "--batch", "anthropic", "--poll-interval", "0", "--out",
                                       str(tmp_path / "run")], env={"ANTHROPIC_API_KEY": TEST_KEY})
    assert res.exit_code == 0, res.output
    assert "Stored 2 answers (2 ok" in res.output
