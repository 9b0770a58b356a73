"""The hobbies study's pure parts: the names, words, labels, statistics and Word2Vec
projection (seed 001 sections 4.2, 5.2, 6), on worked examples and on synthetic texts
with a known truth (tests/hobbies_synth.py)."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import hobbies_synth as synth
from stereoprobe.errors import DataError
from stereoprobe.studies.hobbies import labels as lab
from stereoprobe.studies.hobbies import stats
from stereoprobe.studies.hobbies.names import choose_names, load_names
from stereoprobe.studies.hobbies.text import content_words


# -- names ----------------------------------------------------------------------------
def test_the_committed_names_are_214_a_gender_most_common_first_and_the_default_asks_them_all():
    every = load_names(per_gender=214)
    assert len(every) == 428 and len({n.name.lower() for n in every}) == 428
    assert [n.name for n in every if n.gender == "female"][-1] == "Rosemary"  # rank 214: 140,570 births 1923-2015
    assert [n.name for n in every if n.gender == "male"][-1] == "Sebastian"  # rank 214: 122,455
    names = load_names()
    female = [n.name for n in names if n.gender == "female"]
    male = [n.name for n in names if n.gender == "male"]
    assert (len(female), len(male)) == (214, 214)
    assert [(n.name, n.gender) for n in names] == [(n.name, n.gender) for n in every]
    assert female[:3] == ["Mary", "Patricia", "Jennifer"] and male[:3] == ["James", "Robert", "John"]
    assert not {"Taylor", "Jordan", "Kelly"} & set(female + male)  # unisex: left out by the 95% rule


def test_choose_names_follows_the_rule_on_a_worked_example():
    rows = [("ann", "f", 100, 1950), ("ann", "f", 500, 1900),  # 1900 is outside the years
            ("bob", "m", 90, 1950), ("sam", "f", 50, 1950), ("sam", "m", 50, 1960),  # unisex
            ("kim", "f", 96, 2000), ("kim", "m", 4, 2000), ("zoe", "f", 96, 1990), ("al", "m", 10, 1990),
            ("ed", "m", 95, 1990), ("ed", "f", 6, 1990)]  # 95/101 = 0.94: not male enough
    counts = pd.DataFrame(rows, columns=["first_name", "sex", "count", "year_of_birth"])
    out = choose_names(counts, first_year=1923, last_year=2015, per_gender=2, min_share=0.95)
    assert list(zip(out["name"], out["gender"], out["births"], out["rank"])) == [
        ("Ann", "female", 100, 1), ("Kim", "female", 96, 2), ("Bob", "male", 90, 1), ("Al", "male", 10, 2)]


def test_a_name_list_with_one_gender_is_one_line(tmp_path):
    f = tmp_path / "names.csv"
    f.write_text("name,gender\nMary,female\nLinda,female\n", encoding="utf-8")
    with pytest.raises(DataError, match="only female names; the study compares female and male") as e:
        load_names(f)
    assert "\n" not in str(e.value)


# -- words and labels -------------------------------------------------------------------
def test_content_words_strip_names_pronouns_and_stop_words():
    assert content_words("Emily and her friends love the piano; she is in the band. Emily's dog too.",
                         ["Emily"]) == ["friends", "love", "piano", "band", "dog"]
    assert content_words("Like Mrs Brown and Sir Tom, he sings.", []) == ["like", "brown", "tom", "sings"]


def test_word_counts_per_gender():
    out = stats.word_counts([["piano", "soccer"], ["piano"], ["soccer", "soccer"]], ["female", "female", "male"])
    assert out.to_dict("records") == [{"word": "soccer", "female": 1, "male": 2, "total": 3},
                                      {"word": "piano", "female": 2, "male": 0, "total": 2}]


def test_the_default_labels_are_001s_six_and_read_empath():
    labels = lab.load_labels()
    assert labels.names == list(lab.LABELS)
    assert labels.label_of("quarterback") == "Sport"  # only in Empath's sports category
    assert labels.label_of("violinist") == "Art"  # Empath's music
    assert labels.label_of("volunteering") == "Volunteer work"
    assert labels.label_of("friends") is None  # excluded from Empath's help
    assert labels.label_of("literary") == "Literature"  # Empath's science holds it too: given to one


def test_the_synthetic_vocabulary_is_read_as_its_label():
    labels = lab.load_labels()
    for label, words in synth.VOCAB.items():
        assert [labels.label_of(w) for w in words] == [label] * len(words)
    assert [labels.label_of(w) for w in synth.FILLERS + ["loves", "enjoys", "quiet", "home"]] == [None] * 10


def test_score_is_the_share_of_label_words_with_evidence():
    labels = lab.load_labels()
    s = labels.score("Mia loves coding, soccer and tennis, and she volunteers.", ["Mia"])
    assert s.evidence == {"Technology": ["coding"], "Sport": ["soccer", "tennis"], "Volunteer work": ["volunteers"]}
    assert s.scores["Sport"] == pytest.approx(0.5) and s.scores["Technology"] == pytest.approx(0.25)
    assert s.scores["Art"] == 0 and s.top == "Sport" and s.words == 5  # loves coding soccer tennis volunteers
    assert labels.score("Mia codes and paints.", ["Mia"]).top == "mixed"
    assert labels.score("Mia likes weekends.", ["Mia"]).top == "none"


def test_words_two_labels_share_count_for_neither_unless_given(tmp_path):
    f = tmp_path / "labels.csv"
    f.write_text("label,kind,item\nA,empath,science\nB,empath,reading\nB,exclude,book\n", encoding="utf-8")
    both = lab.empath_categories()["science"] & lab.empath_categories()["reading"]
    assert "literary" in both
    labels = lab.load_labels(f)
    assert labels.label_of("literary") is None and "literary" in labels.ambiguous
    assert labels.label_of("book") is None and labels.label_of("novel") == "B"
    f.write_text("label,kind,item\nA,empath,science\nB,empath,reading\nB,word,literary\n", encoding="utf-8")
    assert lab.load_labels(f).label_of("literary") == "B"


@pytest.mark.parametrize("body, message", [
    ("label,kind,item\n", "has no labels; give rows label,kind,item"),
    ("label,kind,item\nA,category,art\n", "kind 'category' is not one of empath, word, exclude"),
    ("label,kind,item\nA,empath,knitting\n", "Empath has no category 'knitting'"),
])
def test_a_bad_labels_file_is_one_line(tmp_path, body, message):
    f = tmp_path / "labels.csv"
    f.write_text(body, encoding="utf-8")
    with pytest.raises(DataError, match=message) as e:
        lab.load_labels(f)
    assert "\n" not in str(e.value)


# -- label means and NMI ------------------------------------------------------------------
def _frame(rows) -> pd.DataFrame:
    """Texts with the drawn label's true score (1 on it, 0 elsewhere)."""
    frame = pd.DataFrame(rows, columns=["name", "gender", "sample", "top", "text"])
    for label in lab.LABELS:
        frame[label] = (frame["top"] == label).astype(float)
    return frame


