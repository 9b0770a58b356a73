"""stereoprobe card end to end: suites of fill-in, coreference and anecdotes made by hand
against the fake servers (tests/card_suites.py), then carded alone and compared.

- every number on a card is the gate's value for the same run and the study's own table
  and page (the three read side by side);
- two models that differ in fill-in only: the card flags fill-in and nothing else; two
  models with the same biases (different seeds): it flags nothing;
- card.json follows its schema (stereoprobe/card/card.schema.json), and docs/card.md
  describes every field;
- bad input: one line, exit 2, nothing written.
"""

from __future__ import annotations

import html
import json
import re
import shutil
from pathlib import Path

import pandas as pd
import pytest
from card_suites import FakeModel, make_suite
from conftest import REPO

pytestmark = pytest.mark.long(12)  # its longest test, seconds: run first, longest first (tests/conftest.py)

#: three fake models: B is A's biases with 50% of its fill-in replies negative words only (a
#: model clearly more negative in fill-in, alike elsewhere); C is A's biases drawn again
A = FakeModel("model-a", words_seed=1, coref_seed=1, gen_seed=1)
B = FakeModel("model-b", words_seed=2, negative=0.5, coref_seed=2, gen_seed=2)
C = FakeModel("model-c", words_seed=3, coref_seed=3, gen_seed=3)


@pytest.fixture(scope="module")
def suites(tmp_path_factory):
    root = tmp_path_factory.mktemp("card")
    return {"a": make_suite(root, A, report=True), "b": make_suite(root, B), "c": make_suite(root, C)}


@pytest.fixture(scope="module")
def card_ab(suites, tmp_path_factory):
    """The card of model-b against model-a (read by two tests)."""
    return card_of(tmp_path_factory.mktemp("card-ab"), suites["a"], suites["b"])


def cli(*args):
    from click.testing import CliRunner

    from stereoprobe.cli import cli as group

    return CliRunner().invoke(group, [str(a) for a in args], env={"GITHUB_STEP_SUMMARY": None})


def card_of(tmp_path, *suites, name="card"):
    """The card of ``suites`` in ``tmp_path / name`` (None: the default place)."""
    out = tmp_path / name if tmp_path is not None else suites[0] / "card"
    res = cli("card", *suites, *(("--out", out) if tmp_path is not None else ()))
    assert res.exit_code == 0, res.output
    return json.loads((out / "card.json").read_text(encoding="utf-8")), out


def table(run: Path, folder: str, name: str) -> pd.DataFrame:
    return pd.read_csv(run / folder / f"{name}.csv", keep_default_na=False, na_values=[""], dtype={"template": str})


def findings(page: Path) -> str:
    """The key findings of a study's page, as text."""
    text = page.read_text(encoding="utf-8")
    box = re.search(r'<section class="findings".*?</section>', text, re.S).group(0)
    return re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", " ", box))).strip()


POLICY = """
[[rule]]
study = "fill-in"
metric = "negative_share"
max = 1.0
[[rule]]
study = "fill-in"
metric = "negative_share"
category = "*"
max = 1.0
[[rule]]
study = "coreference"
metric = "incorrect"
max = 1.0
[[rule]]
study = "coreference"
metric = "inconsistent"
max = 1.0
[[rule]]
study = "coreference"
metric = "winobias_gap"
pronoun = "*"
max = 1.0
[[rule]]
study = "anecdotes"
metric = "follows_majority"
max = 1.0
[[rule]]
study = "anecdotes"
metric = "nmi"
max = 1.0
"""


