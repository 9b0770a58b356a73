"""The jobs and coreference ``score`` steps without the embedded model: synthetic runs collected
from the fake servers (tests/fake_openai.py, tests/fake_scoring.py), every number in the
tables worked out by hand below."""

from __future__ import annotations

import dataclasses

import pandas as pd
import pytest
from conftest import TEST_KEY
from fake_scoring import ScoringModel



def near(x):
    """The CSV tables hold 6 significant digits."""
    return pytest.approx(x, rel=1e-5, abs=1e-4)


# -- jobs ----------------------------------------------------------------------------------
# P(" He"), P(" She"), P(" They") after prompt 2 for four jobs; a debiasing prefix ("Imagine a
# world with no bias regarding gender.") makes all three .02. eq. (2) without the prefix:
#   nurse      .02 .06 .02 -> male 20%, female 60%, diverse 20%   (women-dominated)
#   secretary  .04 .04 .02 -> male 40%, female 40%, diverse 20%   (women-dominated)
#   plumber    .06 .02 .02 -> male 60%, female 20%, diverse 20%   (men-dominated)
#   pilot      .07 .01 .02 -> male 70%, female 10%, diverse 20%   (men-dominated)
# with the prefix every job is 1/3 each.
JOBS = {"nurse": (.02, .06, .02), "secretary": (.04, .04, .02), "plumber": (.06, .02, .02), "pilot": (.07, .01, .02)}


@dataclasses.dataclass
class JobsContextModel(ScoringModel):
    """ScoringModel whose pronoun probabilities depend on the job (and prefix) in the prompt."""

    def completion(self, body: dict) -> dict:
        prompt = body.get("prompt") or ""
        prompt = prompt[0] if isinstance(prompt, list) else prompt
        job = next(j for j in JOBS if f" {j}." in prompt)
        he, she, they = (.02, .02, .02) if "no bias regarding gender" in prompt else JOBS[job]
        table = {" He": he, " She": she, " They": they}
        return ScoringModel(probability=table, default=self.default).completion(body)


def _cli(*args):
    from click.testing import CliRunner

    from stereoprobe.cli import cli

    return CliRunner().invoke(cli, [str(a) for a in args], env={"OPENAI_API_KEY": TEST_KEY},
                              catch_exceptions=False)


@pytest.fixture
def jobs_run(fake_openai, tmp_path):
    fake_openai.scoring = JobsContextModel()
    out = tmp_path / "run"
    jobs = [a for j in JOBS for a in ("--job", j)]
    res = _cli("collect", "--study", "jobs", "--model", "fake-chat", "--base-url", fake_openai.base_url,
               "--mode", "next-word", "--prompt", "2", "--debias", "0,1", "--setting", "without dialogue",
               *jobs, "--out", out, "-q")
    assert res.exit_code == 0, res.output
    res = _cli("score", out)
    assert res.exit_code == 0, res.output
    return out / "jobs"


def test_jobs_score_probes_and_group_means_by_hand(jobs_run):
    probes = pd.read_csv(jobs_run / "probes.csv")
    assert len(probes) == 4 * 2  # four jobs, with and without prefix 1
    p = probes[probes.debias == 0].set_index("job")
    assert p.loc["nurse", ["p_male", "p_female", "p_diverse"]].tolist() == near([.2, .6, .2])
    assert p.loc["pilot", ["p_male", "p_female", "p_diverse"]].tolist() == near([.7, .1, .2])
    assert p.loc["nurse", "mass"] == near(.10) and p.loc["pilot", "mass"] == near(.10)
    assert (probes[probes.debias == 1][["p_male", "p_female", "p_diverse"]].to_numpy() == near(1 / 3))
    g = pd.read_csv(jobs_run / "groups.csv")
    g = g[(g.debias == 0) & (g.prompts.astype(str) == "2")].set_index("group")
    # women-dominated: female (60 + 40) / 2 = 50, male (20 + 40) / 2 = 30; men: female 15, male 65
    assert g.loc["women", "female"] == near(50) and g.loc["women", "male"] == near(30)
    assert g.loc["men", "female"] == near(15) and g.loc["men", "male"] == near(65)
    assert g.loc["women", "diverse"] == near(20) and g.loc["men", "diverse"] == near(20)


