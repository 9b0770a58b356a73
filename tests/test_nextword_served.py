"""A served model gives the embedded model's words (issue 18).

- against llama-cpp-python's real server holding the embedded model's file (started
  through tests/llama_server.py, so both run the same kernels): 9 probes, one per
  category, compared probe by probe with the embedded path; the requests each needs
  (18 probes took over two minutes of the suite, the served model's requests most of it);
- against the fake server with a vLLM-like cap on logprobs: the cap is learned from the
  400, short lists are marked in their records and counted in collect's summary.
"""

from __future__ import annotations

import json
import math
import random
from collections import defaultdict

import pytest

from stereoprobe.backends.nextword_remote import NextWordCompletionsBackend, short_reason
from stereoprobe.records import Probe
from stereoprobe.studies.fillin.groupwords import WORD_RULES

pytestmark = pytest.mark.long(36)  # its longest test, seconds: run first, longest first (tests/conftest.py)

def _sample(per_category: int = 1, seed: int = 5) -> list[Probe]:
    from stereoprobe.studies.fillin.catalog import load_catalog

    by = defaultdict(list)
    for p in load_catalog().probes():
        by[p.category].append(p)
    rng = random.Random(seed)
    return [p for c in sorted(by) for p in rng.sample(by[c], per_category)]


def _near_tie(a, b, tie: float = 0.02) -> bool:
    """Lists that differ only where the embedded probabilities of the words involved are
    within ``tie`` (relative) of each other, or a phrase end lies within 0.01 of the
    threshold: the two builds' numbers differ in the last digits."""
    pa, pb = dict(zip(a.words, a.probabilities)), dict(zip(b.words, b.probabilities))
    ends = {c["word"]: c.get("phrase_end") for x in (a, b) for c in json.loads(x.raw)["candidates"] if "word" in c}
    for w in set(a.words) ^ set(b.words):
        p, tenth = pa.get(w) or pb.get(w), min(a.probabilities[-1], b.probabilities[-1])
        close_end = ends.get(w) is not None and abs(ends[w] - 0.20) < 0.01
        if not (close_end or abs(p - tenth) / max(p, tenth) < tie):
            return False
    shared = [w for w in a.words if w in pb]
    order_b = [w for w in b.words if w in pa]
    return all(x == y or abs(pa[x] - pa[y]) / max(pa[x], pa[y]) < tie for x, y in zip(shared, order_b))



@pytest.mark.model
def test_a_served_model_gives_the_embedded_models_words(llama_server_url):
    from stereoprobe.backends.local import LocalModelBackend

    probes = _sample()
    local = LocalModelBackend(workers=1, word_rules=WORD_RULES)
    try:
        embedded = [local.ask(p) for p in probes]
    finally:
        local.close()
    remote = NextWordCompletionsBackend("gemma", llama_server_url, "not-needed", timeout=300, max_retries=1, word_rules=WORD_RULES)
    answers, requests = [], []
    try:
        for p in probes:
            answers.append(remote.ask(p))
            requests.append(remote.attempts_of_last_ask())
    finally:
        remote.close()
    identical = [a.words == b.words for a, b in zip(embedded, answers)]
    for p, a, b in zip(probes, embedded, answers):
        assert len(b.words) == 10 and json.loads(b.raw)["short"] is None, p.text
        # every list is the embedded one, or differs only by a near tie
        assert a.words == b.words or _near_tie(a, b), (p.text, a.words, b.words)
        if a.words == b.words:  # and then the probabilities agree to the last digits
            assert b.probabilities == pytest.approx(a.probabilities, rel=0.02)
    assert sum(identical) >= len(probes) - 1, sum(identical)  # at most one list differs, and only by a near tie
    # requests: one for the candidates, one per word that is not whole, one per word met
    # for the first time (the phrase filter's judgement, once per run)
    completions = sum(1 for b in answers for c in json.loads(b.raw)["candidates"] if c.get("tokens")
                      and len(c["tokens"]) > 1)
    judged = len(remote._phrase_ends)
    assert sum(requests) <= len(probes) + judged + 3 * len(probes) // 2
    assert sum(requests) >= len(probes) + judged + completions
    assert (sum(requests) - judged) / len(probes) < 2.5  # the per-probe part; judgements amortise over a run


def test_the_short_reason():
    assert short_reason(10, 10, 5, 200) is None
    assert short_reason(3, 10, 5, 200) == "the endpoint returns at most 5 logprobs"


def _capped(fake_openai, cap: int, tokens: list[tuple[str, float]]):
    from fake_scoring import ScoringModel

    fake_openai.scoring = ScoringModel(next_tokens=tokens, max_logprobs=cap)
    return fake_openai


# whole words (WordNet adjectives): no completion requests; "." ends every phrase
WORDS = [(" happy", 0.2), (" lazy", 0.1), (" grumpy", 0.08), (".", 0.3), (" sad", 0.05), (" kind", 0.04),
         (" wise", 0.03), (" rude", 0.02)]


