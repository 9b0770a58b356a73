"""`--design published` for Sterlie et al.'s prompts (seed 001): its size is 001's (50 replies per
prompt and pronoun, the baselines 30; 14 questions x 2 x 2 x 10 = 560 multiple-choice prompts and
Baseline 1 30 times), asked over HTTP with every probe its own number of samples (resume, dry
run and batch file counting alike); 001's Tables 1-6 rebuilt from synthetic answers of that
design, values worked by hand; and 001's numbers on the page only beside a run of that design read
as 001 reads replies, otherwise one line saying why."""

from __future__ import annotations

import json
from collections import Counter

import pandas as pd
import pytest
from conftest import TEST_KEY
from sterlie_fake import expected_wrong, register_questions
from sterlie_synth import questions_file

from stereoprobe.collect import samples_of
from stereoprobe.designs import apply
from stereoprobe.studies import get_study
from stereoprobe.studies.coreference.sterlie import BASELINE, sector_probes

STUDY = get_study("coreference")


def _published(**options):
    return apply(STUDY, "published", {"templates": "sterlie", "model": "m", **options})


def _asked(options):
    """Replies the run asks per (template, pronoun), by each probe's own number of samples."""
    counts = Counter()
    for p in STUDY.list_probes(options):
        counts[(p.template, p.pronoun)] += samples_of(p, options["samples"])
    return counts


# -- its size is 001's --------------------------------------------------------------------------

def test_the_sector_design_asks_50_per_prompt_and_pronoun_and_the_baselines_30():
    options = _published()
    assert {k: options[k] for k in ("samples", "baseline_samples", "temperature", "reading")} == {
        "samples": 50, "baseline_samples": 30, "temperature": 0.5, "reading": "sterlie"}
    asked = _asked(options)
    prompts = {k: n for k, n in asked.items() if k[1] != BASELINE}
    assert len(prompts) == 12 and set(prompts.values()) == {50}  # 001: "replicated 50 times per pronoun"
    assert sum(n for (_, pr), n in prompts.items() if pr == "she") == 300 == sum(
        n for (_, pr), n in prompts.items() if pr == "he")
    baselines = {k: n for k, n in asked.items() if k[1] == BASELINE}
    assert len(baselines) == 6 and set(baselines.values()) == {30}  # Table 3: "over 30 test runs"
    assert sum(asked.values()) == 6 * 2 * 50 + 6 * 30 == 780
    assert STUDY.estimate(options).requests == 780  # --dry-run counts each probe's own samples


def test_the_multiple_choice_design_asks_560_prompts_and_baseline_1_thirty_times(tmp_path):
    options = _published(questions=str(questions_file(tmp_path / "q.jsonl")))
    assert (options["samples"], options["baseline_samples"], options["temperature"]) == (10, 30, 0.5)
    asked = _asked(options)
    prompts = sum(n for (t, _), n in asked.items() if t.startswith("3.1"))
    assert prompts == 14 * 2 * 2 * 10 == 560  # 001, section 5.3: "A total of 560 experimental prompts"
    for group in ("3.1 nurse right", "3.1 doctor right"):  # "two groups of equal quantity", he and she alike
        assert asked[(group, "he")] == asked[(group, "she")] == 140
    assert asked[("baseline 1", "none")] == 14 * 30 == 420  # eq. (8): "tested 30 times"
    assert STUDY.estimate(options).requests == 980


def test_the_published_design_refuses_another_size_or_setting_in_one_line(tmp_path, run_cli):
    from stereoprobe.errors import DataError

    small = questions_file(tmp_path / "small.jsonl", 4)
    with pytest.raises(DataError, match=r"holds 4 questions; the published design asks 14"):
        STUDY.list_probes(_published(questions=str(small)))
    res = run_cli("collect", "--study", "coreference", "--templates", "sterlie", "--design", "published",
                  "--model", "m", "--samples", "5", "--dry-run")
    assert res.exit_code == 2 and "--samples 5 conflicts with the published design" in res.stderr
    res = run_cli("collect", "--study", "coreference", "--templates", "sterlie", "--design", "published",
                  "--dry-run")  # the embedded model has no replies to sample
    assert res.exit_code == 2 and "The published design samples a chat model's replies" in res.stderr
    assert len(res.stderr.strip().splitlines()) == 1