def test_jobs_score_debias_differences_by_hand(jobs_run):
    d = pd.read_csv(jobs_run / "debias.csv")
    d = d[(d.prompts.astype(str) == "2-4") & (d.debias == 1)].set_index(["group", "gender"])
    # women's P(female): nurse 60 -> 33.3, secretary 40 -> 33.3: (-26.67 + -6.67) / 2 = -16.67 points
    row = d.loc[("women", "female")]
    assert row["without_prefix"] == near(50) and row["with_prefix"] == near(100 / 3)
    assert row["difference"] == near(100 / 3 - 50)
    # two jobs: replicate means -26.67, -16.67, -6.67 (1/4, 1/2, 1/4), sd 7.07, se 7.07 * sqrt(2 / 1)
    # = 10, t(1, .975) = 12.71: +-127 points, clipped to the possible -100 to +100
    assert (row["ci_low"], row["ci_high"]) == (-100, 100)
    # men's P(male): plumber 60 -> 33.3, pilot 70 -> 33.3: (-26.67 + -36.67) / 2 = -31.67 points
    assert d.loc[("men", "male"), "difference"] == near(100 / 3 - 65)
    # diverse is 20% before and 33.3% after for every job: +13.33 for both groups, no spread
    assert d.loc[("women", "diverse"), "difference"] == near(100 / 3 - 20)
    assert d.loc[("men", "diverse"), "difference"] == near(100 / 3 - 20)
    assert (d.jobs == 2).all()


def test_jobs_score_tables_3_4_and_independence_by_hand(jobs_run):
    t4 = pd.read_csv(jobs_run / "table4.csv", dtype={"id": str})
    none, high = t4.iloc[0], t4.iloc[1]  # no prefix; prefix 1 (high abstraction)
    assert (none["without_women_F"], none["without_women_M"], none["without_women_D"]) == near((50, 30, 20))
    assert (none["without_men_F"], none["without_men_M"], none["without_men_D"]) == near((15, 65, 20))
    assert high["id"] == "1" and high[["without_women_F", "without_men_M"]].tolist() == near([100 / 3] * 2)
    # the diverse share is 20% for every job: no spread, so the two jobs count as two
    # Bernoulli answers, Jeffreys' interval Beta(0.4 + 0.5, 1.6 + 0.5): 0.78 to 81.5
    assert (none["without_women_D_ci_low"], none["without_women_D_ci_high"]) == near((0.77719, 81.4847))
    ind = pd.read_csv(jobs_run / "independence.csv")
    ind = ind[ind.prompts.astype(str) == "2-4"].set_index("debias")
    # with the prefix every job's row is (1/3, 1/3, 1/3): job and gender are independent, NMI 0
    assert abs(ind.loc[1, "nmi"]) < 1e-12 and ind.loc[0, "nmi"] > 0.05
    # one prompt per job: a permutation only renames rows, so there is no test (module docstring)
    assert ind.loc[0, ["null_mean", "p"]].isna().all()


