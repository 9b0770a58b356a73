"""001's Tables 1-6 rebuilt from synthetic answers of the published design (50 replies per sector
prompt and pronoun, Table 3's baselines 30; 14 questions x 2 x 2 x 10 and Baseline 1 x 30), through
the scoring a run gets (sterlie_score.score, write_scores) and laid out on the page as 001 lays
them out; every value worked by hand below. And 001's numbers on the page only beside a run of
the published design read as 001 reads replies, otherwise one line why (papers.comparable)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from stereoprobe.manifest import BackendSettings, CatalogInfo, RunManifest
from stereoprobe.studies.coreference.records import CorefRecord
from stereoprobe.studies.coreference.sterlie import BASELINE, sector_probes
from stereoprobe.studies.coreference.sterlie_score import score, write_scores

# Per sector prompt and pronoun, of 50 replies: (wrong, unclear). Positives (eq. 5) are 4.3-4.5.
SECTOR = {("4.3", "she"): (0, 0), ("4.3", "he"): (20, 5), ("4.4", "she"): (0, 0), ("4.4", "he"): (10, 0),
          ("4.5", "she"): (5, 0), ("4.5", "he"): (50, 0), ("4.6", "she"): (40, 0), ("4.6", "he"): (0, 0),
          ("4.7", "she"): (25, 5), ("4.7", "he"): (0, 0), ("4.8", "she"): (50, 0), ("4.8", "he"): (2, 0)}
BASE_WRONG = {"4.3 baseline": 3}  # of 30; the other five baselines always right
NEGATING = 10  # of 4.6 she's 40 wrong replies, "The nurse, not the doctor.": 000's rule reads them unclear


def _manifest(design="published", reading="sterlie", family="sterlie-2024-sectors", samples=50):
    options = {"baseline_samples": 30} | ({"reading": reading} if reading else {})
    return RunManifest(settings=BackendSettings(backend="openai-chat", mode="chat", model="synthetic",
                                                samples=samples, temperature=0.5, options=options),
                       catalog=CatalogInfo(path="synthetic", sha256="0", probes=18, template_family=family),
                       study="coreference", design=design)


def _reply(p, answer, negate=False):
    if answer == "U":
        return f"The {p.profession_a} or the {p.profession_b}."
    named, other = p.profession(answer), p.profession("B" if answer == "A" else "A")
    return f"The {named}, not the {other}." if negate else f"The {named}."


def sector_records():
    recs = []
    for p in sector_probes():
        other = "B" if p.expected == "A" else "A"
        if p.pronoun == BASELINE:
            wrong, unclear, n = BASE_WRONG.get(p.template, 0), 0, 30
        else:
            (wrong, unclear), n = SECTOR[(p.template, p.pronoun)], 50
        answers = [other] * wrong + ["U"] * unclear + [p.expected] * (n - wrong - unclear)
        for s, a in enumerate(answers):
            negate = (p.template, p.pronoun) == ("4.6", "she") and s < NEGATING
            recs.append(CorefRecord.of(p, s, "chat", answer=a, raw=_reply(p, a, negate)))
    return recs


@pytest.fixture(scope="module")
def sector_scores(tmp_path_factory):
    run = tmp_path_factory.mktemp("tables") / "run"
    run.mkdir()
    result = score(run, _manifest(), sector_records(), 0.95, 200, 0)
    write_scores(result, run / "coreference")
    return run, result


def test_the_same_answers_arriving_in_another_order_give_the_same_intervals(tmp_path):
    # the stratified bootstrap draws rows by position: records in the order they arrived (parallel
    # requests finish in any order) once gave a second run of the same answers intervals that differed
    # in the fifth digit (a card's MOVER check caught it one run in four); scored in (probe, sample)
    # order, a shuffled run's tables are the original's exactly, and its readings count the same
    import random

    recs = sector_records()
    shuffled = recs[:]
    random.Random(7).shuffle(shuffled)
    a = score(tmp_path, _manifest(), recs, 0.95, 200, 0).tables
    b = score(tmp_path, _manifest(), shuffled, 0.95, 200, 0).tables
    for name in ("table6", "table3", "separation", "readings"):
        assert a[name].equals(b[name]), name


def test_table_6_every_cell_by_hand_in_001s_order(sector_scores):
    _, result = sector_scores
    t6 = result.tables["table6"]
    # 001's Table 6 lists the prompts by sector: heart rate, operation, teeth, root canal, trays, landing gear
    assert list(dict.fromkeys(t6["template"])) == ["4.3", "4.6", "4.4", "4.7", "4.5", "4.8"]
    got = {(r["template"], r["pronoun"]): (r["n"], r["errors"], round(r["error_pct"], 6)) for _, r in t6.iterrows()}
    # errors: wrong + unclear (an unclear reply is not the right one): 4.3 he 25 of 50 = 50%, 4.7 she 30 = 60%
    assert got == {("4.3", "she"): (50, 0, 0), ("4.3", "he"): (50, 25, 50), ("4.4", "she"): (50, 0, 0),
                   ("4.4", "he"): (50, 10, 20), ("4.5", "she"): (50, 5, 10), ("4.5", "he"): (50, 50, 100),
                   ("4.6", "she"): (50, 40, 80), ("4.6", "he"): (50, 0, 0), ("4.7", "she"): (50, 30, 60),
                   ("4.7", "he"): (50, 0, 0), ("4.8", "she"): (50, 50, 100), ("4.8", "he"): (50, 2, 4)}
    right = dict(zip(t6["template"], t6["right_answer"]))
    assert right == {"4.3": "nurse", "4.6": "doctor", "4.4": "dental hygienist", "4.7": "dentist",
                     "4.5": "flight attendant", "4.8": "pilot"}


def test_table_3_baselines_over_30_runs_beside_the_pronoun_prompts(sector_scores):
    _, result = sector_scores
    t3 = result.tables["table3"].set_index("template")
    assert t3.index.tolist() == [f"{t} baseline" for t in ("4.3", "4.6", "4.4", "4.7", "4.5", "4.8")]
    assert t3["n"].tolist() == [30] * 6
    assert t3.loc["4.3 baseline", ["errors", "error_pct"]].tolist() == [3, 10.0]  # 3 of 30
    assert t3.drop("4.3 baseline")["errors"].sum() == 0
    # beside each: the same question with he and with she (Table 6's cells)
    assert t3.loc["4.3 baseline", ["he_error_pct", "she_error_pct"]].tolist() == [50.0, 0.0]
    assert t3.loc["4.7 baseline", ["he_error_pct", "she_error_pct"]].tolist() == [0.0, 60.0]


def test_tables_4_and_5_every_rate_by_hand(sector_scores):
    _, result = sector_scores
    st = result.tables["separation"].set_index("pronoun")
    # he: positives 4.3-4.5: TP 25 + 40 + 0 = 65, FN 20 + 10 + 50 = 80, 5 unclear; negatives 4.6-4.8:
    #     FP 0 + 0 + 2 = 2, TN 50 + 50 + 48 = 148
    # she: TP 50 + 50 + 45 = 145, FN 5; FP 40 + 25 + 50 = 115, TN 10 + 20 + 0 = 30, 5 unclear
    assert st.loc["he", ["tp", "fn", "fp", "tn", "unknown"]].tolist() == [65, 80, 2, 148, 5]
    assert st.loc["she", ["tp", "fn", "fp", "tn", "unknown"]].tolist() == [145, 5, 115, 30, 5]
    expected = {"he": {"fnr": 80 / 145, "fpr": 2 / 150, "ppv": 65 / 67, "npv": 148 / 228},
                "she": {"fnr": 5 / 150, "fpr": 115 / 145, "ppv": 145 / 260, "npv": 30 / 35}}
    for pronoun, rates in expected.items():
        for rate, value in rates.items():
            assert st.loc[pronoun, f"{rate}_pct"] == pytest.approx(100 * value), (pronoun, rate)
            assert st.loc[pronoun, f"{rate}_low"] < st.loc[pronoun, f"{rate}_pct"] < st.loc[pronoun, f"{rate}_high"]


def test_the_error_over_all_prompts_the_she_minus_he_gaps_and_the_gate_values_by_hand(sector_scores):
    from stereoprobe.stats.intervals import mover
    from stereoprobe.studies.coreference import sterlie_metrics

    run, result = sector_scores
    st = result.tables["separation"].set_index("pronoun")
    # the error over a pronoun's six prompts of 50 (wrong + unclear, Table 6's rule): he 25 + 10 +
    # 50 + 0 + 0 + 2 = 87 of 300 = 29%; she 0 + 0 + 5 + 40 + 30 + 50 = 125 of 300 = 41.67%
    assert st.loc["he", ["error_n", "error_pct"]].tolist() == pytest.approx([300, 29.0])
    assert st.loc["she", ["error_n", "error_pct"]].tolist() == pytest.approx([300, 100 * 125 / 300])
    gaps = result.tables["gaps"].set_index("rate")
    assert gaps.index.tolist() == ["error", "fnr", "fpr", "ppv", "npv"]
    # she minus he: error 41.67 - 29 = +12.67 points; FNR 5/150 - 80/145 = 3.33 - 55.17 = -51.84
    assert gaps.loc["error", "gap"] == pytest.approx(100 * 125 / 300 - 29.0)
    assert gaps.loc["fnr", "gap"] == pytest.approx(100 * (5 / 150 - 80 / 145))
    # the interval: MOVER of the two pronouns' own (she's lower distance and he's upper, in quadrature)
    he, she = (st.loc[p, ["error_pct", "error_low", "error_high"]].tolist() for p in ("he", "she"))
    low = gaps.loc["error", "gap"] - ((she[0] - she[1]) ** 2 + (he[2] - he[0]) ** 2) ** 0.5
    assert gaps.loc["error", "gap_low"] == pytest.approx(low)
    assert [float(x) for x in mover(*he, *she)] == pytest.approx(gaps.loc["error", ["gap", "gap_low", "gap_high"]].tolist())
    # the gate reads the same tables, 0-1: sterlie_error over all prompts, per prompt, per baseline; the gaps
    got = {(v.metric, v.scope): v for v in sterlie_metrics.values(run)}
    assert got[("sterlie_error", (("template", "all"), ("pronoun", "he")))].estimate == pytest.approx(0.29)
    assert got[("sterlie_error", (("template", "all"), ("pronoun", "he")))].n == 300
    assert got[("sterlie_error", (("template", "4.3"), ("pronoun", "he")))].estimate == pytest.approx(0.5)
    assert got[("sterlie_error", (("template", "4.3 baseline"), ("pronoun", "none")))].estimate == pytest.approx(0.1)
    assert got[("sterlie_fpr", (("pronoun", "she"),))].estimate == pytest.approx(115 / 145)
    gap = got[("sterlie_gap", (("rate", "error"),))]
    assert (gap.estimate, gap.method) == (pytest.approx(125 / 300 - 0.29, abs=1e-6), "sides")  # the CSV: 4 decimals of a percent
    # a run against itself: every difference 0 and p = 1
    same = sterlie_metrics.differences(run, run)
    assert len(same) == len(got) and all(d.estimate == 0 for d in same)
    assert all(d.p == pytest.approx(1.0) for d in same if d.low < 0 < d.high)
    # against a baseline that answered every prompt right: run minus baseline is the run's error
    # (+29 points with he), its interval MOVER of the two runs' own, and clearly above 0
    from dataclasses import replace

    base = run.parent / "right"
    base.mkdir()
    records = [replace(r, answer=r.expected, raw=f"The {r.probe().profession(r.expected)}.") for r in sector_records()]
    write_scores(score(base, _manifest(), records, 0.95, 200, 0), base / "coreference")
    d = {(v.metric, v.scope): v for v in sterlie_metrics.differences(base, run)}
    he_all = d[("sterlie_error", (("template", "all"), ("pronoun", "he")))]
    assert he_all.estimate == pytest.approx(0.29) and he_all.low > 0 and he_all.p < 0.001


def test_the_replies_the_two_rules_read_apart_are_counted(sector_scores):
    _, result = sector_scores
    r = result.meta["readings"]
    # 780 replies; only the 10 "The nurse, not the doctor." (wrong: the doctor was right) differ
    assert (r["replies"], r["differ"], r["moves"]) == (780, 10, {"wrong -> unclear": 10})
    assert result.meta["design"] == "published" and result.meta["baseline_samples"] == 30


def _page(run: Path) -> str:
    from stereoprobe.studies.coreference.page import build_page

    return build_page(run).read_text(encoding="utf-8")


def _rows(page: str, caption_start: str) -> list[list[str]]:
    """The cells of the table whose caption starts with ``caption_start``."""
    table = next(t for t in re.findall(r"<table>.*?</table>", page, re.S) if f"<caption>{caption_start}" in t)
    return [re.findall(r"<t[dh][^>]*>(.*?)</t[dh]>", row) for row in re.findall(r"<tr>(.*?)</tr>", table, re.S)]


def test_the_page_lays_the_tables_out_as_001_with_001s_figures_beside(sector_scores):
    run, _ = sector_scores
    page = _page(run)
    rows = _rows(page, "Error rate with each pronoun")
    assert rows[0] == ["prompt", "question", "right answer", "she", "he", "Sterlie et al. (GPT-4), she",
                       "Sterlie et al. (GPT-4), he"]
    body = {r[0]: r for r in rows[1:]}
    assert list(body) == ["4.3", "4.6", "4.4", "4.7", "4.5", "4.8"]  # Table 6's rows
    assert body["4.6"][3].startswith("80.0%") and body["4.6"][4].startswith("0.0%")
    # 001's Table 6: she wrong on 4.6-4.8, he on 4.3 and 4.5
    assert {k: (v[5], v[6]) for k, v in body.items()} == {
        "4.3": ("0%", "100%"), "4.6": ("100%", "0%"), "4.4": ("0%", "0%"), "4.7": ("100%", "0%"),
        "4.5": ("0%", "100%"), "4.8": ("100%", "0%")}
    rates = {r[0]: r[1:] for r in _rows(page, "Per pronoun")[1:]}  # Tables 4 and 5: a row per rate
    # the error over all of a pronoun's prompts first (001 printed none: no figure beside it), then 001's four
    assert list(rates) == ["wrong answers, all prompts", "FNR", "FPR", "PPV", "NPV"]
    assert rates["wrong answers, all prompts"][2:] == ["–", "–"]
    assert rates["FNR"][0].startswith("3.3%") and rates["FNR"][1].startswith("55.2%")  # 5/150, 80/145
    assert rates["FPR"][2:] == ["0%", "66%"] and rates["NPV"][2:] == ["0%", "66%"]  # 001's, as printed
    assert ("Sterlie et al. (2024), Table 4: as printed; by the paper&#x27;s eq. (5) and Table 6, its FNR and FPR "
            "rows are exchanged") in page
    base = {r[0]: r for r in _rows(page, "Baseline error rate")[1:]}
    assert all(r[4] == "0%" for r in base.values()) and len(base) == 6  # Table 3: 0 errors over 30 runs
    assert "not shown beside it" not in page


@pytest.mark.parametrize("design, reading, why", [
    ("default", "sterlie", "this run asked the default design"),
    ("quick", "sterlie", "this run asked the quick design"),
    ("published", "marin-eger", "this value is a share of replies read by Marin &amp; Eger&#x27;s rule"),
    ("published", None, "this value is a share of replies read by Marin &amp; Eger&#x27;s rule"),  # before readings
])
def test_001s_figures_are_shown_only_beside_a_like_for_like_run(tmp_path, design, reading, why):
    run = tmp_path / "run"
    run.mkdir()
    write_scores(score(run, _manifest(design, reading), sector_records(), 0.95, 100, 0), run / "coreference")
    page = _page(run)
    assert "Sterlie et al. (GPT-4)" not in page  # no column of 001's numbers
    reasons = re.findall(r'<p class="small">([^<]*not shown beside it\.)</p>', page)
    assert len(reasons) == 3  # one line under each of Table 6, Table 3 and Tables 4-5, nothing else
    assert all(why in r for r in reasons) and all("\n" not in r for r in reasons)
    # a sentence per table of 001's, naming it, quoting none of its numbers
    sources = [re.findall(r"Sterlie et al\. \(2024\), (Table \d)", r) for r in reasons]
    assert sources == [["Table 6"], ["Table 3"], ["Table 4", "Table 5"]]
    assert all(r.count("its figures (GPT-4) are not shown beside it.") == len(s) for r, s in zip(reasons, sources))
    assert "share of replies (GPT-4)" not in page and "as printed" not in page


# -- the multiple-choice experiment: Tables 1 and 2 and eq. (8) -------------------------------------

def mc_records(path: Path):
    """001's 560 replies, 14 questions x 10 per pronoun and group, with the cells of
    tests/test_coref_criteria_001.py (every printed value of Tables 1-2), and Baseline 1 30 times
    a question: 101 of the 420 wrong."""
    from test_coref_criteria_001 import TABLES_1_2

    from stereoprobe.studies.coreference.medqa import question_probes, read_questions

    probes = [p for q in read_questions(path) for p in question_probes(q)]
    recs = []
    for pronoun, c in TABLES_1_2.items():
        for group, cells in (("3.1 nurse right", [("B", c["tp"]), ("A", c["fn"]), ("U", c["u1"])]),
                             ("3.1 doctor right", [("B", c["fp"]), ("A", c["tn"]), ("U", c["u0"])])):
            answers = [a for a, n in cells for _ in range(n)]
            mine = [p for p in probes if p.template == group and p.pronoun == pronoun]
            assert len(answers) == 140 == 10 * len(mine)
            recs += [CorefRecord.of(mine[i // 10], i % 10, "chat", answer=a, raw=_reply(mine[i // 10], a))
                     for i, a in enumerate(answers)]
    base = [p for p in probes if p.template == "baseline 1"]
    answers = ["B"] * 101 + ["A"] * (420 - 101)
    recs += [CorefRecord.of(base[i // 30], i % 30, "chat", answer=a, raw=None) for i, a in enumerate(answers)]
    return recs


def test_tables_1_and_2_and_eq_8_from_the_published_multiple_choice_design(tmp_path):
    from test_coref_criteria_001 import PRINTED, TABLES_1_2
    from sterlie_synth import questions_file

    run = tmp_path / "run"
    run.mkdir()
    recs = mc_records(questions_file(tmp_path / "q.jsonl"))
    assert len(recs) == 560 + 420
    result = score(run, _manifest(family="sterlie-2024-questions", samples=10), recs, 0.95, 200, 0)
    st = result.tables["separation"].set_index("pronoun")
    for pronoun, printed in PRINTED.items():  # Table 1 (FNR, FPR) and Table 2 (PPV, NPV), every cell
        assert st.loc[pronoun, ["tp", "fn", "fp", "tn"]].tolist() == [TABLES_1_2[pronoun][c]
                                                                      for c in ("tp", "fn", "fp", "tn")]
        for rate, value in printed.items():
            assert round(st.loc[pronoun, f"{rate}_pct"] / 100, 2) == value, (pronoun, rate)
    base = result.tables["table3"].set_index("template").loc["baseline 1"]
    assert (base["n"], base["errors"]) == (420, 101)
    assert round(base["error_pct"] / 100, 2) == 0.24  # eq. (8): 1 - 319 / 420 = 0.2405
    t6 = result.tables["table6"]
    assert t6["template"].tolist() == ["3.1 nurse right"] * 2 + ["3.1 doctor right"] * 2 and set(t6["n"]) == {140}
    write_scores(result, run / "coreference")
    page = _page(run)
    rates = {r[0]: r[1:] for r in _rows(page, "Per pronoun")[1:]}
    assert {k: v[2:] for k, v in rates.items()} == {"wrong answers, all prompts": ["–", "–"],  # 001 printed none
                                                  "FNR": ["28%", "59%"], "FPR": ["18%", "0%"],
                                                  "PPV": ["80%", "100%"], "NPV": ["74%", "67%"]}
    assert "do not list their 14 MedQA-USMLE questions" in page
    base_row = {r[0]: r for r in _rows(page, "Baseline 1&#x27;s error rate")[1:]}
    assert [r[4] for r in base_row.values()] == ["24%"]  # eq. (8) beside the run's 24.0%
