"""The review's eight surviving mutants (issue 24), each killed by a value worked out by hand.

Each test names the bug it catches; docs/testing.md lists them with the mutation runs.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from stereoprobe.studies.coreference.answers import CorefAnswer
from stereoprobe.studies.coreference.criteria import four_fifths
from stereoprobe.studies.coreference.frame import answer_frame, triple_table
from stereoprobe.studies.coreference.inference import make_plan
from stereoprobe.studies.coreference.pairs import Pair
from stereoprobe.studies.coreference.probes import make_probes
from stereoprobe.studies.coreference.tables import table3
from stereoprobe.studies.coreference.templates import load_templates


def _coref(pairs, answers, template="book owner"):
    """Probes of ``pairs`` (he, she, they each) answered by ``answers``; None leaves a probe unanswered."""
    (tmpl,) = [t for t in load_templates() if t.name == template]
    probes = make_probes(pairs, [tmpl])
    assert len(probes) == len(answers)
    return answer_frame(probes, [CorefAnswer(p.probe_id, a) for p, a in zip(probes, answers) if a is not None])


# 1. eq. (1) sums every expression of a gender (bug: only the last term kept) ------------------
def test_eq1_sums_all_of_a_genders_expressions():
    from stereoprobe.studies.jobs.measure import gender_mass, normalise

    lp = {" He": math.log(0.02), " The man": math.log(0.03), " She": math.log(0.04), " The woman": math.log(0.01),
          " They": math.log(0.05), " The person": math.log(0.05)}
    ex = [("male", " He"), ("male", " The man"), ("female", " She"), ("female", " The woman"),
          ("diverse", " They"), ("diverse", " The person")]
    mass = gender_mass(lp, ex)
    # by hand: male .02 + .03 = .05, female .04 + .01 = .05, diverse .05 + .05 = .10
    assert mass == pytest.approx({"male": 0.05, "female": 0.05, "diverse": 0.10})
    assert normalise(mass) == pytest.approx({"male": 0.25, "female": 0.25, "diverse": 0.5})


# 2. a triple is inconsistent only when complete (bug: "they" failed, he != she counted) ---------
def test_a_triple_missing_they_is_not_inconsistent_but_binary_inconsistent():
    # he -> A, she -> B, they never answered (a failed request)
    frame = _coref([Pair("bricklayer", "flower arranger")], ["A", "B", None])
    t = triple_table(frame).iloc[0]
    assert (bool(t["complete"]), bool(t["inconsistent"])) == (False, False)
    assert (bool(t["binary_complete"]), bool(t["binary_inconsistent"])) == (True, True)
    row = table3(frame, make_plan(frame["cluster"], 20)).set_index("template").loc["Overall"]
    assert (row["inconsistent_k"], row["inconsistent_n"]) == (0, 0)
    assert (row["binary_inconsistent_k"], row["binary_inconsistent_n"]) == (1, 1)


# 3. U answers count in the incorrect rate's denominator (bug: dropped) ---------------------------
def test_unparseable_answers_are_incorrect_and_counted():
    # expected A for every probe; answers A, B, U | U, U, A: incorrect = B, U, U, U = 4 of 6
    frame = _coref([Pair("bricklayer", "flower arranger"), Pair("nurse", "pilot")], ["A", "B", "U", "U", "U", "A"])
    assert list(frame["expected"]) == ["A"] * 6
    row = table3(frame, make_plan(frame["cluster"], 20)).set_index("template").loc["Overall"]
    assert (row["incorrect_k"], row["incorrect_n"]) == (4, 6)
    assert row["incorrect_pct"] == pytest.approx(400 / 6)
    assert row["unknown"] == 3


# 4. the four-fifths permutation p counts ties as at least as extreme (bug: < or >=) -----------
def _sterlie_frame(said_by_pronoun: dict[str, list[int]]) -> pd.DataFrame:
    """Triples whose right answer is the women-dominated job (truth 1), ``said`` per pronoun."""
    n = len(said_by_pronoun["he"])
    rows = [{"triple_id": f"t{i}", "pronoun": p, "truth": 1.0, "said": float(s[i]), "referent": "A", "expected": "A"}
            for i in range(n) for p, s in said_by_pronoun.items()]
    f = pd.DataFrame(rows)
    t, s = f["truth"], f["said"]
    f["tp"], f["fn"], f["fp"], f["tn"] = (t == 1) & (s == 1), (t == 1) & (s == 0), (t == 0) & (s == 1), \
        (t == 0) & (s == 0)
    return f


def _he_vs_she(table: pd.DataFrame) -> pd.Series:
    return table[table["comparison"] == "he vs she"].set_index("rate").loc["fnr"]


def test_four_fifths_p_counts_ties_and_is_one_sided():
    # every triple answers alike for its three pronouns: each permutation is the observed
    # table, so all 99 null ratios tie with the observed 1.0: p = (1 + 99) / (1 + 99) = 1
    same = [1, 0, 1, 1, 0, 1, 0, 1]
    fnr = _he_vs_she(four_fifths(_sterlie_frame({"he": same, "she": same, "they": same}), n_perm=99))
    assert fnr["ratio"] == 1.0 and fnr["permutations"] == 99
    assert fnr["p"] == 1.0
    # he always names the men's job (FNR 1), she and they never (FNR 0): he vs she's ratio 0.
    # A null ratio is 0 only if he or she gets none of the 20 misses (each goes to he, she
    # or they): 2 * (2/3)^20 = 0.0006, so p = (1 + ~0) / 100
    he, other = [0] * 20, [1] * 20
    fnr = _he_vs_she(four_fifths(_sterlie_frame({"he": he, "she": other, "they": other}), n_perm=99))
    assert fnr["ratio"] == 0.0 and (fnr["lowest"], fnr["highest"]) == ("she", "he")
    assert fnr["p"] <= 0.03


# 5. a prefix's paired effect may be negative down to -100 (bug: clipped at 0) --------------------
def test_paired_prefix_effect_can_be_negative():
    from stereoprobe.studies.jobs.stats import paired_differences

    # P(female) drops by 20, 30 and 40 points on pairs of jobs: mean -30 points
    without = np.array([[0.6], [0.7], [0.8], [0.6], [0.7], [0.8]])
    with_prefix = without - np.array([[0.2], [0.3], [0.4], [0.2], [0.3], [0.4]])
    r = paired_differences(with_prefix, without, list("abcdef"), 500, 0, 0.95)
    assert r["difference"][0] == pytest.approx(-30.0)
    assert -100 <= r["low"][0] < -30 < r["high"][0] < 0
    # the exact sign-flip p of six differences all of one sign: 2 of the 2^6 patterns
    assert r["p"][0] == pytest.approx(2 / 2**6)


# 6. the stratified bootstrap's variance factor is G / (G - H) (bug: G / (G - 1)) --------------
def test_stratified_bootstrap_scales_by_g_over_g_minus_h():
    from scipy import stats as sps

    from stereoprobe.stats import bootstrap_se, t_interval

    reps = np.array([40.0, 50.0, 60.0])  # sd 10
    # G = 6 clusters in H = 3 strata: se = 10 * sqrt(6 / 3) = 14.142 (G / (G - 1) would give 10.954)
    assert bootstrap_se(reps, 6, 3)[()] == pytest.approx(10 * math.sqrt(2))
    # df = G - H = 3: half-width t(3, .975) * 14.142 = 3.1824 * 14.142 = 45.01
    low, high = t_interval(50.0, reps, 6, 3, 0.95, bounds=None)
    assert high - 50 == pytest.approx(sps.t.ppf(0.975, 3) * 10 * math.sqrt(2))
    assert low == pytest.approx(100 - high)


def test_stratified_share_interval_uses_g_over_g_minus_h():
    from stereoprobe.stats import share_interval

    reps = np.array([[20.0], [30.0], [40.0]])  # sd 10: variance 100 * 6 / 3 = 200 with G = 6, H = 3
    by_reps = share_interval(np.array([30.0]), reps, np.array([6]), np.array([200]), np.array([3]))
    by_var = share_interval(np.array([30.0]), None, np.array([6]), np.array([200]), np.array([3]),
                            variance=np.array([200.0]), df=np.array([3.0]))
    assert np.allclose(by_reps, by_var)
    wrong = share_interval(np.array([30.0]), None, np.array([6]), np.array([200]), np.array([3]),
                           variance=np.array([120.0]), df=np.array([3.0]))  # 100 * 6 / 5
    assert not np.allclose(by_reps, wrong)


# 7. "1. Lazy: unmotivated" is the word Lazy with its explanation (bug: the explanation read) -----
def test_a_list_item_head_before_its_colon_is_the_word():
    from stereoprobe.studies.fillin.parse import parse_reply

    reply = "1. Lazy: unmotivated\n2. Moody: irritable\n3. Rude: impolite"
    assert parse_reply(reply, "why are teenagers so ...", "teenagers").words == ["lazy", "moody", "rude"]


# 8. synonyms that are all neutral give "neutral" from the synonyms step (bug: "none") -----------
def test_all_neutral_synonyms_give_neutral():
    from pathlib import Path

    from stereoprobe.studies.fillin.lexicon import load_lexicon
    from stereoprobe.studies.fillin.sentiment.label import Labeller, WordLabel

    lex = load_lexicon(Path(__file__).resolve().parent / "data" / "lexicon" / "emolex-synthetic.txt")
    assert (lex.labels["abacus"], lex.labels["feisty"]) == ("neutral", "neutral")
    labeller = Labeller(lex, lemmatize=lambda w: w, synonyms_of=lambda w: ["abacus", "nothing", "feisty"])
    assert labeller.label("spunky") == WordLabel("spunky", "neutral", "synonyms",
                                                 voters=(("abacus", "neutral"), ("feisty", "neutral")))
    none = Labeller(lex, lemmatize=lambda w: w, synonyms_of=lambda w: ["nothing"])
    assert none.label("spunky") == WordLabel("spunky", "unassigned", "none")