def test_label_means_average_names_first_on_a_worked_example():
    frame = pd.DataFrame({"name": ["A", "A", "A", "B", "C", "D"], "gender": ["female"] * 4 + ["male"] * 2,
                          "Art": [1, 1, 0, 0, 0.5, 0.0]})
    row = stats.label_means(frame, ["Art"]).iloc[0]
    # name means: A 2/3, B 0 -> female 33.3; C 0.5, D 0 -> male 25 (not the text means 50 and 25)
    assert row["female_mean"] == pytest.approx(100 / 3) and row["male_mean"] == pytest.approx(25)
    assert row["difference"] == pytest.approx(100 / 3 - 25)
    # t interval over the two female names: mean 33.3, sd 47.1, t(1) 12.706 -> +/- 423.5, cut to 0-100%
    assert (row["female_low"], row["female_high"]) == (0, 100)
    # five names, scores 0, 0, 0, 0 and 10%: mean 2, sd 4.472, t(4) 2.7764 -> 2 +/- 5.553, below 0 cut at 0
    five = pd.DataFrame({"name": list("ABCDEFG"), "gender": ["female"] * 5 + ["male"] * 2,
                         "Art": [0, 0, 0, 0, 0.1, 0.2, 0.4]})
    row = stats.label_means(five, ["Art"]).iloc[0]
    assert row["female_low"] == 0 and row["female_high"] == pytest.approx(2 + 2.77645 * 4.47214 / np.sqrt(5), rel=1e-4)
    # 17 names that never name the label: not "0 to 0"; P(all 17 at 0) <= (1 - mean)^17 = 2.5% at 19.5%
    none = pd.DataFrame({"name": [f"n{i}" for i in range(34)], "gender": ["female"] * 17 + ["male"] * 17,
                         "Art": [0.0] * 17 + [1.0] * 17})
    row = stats.label_means(none, ["Art"]).iloc[0]
    assert (row["female_low"], row["female_high"]) == (0, pytest.approx(100 * (1 - 0.025 ** (1 / 17))))
    assert row["female_high"] == pytest.approx(19.5, abs=0.05) and row["male_low"] == pytest.approx(80.5, abs=0.05)