def test_a_capped_endpoint_is_asked_within_its_cap_and_short_lists_are_marked(fake_openai):
    server = _capped(fake_openai, 5, WORDS)
    backend = NextWordCompletionsBackend("fake-chat", server.base_url, "x", max_retries=0, word_rules=WORD_RULES)
    try:
        probe = Probe("p1", "age", "old people", "are_so", "statement", "old people are so ...")
        answer = backend.ask(probe)
    finally:
        backend.close()
    asked = [s.body["logprobs"] for s in server.seen if s.path.endswith("/completions")]
    assert asked[:2] == [200, 5]  # the 400 named the cap; every later request keeps within it
    assert all(k <= 5 for k in asked[1:])
    # the five most probable tokens: happy, lazy, grumpy, ".", sad -> four words
    assert answer.words == ["happy", "lazy", "grumpy", "sad"]
    assert answer.probabilities == pytest.approx([0.2, 0.1, 0.08, 0.05])
    raw = json.loads(answer.raw)
    assert raw["served"] == 5 and raw["cut"] is True
    assert raw["short"] == "the endpoint returns at most 5 logprobs"


def test_collect_counts_short_lists_in_its_summary(fake_openai, run_cli, tmp_path):
    server = _capped(fake_openai, 5, WORDS)
    out = tmp_path / "run"
    result = run_cli("collect", "--mode", "next-word", "--model", "fake-chat", "--base-url", server.base_url,
                     "--group", "Sikhs", "--limit", "3", "--out", out, "-q",
                     env={"OPENAI_API_KEY": "sk-test-0123456789abcdef"})
    assert result.exit_code == 0, result.output
    assert "3 probes have fewer than ten words: the endpoint returns at most 5 logprobs." in result.output
    lines = [json.loads(x) for x in (out / "completions.jsonl").read_text().splitlines()]
    assert all(json.loads(r["raw"])["short"] == "the endpoint returns at most 5 logprobs" for r in lines)


def test_greedy_completion_follows_the_argmax_only():
    """A server whose generated token is not its position's most probable one (a
    repetition penalty) is not trusted past it."""
    from types import SimpleNamespace

    backend = NextWordCompletionsBackend.__new__(NextWordCompletionsBackend)
    lp = SimpleNamespace(tokens=["y", "ish", ","], token_logprobs=[math.log(0.5), math.log(0.2), math.log(0.9)],
                         top_logprobs=[{"y": math.log(0.5)}, {"ness": math.log(0.4), "ish": math.log(0.2)},
                                       {",": math.log(0.9)}])
    backend._create = lambda prompt, n, k: SimpleNamespace(choices=[SimpleNamespace(logprobs=lp)], usage=None)
    path, _ = backend._greedy("x grump", 3)
    assert [t.text for t in path] == ["y", "ness"]  # the argmax at the second position, then nothing
    assert [round(t.probability, 6) for t in path] == [0.5, 0.4]


def test_the_report_says_how_many_lists_are_short():
    from types import SimpleNamespace

    from stereoprobe.records import Completion
    from stereoprobe.studies.fillin.report.context import coverage_text

    def rec(i, n, short=None):
        raw = json.dumps({"candidates": [], **({"short": short} if short else {})})
        return Completion(f"p{i}", 0, "age", "old people", "are_so", "statement", "x", words=["w"] * n, raw=raw)

    records = [rec(0, 10), rec(1, 6, "the endpoint returns at most 20 logprobs"),
               rec(2, 4, "the endpoint returns at most 20 logprobs")]
    data = SimpleNamespace(categories=["age"], records=records, occurrences=None,
                           manifest={"mode": "next-word", "catalog": {"probes": 2292, "categories": 9}})
    assert coverage_text(data) == ("This run covers 1 of 9 categories (3 of 2,292 probes). "
                                   "2 probes have fewer than ten words: the endpoint returns at most 20 logprobs.")
    data.manifest["mode"] = "chat"  # chat lists are as long as the reply gives: nothing said
    assert coverage_text(data) == "This run covers 1 of 9 categories (3 of 2,292 probes)."


def test_the_test_servers_ranking_is_pythons_sort_exactly():
    """tests/llama_server.py ranks a position's logprobs with numpy in llama-cpp-python's
    server: the same tuples in the same order as ``sorted(zip(values, range(n)), reverse=True)``,
    ties (equal logprobs) by index descending, for the float32 rows and the lists it ranks."""
    import numpy as np
    from llama_server import _sorted, _zip

    rng = np.random.default_rng(3)
    row = np.round(rng.normal(size=5000), 1).astype(np.float32)  # about 80 tokens share each value
    row[[7, 9]] = -np.inf  # a token the softmax underflows
    for values in (row, row.tolist(), [0.5, 0.5, 0.1, 0.5]):
        fast = _sorted(_zip(values, range(len(values))), reverse=True)
        slow = sorted(zip(values, range(len(values))), reverse=True)
        assert fast == slow
        assert [type(v) for v, _ in fast[:3]] == [type(v) for v, _ in slow[:3]]
    assert _sorted(_zip([0.5, 0.5, 0.1, 0.5], range(4)), reverse=True)[:3] == [(0.5, 3), (0.5, 1), (0.5, 0)]
    # anything else is the builtins' own
    assert _sorted([3, 1, 2]) == [1, 2, 3] and list(_zip("ab", [1, 2])) == [("a", 1), ("b", 2)]