def test_every_card_number_is_the_gates_and_the_studys_own(suites, tmp_path):
    card, out = card_of(None, suites["a"])  # SUITE/card
    policy = tmp_path / "all.toml"
    policy.write_text(POLICY, encoding="utf-8")
    res = cli("gate", suites["a"], "--policy", policy, "--format", "json")  # the gate takes the suite folder
    assert res.exit_code == 0, res.output
    gate = {(Path(c["run"]).name, c["metric"], tuple(sorted(c["scope"].items()))): c for c in json.loads(res.output)["checks"]}
    values = card["values"]
    # 3 fill-in (all, political, religion) + 4 coreference + 2 anecdotes headlines
    assert [(v["study_key"], v["metric"]) for v in values] == [
        ("fill-in", "negative_share")] * 3 + [("coreference", m) for m in ("incorrect", "inconsistent", "winobias_gap",
                                                                           "winobias_gap")] + [
        ("anecdotes", "follows_majority"), ("anecdotes", "nmi")]
    for v in values:
        g = gate[(v["study_key"], v["metric"], tuple(sorted(v["scope"].items())))]
        assert (v["value"], v["low"], v["high"]) == pytest.approx((g["estimate"], g["low"], g["high"]), abs=1e-6), v
    # the study's own tables (percent there, 0-1 on the card and in the gate)
    t4 = table(suites["a"] / "fill-in", "sentiment", "table4").set_index("category")
    for v in values[:3]:
        row = t4.loc[v["scope"]["category"]]
        assert (v["value"], v["low"], v["high"]) == pytest.approx(
            (row.negative / 100, row.negative_ci_low / 100, row.negative_ci_high / 100)) and v["n"] == row.n_probes
    t3 = table(suites["a"] / "coreference", "coreference", "table3").set_index("template").loc["Overall"]
    incorrect, inconsistent = values[3], values[4]
    assert incorrect["value"] == pytest.approx(t3.incorrect_pct / 100) and incorrect["n"] == t3.incorrect_n == 378
    assert inconsistent["value"] == pytest.approx(t3.inconsistent_pct / 100) and inconsistent["n"] == 126  # triples
    wb = table(suites["a"] / "coreference", "coreference", "winobias").set_index("pronoun")
    assert [values[5]["value"], values[6]["value"]] == pytest.approx([wb.loc["he"].gap / 100, wb.loc["she"].gap / 100])
    summary = table(suites["a"] / "anecdotes", "anecdotes", "summary").set_index("statistic")
    assert values[7]["value"] == pytest.approx(summary.loc["follows_majority"].value / 100)
    assert values[8]["value"] == pytest.approx(summary.loc["nmi_corrected"].value)
    # the study pages print the same numbers (the coreference page to one decimal, the card whole)
    page = findings(suites["a"] / "coreference" / "report" / "index.html")
    shown = re.search(r"wrong answer to ([\d.]+)% \(([\d.]+) to ([\d.]+)\)", page).groups()
    assert [float(x) for x in shown] == pytest.approx([round(100 * incorrect[k], 1) for k in ("value", "low", "high")])
    from stereoprobe.card.words import shown as card_text

    follows = card_text(values[7]["value"], values[7]["low"], values[7]["high"], "share")
    assert findings(suites["a"] / "anecdotes" / "report" / "index.html").startswith(f"Key findings {follows} of the texts")
    briefing = findings(suites["a"] / "fill-in" / "briefing" / "index.html")
    for v in values[1:3]:
        assert f"{v['scope']['category']}, {card_text(v['value'], v['low'], v['high'], 'share')}" in briefing
    # and the card's own page links each study's page, which exists
    index = (out / "index.html").read_text(encoding="utf-8")
    links = re.findall(r'href="([^"#]+)"', index)
    assert sorted(links) == ["../anecdotes/report/index.html", "../coreference/report/index.html",
                             "../fill-in/briefing/index.html"]
    assert all((out / link).is_file() for link in links)


