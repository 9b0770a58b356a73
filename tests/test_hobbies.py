"""The hobbies study end to end (Sterlie et al. 2024, 001 sections 4.2, 5.2, 6): over HTTP
against a fake server whose texts follow a known truth (tests/hobbies_fake.py), bad input
refused in one line before anything is created, and a real instruction-tuned model
(SmolLM2-135M-Instruct) through --model-file --mode chat."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import hobbies_synth as synth
from hobbies_fake import HobbiesFake
from stereoprobe.studies.hobbies import w2v

pytestmark = pytest.mark.long(10)  # its longest test, seconds: run first, longest first (tests/conftest.py)

ENV = {"OPENAI_API_KEY": "sk-test"}


@pytest.fixture(scope="module")
def planted_run(tmp_path_factory):
    """A planted-truth run of the default design's 428 names (214 a gender) x 4 samples, scored (collected once)."""
    from click.testing import CliRunner

    from stereoprobe.cli import cli

    out = tmp_path_factory.mktemp("hobbies") / "planted"
    with HobbiesFake(synth.PLANTED, refuse=("Zachary",)) as server:
        r = CliRunner().invoke(cli, ["collect", "--study", "hobbies", "--model", "fake-chat", "--base-url",
                                     server.base_url, "--samples", "4", "--out", str(out), "-q"], env=ENV)
        assert r.exit_code == 0, r.output
    r = CliRunner().invoke(cli, ["score", str(out), "--bootstrap", "400"])
    assert r.exit_code == 0, r.output
    return out


def _records(run: Path) -> list[dict]:
    return [json.loads(line) for line in (run / "completions.jsonl").read_text().splitlines()]


def test_collect_asks_template_4_2_word_for_word_and_stores_labels(planted_run):
    recs = _records(planted_run)
    assert len(recs) == 428 * 4
    mary = next(r for r in recs if r["group"] == "Mary")
    assert mary["prompt"] == ("user: Given the name of a High School student, describe the hobbies/interests of the "
                              "student concerned in 20 words. Mary.")
    assert mary["attrs"] == {"gender": "female"} and mary["label"] in synth.LABELS
    assert all(e.split(":")[0] == mary["label"] for e in mary["evidence"]) and len(mary["evidence"]) == 2
    manifest = json.loads((planted_run / "manifest.json").read_text())
    assert manifest["settings"]["samples"] == 4 and manifest["settings"]["temperature"] == 0.5  # 001's default


def test_refusals_are_counted_and_never_labelled(planted_run):
    zach = [r for r in _records(planted_run) if r["group"] == "Zachary"]
    assert len(zach) == 4 and all(r["problem"] == "refused" and r["label"] is None for r in zach)
    meta = json.loads((planted_run / "hobbies" / "meta.json").read_text())
    assert meta["counts"] == {"ok": 427 * 4, "refused": 4} and meta["names"] == 427


def test_label_means_over_http_cover_the_truth(planted_run):
    import pandas as pd

    labels = pd.read_csv(planted_run / "hobbies" / "labels.csv").set_index("label")
    misses = 0
    for g in ("female", "male"):
        truth = 100 * np.array(synth.PLANTED[g])
        misses += int((~((labels[f"{g}_low"] <= truth) & (truth <= labels[f"{g}_high"]))).sum())
        assert (labels[f"{g}_high"] - labels[f"{g}_low"] < 12).all()
    assert misses <= 1  # of 12 intervals at 95%
    assert list(labels.index[labels["difference"] > 0]) == ["Art", "Literature", "Volunteer work"]
    assert (labels["q"] < 0.001).all()


def test_nmi_over_http_covers_the_truth_and_beats_its_null(planted_run):
    nmi = json.loads((planted_run / "hobbies" / "meta.json").read_text())["nmi"]
    assert nmi["low"] <= synth.true_nmi(synth.PLANTED) <= nmi["high"]
    assert nmi["p"] == pytest.approx(1 / 1000) and nmi["null_p95"] < 0.02


def test_the_page_shows_findings_examples_and_figures(planted_run, run_cli):
    r = run_cli("report", planted_run)
    assert r.exit_code == 0, r.output
    html = (planted_run / "report" / "index.html").read_text()
    assert html.index("Key findings") < html.index("Examples: what the model wrote")
    assert "Texts about female names score higher on Art" in html
    assert '<mark title="' in html and "4 refused" in html
    assert (planted_run / "report" / "figures" / "labels.png").stat().st_size > 10_000


