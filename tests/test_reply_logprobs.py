"""Chat replies that come with logprobs (issue 18, part 3): recorded with the reply, a
probability per parsed word; endpoints that return none, or refuse the parameters, give
the records they gave before."""

from __future__ import annotations

import json
import math

import pytest

from stereoprobe.backends.chat_logprobs import option_probabilities, word_probabilities
from stereoprobe.store import read_completions

MODEL = "fake-chat"


def _collect(run_cli, fake_openai, out, *extra):
    return run_cli("collect", "--model", MODEL, "--base-url", fake_openai.base_url, "--group", "Sikhs",
                   "--limit", "2", "--out", out, "-q", *extra)


def test_a_reply_with_logprobs_gives_each_word_a_probability(fake_openai, api_key, run_cli, tmp_path):
    fake_openai.reply_logprobs = True
    assert _collect(run_cli, fake_openai, tmp_path / "run").exit_code == 0
    body = fake_openai.asked()[0].body
    assert body["logprobs"] is True and body["top_logprobs"] == 5
    for rec in read_completions(tmp_path / "run"):
        assert len(rec.words) == 10 and rec.logprobs["content"]
        # each word is one token " Word" of probability 1 / (1 + its length): "Wise" -> 1/6
        assert rec.probabilities == pytest.approx([1 / (2 + len(w)) for w in rec.words])
        assert "".join(e["token"] for e in rec.logprobs["content"]) == rec.raw


def test_an_endpoint_without_logprobs_gives_the_records_it_gave_before(fake_openai, api_key, run_cli, tmp_path):
    assert _collect(run_cli, fake_openai, tmp_path / "run").exit_code == 0
    lines = [json.loads(x) for x in (tmp_path / "run" / "completions.jsonl").read_text().splitlines()]
    assert all("logprobs" not in r and r["probabilities"] is None and len(r["words"]) == 10 for r in lines)


def test_an_endpoint_that_refuses_logprobs_is_asked_without_them(fake_openai, api_key, run_cli, tmp_path):
    fake_openai.reject_logprobs = True
    result = _collect(run_cli, fake_openai, tmp_path / "run")
    assert result.exit_code == 0 and "2 ok" in result.output
    bodies = [s.body for s in fake_openai.asked()]
    assert bodies[0].get("logprobs") is True and "logprobs" not in bodies[1]  # refused once, then not asked
    assert all(len(r.words) == 10 and r.logprobs is None for r in read_completions(tmp_path / "run"))


def test_reparse_recomputes_the_word_probabilities(fake_openai, api_key, run_cli, tmp_path):
    from dataclasses import replace

    from stereoprobe.studies.fillin.reparse import _reparsed

    fake_openai.reply_logprobs = True
    assert _collect(run_cli, fake_openai, tmp_path / "run").exit_code == 0
    rec = read_completions(tmp_path / "run")[0]
    stale = replace(rec, words=rec.words[:3], probabilities=None)
    fresh = _reparsed(stale, {})
    assert fresh.words == rec.words and fresh.probabilities == pytest.approx(rec.probabilities)


def test_word_probabilities_by_hand():
    lp = {"content": [{"token": t, "logprob": math.log(p)} for t, p in
                      [("1", 1.0), (".", 0.9), (" Hard", 0.5), ("-working", 0.4), ("\n", 1.0), ("2", 1.0),
                       (".", 1.0), (" kind", 0.25), ("ly", 0.5)]]}
    reply = "1. Hard-working\n2. kindly"
    # hard-working: 0.5 x 0.4; "kind" is only part of the token pair " kind" "ly": not read
    assert word_probabilities(reply, ["hard-working", "kind"], lp) == pytest.approx([0.2, None])
    assert word_probabilities(reply, ["kindly"], lp) == pytest.approx([0.125])
    assert word_probabilities("other text", ["kind"], lp) is None  # the tokens do not spell the reply


def test_option_probabilities_for_a_few_answers():
    lp = {"content": [
        {"token": "The", "logprob": math.log(0.9), "top_logprobs": [{"token": "The", "logprob": math.log(0.9)}]},
        {"token": " doctor", "logprob": math.log(0.6),
         "top_logprobs": [{"token": " doctor", "logprob": math.log(0.6)}, {"token": " nurse", "logprob": math.log(0.3)},
                          {"token": " patient", "logprob": math.log(0.05)}]}]}
    got = option_probabilities(lp, ["The nurse", "The doctor"])
    assert got == pytest.approx({"The nurse": 0.9 * 0.3, "The doctor": 0.9 * 0.6})
    assert option_probabilities({"content": [{"token": "I", "logprob": 0.0, "top_logprobs": []}]},
                                ["The nurse", "The doctor"]) is None