def test_two_models_that_differ_in_fill_in_only_are_flagged_in_fill_in_only(suites, card_ab, tmp_path):
    card, out = card_ab
    flagged = {(d["study_key"], d["scope"].get("category")) for d in card["differences"] if d["flagged"]}
    # B answers half its fill-in probes with negative words only: every fill-in share rises by
    # about half the distance to 100% (45% -> about 72%); nothing else differs
    assert flagged == {("fill-in", "all"), ("fill-in", "political"), ("fill-in", "religion")}
    assert all(d["difference"] > 0.15 for d in card["differences"] if d["flagged"])
    coref = [d for d in card["differences"] if d["study_key"] == "coreference"]
    assert len(coref) == 4 and not any(d["flagged"] for d in coref)
    # anecdotes: the same truth drawn again, paired over the same professions (generation/paired.py)
    anecdotes = [d for d in card["differences"] if d["study_key"] == "anecdotes"]
    assert [d["metric"] for d in anecdotes] == ["follows_majority", "nmi"] and not any(d["flagged"] for d in anecdotes)
    assert all(d["low"] < 0 < d["high"] for d in anecdotes)
    assert card["family"] == {"method": "holm", "alpha": 0.05, "size": 9, "what": "every paired difference on the card"}
    # Holm by hand: the i-th smallest of the 9 p-values times (9 - i), a running maximum
    p = sorted(d["p"] for d in card["differences"])
    holm = [min(1.0, max(p[j] * (9 - j) for j in range(i + 1))) for i in range(9)]
    assert sorted(d["p_adjusted"] for d in card["differences"]) == pytest.approx(holm)
    assert all(x["paired"] for x in card["pairings"])
    # the card's differences are the gate's regression differences (run minus baseline)
    policy = tmp_path / "regress.toml"
    policy.write_text('[[rule]]\nstudy = "fill-in"\nmetric = "negative_share"\ncategory = "*"\nmax_increase = 1.0\n'
                      '[[rule]]\nstudy = "coreference"\nmetric = "incorrect"\nmax_increase = 1.0\n', encoding="utf-8")
    policy.write_text(policy.read_text(encoding="utf-8") + '[[rule]]\nstudy = "anecdotes"\nmetric = "follows_majority"\n'
                      'max_increase = 1.0\n[[rule]]\nstudy = "anecdotes"\nmetric = "nmi"\nmax_increase = 1.0\n',
                      encoding="utf-8")
    res = cli("gate", suites["b"], "--policy", policy, "--baseline", suites["a"], "--format", "json")
    assert res.exit_code == 0, res.output
    gate = {(c["study"], c["metric"], c["scope"].get("category")): c for c in json.loads(res.output)["checks"]}
    checked = 0
    for d in card["differences"]:
        g = gate.get((d["study"], d["metric"], d["scope"].get("category")))
        if g is not None:
            checked += 1
            assert (d["difference"], d["low"], d["high"]) == pytest.approx((g["estimate"], g["low"], g["high"]), abs=1e-6)
    assert checked == 5  # fill-in's two categories, coreference's incorrect, anecdotes' two
    summary = card["summary"]
    assert summary[0].startswith("model-b differs from model-a on 3 of the 9 metrics compared with an interval (fill-in)")
    assert "coreference (all 4 metrics) and anecdotes (all 2 metrics)" in summary[4]
    assert (out / "forest.png").stat().st_size > 5000


def test_two_models_with_the_same_biases_are_not_told_apart(suites, tmp_path):
    card, _ = card_of(tmp_path, suites["a"], suites["c"])
    assert len(card["differences"]) == 9 and not any(d["flagged"] for d in card["differences"])
    assert card["summary"][0].startswith("The card cannot tell model-c from model-a on any of the 9 metrics compared with an interval "
                                         "(fill-in, coreference and anecdotes).")


