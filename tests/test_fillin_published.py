"""The fill-in study's published design (004's: every group x Table 2's six probes, once, in a
chat at temperature 0, max_tokens 300, top_p 1: the study's defaults, named), and 004's
Table 4 on the briefing only beside a like-for-like share (the official EmoLex file with
WordNet synonyms, a published chat run)."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from conftest import TEST_KEY

EMOLEX = Path(__file__).parent / "data" / "lexicon" / "emolex-synthetic.txt"  # the official word-level format


def run(*args):
    from stereoprobe.cli import cli

    return CliRunner().invoke(cli, [str(a) for a in args], env={"OPENAI_API_KEY": TEST_KEY}, catch_exceptions=False)


def test_the_published_design_is_004s_size_and_settings():
    listed = run("probes", "--design", "published")
    assert listed.exit_code == 0 and "2,292 probes." in listed.stderr  # 004: "almost 2300 probes"
    dry = run("collect", "--design", "published", "--model", "m", "--dry-run")
    assert "2,292 requests" in dry.output and "at most 687,600" in dry.output  # 2,292 x max_tokens 300
    hot = run("collect", "--design", "published", "--temperature", "0.7", "--model", "m", "--dry-run")
    assert hot.exit_code == 2 and "--temperature 0.7 conflicts with the published design" in hot.stderr


def index(run_dir: Path, *lexicon: str) -> str:
    from stereoprobe.studies.fillin.report import build_report

    assert run("sentiment", run_dir, *lexicon, "--bootstrap", "200").exit_code == 0
    build_report(run_dir, only="briefing", workers=1)
    return (run_dir / "briefing" / "index.html").read_text(encoding="utf-8")


def test_004s_table_4_stands_only_beside_a_published_chat_run_labelled_as_004_labelled(fake_openai, tmp_path):
    pub, default = tmp_path / "pub", tmp_path / "default"
    for out, extra in ((pub, ("--design", "published")), (default, ())):
        got = run("collect", "--model", "fake-chat", "--base-url", fake_openai.base_url, "--out", out, "--limit",
                  "12", "-q", *extra)
        assert got.exit_code == 0, got.output
    html = index(pub, "--lexicon", EMOLEX)
    # 004's Table 4, age: negative 42.1 (all probes), 53.4 (questions), 30.0 (statements)
    assert ('<tr class="paper"><td>Busker et al. (2023)</td><td class="num">42.1%</td><td class="num">53.4%</td>'
            '<td class="num">30.0%</td><td></td></tr>') in html
    assert "Busker et al.&#x27;s own negative shares (gpt-3.5-turbo-0301, 2023, their Table 4)" in html
    # the same run labelled with the bundled subset: EmoLex's neutral words go to synonyms, another unit
    html = index(pub)
    assert '<tr class="paper">' not in html and "42.1%" not in html
    assert ("this value is a percent of the words labelled positive or negative, nrclex&#x27;s subset of NRC EmoLex "
            "(its neutral words looked up by synonyms) with WordNet synonyms (majority), so its figures "
            "(gpt-3.5-turbo-0301) are not shown beside it.") in html
    html = index(default, "--lexicon", EMOLEX)
    assert '<tr class="paper">' not in html
    assert ("Busker et al. (2023), Table 4 used the paper&#x27;s own design; this run asked the default design, so its "
            "figures (gpt-3.5-turbo-0301) are not shown beside it.") in html


def test_next_word_candidates_and_no_synonyms_are_other_units():
    from stereoprobe.studies.fillin.paper import negative, reason

    official = {"name": "nrc-emolex-wordlevel"}
    assert reason("published", "chat", official, True) is None
    assert negative("published", "chat", official, True)["religion"] == {"all": 11.0, "question": 15.9,
                                                                         "statement": 6.4}
    assert "next-word candidates" in reason("published", "next-word", official, True)
    assert "without WordNet synonyms" in reason("published", "chat", official, False)
    assert negative("published", "chat", {"name": "vader"}, True) == {}