def test_a_probes_own_samples_must_be_a_whole_number():
    from types import SimpleNamespace

    from stereoprobe.errors import DataError

    for bad in (0, -1, 2.5, True):
        with pytest.raises(DataError, match=r"must be a whole number of at least 1"):
            samples_of(SimpleNamespace(probe_id="x", samples=bad), 5)


# -- asked over HTTP: every probe its own number of samples ---------------------------------------

BIAS = 0.4


def _collect(fake, out, *extra):
    from click.testing import CliRunner

    from stereoprobe.cli import cli

    return CliRunner().invoke(cli, ["collect", "--study", "coreference", "--templates", "sterlie", "--design",
                                    "published", "--model", "fake-chat", "--base-url", fake.base_url, "--out",
                                    str(out), "-q", *[str(e) for e in extra]], env={"OPENAI_API_KEY": TEST_KEY})


def _records(out):
    return [json.loads(line) for line in (out / "completions.jsonl").read_text().splitlines()]


@pytest.fixture(scope="module")
def sector_run(tmp_path_factory):
    from fake_openai import FakeOpenAI

    out = tmp_path_factory.mktemp("published") / "run"
    with FakeOpenAI(api_key=TEST_KEY, coreference_bias=BIAS) as fake:
        first = _collect(fake, out, "--limit", 3)  # 4.3 with he, she and its baseline: 50 + 50 + 30
        rest = _collect(fake, out)  # resumed: the other 650
        again = _collect(fake, out)  # nothing left
    return out, first, rest, again


def test_published_over_http_asks_each_probe_its_own_number_and_resumes_by_it(sector_run):
    out, first, rest, again = sector_run
    for res in (first, rest, again):
        assert res.exit_code == 0, res.output
    assert "Asked 130 (130 ok" in first.output and "0 already answered" in first.output
    assert "Asked 650 (650 ok" in rest.output and "130 already answered" in rest.output
    assert "Asked 0 (" in again.output and "780 already answered" in again.output
    per = Counter(r["probe_id"] for r in _records(out))
    for p in sector_probes():
        assert per[p.probe_id] == (30 if p.pronoun == BASELINE else 50)
    samples = {(r["probe_id"], r["sample"]) for r in _records(out)}
    assert len(samples) == 780  # samples 0-49 (baselines 0-29), each once
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["design"] == "published"
    settings = manifest["settings"]
    assert (settings["samples"], settings["temperature"]) == (50, 0.5)
    assert (settings["options"]["baseline_samples"], settings["options"]["reading"]) == (30, "sterlie")


def test_a_run_is_continued_only_with_its_own_baseline_count(tmp_path):
    from click.testing import CliRunner
    from fake_openai import FakeOpenAI

    from stereoprobe.cli import cli

    out = tmp_path / "run"

    def collect(fake, *extra):
        return CliRunner().invoke(cli, ["collect", "--study", "coreference", "--templates", "sterlie", "--model",
                                        "fake-chat", "--base-url", fake.base_url, "--out", str(out), "-q",
                                        "--samples", "2", "--temperature", "0.5", *extra],
                                  env={"OPENAI_API_KEY": TEST_KEY})

    with FakeOpenAI(api_key=TEST_KEY, coreference_bias=BIAS) as fake:
        res = collect(fake, "--baseline-samples", "3")
        assert res.exit_code == 0 and "Asked 42 (" in res.output  # 12 prompts x 2 + 6 baselines x 3
        before = (out / "completions.jsonl").read_bytes()
        res = collect(fake, "--baseline-samples", "4")  # would ask each baseline once more: another run
        assert res.exit_code == 2 and "(baseline samples 3 in the run, 4 now)" in res.output
        assert len(res.output.strip().splitlines()) == 1
        res = collect(fake)  # without: the baselines as often as the prompts, also another run
        assert res.exit_code == 2 and "(baseline samples 3 in the run, " in res.output
        assert (out / "completions.jsonl").read_bytes() == before
        res = collect(fake, "--baseline-samples", "3")
        assert res.exit_code == 0 and "Asked 0 (" in res.output and "42 already answered" in res.output