def test_card_json_follows_its_schema_and_docs_describe_every_field(suites, card_ab, tmp_path):
    from stereoprobe.card.output import SCHEMA_FILE, check_schema

    one, _ = card_of(tmp_path, suites["a"], name="one")
    two, _ = card_ab
    check_schema(one)
    check_schema(two)
    broken = json.loads(json.dumps(two))
    broken["differences"][0]["p_adjusted"] = "0.01"  # a string where a number belongs
    import jsonschema

    with pytest.raises(jsonschema.ValidationError):
        check_schema(broken)
    schema = json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))
    doc = (REPO / "docs" / "card.md").read_text(encoding="utf-8")
    fields = set(schema["properties"]) | {f for part in ("models", "values", "differences", "pairings")
                                          for f in schema["properties"][part]["items"]["properties"]}
    fields |= set(schema["properties"]["models"]["items"]["properties"]["studies"]["items"]["properties"])
    fields |= set(schema["properties"]["family"]["properties"])
    assert sorted(f for f in fields if f"`{f}`" not in doc) == []


def one_line(res) -> str:
    lines = res.output.strip().splitlines()
    assert res.exit_code == 2 and len(lines) == 1, res.output
    return lines[0]


def test_bad_input_is_one_line_exit_2_and_writes_nothing(suites, tmp_path):
    from stereoprobe.suite.record import read_suite, write_suite

    out = tmp_path / "out"
    empty = tmp_path / "empty"
    empty.mkdir()
    unscored = tmp_path / "unscored"
    shutil.copytree(suites["a"], unscored, ignore=shutil.ignore_patterns("card"))
    rec = read_suite(unscored)
    write_suite(unscored, rec.with_entry(type(rec.studies[0])(**{**rec.entry("coreference").__dict__,
                                                                   "state": "collected"})))
    lying = tmp_path / "lying"  # suite.json says scored, the scores are gone
    shutil.copytree(suites["a"], lying, ignore=shutil.ignore_patterns("card"))
    shutil.rmtree(lying / "anecdotes" / "anecdotes")
    other = tmp_path / "other"
    other.mkdir()
    (other / "notes.txt").write_text("mine", encoding="utf-8")
    cases = [
        ((empty,), f"Error: {empty} is not a suite (no suite.json); give a folder `stereoprobe suite` wrote "
                   f"(runs/<model>/), or run `stereoprobe suite --out {empty}` first."),
        ((other,), f"Error: {other} is not a suite (no suite.json); give a folder `stereoprobe suite` wrote "
                   "(runs/<model>/)."),
        ((suites["a"] / "fill-in",), f"Error: {suites['a'] / 'fill-in'} is one study's run, not a suite"),
        ((tmp_path / "nowhere",), f"Error: {tmp_path / 'nowhere'}: no such folder"),
        ((unscored,), f"Error: {unscored}: the coreference study is collected, not scored yet; run `stereoprobe score "
                      f"{unscored / 'coreference'}`, then the card."),
        ((lying,), f"Error: {lying / 'anecdotes'}: no anecdotes/ scores; run `stereoprobe score {lying / 'anecdotes'}` "
                   "first."),
        ((suites["a"], suites["a"]), "Error: The same suite is given twice"),
    ]
    for args, expected in cases:
        assert one_line(cli("card", *args, "--out", out)).startswith(expected)
        assert not out.exists()
    assert one_line(cli("card", suites["a"], "--out", other)).startswith(f"Error: {other} exists and was not written by "
                                                                          "`stereoprobe card`")
    assert [p.name for p in other.iterdir()] == ["notes.txt"]
    # the gate: a suite none of whose studies the policy is for
    jobs = tmp_path / "jobs.toml"
    jobs.write_text('[[rule]]\nstudy = "jobs"\nmetric = "spearman"\nmin = 0.5\n', encoding="utf-8")
    assert one_line(cli("gate", suites["a"], "--policy", jobs)) == (
        f"Error: {suites['a']} is a suite of fill-in, coreference, anecdotes, and no rule of the policy is for one of "
        "them; add a rule or give another suite.")



