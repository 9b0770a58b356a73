"""The jobs study end to end on the embedded model: collect, score, report, compare."""

from __future__ import annotations

import json
import math

import pytest

pytestmark = pytest.mark.model

JOBS = ["nurse", "secretary", "receptionist", "plumber", "electrician", "carpenter"]


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    pytest.importorskip("llama_cpp")
    from click.testing import CliRunner

    from stereoprobe.cli import cli

    out = tmp_path_factory.mktemp("jobs") / "run"
    args = ["collect", "--study", "jobs", "--prompt", "2", "--prompt", "once", "--debias", "0,5",
            "--setting", "without dialogue", "--out", str(out), "-q", "--workers", "2"]
    for job in JOBS:
        args += ["--job", job]
    res = CliRunner().invoke(cli, args)
    assert res.exit_code == 0, res.output
    return out


def test_records_are_exact_and_follow_the_stereotype(run):
    from stereoprobe.store import read_completions
    from stereoprobe.studies.jobs.measure import normalise
    from stereoprobe.studies.jobs.records import JobAnswer

    recs = {(r.job, r.prompt, r.debias): r for r in read_completions(run, JobAnswer)}
    assert len(recs) == len(JOBS) * 3 and all(r.status == "ok" and r.estimate == "exact" for r in recs.values())
    nurse, plumber = (normalise(recs[(j, "2", 0)].mass) for j in ("nurse", "plumber"))
    assert nurse["female"] > 0.5 > plumber["female"]  # "She" after a nurse, "He" after a plumber
    assert sum(nurse.values()) == pytest.approx(1.0)
    r = recs[("nurse", "2", 0)]
    assert r.mass["female"] == pytest.approx(math.exp(r.logprobs["She"]))  # eq. 1 with one expression each
    assert "Mary" in recs[("nurse", "once", 0)].names or "Sarah" in recs[("nurse", "once", 0)].names


def test_score_report_and_compare(run, tmp_path, run_cli):
    res = run_cli("score", run)
    assert res.exit_code == 0, res.output
    probes = (run / "jobs" / "probes.csv").read_text()
    assert probes.count("\n") == 1 + len(JOBS) * 2
    debias = (run / "jobs" / "debias.csv").read_text()
    assert "Prefix 5" in debias
    meta = json.loads((run / "jobs" / "meta.json").read_text())
    assert meta["estimates"] == ["exact"] and meta["names_table"].startswith("nomquamgender")
    res = run_cli("report", run)
    assert res.exit_code == 0, res.output
    page = (run / "report" / "index.html").read_text()
    assert "Key findings" in page and "data/correlations.csv" in page and "data:image/png;base64," in page
    assert (run / "report" / "figures" / "scatter_prompt2.png").stat().st_size > 10_000
    # the same answers under another name: every paired difference is 0, none is flagged
    import shutil

    twin = tmp_path / "twin"
    shutil.copytree(run, twin, ignore=shutil.ignore_patterns("jobs", "report", ".lock"))
    res = run_cli("compare", run, twin, "--out", tmp_path / "cmp")
    assert res.exit_code == 0, res.output
    import pandas as pd

    d = pd.read_csv(tmp_path / "cmp" / "differences.csv")
    # prefixes 0 and 5 x all/women/men x 3 genders (prompt set 2-4 only)
    assert len(d) == 2 * 3 * 3 and (d.difference.abs() < 1e-9).all() and (d.q == 1).all()
    res = run_cli("compare", run, tmp_path / "cmp", "--out", tmp_path / "cmp2")
    assert res.exit_code == 2