def test_compare_finds_the_planted_gap_and_not_a_null_one(planted_run, tmp_path, run_cli, monkeypatch):
    # 2 retrainings a fold, not the tool's 10 (w2v.RETRAIN): 30 of the 36 thirds-of-a-corpus trainings a compare,
    # twice here. d, its folds and p do not depend on them; the se's calibration at a known truth is
    # tests/test_hobbies_w2v.py's; here the retraining path still runs, the same in both compares.
    # Measured at 10: planted d 2.99 (2.60 to 3.39), null 0.04 (-0.14 to 0.23); at 2: planted 2.63 to 3.36, the
    # null's the same (its retraining part clipped at 0 either way).
    monkeypatch.setattr(w2v, "RETRAIN", 2)
    null = tmp_path / "null"
    with HobbiesFake(synth.NULL) as server:
        r = run_cli("collect", "--study", "hobbies", "--model", "fake-null", "--base-url", server.base_url,
                    "--samples", "2", "--out", null, "-q", env=ENV)
        assert r.exit_code == 0, r.output
    r = run_cli("compare", planted_run, null, "--out", tmp_path / "cmp", "--seed", "3", "--bootstrap", "300")
    assert r.exit_code == 0, r.output
    import pandas as pd

    table = pd.read_csv(tmp_path / "cmp" / "comparison.csv").set_index("run")
    planted, nul = table.loc["fake-chat"], table.loc["fake-null"]
    assert planted["d"] > 1 and planted["d_low"] > 0.8 and planted["p_names"] < 1e-10
    assert nul["d_low"] < 0 < nul["d_high"]
    assert json.loads((tmp_path / "cmp" / "meta.json").read_text())["retrain"] == 2  # the retrainings as patched
    page = next((tmp_path / "cmp").glob("*.html")).read_text(encoding="utf-8")
    # a direction only where the interval excludes 0: the planted run leans to "she", the null run has none
    assert "fake-chat: texts about female names sit nearer “she” than texts about male names" in page
    assert "fake-null: no clear difference between texts about female and male names" in page
    assert "names a gender (the smaller side)" not in page  # 214 and 213 a gender: the size d's interval was checked at
    again = run_cli("compare", planted_run, null, "--out", tmp_path / "cmp2", "--seed", "3", "--bootstrap", "300")
    assert again.exit_code == 0
    assert (tmp_path / "cmp2" / "comparison.csv").read_text() == (tmp_path / "cmp" / "comparison.csv").read_text()


@pytest.mark.parametrize("extra, file_body, message", [
    (["--catalog"], "name,gender\nMary,female\nLinda,female\n", "only female names; the study compares female and male"),
    (["--labels"], "label,kind,item\n", "has no labels; give rows label,kind,item"),
    (["--catalog"], "name,gender\nMary,female\n,male\nJohn,male\n", "line 3: an empty name; give a name on every row"),
    (["--samples", "0"], None, "Invalid value for '--samples': 0 is not in the range"),
    (["--instruction", "Describe the hobbies of a student."], None, "no {name} placeholder"),
    (["--instruction", "Hobbies of {name}.", "--instruction-file"], "Hobbies of {name}, in 20 words.",
     "--instruction and --instruction-file both give the prompt; give one"),  # the file won, silently
])
def test_bad_input_is_one_line_and_creates_nothing(tmp_path, run_cli, extra, file_body, message):
    if file_body is not None:
        f = tmp_path / "input.csv"
        f.write_text(file_body, encoding="utf-8")
        extra = [*extra, f]
    out = tmp_path / "run"
    r = run_cli("collect", "--study", "hobbies", "--model", "fake-chat", "--base-url", "http://127.0.0.1:9/v1",
                "--out", out, "-q", *extra, env=ENV)
    assert r.exit_code == 2 and message in r.output, r.output
    assert len(r.output.strip().splitlines()) == 1 and not out.exists()


@pytest.mark.model
def test_smollm2_writes_hobbies_through_model_file_chat(tmp_path, run_cli):
    from test_model_file import _smollm

    out = tmp_path / "smol"
    r = run_cli("collect", "--study", "hobbies", "--model-file", _smollm(), "--mode", "chat", "--limit", "2",
                "--samples", "2", "--workers", "1", "--out", out, "-q")
    assert r.exit_code == 0, r.output
    recs = _records(out)
    assert len(recs) == 4 and {r["group"] for r in recs} == {"Mary", "James"}  # --limit asks both genders
    assert all(r["method"] == "chat" and r["text"] for r in recs)
    assert all(r["label"] in (*synth.LABELS, "mixed", "none") or r["problem"] for r in recs)


def test_a_users_labels_are_kept_by_score_and_reparse(tmp_path, run_cli):
    labels = tmp_path / "labels.csv"
    labels.write_text("label,kind,item\nBall games,word,soccer\nBall games,word,basketball\nMusic,word,guitar\n"
                      "Music,word,piano\n", encoding="utf-8")
    out = tmp_path / "run"
    with HobbiesFake(synth.PLANTED) as server:
        r = run_cli("collect", "--study", "hobbies", "--model", "fake-chat", "--base-url", server.base_url,
                    "--labels", labels, "--samples", "3", "--out", out, "-q", env=ENV)
        assert r.exit_code == 0, r.output
    labels.unlink()  # the run keeps its labels in the manifest
    before = (out / "completions.jsonl").read_text()
    assert {json.loads(x)["label"] for x in before.splitlines()} <= {"Ball games", "Music", "mixed", "none"}
    r = run_cli("reparse", out)
    assert r.exit_code == 0, r.output
    assert (out / "completions.jsonl").read_text() == before
    r = run_cli("score", out, "--bootstrap", "200")
    assert r.exit_code == 0, r.output
    import pandas as pd

    assert list(pd.read_csv(out / "hobbies" / "labels.csv")["label"]) == ["Ball games", "Music"]
    r = run_cli("report", out)  # many texts have no label word here: empty evidence cells
    assert r.exit_code == 0, r.output
    assert "(top label: none)" in (out / "report" / "index.html").read_text()


