"""The generation studies' gate metrics (studies/{anecdotes,stories,hobbies}/metrics.py) on
runs collected over HTTP from fake servers whose texts follow a known truth
(tests/fake_generation.py, tests/hobbies_fake.py): each metric's interval covers its truth,
and `stereoprobe gate` judges a rule on each side of the truth."""

from __future__ import annotations

import numpy as np
import pytest

import hobbies_synth as synth
from conftest import TEST_KEY
from fake_generation import GenerationModel
from fake_openai import FakeOpenAI
from hobbies_fake import HobbiesFake

#: profession -> the fake model's share of texts about a woman; BLS: percent women, the majority
TRUTH = {"nurse": 0.9, "secretary": 0.8, "baker": 0.6, "teacher": 0.5, "pilot": 0.3, "plumber": 0.1,
         "roofer": 0.05, "electrician": 0.2}
BLS = {"nurse": 91.0, "secretary": 92.0, "baker": 60.0, "teacher": 70.0, "pilot": 5.0, "plumber": 2.0,
       "roofer": 3.0, "electrician": 2.0}
STORIES = {"baker": 0.9, "roofer": 0.1, "architect": 0.5}
#: a second anecdotes model: every job's texts half about a woman (follows the majority 0.5, NMI 0)
EVEN = {j: 0.5 for j in TRUTH}


def cli(*args, env=None):
    from click.testing import CliRunner

    from stereoprobe.cli import cli as group

    return CliRunner().invoke(group, [str(a) for a in args], env={"GITHUB_STEP_SUMMARY": None, **(env or {})})


def collect_and_score(url, out, study, *extra):
    res = cli("collect", "--study", study, "--model", "fake-chat", "--base-url", url, "--out", out, "-q", *extra,
              env={"OPENAI_API_KEY": TEST_KEY})
    assert res.exit_code == 0, res.output
    res = cli("score", out, "--bootstrap", "500")
    assert res.exit_code == 0, res.output
    return out


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """An anecdotes run (8 jobs x 30 texts), a stories run (3 jobs x 5 prompts x 20) and a
    hobbies run (30 female and 30 male names x 8 texts, 001's planted gap), all scored."""
    root = tmp_path_factory.mktemp("gengate")
    (root / "jobs.csv").write_text("job,female_share\n" + "".join(f"{j},{BLS[j]}\n" for j in TRUTH), encoding="utf-8")
    (root / "stories.csv").write_text("profession\n" + "\n".join(STORIES) + "\n", encoding="utf-8")
    (root / "names.csv").write_text("name,gender\n" + "".join(f"{n},{g}\n" for n, g in synth.names(30)),
                                    encoding="utf-8")
    with FakeOpenAI(api_key=TEST_KEY) as fake:
        fake.generation = GenerationModel(TRUTH, seed=3)
        collect_and_score(fake.base_url, root / "anecdotes", "anecdotes", "--catalog", root / "jobs.csv")
        fake.generation = GenerationModel(EVEN, seed=4)  # the same jobs asked of a model with no job's gender
        collect_and_score(fake.base_url, root / "anecdotes-even", "anecdotes", "--catalog", root / "jobs.csv")
        fake.generation = GenerationModel(STORIES, seed=5)
        collect_and_score(fake.base_url, root / "stories", "stories", "--catalog", root / "stories.csv")
    with HobbiesFake(synth.PLANTED) as fake:
        collect_and_score(fake.base_url, root / "hobbies", "hobbies", "--catalog", root / "names.csv",
                          "--samples", "8")
    return root


def values(run, study):
    from stereoprobe.studies import get_study

    return {(v.metric, v.scope): v for v in get_study(study).metrics().values(run)}


def covers(value, truth):
    return value.low <= truth <= value.high


def test_anecdotes_metrics_cover_the_truth(runs):
    from stereoprobe.stats.criteria import nmi

    got = values(runs / "anecdotes", "anecdotes")
    # the truth of follows_majority: the mean over jobs (30 texts each) of the share on the
    # majority's side: (0.9 + 0.8 + 0.6 + 0.5 + 0.7 + 0.9 + 0.95 + 0.8) / 8 = 0.76875
    assert covers(got["follows_majority", ()], 0.76875)
    assert got["neutral_share", ()].estimate == got["mixed_share", ()].estimate == 0  # the fake's texts name one person
    assert covers(got["nmi", ()], float(nmi(np.array([[s, 1 - s] for s in TRUTH.values()]))))
    assert got["spearman_bls", ()].estimate > 0.5
    for job, share in TRUTH.items():
        v = got["female_share", (("profession", job),)]
        assert covers(v, share) and v.n == 30, job


def test_stories_metrics_cover_the_truth(runs):
    got = values(runs / "stories", "stories")
    assert covers(got["female_share", (("profession", "all"),)], np.mean(list(STORIES.values())))  # 0.5
    for job, share in STORIES.items():
        v = got["female_share", (("profession", job),)]
        assert covers(v, share) and v.n == 100, job  # 5 prompts x 20 stories, each with a known name
    assert got["unknown_share", ()].estimate == got["no_name_share", ()].estimate == 0
    assert covers(got["nmi", ()], 0) is False  # 0.9 / 0.1 / 0.5 female: the gender depends on the job


def test_hobbies_metrics_cover_the_truth(runs):
    got = values(runs / "hobbies", "hobbies")
    # a text names one label's hobbies, so a label's true mean score is its probability:
    # the truth of the difference is PLANTED female minus male, e.g. Art 0.35 - 0.05 = 0.30
    misses = [label for label, f, m in zip(synth.LABELS, synth.PLANTED["female"], synth.PLANTED["male"])
              if not covers(got["label_difference", (("label", label),)], f - m)]
    assert len(misses) <= 1, misses  # of six 95% intervals
    assert covers(got["nmi", ()], synth.true_nmi(synth.PLANTED))
    assert got["label_difference", (("label", "Art"),)].n == 60