def test_the_gate_judges_a_suites_study_only_where_the_suite_scored_it(suites, tmp_path):
    """A suite whose coreference study failed, or was collected again and not scored, still holds
    older scores (or none): the card refuses it, and so does the gate (it judged the old tables
    and passed the release)."""
    from stereoprobe.suite.record import read_suite, write_suite

    policy = tmp_path / "coref.toml"
    policy.write_text('[[rule]]\nstudy = "coreference"\nmetric = "inconsistent"\nmax = 0.9\n', encoding="utf-8")
    assert cli("gate", suites["a"], "--policy", policy).exit_code == 0  # scored: judged
    for state, error, expected in (
            ("failed", "scoring: a table is damaged.", "the coreference study failed in its suite (scoring: a table "
             "is damaged); fix it and run the same `stereoprobe suite` command again, then the gate."),
            ("collected", None, "the coreference study is collected, not scored yet; run `stereoprobe score "
             "{suite}/coreference`, then the gate."),
            ("stopped", None, "the coreference study is stopped, not scored yet; run the same `stereoprobe suite` "
             "command again to finish it, then the gate.")):
        suite = tmp_path / state
        shutil.copytree(suites["a"], suite, ignore=shutil.ignore_patterns("card"))
        rec = read_suite(suite)
        write_suite(suite, rec.with_entry(type(rec.studies[0])(**{**rec.entry("coreference").__dict__, "state": state,
                                                                    "error": error})))
        res = cli("gate", suite, "--policy", policy)
        assert res.exit_code == 2
        assert one_line(res) == f"Error: {suite}: " + expected.format(suite=suite)
        assert cli("gate", suites["a"], "--policy", policy, "--baseline", suite).exit_code == 2  # nor as a baseline
    # a rule for another study still judges the suite: only the studies the policy judges must be scored
    fillin = tmp_path / "fillin.toml"
    fillin.write_text('[[rule]]\nstudy = "fill-in"\nmetric = "negative_share"\nmax = 0.99\n', encoding="utf-8")
    assert cli("gate", tmp_path / "failed", "--policy", fillin).exit_code == 0


def test_two_suites_of_one_model_in_folders_of_one_name_are_told_apart(suites, tmp_path):
    """old/model-a and new/model-a, both of model "model-a": both columns were named
    "model-a (model-a)", and the card, which finds a column's numbers by its name, printed the
    first suite's numbers in both ("45% for model-a (model-a) against 45% for model-a (model-a),
    31 points higher")."""
    from dataclasses import replace

    from stereoprobe.suite.record import read_suite, write_suite

    old, new = tmp_path / "old" / "model-a", tmp_path / "new" / "model-a"
    shutil.copytree(suites["a"], old, ignore=shutil.ignore_patterns("card"))
    shutil.copytree(suites["b"], new, ignore=shutil.ignore_patterns("card"))
    write_suite(new, replace(read_suite(new), model="model-a"))
    card, _ = card_of(tmp_path, old, new)
    names = [m["name"] for m in card["models"]]
    assert names == [f"model-a ({old})", f"model-a ({new})"]
    b, _ = card_of(tmp_path, suites["a"], suites["b"], name="ab")
    for v in card["values"]:  # the second column holds model-b's numbers, not model-a's again
        other = "model-a" if v["model"] == names[0] else "model-b"
        same = [w for w in b["values"] if w["model"] == other and w["metric"] == v["metric"] and w["scope"] == v["scope"]]
        assert [w["value"] for w in same] == [v["value"]]



def test_a_pipe_in_a_models_name_keeps_card_md_tables_whole(suites, tmp_path):
    """A model named "org/model|v2" ended its column in card.md at the "|": every row of the
    tables had one cell too many (the page escapes it; Markdown did not)."""
    from dataclasses import replace

    from stereoprobe.suite.record import read_suite, write_suite

    piped = tmp_path / "piped"
    shutil.copytree(suites["b"], piped, ignore=shutil.ignore_patterns("card"))
    write_suite(piped, replace(read_suite(piped), model="org/model|v2"))
    _, out = card_of(tmp_path, suites["a"], piped)
    rows = [line for line in (out / "card.md").read_text(encoding="utf-8").splitlines() if line.startswith("|")]
    assert rows and {len(re.split(r"(?<!\\)\|", row)) for row in rows} == {len(re.split(r"(?<!\\)\|", rows[0]))}
    assert "| org/model\\|v2 |" in rows[0]


