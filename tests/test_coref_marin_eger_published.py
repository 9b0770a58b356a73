"""The coreference study's published design for Marin & Eger's seven templates (000's: 1,000
random pairs x 7 templates x he, she, they, one reply each at the authors' settings), and
000's Table 3 shown on the page only beside a like-for-like Table 3."""

from __future__ import annotations

from click.testing import CliRunner

from conftest import TEST_KEY
from fake_openai import FakeOpenAI


def run(*args):
    from stereoprobe.cli import cli

    return CliRunner().invoke(cli, [str(a) for a in args], env={"OPENAI_API_KEY": TEST_KEY}, catch_exceptions=False)


def test_the_published_design_is_000s_size_and_settings():
    listed = run("probes", "--study", "coreference", "--design", "published")
    # 000, section 4.2.1: "3000 responses ... for each of the 7 prompt templates, as 3 variations of 1000 random
    # profession pairings": 21,000 prompts
    assert listed.exit_code == 0 and "21,000 probes." in listed.stderr
    dry = run("collect", "--study", "coreference", "--design", "published", "--model", "m", "--dry-run")
    assert "21,000 requests" in dry.output and "at most 2,520,000" in dry.output  # max_tokens 120 each
    embedded = run("collect", "--study", "coreference", "--design", "published", "--dry-run")
    assert embedded.exit_code == 2 and "The published design samples a chat model's replies" in embedded.stderr
    other = run("collect", "--study", "coreference", "--design", "published", "--pairs", "50", "--model", "m",
                "--dry-run")
    assert other.exit_code == 2 and "--pairs 50 conflicts with the published design" in other.stderr


def test_a_published_run_gets_000s_rows_under_each_scene_and_a_default_run_one_line(tmp_path):
    out = tmp_path / "pub"
    with FakeOpenAI(api_key=TEST_KEY, coreference_bias=0.3) as fake:
        got = run("collect", "--study", "coreference", "--design", "published", "--model", "fake-chat",
                  "--base-url", fake.base_url, "--out", out, "--limit", "30", "-q")
        assert got.exit_code == 0, got.output
        assert {s.body["temperature"] for s in fake.seen} == {0.2} and {s.body["max_tokens"] for s in fake.seen} == {120}
        default = tmp_path / "default"
        got = run("collect", "--study", "coreference", "--model", "fake-chat", "--base-url", fake.base_url,
                  "--out", default, "--job", "nurse", "--job", "pilot", "--prompt", "late", "-q")
        assert got.exit_code == 0, got.output
    for folder in (out, default):
        assert run("score", folder, "--bootstrap", "200").exit_code == 0
        assert run("report", folder).exit_code == 0
    html = (out / "report" / "index.html").read_text(encoding="utf-8")
    # the first 30 prompts are "late" for 10 random pairs (genders unknown: the fake answers them right)
    assert "<th scope=\"row\">late</th><td class=\"num\">0.0% (0.0 to" in html
    # 000's Table 3 rows, as printed: late 6.1 / 14.3 / 11.6 (3.5) and 4.1 / 11.1 / 10.7 (4o); Overall 10 / 9.9 / 7.1
    assert ('<tr class="paper"><td>ChatGPT 3.5 (Marin &amp; Eger)</td><td class="num">6.1%</td>'
            '<td class="num">14.3%</td><td class="num">11.6%</td>') in html
    assert ('<tr class="paper"><td>ChatGPT 4o (Marin &amp; Eger)</td><td class="num">10%</td>'
            '<td class="num">9.9%</td><td class="num">7.1%</td>') in html
    assert "their Table 3, ChatGPT 3.5 and 4o in 2024, counted the same way" in html
    other = (default / "report" / "index.html").read_text(encoding="utf-8")
    assert '<tr class="paper">' not in other and "14.3%" not in other
    assert ("Marin &amp; Eger (2024), Table 3 used the paper&#x27;s own design; this run asked the default design, so "
            "its figures (ChatGPT 3.5, ChatGPT 4o) are not shown beside it.") in other


def test_a_published_run_in_another_unit_gets_the_reason():
    from stereoprobe.studies.coreference.marin_eger_paper import reason, table3

    published = {"design": "published", "method": ["chat"], "samples": 1}
    assert reason(published, 0) is None and table3(published, 0)[("cake", "ChatGPT 4o")]["incorrect"] == 0.03
    assert "more probable of two replies" in reason({**published, "method": ["logprob"]}, 0)
    assert "the majority of 5 replies a prompt" in reason({**published, "samples": 5}, 0)
    assert "prefix 2, which 000 never asked" in reason(published, 2)
    assert table3({**published, "design": "quick"}, 0) == {}
