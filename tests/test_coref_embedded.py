"""The coreference study end to end on the embedded model (logprob mode): collect, score, report, compare.

A few pairs only (CI stays fast); the whole default design is measured in bench/bench_coreference.py.
"""

from __future__ import annotations

import json
import shutil

import pandas as pd
import pytest

pytestmark = pytest.mark.model

JOBS = ["nurse", "secretary", "pilot", "plumber"]


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    pytest.importorskip("llama_cpp")
    from click.testing import CliRunner

    from stereoprobe.cli import cli

    out = tmp_path_factory.mktemp("coref") / "run"
    args = ["collect", "--study", "coreference", "--prompt", "late", "--prompt", "book owner", "--out", str(out), "-q",
            "--workers", "2", *[x for j in JOBS for x in ("--job", j)]]
    res = CliRunner().invoke(cli, args)
    assert res.exit_code == 0, res.output
    return out


def test_records_are_the_more_probable_reply_with_both_logprobs(run):
    from stereoprobe.backends.scoring import EmbeddedScorer
    from stereoprobe.store import read_completions
    from stereoprobe.studies.coreference.answers import decide
    from stereoprobe.studies.coreference.pairs import Pair
    from stereoprobe.studies.coreference.probes import make_probes
    from stereoprobe.studies.coreference.records import CorefRecord

    recs = read_completions(run, CorefRecord)
    assert len(recs) == 4 * 2 * 2 * 3 and all(r.status in ("ok", "unparseable") for r in recs)
    assert all(r.method == "logprob" and r.answer == decide(r.logprob_a, r.logprob_b) for r in recs)
    assert all(r.logprob_a < 0 and r.logprob_b < 0 for r in recs)
    # the same numbers as the prompt scored alone, without the starts kept between probes
    r = next(r for r in recs if r.template == "book owner" and r.pronoun == "she")
    probe = next(p for p in make_probes([Pair(r.profession_a, r.profession_b)]) if p.probe_id == r.probe_id)
    scorer = EmbeddedScorer(workers=1)
    try:
        alone = scorer.logprobs(r.text, list(probe.continuations))
    finally:
        scorer.close()
    assert alone == pytest.approx([r.logprob_a, r.logprob_b], abs=1e-9)


def test_score_report_and_compare(run, tmp_path, run_cli):
    res = run_cli("score", run, "--bootstrap", "200")
    assert res.exit_code == 0, res.output
    t3 = pd.read_csv(run / "coreference" / "table3.csv")
    assert t3.template.tolist() == ["late", "book owner", "Overall"]
    assert t3.set_index("template").loc["Overall", "incorrect_n"] == 48
    meta = json.loads((run / "coreference" / "meta.json").read_text())
    assert meta["method"] == ["logprob"] and meta["embedded"] is True
    res = run_cli("report", run)
    assert res.exit_code == 0, res.output
    page = (run / "report" / "index.html").read_text()
    assert "Key findings" in page and "offline smoke path" in page and 'href="triples.html"' in page
    # the same answers under another name: every paired difference is 0, none is flagged
    twin = tmp_path / "twin"
    shutil.copytree(run, twin, ignore=shutil.ignore_patterns("coreference", "report", ".lock"))
    res = run_cli("compare", run, twin, "--out", tmp_path / "cmp", "--bootstrap", "200")
    assert res.exit_code == 0, res.output
    d = pd.read_csv(tmp_path / "cmp" / "differences.csv")
    assert (d.difference.abs() < 1e-9).all() and (d.q.isna() | (d.q == 1)).all()
    assert pd.read_csv(tmp_path / "cmp" / "changed.csv").pct.tolist() == [0]
