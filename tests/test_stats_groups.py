"""A group's own intervals and its test against the rest of its category: by hand and at a known truth."""

import sys
from dataclasses import replace

import numpy as np
import pandas as pd
import pytest
from conftest import REPO
from scipy import stats
from synthetic_stats import occurrences, truth_table

from stereoprobe.errors import DataError
from stereoprobe.records import Completion
from stereoprobe.studies.fillin.sentiment import tables
from stereoprobe.stats.analysis import StatsOptions, add_statistics, check_options, share_tables
from stereoprobe.stats.units import STATUS_COLUMNS, probe_status

sys.path.insert(0, str(REPO / "bench"))
import simulate_stats as sim  # noqa: E402


def _stats(occ, n_boot=400, seed=0, records=()):
    return add_statistics(occ, records, tables.table4(occ), tables.group_table(occ), tables.template_table(occ),
                          StatsOptions(0.95, n_boot, seed))


def _rows(spec):
    """Probe rows from {group: [(negatives, counted words) per template]}, one category 'c'."""
    rows = []
    for g, probes in spec.items():
        for t, (neg, pol) in enumerate(probes):
            fmt = "question" if t < 3 else "statement"
            rows.append(("c", g, f"{g}|t{t}", f"t{t}", fmt, neg, pol - neg, pol))
    df = pd.DataFrame(rows, columns=["category", "group", "probe_id", "template", "format", "neg", "pos", "polar"])
    return sim.prepared(df)


def test_a_group_at_zero_against_a_ten_percent_rest_by_hand():
    # nine groups with exactly 1 negative of 10 words in every probe, one group with none: no group has a
    # variance of its own, the category's dispersion is 0 and is floored at 1 (binomial)
    spec = {f"g{i}": [(1, 10)] * 6 for i in range(1, 10)} | {"g0": [(0, 10)] * 6}
    st = share_tables(_rows(spec), 0.95)
    gt = st["groups"].set_index("group")
    assert st["dispersion"].phi[0] == pytest.approx(0, abs=1e-12)
    assert st["dispersion"].df[0] == 54 - 9 - 5  # g0 sits on the boundary: 54 probes, 9 groups, 6 templates
    # null rate per template: 9 of 100 words. Variance of the difference under the null: g0's part
    # 60 * .09 * .91 / 60^2 = .0013650, the rest's (own rate .1) 540 * .1 * .9 / 540^2 = .0001667, so
    # phi_eff = 1.1221 and the intra-reply correlation (1.1221 - 1) / (10 - 1) = .013568. Each probe is
    # beta-binomial(10, a = .09 * (1/icc - 1), b = .91 * (1/icc - 1)); P(0) = prod_j (b + j) / (a + b + j)
    icc = (1 + 0.00016667 / 0.0013650 - 1) / 9
    a, b = 0.09 * (1 / icc - 1), 0.91 * (1 / icc - 1)
    p0 = np.prod([(b + j) / (a + b + j) for j in range(10)])
    assert gt.loc["g0", "vs_category_difference"] == pytest.approx(-10.0)
    assert gt.loc["g0", "vs_category_p"] == pytest.approx(2 * p0**6, rel=1e-3)
    assert gt.loc["g0", "vs_category_p"] == pytest.approx(0.0098, abs=1e-4)  # binomial (icc 0): 2 * .91^60 = 0.0070
    # its interval is not a point: n_eff = 60 words / phi 1, times (t(59) / t(df 40))^2 = 0.9799: 58.79;
    # Jeffreys: upper = Beta(.5, 59.29) at 97.5%
    n = 60 * (stats.t.ppf(0.975, 59) / stats.t.ppf(0.975, 40)) ** 2
    assert gt.loc["g0", "negative_ci_low"] == 0.0
    assert gt.loc["g0", "negative_ci_high"] == pytest.approx(100 * stats.beta.ppf(0.975, 0.5, n + 0.5), abs=1e-6)
    assert gt.loc["g0", "negative_ci_high"] == pytest.approx(4.16, abs=0.01)
    # positive interval of g0, by hand: 95.84 to 100 (not by construction: the column is computed)
    assert (gt.loc["g0", "positive_ci_low"], gt.loc["g0", "positive_ci_high"]) == pytest.approx((95.84, 100.0), abs=0.01)


def test_words_that_agree_make_a_group_at_zero_less_surprising():
    # the same 10% rest, once with every probe at exactly 1 of 10 (binomial) and once with probes that vary
    # (replies whose words agree: phi > 1); a group with 0 of 60 is far less unusual in the second
    rng = np.random.default_rng(4)
    flat = {f"g{i}": [(1, 10)] * 6 for i in range(1, 12)}
    clustered = {f"g{i}": [(int(k), 10) for k in rng.permutation([0, 0, 0, 0, 3, 3])] for i in range(1, 12)}
    p = {}
    for name, spec in (("flat", flat), ("clustered", clustered)):
        st = share_tables(_rows(spec | {"g0": [(0, 10)] * 6}), 0.95)
        p[name] = st["groups"].set_index("group").loc["g0", "vs_category_p"]
        if name == "clustered":
            assert st["dispersion"].phi[0] > 2.5
    assert p["flat"] < 0.02 and p["clustered"] > 0.1


