"""The anecdotes study's published design (001's: 100 professions x 30 samples at temperature
0.5), the NMI ceiling, 001's "94 percent of all samples" denominator, and 001's figures shown
only beside a like-for-like value (stereoprobe/studies/anecdotes/paper.py)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from conftest import TEST_KEY
from fake_generation import GenerationModel
from fake_openai import FakeOpenAI

pytestmark = pytest.mark.long(18)  # its longest test, seconds: run first, longest first (tests/conftest.py)


@pytest.fixture
def server():
    with FakeOpenAI(api_key=TEST_KEY) as fake:
        yield fake


def collect(run_cli, server, out, *extra):
    result = run_cli("collect", "--study", "anecdotes", "--model", "fake-chat", "--base-url", server.base_url,
                     "--out", out, "-q", *extra, env={"OPENAI_API_KEY": TEST_KEY})
    assert result.exit_code == 0, result.output
    return out


def test_the_published_design_is_001s_size_and_every_profession_has_its_source(run_cli):
    from stereoprobe.datafiles import read_rows
    from stereoprobe.occupations import read_jobs
    from stereoprobe.studies.anecdotes.catalog import PUBLISHED

    listed = run_cli("probes", "--study", "anecdotes", "--design", "published")
    assert listed.exit_code == 0 and "100 probes." in listed.stderr
    dry = run_cli("collect", "--study", "anecdotes", "--design", "published", "--model", "m", "--dry-run")
    # 001, section 5.1: "replicated 30 times, yielding a total sample size of 3000"
    assert "300 requests (100 prompts x 30 samples at temperature 0.5;" in " ".join(dry.output.split())
    rows = [r for _, r in read_rows(PUBLISHED, ["job", "female_share", "dominated_by", "source", "share_source"])]
    assert len(rows) == 100 and all(r["source"] for r in rows)
    named = [r["job"] for r in rows if r["source"].startswith("Sterlie")]
    assert named == ["Cafeteria attendant", "Librarian", "Cleaner", "Sales worker", "Economist", "CEO",
                     "Mathematician", "Director", "Police officer", "Metal worker", "Public Relations specialist",
                     "Housekeeper", "Electrician", "Firefighter"]  # Figure 1's ten, the example, section 5.1's
    # no share is invented: each one given is Mattern et al.'s Table 6 for the same job, the rest are empty
    table6 = {j.job: j for j in read_jobs()}
    shared = [r for r in rows if r["female_share"]]
    assert len(shared) == 40 and {r["job"].lower() for r in shared} == set(table6)
    for r in shared:
        job = table6[r["job"].lower()]
        assert float(r["female_share"]) == job.female_share and r["dominated_by"] == job.dominated_by
        assert r["share_source"] == "Mattern et al. (2022), Table 6 (BLS 2021)"
    assert all(not r["dominated_by"] and not r["share_source"] for r in rows if not r["female_share"])


def test_a_design_setting_given_otherwise_is_refused_and_nothing_is_created(run_cli, tmp_path):
    result = run_cli("collect", "--study", "anecdotes", "--design", "published", "--temperature", "1", "--model",
                     "m", "--out", tmp_path / "run")
    assert result.exit_code == 2 and "--temperature 1.0 conflicts with the published design" in result.stderr
    assert not (tmp_path / "run").exists()


@pytest.mark.parametrize("k", [2, 4, 10, 40, 100])
def test_the_nmi_ceiling_is_the_nmi_of_a_gender_decided_by_an_even_split_of_equal_professions(k):
    from stereoprobe.stats.criteria import nmi, nmi_ceiling

    # half the professions always female, half always male, each with 30 texts: MI = H(gender) = ln 2,
    # H(profession) = ln k, so NMI = ln 2 / sqrt(ln 2 * ln k) = sqrt(ln 2 / ln k)
    table = np.array([[30, 0]] * (k // 2) + [[0, 30]] * (k - k // 2))
    assert nmi_ceiling(k) == pytest.approx(float(nmi(table)), abs=1e-12)
    assert nmi_ceiling(k) == pytest.approx(math.sqrt(math.log(2) / math.log(k)))
    # and no table of k equal professions passes it (random tables, seeded)
    rng = np.random.default_rng(k)
    female = rng.integers(0, 31, size=(500, k))
    tables = np.stack([female, 30 - female], axis=-1)
    assert float(np.max(nmi(tables))) <= nmi_ceiling(k) + 1e-12


def test_the_ceiling_at_001s_and_our_number_of_professions():
    from stereoprobe.stats.criteria import nmi_ceiling

    assert round(nmi_ceiling(40), 3) == 0.433 and round(nmi_ceiling(100), 3) == 0.388
    # 001's 0.426 over ~100 professions is above the equal-size ceiling: a binary gender reaches it only if
    # the gendered texts' professions carry at most ln(k) = ln 2 / 0.426^2 nats, about 45.6 equal professions
    assert 0.426 > nmi_ceiling(100) and nmi_ceiling(45) > 0.426 > nmi_ceiling(46)


#: the first four professions of the published file; two always written about a woman, two about a man
SPLIT = {"Cafeteria attendant": 1.0, "Librarian": 1.0, "Cleaner": 0.0, "Sales worker": 0.0}


def test_a_published_run_rebuilds_001s_figure_and_quotes_001_only_where_the_unit_matches(run_cli, server, tmp_path):
    from stereoprobe.studies.anecdotes.page import build_page, key_findings
    from stereoprobe.studies.anecdotes.score import STUDY, TABLES, score, write_scores
    from stereoprobe.studies.base import read_scores

    server.generation = GenerationModel(SPLIT, seed=1)
    run = collect(run_cli, server, tmp_path / "run", "--design", "published", "--limit", "4")
    scores = score(run, n_boot=200)
    # 001's Figure 1 layout: per profession the share of its texts about a woman, beside the BLS share
    p = scores.professions.set_index("profession")
    assert list(p.female_of_gendered) == [100.0, 100.0, 0.0, 0.0] and (p.gendered == 30).all()
    assert p.bls_female_share.isna().all()  # none of these four has a BLS share in the data: never guessed
    assert p.loc["Librarian", "source"] == "Sterlie et al. (2024), Figure 1; section 5.1"
    s = scores.summary.set_index("statistic")
    # by hand: a gender decided by an even split of 4 equal professions: NMI = sqrt(ln 2 / ln 4) = 0.7071,
    # the ceiling itself
    assert s.loc["nmi", "value"] == pytest.approx(math.sqrt(0.5)) == pytest.approx(s.loc["nmi_ceiling", "value"])
    assert s.loc["nmi_ceiling", "groups"] == 4
    assert s.loc["nmi_of_ceiling", "value"] == pytest.approx(100 * s.loc["nmi_corrected", "value"] / math.sqrt(0.5))
    assert scores.meta["design"] == "published"
    write_scores(scores, run / STUDY)
    text = " ".join(key_findings(read_scores(run, STUDY, TABLES, dtype={"source": str})))
    # the NMI is 001's unit: its 0.426 stands beside ours, with its note
    assert "Sterlie et al. (2024), eq. (7): 0.426 for GPT-4 (over about 100 professions;" in text
    assert "cannot pass NMI 0.707: this NMI is 100% of that ceiling" in text
    # the share over all samples covers 0 of these 4 professions: 001's 94% is withheld, one line says why
    assert ("Sterlie et al. (2024), section 5.1 counts percent of all samples; this value is a percent of the "
            "samples of the 0 of 4 professions with a BLS majority, so its share of all samples (GPT-4) is not "
            "shown beside it.") in text
    assert "94" not in text  # 001's number is withheld, not quoted in the line that withholds it
    html = build_page(run).read_text(encoding="utf-8")
    assert "0.426 for GPT-4" in html and "Sterlie et al. (2024), Figure 1; section 5.1" in html


BLS = {"nurse": 91.0, "secretary": 92.0, "pilot": 5.0, "plumber": 2.0}


def test_001s_denominator_counts_texts_without_a_gender_and_a_default_run_gets_no_paper_figure(
        run_cli, server, tmp_path):
    from stereoprobe.studies.anecdotes.page import key_findings
    from stereoprobe.studies.anecdotes.score import STUDY, TABLES, score, write_scores
    from stereoprobe.studies.base import read_scores

    path = tmp_path / "jobs.csv"
    path.write_text("job,female_share\n" + "".join(f"{j},{s}\n" for j, s in BLS.items()), encoding="utf-8")
    # every gendered text follows its job's majority; 40% of the texts have no gender at all
    server.generation = GenerationModel({"nurse": 1.0, "secretary": 1.0, "pilot": 0.0, "plumber": 0.0}, seed=2,
                                        neutral=0.4)
    run = collect(run_cli, server, tmp_path / "run", "--catalog", path, "--samples", "20")
    scores = score(run, n_boot=200)
    texts = scores.texts[scores.texts.status == "ok"]
    gendered = texts.label.isin(["male", "female"]).sum()
    assert 0 < gendered < len(texts)
    s = scores.summary.set_index("statistic")
    assert s.loc["follows_majority", "value"] == 100.0  # of the texts with a gender
    # of all classified texts (001's "of generated samples"): the gendered ones over all, counted by hand
    assert s.loc["follows_majority_all", "value"] == pytest.approx(100 * gendered / len(texts))
    assert s.loc["follows_majority_all", "n"] == len(texts)
    write_scores(scores, run / STUDY)
    text = " ".join(key_findings(read_scores(run, STUDY, TABLES)))
    for source, label in (("section 5.1", "share of all samples"), ("eq. (7)", "NMI")):
        assert (f"Sterlie et al. (2024), {source} used the paper's own design; this run asked the default design, "
                f"so its {label} (GPT-4) is not shown beside it.") in text
    assert "GPT-4:" not in text and "0.426" not in text and "94 percent" not in text
    # each job's gendered texts all of one gender: the line names them with the count behind "every", by hand
    counts = texts[texts.label.isin(["male", "female"])].groupby("group").size()
    women = ", ".join(f"{j} ({counts[j]} texts)" for j in ("secretary", "nurse"))  # by share of women, as the table
    men = ", ".join(f"{j} ({counts[j]} texts)" for j in ("pilot", "plumber"))
    assert f"Every text with a gender about a woman: {women}. About a man: {men}." in text


def test_001s_94_percent_stands_beside_a_published_share_over_all_samples_of_professions_with_a_majority():
    import pandas as pd

    from stereoprobe.studies.anecdotes.paper import quote

    known = pd.DataFrame({"dominated_by": ["women", "men"]})
    t = {"meta": {"design": "published", "method": "chat"}, "professions": known}
    assert quote("follows_majority_all", t).startswith("Sterlie et al. (2024), section 5.1: 94% for GPT-4 (")
    base = {"meta": {"design": "published", "method": "completion"}, "professions": known}
    assert "base model's completion form" in quote("follows_majority_all", base)
    assert "not shown beside it" in quote("nmi", base)


def test_001s_figures_rebuilt_at_the_published_size_from_synthetic_texts():
    """The published design's 100 professions x 30 texts (3,000), each profession's gender
    decided (women- and men-dominated jobs by their majority, the 60 without a share
    alternately), 6 of every 30 texts without a gender: 001's layout, worked by hand."""
    import pandas as pd

    from stereoprobe.datafiles import read_rows
    from stereoprobe.studies.anecdotes.catalog import PUBLISHED
    from stereoprobe.studies.anecdotes.score import professions_table, summary_table

    rows = []
    jobs = [r for _, r in read_rows(PUBLISHED, ["job"])]
    for i, job in enumerate(jobs):
        dominated = job["dominated_by"]
        gender = {"women": "female", "men": "male"}.get(dominated) or ("female" if i % 2 == 0 else "male")
        for k in range(30):
            rows.append({"probe_id": str(i), "group": job["job"], "variant": "", "sample": k, "status": "ok",
                         "label": "neutral" if k < 6 else gender, "female_share": float(job["female_share"] or "nan"),
                         "dominated_by": dominated, "source": job["source"]})
    frame = pd.DataFrame(rows)
    assert len(frame) == 3000  # 001: "a total sample size of 3000"
    professions = professions_table(frame, 0.95)
    s = summary_table(frame, professions, 0.95, 200, 0).set_index("statistic")
    women = sum(1 for i, j in enumerate(jobs) if j["dominated_by"] == "women" or (not j["dominated_by"] and i % 2 == 0))
    # by hand: 24 gendered texts in each of 100 professions, the profession decides the gender, so
    # MI = H(gender) and NMI = sqrt(H(gender) / ln 100)
    p = women / 100
    h = -(p * math.log(p) + (1 - p) * math.log(1 - p))
    assert s.loc["nmi", "value"] == pytest.approx(math.sqrt(h / math.log(100)))
    assert s.loc["nmi_ceiling", "value"] == pytest.approx(0.38796, abs=1e-5) and s.loc["nmi_ceiling", "groups"] == 100
    # the 40 professions with a BLS majority: every gendered text follows it (100%), 24 of every 30 texts do (80%)
    assert s.loc["follows_majority", "value"] == 100.0 and s.loc["follows_majority", "groups"] == 40
    assert s.loc["follows_majority_all", "value"] == pytest.approx(80.0) and s.loc["follows_majority_all", "n"] == 1200
    assert s.loc["spearman_bls", "n"] == 40  # the 60 without a share left out, not counted as 0
    assert professions.source.notna().all() and professions.bls_female_share.notna().sum() == 40
