"""The typed run record (stereoprobe.manifest): shared key names for every backend and
type checks when read."""

from __future__ import annotations

import json

import pytest
from conftest import TEST_KEY  # noqa: F401  (loopback-only fixture comes with conftest)

from stereoprobe.errors import DataError
from stereoprobe.manifest import BackendSettings, read_manifest


def test_remote_next_word_settings_use_the_shared_key_names(api_key):
    from stereoprobe.backends import make_backend

    b = make_backend(model="m", base_url="http://127.0.0.1:9/v1", mode="next-word", timeout=7.0)
    s = BackendSettings.from_describe({**b.describe(), "samples": 1})
    b.close()
    assert (s.backend, s.mode, s.endpoint, s.timeout, s.max_retries) == (
        "openai-completions", "next-word", "http://127.0.0.1:9/v1", 7.0, 4)
    assert "base_url" not in s.options and "timeout" not in s.options
    assert s.options["top_logprobs"] == 200  # backend-specific settings sit in options
    # a remote next-word run may be continued with another --timeout: not part of its identity
    assert "timeout" not in s.identity() and "endpoint" in s.identity()


@pytest.mark.parametrize(
    "settings, message",
    [
        ({"timeout": "soon"}, "settings.timeout must be a number, not 'soon'"),
        ({"samples": 1.5}, "settings.samples must be a whole number, not 1.5"),
        ({"options": [1]}, "settings.options must be an object"),
    ],
)
def test_a_manifest_of_the_wrong_shape_is_one_line(tmp_path, settings, message):
    (tmp_path / "manifest.json").write_text(json.dumps({"status": "complete", "settings": {"mode": "chat", **settings}}))
    with pytest.raises(DataError) as info:
        read_manifest(tmp_path)
    assert str(info.value) == (
        f"{tmp_path / 'manifest.json'}: not a run manifest ({message}); restore it, or collect the run again into a "
        "new --out directory.")


def test_a_broken_manifest_is_told_to_a_command_without_out(tmp_path, run_cli):
    """reparse (and sentiment, score, compare) of a run whose manifest.json is broken said 'restore it or
    use a new --out directory': those commands take no --out of their own."""
    (tmp_path / "completions.jsonl").write_text("")
    (tmp_path / "manifest.json").write_text("{")
    result = run_cli("reparse", tmp_path)
    assert result.exit_code == 2
    assert result.stderr.endswith("; restore it, or collect the run again into a new --out directory.\n")


def test_a_run_of_another_study_is_named_with_its_article(tmp_path):
    """'RUN is a anecdotes run, not a jobs run' (studies.base.read_run; the gate's lines too)."""
    from stereoprobe.studies.base import read_run
    from stereoprobe.studies.jobs.records import JobAnswer

    (tmp_path / "manifest.json").write_text(json.dumps({"study": "anecdotes", "status": "complete"}), encoding="utf-8")
    with pytest.raises(DataError) as err:
        read_run(tmp_path, "jobs", JobAnswer)
    assert str(err.value).startswith(f"{tmp_path} is an anecdotes run, not a jobs run;")