@pytest.mark.parametrize("name", ["null-5", "null-10", "null-50", "null-90"])
def test_complete_null_flags_almost_nothing(name):
    # every group of the catalog's 382 draws from the same rates (replies whose words agree): at most one
    # group is flagged after BH (its families flag anything about 3% of the time:
    # tests/test_stats_simulation.py), raw p < 0.05 for at most 5% of groups, and the test is alive
    scenario = next(s for s in sim.SCENARIOS if s.name == name)
    rows = sim.prepared(sim.draw(sim.World.make(scenario), np.random.default_rng(1), True)[0])
    gt = share_tables(rows, 0.95)["groups"]
    assert len(gt) == 382
    assert (gt["vs_category"] != "not distinguishable").sum() <= 1
    p = gt["vs_category_p"].to_numpy()
    assert 0.005 <= (p < 0.05).mean() <= 0.05
    assert (p < 0.5).mean() > 0.25


def test_more_negative_groups_are_found():
    bad = {("c0", f"g0_{g}"): 0.9 for g in range(4)}
    groups = _stats(occurrences(truth_table(rate=0.4, different=bad), seed=11)).groups
    found = groups[groups["vs_category"] == "more negative"]
    assert set(zip(found["category"], found["group"])) == set(bad)
    others = groups[~groups["group"].isin([g for _, g in bad])]
    assert others["vs_category"].isin(["not distinguishable", "less negative"]).all()


def test_same_seed_same_numbers_other_seed_other_numbers():
    occ = occurrences(truth_table(categories=1, groups=10), seed=3)
    a, b, c = _stats(occ, seed=7), _stats(occ, seed=7), _stats(occ, seed=8)
    assert a.groups["negative_ci_low"].equals(b.groups["negative_ci_low"])
    assert a.criteria["nmi_p"].equals(b.criteria["nmi_p"]) and not a.criteria["nmi_p"].equals(c.criteria["nmi_p"])
    # the intervals need no random draw: the seed moves permutations and the bootstrap only
    assert a.groups["negative_ci_low"].equals(c.groups["negative_ci_low"])


def test_too_few_probes_cells_have_no_interval():
    occ = occurrences(truth_table(categories=1, groups=4), seed=2)
    occ = occ[~((occ["group"] == "g0_0") & (occ["template"] != "are_so"))]  # one probe left
    occ = occ[~((occ["group"] == "g0_1") & (occ["format"] == "question"))]  # no question probe
    groups = _stats(occ).groups.set_index("group")
    assert groups.loc["g0_0", "too_few_probes"] and np.isnan(groups.loc["g0_0", "negative_ci_low"])
    assert groups.loc["g0_0", "vs_category"] == "too few probes" and np.isnan(groups.loc["g0_0", "vs_category_q"])
    assert not groups.loc["g0_1", "too_few_probes"] and np.isnan(groups.loc["g0_1", "question_negative_ci_low"])
    assert not np.isnan(groups.loc["g0_1", "statement_negative_ci_low"])
    assert groups.loc["g0_1", "n_probes"] == 3


def test_probe_status_by_hand():
    def rec(pid, group, **kw):
        return Completion(pid, kw.pop("sample", 0), "age", group, "are_so", "statement", "", **kw)

    records = [rec("a", "kids", words=["x"]), rec("b", "kids", refused=True), rec("c", "kids", error="boom"),
               rec("d", "kids"),  # no words: asked, not answered
               rec("e", "old", refused=True), rec("e", "old", sample=1, words=["y"])]  # one sample answered
    status = probe_status(records).set_index("group")[STATUS_COLUMNS]
    assert status.loc["kids"].tolist() == [4, 1, 1, 1]
    assert status.loc["old"].tolist() == [1, 1, 0, 0]


@pytest.mark.parametrize("level,n_boot,seed,wording,message", [
    (1.5, 2000, 0, "fixed", "--ci 1.5"), (0.95, 5, 0, "fixed", "--bootstrap 5"), (0.95, 2000, -1, "fixed", "--seed -1"),
    (0.95, 2000, 0, "sometimes", "--wording sometimes"),
])
def test_bad_options_are_one_line_errors(level, n_boot, seed, wording, message):
    with pytest.raises(DataError, match=message) as err:
        check_options(level, n_boot, seed, wording)
    assert "\n" not in str(err.value)


def test_wording_random_widens_what_the_templates_move():
    # strong template effects, no group effect: treating the templates as a sample widens the category's
    # interval and a group's own; the template cells (each its own template) stay as they are
    scenario = replace(next(s for s in sim.SCENARIOS if s.name == "template-effects"), sd_template=2.5)
    rows = sim.prepared(sim.draw(sim.World.make(scenario), np.random.default_rng(5), True)[0])
    fixed, random = share_tables(rows, 0.95, "fixed"), share_tables(rows, 0.95, "random")

    def width(table, col="negative"):
        return (table[f"{col}_ci_high"] - table[f"{col}_ci_low"]).to_numpy()

    ratio = width(random["table4"]) / width(fixed["table4"])
    assert (ratio > 1).all() and np.median(ratio) > 1.5
    assert np.median(width(random["groups"]) / width(fixed["groups"])) > 1.25
    assert np.allclose(width(random["templates"]), width(fixed["templates"]))
    # the group test compares the same templates on both sides: it does not depend on the wording
    assert random["groups"]["vs_category_p"].equals(fixed["groups"]["vs_category_p"])