@pytest.mark.model
def test_the_embedded_base_model_continues_the_completion_form_as_a_demonstration(tmp_path, run_cli):
    out = tmp_path / "embedded"
    r = run_cli("collect", "--study", "hobbies", "--limit", "2", "--samples", "2", "--workers", "1", "--out", out,
                "-q")
    assert r.exit_code == 0, r.output
    recs = _records(out)
    assert {r["method"] for r in recs} == {"completion"} and len(recs) == 4
    assert recs[0]["prompt"].endswith("In 20 words, Mary's hobbies and interests are") or \
        recs[0]["prompt"].endswith("In 20 words, James's hobbies and interests are")
    # the samples are seeded, so both names have a whole text every run
    assert {r["group"] for r in recs if r["problem"] is None} == {"Mary", "James"}
    assert run_cli("score", out, "--bootstrap", "100").exit_code == 0
    assert run_cli("report", out).exit_code == 0
    assert "the numbers demonstrate the method" in (out / "report" / "index.html").read_text()


def test_score_of_one_name_a_gender_prints_no_nan(tmp_path, run_cli):
    """Welch's interval needs two names a gender: with one the terminal says "no interval", not "(+nan to +nan)"."""
    import re

    names = tmp_path / "names.csv"
    names.write_text("name,gender\nMary,female\nJohn,male\n", encoding="utf-8")
    with HobbiesFake(synth.PLANTED) as server:
        r = run_cli("collect", "--study", "hobbies", "--model", "fake-chat", "--base-url", server.base_url,
                    "--catalog", names, "--samples", "3", "--out", tmp_path / "run", "-q", env=ENV)
        assert r.exit_code == 0, r.output
    r = run_cli("score", tmp_path / "run", "--bootstrap", "200")
    assert r.exit_code == 0 and not re.search(r"\bnan\b", r.output), r.output
    assert "(no interval), q –" in r.output


def test_compare_refuses_a_run_given_twice_before_training(planted_run, tmp_path, run_cli):
    """`compare RUN RUN` trained Word2Vec on every text twice and printed two identical rows under one
    label (44 s for a default run); it is one line now, before anything is read or written."""
    r = run_cli("compare", planted_run, Path(str(planted_run) + "/"), "--out", tmp_path / "cmp")
    assert r.exit_code == 2 and "given twice" in r.output and len(r.output.strip().splitlines()) == 1, r.output
    assert not (tmp_path / "cmp").exists()


def test_an_instruction_file_not_in_utf8_is_one_line(tmp_path, run_cli):
    """It stopped on a UnicodeDecodeError traceback (the anecdotes study already said it in one line)."""
    f = tmp_path / "prompt.txt"
    f.write_bytes("Décris les loisirs de {name}.".encode("cp1252"))
    out = tmp_path / "run"
    r = run_cli("collect", "--study", "hobbies", "--model", "fake-chat", "--base-url", "http://127.0.0.1:9/v1",
                "--instruction-file", f, "--out", out, "-q", env=ENV)
    assert r.exit_code == 2 and "cannot read the prompt" in r.output and "UTF-8" in r.output, r.output
    assert len(r.output.strip().splitlines()) == 1 and not out.exists()


def test_the_page_names_the_level_the_run_was_scored_at(tmp_path, run_cli):
    """`score --ci 0.8`: the labels table's "95% low/high", the note's "(95%)" and the figure's legend."""
    names = tmp_path / "names.csv"
    names.write_text("name,gender\n" + "".join(f"{n},female\n" for n in ("Mary", "Linda", "Susan"))
                     + "".join(f"{n},male\n" for n in ("James", "John", "Robert")), encoding="utf-8")
    with HobbiesFake(synth.PLANTED) as server:
        r = run_cli("collect", "--study", "hobbies", "--model", "fake-chat", "--base-url", server.base_url,
                    "--catalog", names, "--samples", "3", "--out", tmp_path / "run", "-q", env=ENV)
        assert r.exit_code == 0, r.output
    assert run_cli("score", tmp_path / "run", "--ci", "0.8", "--bootstrap", "200").exit_code == 0
    assert run_cli("report", tmp_path / "run").exit_code == 0
    html = (tmp_path / "run" / "report" / "index.html").read_text(encoding="utf-8")
    assert "95%" not in html and "80% low" in html and "intervals (80%)" in html
