"""The hobbies study's published design (Sterlie et al. 2024, 001 sections 4.2, 5.2, 6): its
size against the paper's, its tables rebuilt from synthetic answers, the SSA national file
read by the names rule, labels brought from elsewhere checked whole, and 001's figures shown
only beside a value measured their way (stereoprobe/papers.py)."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pandas as pd
import pytest

import hobbies_synth as synth
from hobbies_fake import HobbiesFake
from stereoprobe.errors import DataError
from stereoprobe.studies.hobbies import w2v
from stereoprobe.studies.hobbies.names import load_names

pytestmark = pytest.mark.long(7)  # its longest test, seconds: run first, longest first (tests/conftest.py)

ENV = {"OPENAI_API_KEY": "sk-test"}


# -- the design's size ------------------------------------------------------------------
def test_the_published_design_is_001s_214_names_a_gender_x_10_samples(run_cli, tmp_path):
    from stereoprobe.designs import designs_of
    from stereoprobe.studies import get_study

    design = designs_of(get_study("hobbies"))["published"]
    assert design.options["samples"] == 10 and design.options["temperature"] == 0.5
    out = tmp_path / "probes.csv"
    r = run_cli("probes", "--study", "hobbies", "--design", "published", "--output", out)
    assert r.exit_code == 0, r.output
    probes = pd.read_csv(out)
    genders = [json.loads(a)["gender"] for a in probes["attrs"]]
    assert (genders.count("female"), genders.count("male")) == (214, 214)
    # 001 section 5.2: "We replicate 4280 Prompts ... with an equal distribution of male and female names":
    # 214 + 214 names x 10 samples = 4,280 (214 names in all x 20 would be 4,280 too; 001's figures index
    # about 428 names and its p-values need more than 107 a gender: docs/hobbies.md, "How many names")
    assert len(probes) * design.options["samples"] == 4280
    # the default design asks the same names in the same order (docs/hobbies.md, "How many names")
    assert [n.name for n in load_names()] == [n.name for n in load_names(per_gender=214)]
    r = run_cli("collect", "--study", "hobbies", "--design", "published", "--model", "m", "--base-url",
                "http://127.0.0.1:9/v1", "--dry-run", env=ENV)
    assert r.exit_code == 0 and "428 prompts x 10 samples at temperature 0.5" in r.output, r.output
    # the default design asks the same 4,280 texts (docs/hobbies.md, "Why the default asks 214 names a gender")
    r = run_cli("collect", "--study", "hobbies", "--model", "m", "--base-url", "http://127.0.0.1:9/v1", "--dry-run",
                env=ENV)
    assert r.exit_code == 0 and "428 prompts x 10 samples at temperature 0.5" in r.output, r.output


@pytest.mark.parametrize("extra, flag", [(["--samples", "20"], "--samples 20"),
                                         (["--instruction", "Hobbies of {name}?"], "--instruction")])
def test_an_option_that_changes_the_published_design_is_refused(run_cli, tmp_path, extra, flag):
    out = tmp_path / "run"
    r = run_cli("collect", "--study", "hobbies", "--design", "published", "--model", "m", "--base-url",
                "http://127.0.0.1:9/v1", "--out", out, *extra, env=ENV)
    assert r.exit_code == 2 and f"{flag}" in r.output and "conflicts with the published design" in r.output
    assert not out.exists()


# -- the SSA national file --------------------------------------------------------------
def _ssa(folder: Path, years: dict[int, str]) -> None:
    folder.mkdir()
    for year, body in years.items():
        (folder / f"yob{year}.txt").write_text(body, encoding="utf-8")


YEARS = {  # 1922 and 2023 lie outside 001's 1923-2022 and must not count
    1922: "Olda,F,900\nOldo,M,900\n",
    1923: "Ann,F,50\nBea,F,40\nCal,M,60\nDan,M,30\nKim,F,20\nKim,M,19\n",
    2022: "Bea,F,30\nEve,F,25\nDan,M,35\nFinn,M,10\n",
    2023: "Newa,F,900\nNewo,M,900\n",
}


def test_the_names_rule_reads_the_ssa_national_file_over_001s_years(tmp_path):
    # births 1923-2022: Bea 70, Ann 50, Eve 25, Kim 20 F + 19 M (51% girls: unisex, out); Dan 65, Cal 60, Finn 10
    folder = tmp_path / "names"
    _ssa(folder, YEARS)
    names = load_names(folder, per_gender=2)
    assert [(n.name, n.gender) for n in names] == [("Bea", "female"), ("Ann", "female"), ("Dan", "male"),
                                                   ("Cal", "male")]
    archive = tmp_path / "names.zip"  # the SSA's own packaging: names.zip holding yobYYYY.txt
    with zipfile.ZipFile(archive, "w") as z:
        for f in sorted(folder.iterdir()):
            z.write(f, f.name)
    assert load_names(archive, per_gender=2) == names
    with pytest.raises(DataError, match="has 3 female, 3 male names; this design asks 4 a gender"):
        load_names(archive, per_gender=4)


@pytest.mark.parametrize("years, message", [
    ({1923: "Ann,F,50\nCal,M,x\n"}, r"yob1923.txt, line 2: 'Cal,M,x' is not 'Name,F\|M,births'"),
    ({1950: "Ann,F,50\nCal,M,5\n"}, r"holds births 1950-1950; the rule needs 1923"),
])
def test_a_bad_ssa_file_is_one_line(tmp_path, years, message):
    _ssa(tmp_path / "names", years)
    with pytest.raises(DataError, match=message):
        load_names(tmp_path / "names")


# -- labels made elsewhere --------------------------------------------------------------
@pytest.fixture(scope="module")
def small_run(tmp_path_factory):
    """6 names x 2 samples from the fake server, Mary refused (12 texts, 10 scored), scored once."""
    from click.testing import CliRunner

    from stereoprobe.cli import cli

    out = tmp_path_factory.mktemp("brought") / "run"
    with HobbiesFake(synth.PLANTED, refuse=("Mary",)) as server:
        r = CliRunner().invoke(cli, ["collect", "--study", "hobbies", "--model", "fake-chat", "--base-url",
                                     server.base_url, "--limit", "6", "--samples", "2", "--out", str(out), "-q"],
                               env=ENV)
        assert r.exit_code == 0, r.output
    assert CliRunner().invoke(cli, ["score", str(out), "--bootstrap", "100"]).exit_code == 0
    return out


def _brought(run: Path) -> pd.DataFrame:
    """Female-name texts: Art 1; male-name texts: Sport 0.8, Technology 0.2; every other label 0."""
    texts = pd.read_csv(run / "hobbies" / "texts.csv")
    rows = []
    for t in texts[texts["status"] == "ok"].itertuples():
        given = {"Art": 1.0} if t.gender == "female" else {"Sport": 0.8, "Technology": 0.2}
        rows += [{"text_id": t.text_id, "label": lab, "score": given.get(lab, 0.0), "labeller": "DeBERTa, zero-shot"}
                 for lab in synth.LABELS]
    return pd.DataFrame(rows)


def test_brought_labels_replace_the_word_lists_and_the_page_names_the_labeller(small_run, run_cli, tmp_path):
    import shutil

    run = tmp_path / "run"
    shutil.copytree(small_run, run)
    csv = tmp_path / "deberta.csv"
    _brought(run).to_csv(csv, index=False)
    r = run_cli("score", run, "--bootstrap", "100", "--labels-from", csv)
    assert r.exit_code == 0, r.output
    texts = pd.read_csv(run / "hobbies" / "texts.csv")
    ok = texts[texts["status"] == "ok"]
    assert len(ok) == 10 and (texts["status"] == "refused").sum() == 2  # Mary's two refusals: not scored
    assert set(ok.loc[ok["gender"] == "female", "top"]) == {"Art"} and set(ok.loc[ok["gender"] == "male", "top"]) \
        == {"Sport"}
    labels = pd.read_csv(run / "hobbies" / "labels.csv").set_index("label")
    # every female text Art 1 -> female Art mean 100%; male Sport 80%, Technology 20%, Art 0
    assert labels.loc["Art", "female_mean"] == pytest.approx(100) and labels.loc["Art", "male_mean"] == 0
    assert labels.loc["Sport", "male_mean"] == pytest.approx(80) and labels.loc["Technology", "male_mean"] == \
        pytest.approx(20)
    meta = json.loads((run / "hobbies" / "meta.json").read_text())
    assert meta["labeller_kind"] == "brought" and meta["labeller"].startswith("DeBERTa, zero-shot (scores brought")
    assert run_cli("report", run).exit_code == 0
    page = (run / "report" / "index.html").read_text(encoding="utf-8")
    assert "made outside stereoprobe by DeBERTa, zero-shot" in page and "word lists" not in page.split("<h2>")[0]


def _edit(frame: pd.DataFrame, case: str, run: Path) -> pd.DataFrame:
    if case == "missing":
        return frame.drop(index=3)
    if case == "label":
        return frame.assign(label=frame["label"].replace({"Art": "Arts"}))
    if case == "range":
        return frame.assign(score=frame["score"].where(frame.index != 5, 1.5))
    if case == "twice":
        return pd.concat([frame, frame.iloc[[7]]])
    if case == "unknown":
        return pd.concat([frame, frame.iloc[[0]].assign(text_id="000000000000:0")])
    texts = pd.read_csv(run / "hobbies" / "texts.csv")  # "refused": a text that was not scored
    mary = texts.loc[texts["status"] == "refused", "text_id"].iloc[0]
    return pd.concat([frame, frame.iloc[[0]].assign(text_id=mary)])


@pytest.mark.parametrize("case, message", [
    ("missing", "1 of the run's 10 scored texts lacks a label row"),
    ("label", "label 'Arts' is not one of the run's labels"),
    ("range", "score '1.5' is not a number from 0 to 1"),
    ("twice", "has a second"),
    ("unknown", "text id '000000000000:0' is not a text of this run"),
    ("refused", "was refused and is not scored; drop its rows"),
])
def test_a_bad_labels_csv_is_one_line_and_changes_nothing(small_run, run_cli, tmp_path, case, message):
    csv = tmp_path / "bad.csv"
    _edit(_brought(small_run), case, small_run).to_csv(csv, index=False)
    before = {p.name: p.read_bytes() for p in (small_run / "hobbies").iterdir()}
    r = run_cli("score", small_run, "--bootstrap", "100", "--labels-from", csv)
    assert r.exit_code == 2 and message in r.output and len(r.output.strip().splitlines()) == 1, r.output
    assert {p.name: p.read_bytes() for p in (small_run / "hobbies").iterdir()} == before


# -- the published design's tables from synthetic answers, and 001's figures beside them --
@pytest.fixture(scope="module")
def published_and_default(tmp_path_factory):
    """A published-design run (214 + 214 names x 10, planted truth) and a default-design run (214 + 214 x 2,
    null), both from the fake server, scored."""
    from click.testing import CliRunner

    from stereoprobe.cli import cli

    root = tmp_path_factory.mktemp("published")
    runs = {}
    for name, truth, extra in (("published", synth.PLANTED, ["--design", "published"]),
                               ("default", synth.NULL, ["--samples", "2"])):
        out = root / name
        with HobbiesFake(truth) as server:
            r = CliRunner().invoke(cli, ["collect", "--study", "hobbies", "--model", f"fake-{name}", "--base-url",
                                         server.base_url, "--out", str(out), "-q", *extra], env=ENV)
            assert r.exit_code == 0, r.output
        assert CliRunner().invoke(cli, ["score", str(out), "--bootstrap", "200"]).exit_code == 0
        runs[name] = out
    return runs


def test_the_published_run_rebuilds_001s_figure_4_table(published_and_default):
    run = published_and_default["published"]
    assert json.loads((run / "manifest.json").read_text())["design"] == "published"
    names = pd.read_csv(run / "hobbies" / "names.csv")
    # Figure 4's layout: one row per name (214 a gender, name index 0-427), its mean score on each of six labels
    assert len(names) == 428 and (names["gender"].value_counts() == 214).all() and (names["texts"] == 10).all()
    assert list(names.columns[3:]) == list(synth.LABELS)
    labels = pd.read_csv(run / "hobbies" / "labels.csv").set_index("label")
    for g in ("female", "male"):  # each gender's mean over its 214 names covers the planted probability
        truth = 100 * pd.Series(synth.PLANTED[g], index=synth.LABELS)
        inside = (labels[f"{g}_low"] <= truth) & (truth <= labels[f"{g}_high"])
        assert inside.sum() >= 5, (g, labels[[f"{g}_low", f"{g}_high"]], truth)


def test_001s_d_is_printed_only_beside_a_published_run_measured_their_way(published_and_default, run_cli, tmp_path,
                                                                          monkeypatch):
    # 2 retrainings a fold, not the tool's 10 (w2v.RETRAIN): 30 of the compare's 36 thirds-of-a-corpus trainings
    # of 5,136 texts. What is checked here is which figures the page prints beside which value, and that the
    # planted difference is found and the null one not; d, d_001 and the p do not depend on the retrainings,
    # the se's calibration at a known truth is tests/test_hobbies_w2v.py's. Measured at 10: published d 4.46
    # (4.03 to 4.89), d_001 3.69; default 0.04 (-0.15 to 0.23), d_001 0.26; at 2: 3.93 to 4.99, -0.16 to 0.23.
    monkeypatch.setattr(w2v, "RETRAIN", 2)
    runs = published_and_default
    out = tmp_path / "cmp"
    r = run_cli("compare", runs["published"], runs["default"], "--out", out, "--seed", "3", "--bootstrap", "300")
    assert r.exit_code == 0, r.output
    table = pd.read_csv(out / "comparison.csv").set_index("run")
    pub, dflt = table.loc["fake-published"], table.loc["fake-default"]
    assert (pub["design"], dflt["design"]) == ("published", "default")
    assert (pub["female_names"], pub["male_names"], dflt["female_names"]) == (214, 214, 214)
    assert pub["d_low"] > 1 and dflt["d_low"] < 0 < dflt["d_high"]  # planted found, null not (corrected)
    assert pub["d_001"] > 1 and abs(dflt["d_001"]) < pub["d_001"]  # 001's way finds the planted difference too
    page = (out / "index.html").read_text(encoding="utf-8")
    figures = "Sterlie et al. found d = 3.34 (GPT-3.5-turbo), 5.34 (GPT-4), 5.45 (GPT-4-turbo)"
    assert page.count(figures) == 1 and page.index("fake-published, 001&#x27;s way") < page.index(figures)
    # beside the default run: one line saying why not, never the numbers
    assert ("this run asked the default design, so the paper&#x27;s 3.34 d over name means (001&#x27;s way) "
            "(GPT-3.5-turbo) is not shown beside it") in page
    # beside the corrected measure of the published run: the unit differs, so not shown either
    assert "this value is a d over name means (cross-fitted), so the paper&#x27;s 3.34" in page
    scores = pd.read_csv(out / "scores.csv")  # Figure 5's layout: per name, its mean projection (both ways)
    per_name = scores[scores["run"] == "fake-published"].groupby("name")[["score", "score_001"]].mean()
    assert len(per_name) == 428 and per_name.notna().all().all()


def test_an_empty_or_not_utf8_ssa_file_is_one_line(tmp_path):
    """Each stopped on a traceback: an empty yobYYYY.txt (ValueError: cannot convert float NaN) and a
    Windows-1252 one (UnicodeDecodeError). An empty year beside others adds no births."""
    _ssa(tmp_path / "empty", {1923: ""})
    with pytest.raises(DataError, match="holds no births"):
        load_names(tmp_path / "empty")
    (tmp_path / "latin").mkdir()
    (tmp_path / "latin" / "yob1923.txt").write_bytes("José,M,70\nAnn,F,50\n".encode("cp1252"))
    with pytest.raises(DataError, match=r"yob1923.txt is not UTF-8 text"):
        load_names(tmp_path / "latin")
    _ssa(tmp_path / "some", {**YEARS, 1950: ""})
    assert [n.name for n in load_names(tmp_path / "some", per_gender=2)] == ["Bea", "Ann", "Dan", "Cal"]


def test_a_file_option_that_changes_the_published_design_is_named_as_the_user_wrote_it(run_cli, tmp_path):
    """It read "--instruction-file PosixPath('prompt.txt') conflicts with the published design"."""
    prompt = tmp_path / "prompt.txt"
    prompt.write_text("Hobbies of {name}?", encoding="utf-8")
    r = run_cli("collect", "--study", "hobbies", "--design", "published", "--model", "m", "--base-url",
                "http://127.0.0.1:9/v1", "--out", tmp_path / "run", "--instruction-file", prompt, env=ENV)
    assert r.exit_code == 2 and f"--instruction-file '{prompt}' conflicts with the published design" in r.output, \
        r.output
    assert "PosixPath" not in r.output and not (tmp_path / "run").exists()