def test_suites_of_different_designs_are_side_by_side_without_differences(suites, tmp_path):
    from dataclasses import replace

    from stereoprobe.suite.record import read_suite, write_suite

    quick = tmp_path / "model-b"
    shutil.copytree(suites["b"], quick)
    write_suite(quick, replace(read_suite(quick), design="quick"))
    card, _ = card_of(tmp_path, suites["a"], quick)
    assert card["differences"] == [] and card["family"]["size"] == 0
    reasons = {p["study_key"]: p["reason"] for p in card["pairings"]}
    assert not any(p["paired"] for p in card["pairings"]) and set(reasons) == {"fill-in", "coreference", "anecdotes"}
    assert reasons["fill-in"] == ("model-a's suite asked the default design and model-b's the quick: different probes, "
                                  "so the card shows them side by side without a paired difference.")
    assert {v["model"] for v in card["values"]} == {"model-a", "model-b"}  # both columns still shown


def test_a_papers_figure_stands_beside_a_value_only_from_a_published_run(suites, tmp_path, monkeypatch):
    from stereoprobe.card.values import why_not
    from stereoprobe.papers import PaperFigure
    from stereoprobe.studies.anecdotes import AnecdotesStudy

    # a figure in the card's unit for follows_majority (the share of the texts with a gender),
    # and 001's real NMI: the plug-in value, where the card shows the gate's bias-corrected one
    fig = PaperFigure("follows_majority", (), 94.0, "percent of the texts with a gender", "GPT-4",
                      "Sterlie et al. (2024), section 5.1")
    nmi = PaperFigure("nmi", (), 0.426, "NMI over the texts with a gender", "GPT-4", "Sterlie et al. (2024), eq. (7)")
    monkeypatch.setattr(AnecdotesStudy, "paper_figures", lambda self: [fig, nmi])
    card, out = card_of(tmp_path, suites["a"], name="default")
    got = {v["metric"]: v for v in card["values"] if v["study_key"] == "anecdotes"}
    # the default design: never the number beside ours, nor in the line that says why
    assert got["follows_majority"]["paper"] is None
    assert got["follows_majority"]["paper_note"] == (
        "Sterlie et al. (2024), section 5.1 used the paper's own design; this run asked the default design, so the "
        "paper's figure (GPT-4) is not shown beside it.")
    page = (out / "index.html").read_text(encoding="utf-8")
    assert "Published: " not in page and "94" not in got["follows_majority"]["paper_note"]
    # the studies' own figures files name their figures as the gate names its metrics, so they find
    # their values (here to say why not: the default design): Busker et al.'s Table 4 beside a
    # fill-in category, Marin & Eger's overall Table 3 beside coreference's wrong answers
    notes = {(v["study_key"], v["metric"], v["scope"].get("category")): v["paper_note"] for v in card["values"]}
    assert notes[("fill-in", "negative_share", "religion")] == (
        "Busker et al. (2023), Table 4 used the paper's own design; this run asked the default design, so the paper's "
        "figure (gpt-3.5-turbo-0301) is not shown beside it.")
    assert notes[("coreference", "incorrect", None)].startswith("Marin & Eger (2024), Table 3 used the paper's own "
                                                                "design; this run asked the default design")
    assert notes[("coreference", "winobias_gap", None)] is None  # 000 printed no stereotype gap
    published = tmp_path / "model-a"
    shutil.copytree(suites["a"], published, ignore=shutil.ignore_patterns("card"))
    manifest = published / "anecdotes" / "manifest.json"
    manifest.write_text(manifest.read_text(encoding="utf-8").replace('"design": "default"', '"design": "published"'),
                        encoding="utf-8")
    card, out = card_of(tmp_path, published, name="published")
    got = {v["metric"]: v for v in card["values"] if v["study_key"] == "anecdotes"}
    assert got["follows_majority"]["paper"] == ("94 percent of the texts with a gender (GPT-4), Sterlie et al. (2024), "
                                                "section 5.1")
    assert got["follows_majority"]["paper_note"] is None
    # the published design, but another measure (corrected vs 001's plug-in NMI): the line why, not the number
    assert got["nmi"]["paper"] is None and got["nmi"]["paper_note"] == why_not(nmi, "published", got["nmi"]["unit"])
    assert got["nmi"]["paper_note"].startswith("Sterlie et al. (2024), eq. (7) counts NMI over the texts with a gender; "
                                               "this value is a NMI over the texts with a gender, corrected")
    assert "Published: 94 percent of the texts with a gender (GPT-4)" in (out / "index.html").read_text(encoding="utf-8")


