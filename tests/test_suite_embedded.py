"""`stereoprobe suite` on the embedded model, offline, with a tiny selection: Sterlie et al.'s 18
sector prompts in logprob mode, scored and reported, the suite saying it is a demonstration."""

from __future__ import annotations

import json

import pytest

from stereoprobe.suite.record import read_suite


@pytest.mark.model
def test_the_embedded_suite_of_one_small_study_runs_offline_to_its_page(run_cli, tmp_path):
    out = tmp_path / "s"
    res = run_cli("suite", "--studies", "sterlie", "--out", out, "-q")
    assert res.exit_code == 0, res.output
    assert "Suite of gemma-3-270m (quick design)" in res.stdout
    assert "  sterlie: logprob mode (the more probable of two replies), not a chat" in res.stdout
    record = read_suite(out)
    assert (record.model, record.design, record.backend["model"]) == ("gemma-3-270m", "quick", None)
    (entry,) = record.studies
    assert (entry.key, entry.study, entry.state) == ("sterlie", "coreference", "reported")
    assert entry.counts["records"] == entry.counts["ok"] + entry.counts["unparseable"] == 18  # 6 prompts x 3
    assert entry.demonstration and entry.what.startswith("all 6 sector prompts")
    manifest = json.loads((out / "sterlie" / "manifest.json").read_text())
    assert manifest["settings"]["backend"] == "local" and manifest["design"] == "quick"
    assert (out / "sterlie" / "report" / "index.html").is_file()
    again = run_cli("suite", "--studies", "sterlie", "--out", out, "-q")  # nothing left to do
    assert again.exit_code == 0 and read_suite(out).studies[0].seconds == entry.seconds