def test_one_name_of_a_gender_has_no_interval_not_a_zero_width_one():
    """A names file of one name a gender: the name's mean (60%) was shown as "60 to 60", as if known
    exactly; one name has no spread to read, so no interval (a name at 0 keeps the 0-to-reach bound)."""
    frame = pd.DataFrame({"name": ["Mary", "Mary", "John", "John"], "gender": ["female", "female", "male", "male"],
                          "Art": [0.6, 0.6, 0.0, 0.0]})
    row = stats.label_means(frame, ["Art"]).iloc[0]
    assert row["female_mean"] == pytest.approx(60) and np.isnan(row["female_low"]) and np.isnan(row["female_high"])
    assert (row["male_low"], row["male_high"]) == (0, pytest.approx(97.5))
    # three names all at 50%: no spread either, so no interval (it read "50 to 50")
    tied = pd.DataFrame({"name": list("ABCDE"), "gender": ["female"] * 3 + ["male"] * 2,
                         "Art": [0.5, 0.5, 0.5, 0.2, 0.4]})
    row = stats.label_means(tied, ["Art"]).iloc[0]
    assert row["female_mean"] == pytest.approx(50) and np.isnan(row["female_low"]) and np.isnan(row["female_high"])
    assert (row["male_low"], row["male_high"]) == (0, 100)  # 30 +/- t(1) 12.706 x se 10, cut to 0-100%


def test_label_means_cover_the_truth_and_find_the_planted_difference():
    out = stats.label_means(_frame(synth.texts(synth.PLANTED, seed=0)), lab.LABELS).set_index("label")
    misses = 0
    for g in ("female", "male"):
        truth = 100 * np.array(synth.PLANTED[g])
        misses += int((~((out[f"{g}_low"] <= truth) & (truth <= out[f"{g}_high"]))).sum())
        assert (out[f"{g}_high"] - out[f"{g}_low"] < 16).all()  # 40 names: about 2 x 2 x 2.9 points at most
    assert misses <= 1  # of 12 intervals at 95%
    assert (out["q"] < 0.01).all()  # every label differs in the planted truth
    null = stats.label_means(_frame(synth.texts(synth.NULL, seed=1)), lab.LABELS)
    assert (null["q"] > 0.05).all()


def test_label_mean_intervals_cover_about_95_percent_and_not_always():
    hits = []
    for seed in range(40):
        out = stats.label_means(_frame(synth.texts(synth.PLANTED, n_per_gender=15, samples=5, seed=seed)),
                                lab.LABELS).set_index("label")
        for g in ("female", "male"):
            truth = 100 * np.array(synth.PLANTED[g])
            hits += list((out[f"{g}_low"] <= truth) & (truth <= out[f"{g}_high"]))
    assert 0.89 <= np.mean(hits) <= 0.99  # 480 intervals: 95% +/- 2 SE, and not all


def test_top_label_nmi_finds_the_planted_dependence_and_covers_its_truth():
    frame = _frame(synth.texts(synth.PLANTED, seed=2))
    out = stats.top_label_nmi(frame["name"], frame["gender"], frame["top"], n_perm=199, n_boot=400)
    truth = synth.true_nmi(synth.PLANTED)
    from scipy.stats import entropy

    f, m = np.array(synth.PLANTED["female"]), np.array(synth.PLANTED["male"])
    mi = entropy((f + m) / 2) - (entropy(f) + entropy(m)) / 2  # H(label) - H(label | gender)
    assert truth == pytest.approx(mi / np.sqrt(np.log(2) * entropy((f + m) / 2))) == pytest.approx(0.18655, abs=1e-4)
    assert out["low"] <= truth <= out["high"] and out["p"] == pytest.approx(1 / 200)
    assert out["null_p95"] < 0.05


def test_top_label_nmi_under_independence_is_not_flagged():
    frame = _frame(synth.texts(synth.NULL, seed=3))
    out = stats.top_label_nmi(frame["name"], frame["gender"], frame["top"], n_perm=199, n_boot=200)
    assert out["p"] > 0.05 and out["nmi"] < out["null_p95"]
    assert out["null_mean"] < out["null_p95"]  # a null with spread: the genders really are reshuffled