def test_published_over_http_tables_follow_the_rule_and_the_page_quotes_001(sector_run, run_cli):
    out, *_ = sector_run
    assert run_cli("score", str(out), "--bootstrap", "100").exit_code == 0
    t6 = pd.read_csv(out / "coreference" / "table6.csv", dtype={"template": str}).set_index(["template", "pronoun"])
    for p in sector_probes():
        if p.pronoun != BASELINE:
            assert t6.loc[(p.template, p.pronoun), ["n", "errors"]].tolist() == [50, expected_wrong(p, 50, BIAS)]
    t3 = pd.read_csv(out / "coreference" / "table3.csv", dtype={"template": str})
    assert t3["n"].tolist() == [30] * 6 and (t3["errors"] == 0).all()
    assert t3["template"].tolist() == [f"{t} baseline" for t in ("4.3", "4.6", "4.4", "4.7", "4.5", "4.8")]
    assert run_cli("report", str(out)).exit_code == 0
    page = (out / "report" / "index.html").read_text()
    assert "Sterlie et al. (GPT-4), she" in page and "not shown beside it" not in page
    assert "1 sample" not in page and "50 samples per prompt and 30 per baseline question" in page


def test_the_batch_file_of_the_published_design_holds_each_probes_own_number(tmp_path, fake_openai):
    from click.testing import CliRunner

    from stereoprobe.cli import cli

    path = tmp_path / "requests.jsonl"
    res = CliRunner().invoke(cli, ["collect", "--study", "coreference", "--templates", "sterlie", "--design",
                                   "published", "--model", "fake-chat", "--base-url", fake_openai.base_url,
                                   "--batch-file", str(path), "--out", str(tmp_path / "run")])
    assert res.exit_code == 0, res.output
    ids = [json.loads(line)["custom_id"] for line in path.read_text().splitlines()]
    assert len(ids) == len(set(ids)) == 780
    base = next(p for p in sector_probes() if p.pronoun == BASELINE)
    assert sum(i.startswith(base.probe_id + "-") for i in ids) == 30
    assert f"{base.probe_id}-29" in ids and f"{base.probe_id}-30" not in ids


def test_multiple_choice_published_over_http(tmp_path):
    from fake_openai import FakeOpenAI

    out, path = tmp_path / "run", questions_file(tmp_path / "q.jsonl")
    with FakeOpenAI(api_key=TEST_KEY, coreference_bias=BIAS) as fake:
        probes = register_questions(fake, str(path))
        res = _collect(fake, out, "--questions", path)
        assert res.exit_code == 0, res.output
    assert "Asked 980 (980 ok" in res.output
    per = Counter(r["probe_id"] for r in _records(out))
    assert all(per[p.probe_id] == (30 if p.template == "baseline 1" else 10) for p in probes)
    from click.testing import CliRunner

    from stereoprobe.cli import cli

    assert CliRunner().invoke(cli, ["score", str(out), "--bootstrap", "100"]).exit_code == 0
    t6 = pd.read_csv(out / "coreference" / "table6.csv").set_index(["template", "pronoun"])
    for group in ("3.1 nurse right", "3.1 doctor right"):
        for pronoun in ("he", "she"):
            wrong = sum(expected_wrong(p, 10, BIAS) for p in probes if (p.template, p.pronoun) == (group, pronoun))
            assert t6.loc[(group, pronoun), ["n", "errors"]].tolist() == [140, wrong]
    base = pd.read_csv(out / "coreference" / "table3.csv").set_index("template").loc["baseline 1"]
    assert (base["n"], base["errors"]) == (420, 0)
