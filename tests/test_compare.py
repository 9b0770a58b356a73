"""stereoprobe compare: alignment, paired statistics with a known truth, baseline, outputs."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from compare_synth import group_rates, make_run
from stereoprobe.compare import Settings, compare, write_comparison
from stereoprobe.errors import DataError
from stereoprobe.records import Completion
from stereoprobe.store import RunStore

DATA = Path(__file__).parent / "data"
CHOENNI = DATA / "choenni" / "single_word_synthetic.csv"
FAST = Settings(n_boot=1000, seed=11)


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


def test_two_samples_of_one_model_flag_at_most_5_percent_of_groups(null_pair):
    result = compare(null_pair, synonyms=False, settings=FAST)
    d = result.differences
    groups = d[(d.level == "group") & (d.format == "all")]
    assert len(groups) == 382
    assert (groups.verdict != "not distinguishable").mean() <= 0.05
    cats = d[d.level == "category"]
    assert (cats.verdict != "not distinguishable").sum() <= 1
    # every p is a number in [0, 1] where the cell has probes in both runs
    assert d.loc[~d.too_few_probes, "p"].between(0, 1).all()


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
    assert amp.loc[("group", "age", "old people", "all"), "model_negative"] == pytest.approx(50.0)
    assert amp.loc[("group", "age", "old people", "all"), "human_negative"] == pytest.approx(75.0)
    assert amp.loc[("group", "age", "old people", "all"), "amplification"] == pytest.approx(-25.0)
    assert amp.loc[("group", "age", "millennials", "all"), "amplification"] == pytest.approx(-100.0)
    rec = result.recall.set_index("category")
    # people's distinct words: old people {grumpy, wise, slow, cold}, millennials {lazy,
    # anxious, entitled}, atheists {angry}; the model gave grumpy, slow, angry: 3 of 8
    assert rec.loc["age", ["human_words", "found"]].tolist() == [7, 2]
    assert rec.loc["religion", ["human_words", "found"]].tolist() == [1, 1]
    assert rec.loc["all", "recall"] == pytest.approx(37.5)
    assert rec.loc["age", "recall_mean_group"] == pytest.approx(25.0)  # (2/4 + 0/3) / 2


# -- outputs ---------------------------------------------------------------------------------


def test_writes_a_self_contained_page_tables_and_figures(tmp_path, null_pair, run_cli):
    out = tmp_path / "cmp"
    result = run_cli("compare", *null_pair, "--out", out, "--no-synonyms", "--bootstrap", "200",
                     "--lexicons", "nrc,afinn")
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
    assert meta["statistics"]["B"] == 200 and meta["lexicons"] == ["nrc", "afinn"]
    band = pd.read_csv(out / "lexicon_band.csv")
    assert (band.band_low <= band.band_high).all()


def test_never_replaces_a_folder_it_did_not_write(tmp_path, null_pair):
    out = tmp_path / "mine"
    out.mkdir()
    (out / "notes.txt").write_text("keep me")
    result = compare(null_pair, synonyms=False, settings=Settings(n_boot=100))
    with pytest.raises(DataError, match="not written by `stereoprobe compare`"):
        write_comparison(result, out)
    assert (out / "notes.txt").read_text() == "keep me"


def test_sparse_cell_shares_equal_the_stats_packages_replicate_ratio(null_pair):
    """paired.ratio takes the sums through a sparse indicator; it is W @ num / W @ den."""
    import numpy as np

    from stereoprobe import stats
    from stereoprobe.compare import paired
    from stereoprobe.compare.runs import load_runs
    from stereoprobe.lexicon import load_bundled
    from stereoprobe.sentiment import Labeller

    a, b = load_runs(null_pair, Labeller(load_bundled(), synonyms=False), write_missing=False)
    rows = paired.aligned(a.probes, b.probes)
    plans = paired.Plans(Settings(n_boot=50, seed=3))
    for level in paired.LEVELS:
        c = paired.cells(rows, level)
        wt = plans.get(rows, by_group=level == "group")
        est, reps = paired.ratio(wt, rows.neg_a.to_numpy(float), rows.pol_a.to_numpy(float), c.indicator)
        x = c.indicator.toarray()
        ref = 100 * stats.replicate_ratio(wt.T, x * rows.neg_a.to_numpy(float)[:, None], x * rows.pol_a.to_numpy(float)[:, None])
        assert np.allclose(reps, ref, equal_nan=True)
        assert np.allclose(est, 100 * (x.T @ rows.neg_a) / (x.T @ rows.pol_a), equal_nan=True)
    # a plan is drawn once per structure and reused by every pair with the same rows
    assert len(plans._cache) == 2