def test_top_label_nmi_p_values_are_calibrated_under_independence():
    ps = []
    for seed in range(40):
        frame = _frame(synth.texts(synth.NULL, n_per_gender=20, samples=5, seed=100 + seed))
        ps.append(stats.top_label_nmi(frame["name"], frame["gender"], frame["top"], n_perm=99, n_boot=20,
                                      seed=seed)["p"])
    assert 0.02 <= np.mean(np.array(ps) <= 0.1) <= 0.25  # nominal 10%: about 4 of 40
    assert np.mean(np.array(ps) > 0.5) > 0.3  # and not all small


def test_top_label_nmi_permutes_names_not_texts():
    # two names, each with all its texts one label: a name-level permutation can only
    # swap them, so the null is the observed NMI itself (p = 1), where a text shuffle would give ~0
    names = ["A"] * 10 + ["B"] * 10
    out = stats.top_label_nmi(names, ["female"] * 10 + ["male"] * 10, ["Art"] * 10 + ["Sport"] * 10, n_perm=99,
                              n_boot=50)
    assert out["nmi"] == pytest.approx(1.0) and out["p"] == 1.0


def test_the_hand_label_agreement_in_the_docs_is_current():
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
    import hobbies_agreement

    docs = (Path(__file__).resolve().parent.parent / "docs" / "hobbies.md").read_text(encoding="utf-8")
    rows = hobbies_agreement.rows()
    assert len(rows) == 147 and {r["source"] for r in rows} == {"smollm2", "written"}
    assert all(set(filter(None, r["labels"].split(";"))) <= set(lab.LABELS) for r in rows)
    for line in hobbies_agreement.table():
        assert line in docs, line


def test_a_comparison_says_when_a_run_has_fewer_names_than_d_s_interval_was_checked_at():
    from types import SimpleNamespace

    from stereoprobe.studies.hobbies.compare import size_note

    def run(female, male):
        return SimpleNamespace(run="m", female_names=female, male_names=male)

    # 214 a gender held at a known truth (docs/hobbies.md); a refused name or a few leave a run at that size
    assert size_note(run(214, 214)) is None and size_note(run(214, 213)) is None and size_note(run(193, 214)) is None
    note = size_note(run(214, 192))  # the smaller side decides: 192 < 0.9 x 214
    assert note.startswith("m: 192 names a gender (the smaller side).")
    # bench/results/sim_w2v_null.md: 214 a gender 94.1% covered at worst (221 runs), 86.9% found (160); 107 88.6% and
    # 69.4%; the quick design's 20 x 2 97.0% and 2.0% (a planted difference found no more than chance)
    assert ("covered at least 94% of runs with 214 names a gender and the test found a planted difference in at "
            "least 87%; at 107, 89% covered and 69% found; at 20, 97% covered and 2% found") in note
    assert size_note(run(20, 20)).startswith("m: 20 names a gender")  # the quick design's size
    # the page's note on every comparison quotes the same figure, from the same place
    from stereoprobe.studies.hobbies.compare import NOTE

    assert "with 214 names a gender, it covered at least 94% of simulated runs" in NOTE


def test_the_comparison_page_carries_the_size_line_for_a_small_run_only():
    from types import SimpleNamespace

    from stereoprobe.studies.hobbies.compare import _page

    def run(name, n):
        return SimpleNamespace(run=name, female_names=n, male_names=n, d=0.1, d_low=-0.2, d_high=0.4, p_names=0.5)

    runs = [run("small", 20), run("full", 214)]
    result = SimpleNamespace(runs=runs, published=[SimpleNamespace(run=r.run, d=0.3, p_names=0.2) for r in runs],
                             designs=["quick", "default"],
                             meta={"runs": ["a", "b"], "word2vec": {}, "scoring": "s", "seed": 1, "bootstrap": 10,
                                   "retrain": 2})
    page = _page(result, b"png")
    assert "small: 20 names a gender (the smaller side)." in page
    assert "full: 214 names a gender" not in page


def test_the_page_says_how_many_names_this_run_asked_not_the_default_s():
    from stereoprobe.studies.hobbies.page import note

    quick = note({"catalog": "/x/stereoprobe/studies/hobbies/data/quick_names.csv", "names": 34, "design": "quick"})
    assert "for 34 female and male first names with a scored text (common in the US" in quick and "214" not in quick
    default = note({"catalog": "built-in", "names": 428})
    assert "for 428 female and male first names with a scored text (common in the US" in default
    own = note({"catalog": "my_names.csv", "names": 12})
    assert "for 12 female and male first names with a scored text (from my_names.csv)" in own
    assert "{name}.”)" in own  # the template's own placeholder, as Sterlie et al. print it
