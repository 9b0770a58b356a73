"""stereoprobe compare: alignment, paired statistics with a known truth, baseline, outputs."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from compare_synth import group_rates, make_run
from stereoprobe.studies.fillin.compare import Settings, compare, write_comparison
from stereoprobe.errors import DataError
from stereoprobe.records import Completion
from stereoprobe.store import RunStore

pytestmark = pytest.mark.long(15)  # its longest test, seconds: run first, longest first (tests/conftest.py)

DATA = Path(__file__).parent / "data"
CHOENNI = DATA / "choenni" / "single_word_synthetic.csv"
FAST = Settings()


def _write(run: Path, records: list[Completion], model: str = "m") -> Path:
    store = RunStore(run)
    store.open()
    for r in records:
        store.append(r)
    store.close()
    (run / "manifest.json").write_text(json.dumps({"model": model, "mode": "chat"}))
    return run


def _probe(pid: str, group: str, fmt: str, words: list[str], category: str = "age") -> Completion:
    return Completion(pid, 0, category, group, f"t_{pid}", fmt, f"{group} {pid} ...", words=words)


# -- statistics with a known truth ---------------------------------------------------------


@pytest.fixture(scope="module")
def null_pair(tmp_path_factory):
    """Two runs of all 2,292 probes drawn from the same per-group rates (different seeds)."""
    base = tmp_path_factory.mktemp("null")
    rate = group_rates()
    return make_run(base / "a", 101, rate), make_run(base / "b", 202, rate)


def _null_checks(d, low=0.02):
    groups = d[d.level == "group"]
    assert len(groups[groups.format == "all"]) == 382
    # a complete null: BH flags anything in a family (pair and level) at most 5% of the time. No group cell
    # is flagged; of the 10 categories (with all) at most one (the first pair's seeds draw sexuality 13
    # points apart: a 3.8 sd difference, P = 0.00025 by simulating the same rates 4,000 times)
    assert (groups.verdict == "not distinguishable").all()
    flagged = d[(d.level != "group") & (d.verdict != "not distinguishable")]
    assert flagged.category.nunique() <= 1
    # every p is a number in (0, 1] where the cell has probes in both runs; raw p < 0.05 about 5% or less
    ok = ~d.too_few_probes
    assert (d.loc[ok, "p"] > 0).all() and (d.loc[ok, "p"] <= 1).all()
    rate = (groups.loc[~groups.too_few_probes, "p"] < 0.05).mean()
    assert low <= rate <= 0.065  # about 5% (1,146 cells of one run; 4.6-5.0% over 200 runs, docs/statistics.md)


def test_two_samples_of_one_model_flag_nothing(null_pair):
    _null_checks(compare(null_pair, synonyms=False, settings=FAST).differences)


def test_two_samples_at_a_low_rate_flag_nothing(tmp_path):
    # 5% negative everywhere: the low rate and the groups and 3-probe cells whose differences are all 0
    # (no variance of their own) that the earlier tests missed
    a = make_run(tmp_path / "a", 31, lambda c, g: 0.05)
    b = make_run(tmp_path / "b", 32, lambda c, g: 0.05)
    d = compare([a, b], synonyms=False, settings=FAST).differences
    _null_checks(d, low=0.005)  # conservative at 5%: few words are negative, the binomial floor dominates
    cells = d[(d.level == "group") & (d.format != "all") & ~d.too_few_probes]
    assert (cells.ci_high > cells.ci_low).all()  # no cell collapses to a point


def test_a_difference_with_no_variance_has_a_p_value(tmp_path):
    # A and B identical except that each of g0's three question probes has two more negative words in A:
    # every paired difference in the category is identical within its stratum (no variance anywhere), so
    # the difference is tested at the binomial variance: a number, not p = 0
    def probes(run):
        out = []
        for g in range(6):
            for t, fmt in enumerate(["question"] * 3 + ["statement"] * 3):
                neg = 5 + (2 if run == "a" and g == 0 and fmt == "question" else 0)
                out.append(_probe(f"g{g}t{t}", f"g{g}", fmt, ["cruel"] * neg + ["kind"] * (10 - neg)))
        return out

    a, b = _write(tmp_path / "a", probes("a")), _write(tmp_path / "b", probes("b"))
    d = compare([a, b], synonyms=False, settings=FAST).differences.set_index(["level", "group", "format"])
    row = d.loc[("group", "g0", "question")]
    assert row.difference == pytest.approx(20.0)
    # pooled rate (21 + 15 + .5) / (30 + 30 + 1) = .598: se = 100 * sqrt(.598 * .402 * (1/30 + 1/30)) = 12.66
    # points; t with the dispersion's degrees of freedom: 6 groups x (6 probes - 2 formats) = 24
    se = 100 * np.sqrt(36.5 / 61 * (1 - 36.5 / 61) * (2 / 30))
    assert row.p == pytest.approx(2 * stats.t.sf(20 / se, 24), rel=1e-6)
    assert 0.1 < row.p < 0.15 and row.verdict == "not distinguishable"
    assert (row.ci_low, row.ci_high) == pytest.approx((20 - stats.t.ppf(0.975, 24) * se, 20 + stats.t.ppf(0.975, 24) * se))


def test_a_real_difference_is_found(tmp_path, null_pair):
    """Profession is 20 points more negative in run c; 20 race groups go from 10% to 95%."""
    rate = group_rates()
    shifted_groups = {g for c, g in [(p.category, p.group) for p in _catalog_probes()] if c == "race"}
    shifted_groups = set(sorted(shifted_groups)[:20])

    def shifted(c, g):
        if c == "race" and g in shifted_groups:
            return 0.95
        if c == "race":
            return 0.1
        return rate(c, g) + (0.2 if c == "profession" else 0.0)

    def base(c, g):
        return 0.1 if c == "race" else rate(c, g)

    a = make_run(tmp_path / "a", 7, base, concentration=40)
    c = make_run(tmp_path / "c", 8, shifted, concentration=40)
    d = compare([a, c], synonyms=False, settings=FAST).differences
    prof = d[(d.level == "category") & (d.category == "profession") & (d.format == "all")].iloc[0]
    assert prof.verdict == "b more negative" and prof.q < 0.05
    assert -26 < prof.difference < -14
    assert prof.ci_low < -20 < prof.ci_high
    race = d[(d.level == "group") & (d.category == "race") & (d.format == "all")]
    found = set(race[race.verdict == "b more negative"].group)
    assert len(found & shifted_groups) >= 18
    assert not found - shifted_groups  # no unshifted race group is flagged
    others = d[(d.level == "category") & ~d.category.isin(["profession", "race"])]
    assert (others.verdict == "not distinguishable").all()


def _catalog_probes():
    from stereoprobe import load_probes

    return load_probes()


def test_identical_runs_differ_by_exactly_zero_because_the_resampling_is_paired(tmp_path, null_pair):
    a = null_pair[0]
    copy = tmp_path / "copy"
    shutil.copytree(a, copy)
    d = compare([a, copy], synonyms=False, settings=FAST).differences
    cells = d[~d.too_few_probes]
    assert (cells.difference == 0).all()
    assert (cells.ci_low == 0).all() and (cells.ci_high == 0).all()  # unpaired draws would spread
    assert (cells.p == 1).all() and (d.verdict == "not distinguishable").all()


def test_hand_checkable_example(tmp_path):
    """Two groups, four probes; shares and difference by hand (docs/compare.md's example)."""
    a = _write(tmp_path / "a", [
        _probe("p1", "old people", "question", ["cruel", "cruel", "wise"]),      # 2 negative, 1 positive
        _probe("p2", "old people", "statement", ["lazy", "kind"]),             # 1, 1
        _probe("p3", "kids", "question", ["happy", "kind", "wise"]),           # 0, 3
        _probe("p4", "kids", "statement", ["grumpy", "happy"]),                # 1, 1
    ])
    b = _write(tmp_path / "b", [
        _probe("p1", "old people", "question", ["wise", "kind", "happy"]),     # 0, 3
        _probe("p2", "old people", "statement", ["cruel", "wise"]),             # 1, 1
        _probe("p3", "kids", "question", ["happy", "wise", "cruel"]),           # 1, 2
        _probe("p4", "kids", "statement", ["kind", "happy"]),                  # 0, 2
        _probe("p5", "kids", "statement", ["cruel"]),                           # only in b
    ])
    result = compare([a, b], synonyms=False, settings=FAST)
    d = result.differences.set_index(["level", "category", "group", "format"])
    # A: 4 negative of 10 = 40%; B (p1-p4): 2 of 10 = 20%; difference +20 points
    row = d.loc[("all", "all", "", "all")]
    assert (row.negative_a, row.negative_b, row.difference, row.probes) == (40.0, 20.0, 20.0, 4)
    # paired scores per group +0.1 and -0.1: variance 2 * (0.01 + 0.01) = 0.04, se 20 points, t = 1, df 1
    assert row.p == pytest.approx(0.5) and (row.ci_low, row.ci_high) == (-100.0, 100.0)
    assert d.loc[("group", "age", "old people", "all"), "too_few_probes"]  # 2 probes: fewer than 3
    # old people: A 3/5 = 60%, B 1/5 = 20%: +40; questions only: A 2/3, B 0/3
    assert d.loc[("group", "age", "old people", "all"), "difference"] == pytest.approx(40.0)
    assert d.loc[("group", "age", "old people", "question"), "negative_a"] == pytest.approx(200 / 3)
    assert result.pairs.iloc[0][["common", "only_a", "only_b"]].tolist() == [4, 0, 1]
    assert result.runs.set_index("run").loc["b", "missing_vs_others"] == 0
    assert result.runs.set_index("run").loc["a", "missing_vs_others"] == 1


# -- alignment and bad input -----------------------------------------------------------------


def test_no_common_probes_is_an_error(tmp_path):
    a = _write(tmp_path / "a", [_probe("p1", "kids", "question", ["cruel"])])
    b = _write(tmp_path / "b", [_probe("p2", "kids", "question", ["cruel"])])
    with pytest.raises(DataError, match="no probe in common"):
        compare([a, b], synonyms=False, settings=FAST)


@pytest.mark.parametrize("case", ["twice", "not-a-run", "missing", "one-run"])
def test_bad_run_arguments_are_one_line_errors(tmp_path, run_cli, case):
    a = _write(tmp_path / "a", [_probe("p1", "kids", "question", ["cruel"])])
    (tmp_path / "empty").mkdir()
    args = {
        "twice": [a, tmp_path / "empty" / ".." / "a"],
        "not-a-run": [a, tmp_path / "empty"],
        "missing": [a, tmp_path / "nope"],
        "one-run": [a],
    }[case]
    result = run_cli("compare", *args, "--out", tmp_path / "out")
    assert result.exit_code == 2
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error:")
    assert {"twice": "given twice", "not-a-run": "not a run directory", "missing": "not a run directory",
            "one-run": "at least two"}[case] in lines[0]
    assert not (tmp_path / "out").exists()



def test_a_missing_run_beside_another_studys_run_is_named_as_missing(tmp_path, run_cli):
    """`compare JOBS_RUN nope` read 'These runs belong to different studies (JOBS_RUN (jobs),
    nope (fill-in))': a path that is no run was taken for a fill-in run."""
    jobs = _write(tmp_path / "jobs", [])
    (jobs / "manifest.json").write_text(json.dumps({"model": "m", "mode": "chat", "study": "jobs"}))
    result = run_cli("compare", jobs, tmp_path / "nope", "--out", tmp_path / "out")
    assert result.exit_code == 2
    assert result.output.strip() == (f"Error: {tmp_path / 'nope'}: not a run directory (no such directory); give "
                                     "directories written by `stereoprobe collect` or `baseline`.")


def test_a_run_with_no_answers_is_named_as_such(tmp_path):
    """A run whose completions.jsonl is empty read 'its records have no probe ids, so it cannot
    be aligned with other runs'."""
    a = _write(tmp_path / "a", [_probe("p1", "kids", "question", ["cruel"])])
    empty = _write(tmp_path / "empty", [])
    with pytest.raises(DataError) as err:
        compare([a, empty], synonyms=False, settings=FAST)
    assert str(err.value) == f"{empty}: no answers yet (an empty completions.jsonl); collect the run, then compare it."


def test_a_jobs_only_option_is_refused_by_the_name_typed(tmp_path, run_cli):
    """`compare A B --bootstrap 500` of fill-in runs read '--n-boot does not apply', naming
    click's parameter, not the option the user typed."""
    a = _write(tmp_path / "a", [_probe("p1", "kids", "question", ["cruel"])])
    b = _write(tmp_path / "b", [_probe("p1", "kids", "question", ["kind"])])
    result = run_cli("compare", a, b, "--bootstrap", "500", "--out", tmp_path / "out")
    assert result.exit_code == 2
    assert result.output.strip() == ("Error: --bootstrap does not apply to the fill-in study; drop it "
                                     "(`stereoprobe compare --help` says which options each study takes).")


@pytest.mark.parametrize("study", ["jobs", "coreference"])
def test_the_other_studies_compares_refuse_a_run_given_twice(tmp_path, study):
    """Fill-in's compare refuses a run given twice; jobs' and coreference's compared the run with
    itself ("A/jobs vs A/jobs: 20 jobs; 0 of 36 differences with q < 0.05") and wrote the folder.
    The command (Study.compare) now refuses it; the gate's differences still take a run as its own
    baseline (tests/test_gate_generation.py does so), so comparing.run_paths lets it through."""
    from stereoprobe.comparing import run_paths
    from stereoprobe.studies import get_study

    run = tmp_path / "run"
    with pytest.raises(DataError) as exc:
        get_study(study).compare([run, tmp_path / "x" / ".." / "run"], tmp_path / "out", {})
    assert str(exc.value) == f"{tmp_path / 'x' / '..' / 'run'} is given twice (also as {run}); give each run once."
    with pytest.raises(DataError) as exc:  # the same spelling twice: "(also as run)" said nothing
        get_study(study).compare([run, run], tmp_path / "out", {})
    assert str(exc.value) == f"{run} is given twice; give each run once."
    assert not (tmp_path / "out").exists()
    assert run_paths([run, run]) == [run, run]
    with pytest.raises(DataError, match=r"at least two run directories, e\.g\. `stereoprobe compare"):
        run_paths([run])


def test_a_folder_another_studys_compare_wrote_is_named_truly(tmp_path):
    """`compare A/coreference B/coreference --out cmp` onto the folder a jobs compare wrote said
    "cmp exists and was not written by `stereoprobe compare`": it was, of jobs runs."""
    import pandas as pd

    from stereoprobe.comparing import write_comparison_folder

    out = write_comparison_folder(tmp_path / "cmp", "stereoprobe_jobs_comparison", {"t.csv": pd.DataFrame({"a": [1]})},
                                  "<html></html>", {"stereoprobe_jobs_comparison": True})
    with pytest.raises(DataError) as exc:
        write_comparison_folder(out, "stereoprobe_coreference_comparison", {}, "", {})
    assert str(exc.value) == (f"{out} exists and was not written by `stereoprobe compare` of coreference runs; move it "
                              "away or pick another --out.")
    assert (out / "t.csv").is_file()

def test_one_labeller_for_every_run_and_sentiment_written_where_missing(tmp_path):
    a = _write(tmp_path / "a", [_probe("p1", "kids", "question", ["cheap", "cruel"])])
    b = _write(tmp_path / "b", [_probe("p1", "kids", "question", ["cheap", "kind"])])
    result = compare([a, b], lexicon="textblob", synonyms=False, settings=FAST)
    assert result.meta["labeller"]["lexicon"]["name"] == "textblob"
    labels = {r.name: dict(zip(r.occurrences.word, r.occurrences.label)) for r in result.loaded}
    assert labels["a"]["cheap"] == labels["b"]["cheap"] == "positive"  # TextBlob: cheap 0.4
    assert json.loads((a / "sentiment" / "meta.json").read_text())["lexicon"]["name"] == "textblob"
    before = (a / "sentiment" / "meta.json").read_bytes()
    compare([a, b], synonyms=False, settings=FAST)  # an existing sentiment/ is left alone
    assert (a / "sentiment" / "meta.json").read_bytes() == before


# -- people: amplification and recall ---------------------------------------------------------


def test_amplification_and_recall_against_a_baseline(tmp_path, run_cli):
    people = tmp_path / "people"
    assert run_cli("baseline", CHOENNI, "--out", people).exit_code == 0
    from stereoprobe import load_probes

    probes = {(p.group, p.template): p for p in load_probes(category=["age", "religion"])}
    words = {"old people": ["grumpy", "slow", "kind"], "millennials": ["happy", "kind"], "atheists": ["angry", "wise"]}
    records = [
        Completion(p.probe_id, 0, p.category, p.group, p.template, p.format, p.text, words=words[p.group])
        for (g, t), p in probes.items() if g in words
    ]
    model = _write(tmp_path / "model", records)
    result = compare([people, model], synonyms=False, settings=FAST)
    # the model is run_a against people, whatever the order given
    assert set(result.differences.run_a) == {"model"} and set(result.differences.run_b) == {"people"}
    amp = result.amplification.set_index(["level", "category", "group", "format"])
    # common probes: old people why_are_so / why_are_always_so, millennials why_are_so,
    # atheists why_are_all_so. Model (NRC subset): old people grumpy(-) kind(+) (slow: not
    # in it) = 50%; millennials 0%; atheists angry(-) wise(+) = 50%. People on those probes:
    # old people grumpy x2 (-), wise (+), slow (none), cold (-) = 75%; millennials lazy,
    # anxious = 100%; atheists angry = 100%.
    # against people every common probe counts once (people's queries carry many completions). Per probe:
    # model old people 1 of 2 on both probes (50%, 50%), people why_are_so grumpy, grumpy, wise (2 of 3) and
    # why_are_always_so cold (1 of 1): 83.3%; millennials 0% vs 100%; atheists 50% vs 100%
    assert set(result.differences.weighting) == {"probes"}
    assert amp.loc[("group", "age", "old people", "all"), "model_negative"] == pytest.approx(50.0)
    assert amp.loc[("group", "age", "old people", "all"), "human_negative"] == pytest.approx(250 / 3)
    assert amp.loc[("group", "age", "old people", "all"), "amplification"] == pytest.approx(50 - 250 / 3)
    assert amp.loc[("group", "age", "millennials", "all"), "amplification"] == pytest.approx(-100.0)
    # overall: model (50 + 50 + 0 + 50) / 4 = 37.5, people (66.7 + 100 + 100 + 100) / 4 = 91.7
    assert amp.loc[("all", "all", "", "all"), "model_negative"] == pytest.approx(37.5)
    assert amp.loc[("all", "all", "", "all"), "human_negative"] == pytest.approx(275 / 3)
    rec = result.recall.set_index("category")
    # people's distinct words: old people {grumpy, wise, slow, cold}, millennials {lazy,
    # anxious, entitled}, atheists {angry}; the model gave grumpy, slow, angry: 3 of 8
    assert rec.loc["age", ["human_words", "found"]].tolist() == [7, 2]
    assert rec.loc["religion", ["human_words", "found"]].tolist() == [1, 1]
    assert rec.loc["all", "recall"] == pytest.approx(37.5)
    assert rec.loc["age", "recall_mean_group"] == pytest.approx(25.0)  # (2/4 + 0/3) / 2
    # the page's runs table says which run is people in words (it printed Python's True and False)
    from stereoprobe.studies.fillin.compare import page

    html = page.render(result, {"categories": b""}, [])
    runs = html.split("<h2>Runs and alignment</h2>", 1)[1].split("</table>", 1)[0]
    assert "<td>model</td><td>m</td><td>no</td>" in runs and "<td>yes</td>" in runs and "True" not in runs
    # its counts are numbers, right-aligned and sortable, as the other tables' (they were text)
    n = int(result.runs.records.iloc[0])
    assert f'<td class="num" data-v="{n}">{n:,}</td>' in runs


# -- outputs ---------------------------------------------------------------------------------


def test_writes_a_self_contained_page_tables_and_figures(tmp_path, null_pair, run_cli):
    out = tmp_path / "cmp"
    result = run_cli("compare", *null_pair, "--out", out, "--no-synonyms", "--lexicons", "nrc,afinn")
    assert result.exit_code == 0, result.output
    assert "common probes" in result.output
    for name in ("differences.csv", "shares.csv", "runs.csv", "pairs.csv", "lexicons.csv", "lexicon_band.csv",
                 "meta.json", "figures/categories.png", "figures/categories.svg",
                 "figures/heatmap_religion.png", "figures/heatmap_religion.svg"):
        assert (out / name).is_file(), name
    import pandas as pd

    diff = pd.read_csv(out / "differences.csv")
    for col in ("run_a", "run_b", "level", "category", "group", "format", "negative_a", "negative_b",
                "difference", "ci_low", "ci_high", "p", "q", "verdict"):
        assert col in diff.columns
    assert set(diff.verdict) <= {"a more negative", "b more negative", "not distinguishable"}
    assert set(diff.level) == {"all", "category", "group"}
    page = (out / "index.html").read_text()
    assert "src=\"http" not in page and "href=\"http" not in page and "<link" not in page
    assert page.count("data:image/png;base64,") == 1 + 9  # categories + one heatmap per category
    assert page.count("<details>") == 382
    assert 'class="w n"' in page and 'class="w p"' in page
    meta = json.loads((out / "meta.json").read_text())
    assert meta["statistics"]["wording"] == "fixed" and meta["lexicons"] == ["nrc", "afinn"]
    assert "these templates" in meta["statistics"]["estimand"] and "these templates" in page
    band = pd.read_csv(out / "lexicon_band.csv")
    assert (band.band_low <= band.band_high).all()


def test_never_replaces_a_folder_it_did_not_write(tmp_path, null_pair):
    out = tmp_path / "mine"
    out.mkdir()
    (out / "notes.txt").write_text("keep me")
    result = compare(null_pair, synonyms=False, settings=Settings())
    with pytest.raises(DataError, match="not written by `stereoprobe compare`"):
        write_comparison(result, out)
    assert (out / "notes.txt").read_text() == "keep me"


def test_an_out_folder_it_did_not_write_is_refused_before_the_runs_are_touched(tmp_path, run_cli):
    """`compare A B --out FOLDER` onto a folder compare did not write scored every run and wrote
    the missing A/sentiment/ before it was refused."""
    a = _write(tmp_path / "a", [_probe("p1", "kids", "question", ["cruel"])])
    b = _write(tmp_path / "b", [_probe("p1", "kids", "question", ["kind"])])
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("keep me")
    result = run_cli("compare", a, b, "--out", mine)
    assert result.exit_code == 2
    assert result.output.strip() == (f"Error: {mine} exists and was not written by `stereoprobe compare`; move it "
                                     "away or pick another --out.")
    assert not (a / "sentiment").exists() and not (b / "sentiment").exists()
    assert (mine / "notes.txt").read_text() == "keep me"
    assert run_cli("compare", a, b, "--out", a).exit_code == 2  # nor into a run


def test_paired_variance_is_the_linearized_one_by_hand(tmp_path):
    """A category cell's variance: groups are the clusters of the paired scores (docs/compare.md)."""
    from stereoprobe.studies.fillin.compare import paired

    rows = []
    for g, (na, nb) in enumerate([(6, 4), (5, 5), (7, 3), (4, 4)]):  # one probe per group, 10 words each run
        rows.append({"probe_id": f"p{g}", "category": "age", "group": f"g{g}", "template": "t", "format": "question",
                     "neg_a": na, "pol_a": 10, "neg_b": nb, "pol_b": 10})
    import pandas as pd

    d = paired.pair_differences("a", "b", pd.DataFrame(rows), Settings())
    cat = d[(d.level == "category") & (d.format == "all")].iloc[0]
    # A 22/40 = 55%, B 16/40 = 40%; scores per group ((na - .55*10) - (nb - .4*10)) / 40 = .5, -1.5, 2.5, -1.5
    # (over 40): variance 4/3 * (0.25 + 2.25 + 6.25 + 2.25) / 1600, df 3
    se = 100 * np.sqrt(4 / 3 * 11 / 1600)
    assert cat.difference == pytest.approx(15.0) and cat.clusters == 4
    assert cat.p == pytest.approx(2 * stats.t.sf(15 / se, 3))
    assert cat.ci_high - cat.difference == pytest.approx(stats.t.ppf(0.975, 3) * se)