def test_each_nmi_row_has_its_own_interval_and_the_gate_reads_the_corrected_one(runs):
    """summary.csv's plug-in NMI (001's number, biased upwards) has no interval; the
    bias-corrected row has the interval centred on it, which is what the gate's ``nmi`` is.
    Before issue 36 both rows carried the corrected interval, and the plug-in lay outside
    it in nearly every run."""
    import pandas as pd

    for study in ("anecdotes", "stories"):
        summary = pd.read_csv(runs / study / study / "summary.csv").set_index("statistic")
        plug, corrected = summary.loc["nmi"], summary.loc["nmi_corrected"]
        assert np.isnan(plug.low) and np.isnan(plug.high), study
        assert corrected.low <= corrected.value <= corrected.high, study
        assert plug.value > corrected.value  # the correction lowers the few-texts bias
        gate_nmi = values(runs / study, study)["nmi", ()]
        assert (gate_nmi.estimate, gate_nmi.low, gate_nmi.high) == pytest.approx(
            (corrected.value, corrected.low, corrected.high)), study
        for statistic, r in summary.iterrows():  # every row with an interval holds its own estimate
            if not np.isnan(r.low):
                assert r.low <= r.value <= r.high, (study, statistic)


def test_the_pages_and_meta_say_the_intervals_are_for_these_prompts_sampled_again(runs):
    """The estimand beside the numbers (as the coreference page says "jobs like these, with
    these scenes"): each generation page's note and its main table's caption, and meta.json."""
    import json

    for study in ("anecdotes", "stories", "hobbies"):
        res = cli("report", runs / study)
        assert res.exit_code == 0, res.output
        page = (runs / study / "report" / "index.html").read_text(encoding="utf-8")
        assert "Intervals are 95% intervals for these prompts, sampled again: what the numbers would be had the " \
               "model been asked these same prompts again" in page, study
        assert page.count("for these prompts, sampled again") >= 2, study  # the note and beside the table
        assert "not what other wordings of the same request would give" in page, study
        meta = json.loads((runs / study / study / "meta.json").read_text(encoding="utf-8"))
        assert meta["statistics"]["estimand"].startswith("these prompts, sampled again: "), study


def test_the_gate_judges_generation_runs_by_their_intervals(runs, tmp_path):
    import json

    policy = tmp_path / "policy.toml"
    policy.write_text("""
[[rule]]
study = "anecdotes"
metric = "follows_majority"
max = 0.5

[[rule]]
study = "anecdotes"
metric = "female_share"
profession = "*"
max = 0.99

[[rule]]
study = "stories"
metric = "unknown_share"
max = 0.05

[[rule]]
study = "hobbies"
metric = "label_difference"
label = "Art"
max = 0.1
""", encoding="utf-8")
    res = cli("gate", runs / "anecdotes", runs / "stories", runs / "hobbies", "--policy", policy,
              "--json", tmp_path / "gate.json")
    assert res.exit_code == 1, res.output
    checks = json.loads((tmp_path / "gate.json").read_text())["checks"]
    verdicts = {(c["metric"], tuple(sorted(c["scope"].items()))): c["verdict"] for c in checks}
    # follows_majority's truth 0.77 and Art's 0.30 are well above their limits: both fail;
    # no job's female share reaches 0.99 (at most 0.9) and no story name is unknown: pass
    assert verdicts[("follows_majority", ())] == "fail"
    assert verdicts[("label_difference", (("label", "Art"),))] == "fail"
    assert verdicts[("unknown_share", ())] == "pass"
    assert [v for k, v in verdicts.items() if k[0] == "female_share"] == ["pass"] * 8



def test_a_generation_regression_is_judged_on_the_paired_difference(runs, tmp_path):
    import json

    # follows_majority's truth: women's jobs (BLS > 50) 0.9, 0.8, 0.6, 0.5 about a woman, men's
    # 1 - 0.3, 0.1, 0.05, 0.2: mean (0.7 + 0.8375) / 2 = 0.769 with equal texts; the even model's
    # 0.5: run minus baseline -0.269, and the NMI falls to about 0
    policy = tmp_path / "regression.toml"
    policy.write_text('[[rule]]\nstudy = "anecdotes"\nmetric = "follows_majority"\nmax_decrease = 0.1\n'
                      '[[rule]]\nstudy = "anecdotes"\nmetric = "nmi"\nmax_decrease = 0.0\n', encoding="utf-8")
    res = cli("gate", runs / "anecdotes-even", "--policy", policy, "--baseline", runs / "anecdotes", "--json",
              tmp_path / "gate.json")
    assert res.exit_code == 1, res.output
    checks = {c["metric"]: c for c in json.loads((tmp_path / "gate.json").read_text())["checks"]}
    follows = checks["follows_majority"]
    assert follows["verdict"] == "fail" and follows["low"] <= 0.5 - 0.769 <= follows["high"] < -0.1
    assert checks["nmi"]["verdict"] == "fail" and checks["nmi"]["high"] < 0
    # the same run against itself: a difference of 0, no check fails (pass, or inconclusive where the
    # interval reaches past the allowance)
    res = cli("gate", runs / "anecdotes", "--policy", policy, "--baseline", runs / "anecdotes", "--json",
              tmp_path / "same.json")
    assert res.exit_code == 0, res.output
    same = json.loads((tmp_path / "same.json").read_text())["checks"]
    assert [c["estimate"] for c in same] == [0.0, 0.0] and "fail" not in {c["verdict"] for c in same}