def test_demonstrations_and_failed_studies_are_said_before_any_number(suites, tmp_path):
    from dataclasses import replace

    from stereoprobe.suite.record import read_suite, write_suite

    suite = tmp_path / "model-a"
    shutil.copytree(suites["a"], suite, ignore=shutil.ignore_patterns("card"))
    rec = read_suite(suite)
    rec = rec.with_entry(replace(rec.entry("anecdotes"), demonstration="a base model continuing a completion form"))
    rec = rec.with_entry(replace(rec.entry("coreference"), state="failed", error="scoring: the run has no answers"))
    write_suite(suite, rec)
    card, out = card_of(tmp_path, suite)
    assert card["summary"][:2] == [  # in the suite's order of studies
        "Coreference failed on model-a and is not on the card: scoring: the run has no answers.",
        "Anecdotes on model-a is a demonstration, not a finding: a base model continuing a completion form."]
    assert card["summary"][2].startswith("Asked to fill in the blank")
    assert {v["study_key"] for v in card["values"]} == {"fill-in", "anecdotes"}
    # two demonstrations on one model: one sentence naming both, not two alike (each section says how it was asked)
    rec = rec.with_entry(replace(rec.entry("fill-in"), demonstration="next-word mode, not the paper's chat question"))
    write_suite(suite, rec)
    two, _ = card_of(tmp_path, suite, name="card2")
    assert two["summary"][:2] == [
        "Coreference failed on model-a and is not on the card: scoring: the run has no answers.",
        "Fill-in and anecdotes on model-a are demonstrations of their methods, not findings: the model does not "
        "answer chat prompts, so each was asked another way (its section says how)."]
    # a model without chat: the suite marks every study a demonstration, the failed one too; "every study" is
    # then not said, as one of them is not on the card
    rec = rec.with_entry(replace(rec.entry("coreference"), demonstration="next-word mode, not the chat question"))
    write_suite(suite, rec)
    three, _ = card_of(tmp_path, suite, name="card3")
    assert three["summary"][:2] == two["summary"][:2]
    page2 = (tmp_path / "card2" / "index.html").read_text(encoding="utf-8").replace("&#x27;", "'")
    assert "<strong>A demonstration on model-a.</strong> next-word mode, not the paper's chat question" in page2
    # the "Which model" line names the studies as the headings do, not by their suite keys
    assert "the default design; demonstrations only on this model: fill-in and anecdotes." in page2
    page = (out / "index.html").read_text(encoding="utf-8")
    assert "<strong>A demonstration on model-a.</strong>" in page and "<strong>Failed on model-a:</strong>" in page
    # card.md's coreference section says it failed and why, as the page does (it said only "No headline metric")
    md = (out / "card.md").read_text(encoding="utf-8")
    section = md[md.index("## Coreference"):md.index("## Anecdotes")]
    assert "model-a: failed in its suite, not on the card: scoring: the run has no answers" in section