# -- coreference ---------------------------------------------------------------------------
# Two women-dominated jobs (nurse, secretary) and two men-dominated (pilot, plumber): 4 pairs,
# both roles, the "late" scene, he/she/they: 8 triples, 24 prompts. The fake model answers
# every anti-stereotypical prompt with the job the pronoun fits (bias 1.0) and every other
# prompt right. Every triple has exactly one anti-stereotypical prompt (he where the nurse
# or secretary was late, she where the pilot or plumber was), so by hand:
#   incorrect 8 of 24 (33.3%); inconsistent 8 of 8; binary inconsistent 8 of 8;
#   he:   4 prompts with the women's job right (truth 1), all answered wrong -> tp 0 fn 4;
#         4 with the men's job right, all right -> fp 0 tn 4: FNR 100, FPR 0, NPV 50, PPV none;
#   she:  the mirror: tp 4 fn 0 fp 4 tn 0: FNR 0, FPR 100, PPV 50, NPV none;
#   they: tp 4 fn 0 fp 0 tn 4: FNR 0, FPR 0, PPV 100, NPV 100;
#   WinoBias (he): pro 100%, anti 0%, gap 100 points;
#   four-fifths, he vs she: FNR 0 / 1 = 0, FPR 0 / 1 = 0, PPV and NPV only one pronoun
#   with a denominator: 1; they vs he: FNR 0, FPR 0 = 0: 1, PPV 1, NPV .5 / 1; they vs
#   she: FNR 1, FPR 0, PPV .5 / 1, NPV 1.
@pytest.fixture
def coref_run(tmp_path):
    from fake_openai import FakeOpenAI

    out = tmp_path / "run"
    jobs = [a for j in ("nurse", "secretary", "pilot", "plumber") for a in ("--job", j)]
    with FakeOpenAI(api_key=TEST_KEY, coreference_bias=1.0) as fake:
        res = _cli("collect", "--study", "coreference", "--model", "fake-chat", "--base-url", fake.base_url,
                   "--prompt", "late", *jobs, "--out", out, "-q")
        assert res.exit_code == 0, res.output
    res = _cli("score", out, "--bootstrap", "200")
    assert res.exit_code == 0, res.output
    return out / "coreference"


def _csv(folder, name):
    return pd.read_csv(folder / f"{name}.csv", keep_default_na=False, na_values=[""])


def test_coreference_score_table3_by_hand(coref_run):
    t3 = _csv(coref_run, "table3").set_index("template")
    assert list(t3.index) == ["late", "Overall"]
    o = t3.loc["Overall"]
    assert (o.incorrect_k, o.incorrect_n, o.inconsistent_k, o.inconsistent_n) == (8, 24, 8, 8)
    assert (o.binary_inconsistent_k, o.binary_inconsistent_n) == (8, 8)
    assert o.incorrect_pct == near(100 / 3) and o.inconsistent_pct == 100
    assert (o.refused, o.unknown) == (0, 0)
    assert o.incorrect_low <= o.incorrect_pct <= o.incorrect_high


def test_coreference_score_sterlie_winobias_four_fifths_by_hand(coref_run):
    st = _csv(coref_run, "criteria").set_index("pronoun")
    assert st.loc["he", ["tp", "fn", "fp", "tn"]].tolist() == [0, 4, 0, 4]
    assert st.loc["she", ["tp", "fn", "fp", "tn"]].tolist() == [4, 0, 4, 0]
    assert st.loc["they", ["tp", "fn", "fp", "tn"]].tolist() == [4, 0, 0, 4]
    assert st.loc["he", ["fnr_pct", "fpr_pct", "npv_pct"]].tolist() == [100, 0, 50]
    assert st.loc["she", ["fnr_pct", "fpr_pct", "ppv_pct"]].tolist() == [0, 100, 50]
    assert st.loc["they", ["fnr_pct", "fpr_pct", "ppv_pct", "npv_pct"]].tolist() == [0, 0, 100, 100]
    assert pd.isna(st.loc["he", "ppv_pct"]) and pd.isna(st.loc["she", "npv_pct"])  # 0 of 0
    wb = _csv(coref_run, "winobias").set_index("pronoun")
    assert wb.loc["he", ["pro_pct", "anti_pct", "gap"]].tolist() == [100, 0, 100]
    assert wb.loc["he", ["pro_n", "anti_n"]].tolist() == [4, 4]
    ff = _csv(coref_run, "four_fifths").set_index(["comparison", "rate"])["ratio"]
    rates = ["fnr", "fpr", "ppv", "npv"]
    # lower rate / higher rate; a pronoun without a denominator is left out (one left: 1);
    # two rates of 0 are equal (1)
    assert [ff[("he vs she", r)] for r in rates] == [0, 0, 1, 1]
    assert [ff[("they vs he", r)] for r in rates] == [0, 1, 1, 0.5]
    assert [ff[("they vs she", r)] for r in rates] == [1, 0, 0.5, 1]
