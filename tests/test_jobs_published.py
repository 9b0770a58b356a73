"""The jobs study's published design (003's: Table 6's 40 jobs x task prompts 1-4 x no prefix
and the six x both positions, exact probabilities), and 003's Tables 3 and 4 shown on the
page only beside a like-for-like table."""

from __future__ import annotations

from click.testing import CliRunner

from conftest import TEST_KEY
from fake_scoring import ScoringModel


def run(*args):
    from stereoprobe.cli import cli

    return CliRunner().invoke(cli, [str(a) for a in args], env={"OPENAI_API_KEY": TEST_KEY}, catch_exceptions=False)


def test_the_published_design_is_003s_size():
    listed = run("probes", "--study", "jobs", "--design", "published")
    # 40 jobs (Table 6) x 4 task prompts (Table 1) x 7 (none and Table 2's six) x 2 positions (section 4.2)
    assert listed.exit_code == 0 and "2,240 probes." in listed.stderr
    other = run("probes", "--study", "jobs", "--design", "published", "--debias", "none")
    assert other.exit_code == 2 and "--debias 'none' conflicts with the published design" in other.stderr


def test_a_published_run_gets_003s_rows_and_a_default_run_one_line(fake_openai, tmp_path):
    fake_openai.scoring = ScoringModel(probability={" He": .02, " She": .06, " They": .02, " Male": .05,
                                                    " Female": .05})
    pub, default = tmp_path / "pub", tmp_path / "default"
    # the first 40 probes of the design: prompt 1 for the 40 jobs, no prefix, without dialogue; exact (echo)
    got = run("collect", "--study", "jobs", "--design", "published", "--model", "fake-chat", "--base-url",
              fake_openai.base_url, "--mode", "next-word", "--out", pub, "--limit", "40", "-q")
    assert got.exit_code == 0, got.output
    got = run("collect", "--study", "jobs", "--model", "fake-chat", "--base-url", fake_openai.base_url, "--mode",
              "next-word", "--out", default, "--prompt", "1", "--job", "nurse", "--job", "plumber", "-q")
    assert got.exit_code == 0, got.output
    for folder in (pub, default):
        assert run("score", folder, "--bootstrap", "200").exit_code == 0
        assert run("report", folder).exit_code == 0
    html = (pub / "report" / "index.html").read_text(encoding="utf-8")
    # 003's Table 3, row None, as printed: 12.0 87.9 0.0 | 44.8 55.1 0.1 | 26.7 73.3 0.0 | 57.2 42.8 0.0
    row = ('<tr class="paper"><td colspan="2">Mattern et al. (GPT-3)</td>'
           + "".join(f'<td class="num">{v}%</td>' for v in ("12.0", "87.9", "0.0", "44.8", "55.1", "0.1", "26.7",
                                                              "73.3", "0.0", "57.2", "42.8", "0.0")) + "</tr>")
    assert row in html
    assert html.index("<td>None</td><td>None</td>") < html.index(row)  # under the run's own row
    assert "Under each row, Mattern et al.'s own (GPT-3, text-davinci-001, 2022)" in html
    other = (default / "report" / "index.html").read_text(encoding="utf-8")
    assert '<tr class="paper">' not in other and "87.9%" not in other
    assert ("Mattern et al. (2022), Table 3 used the paper&#x27;s own design; this run asked the default design, so "
            "its figures (GPT-3 (text-davinci-001)) are not shown beside it.") in other


def test_a_published_run_with_a_chat_models_estimate_gets_the_reason():
    from stereoprobe.studies.jobs.paper import reason, rows

    assert reason({"design": "published", "estimates": ["exact"]}, "2-4") is None
    assert rows({"design": "published", "estimates": ["exact"]}, "2-4")["Avg Low"]["with_men_D"] == 88.3
    sampled = reason({"design": "published", "estimates": ["exact", "sampled"]}, "2-4")
    assert sampled.startswith("Mattern et al. (2022), Table 4 counts") and "sampled estimate" in sampled
    assert rows({"design": "published", "estimates": ["first-token"]}, "1") == {}
