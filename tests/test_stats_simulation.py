"""A fast subset of bench/simulate_stats.py: coverage from below and above, and type-I error, at a known truth.

Data are drawn from the harness's logit model with the catalog's 382 groups in 9 categories
(9 to 116 groups), replies whose words agree (Beta(8) around each probe's rate), and no
knowledge of the estimators. Seeds are fixed. The full table (200 runs per scenario) is in
docs/statistics.md; these runs are few, so the bounds are wide enough for their noise yet
exclude an interval that always covers (the two-stage bootstrap's 382 of 382) or one that
is too narrow.
"""

import sys
from dataclasses import replace

import pytest
from conftest import REPO

sys.path.insert(0, str(REPO / "bench"))
import simulate_stats as sim  # noqa: E402


def _scenario(name, **changes):
    base = next(s for s in sim.SCENARIOS + sim.POWER if s.name == name)
    return replace(base, **changes)


def test_group_intervals_cover_from_below_and_above():
    # group effects and a group x template interaction; 6-probe and 3-probe cells of fixed groups
    r = sim.evaluate(_scenario("interaction"), 5, parts=("groups",))["intervals"]
    assert 0.93 <= r["group"]["coverage"] <= 0.975
    assert 0.93 <= r["group 3-probe"]["coverage"] <= 0.985
    assert 0.8 <= r["group"]["ratio"] <= 1.15  # mean width / (2 x 1.96 x the true sd)


def test_group_intervals_at_a_low_rate_with_groups_at_zero():
    r = sim.evaluate(_scenario("zero-groups"), 5, parts=("groups",))["intervals"]
    assert 0.93 <= r["group"]["coverage"] <= 0.98
    assert 0.92 <= r["group 3-probe"]["coverage"] <= 0.98


def test_category_template_and_all_intervals_cover():
    # groups drawn afresh each run, template effects fixed ("these templates")
    r = sim.evaluate(_scenario("template-effects"), 30, parts=("cells",))["intervals"]
    for cell in ("category", "format", "template"):
        assert 0.9 <= r[cell]["coverage"] <= 0.99, cell
    assert 0.8 <= r["template"]["ratio"] <= 1.2


def test_group_vs_category_type_one_error_at_five_percent():
    r = sim.evaluate(_scenario("null-5"), 8, parts=("groups",))["tests"]["group vs category"]
    assert r["n"] > 3000 and 0.005 <= r["rate"] <= 0.05
    assert r["any_flag"] <= 0.08  # families (category x run) with any finding after BH: about 2%


def test_compare_cells_under_a_null_pair():
    r = sim.evaluate(_scenario("null-10"), 6, parts=("compare",))
    for name in ("compare group", "compare 3-probe"):
        assert r["tests"][name]["rate"] <= 0.06, name
        assert 0.93 <= r["intervals"][name]["coverage"] <= 0.99, name
    assert r["tests"]["compare group"]["any_flag"] <= 0.1


@pytest.mark.parametrize("name", ["null-10", "null-90"])
def test_nmi_and_four_fifths_type_one_error(name):
    r = sim.evaluate(_scenario(name), 8, perms=99, parts=("criteria",))["tests"]
    assert 0.005 <= r["NMI"]["rate"] <= 0.09  # 240 p-values: 5% +/- 2.8 points at 2 sd
    assert r["four-fifths"]["rate"] <= 0.09
    if name == "null-10":  # at 90% negative most groups have no positive word: ratio 0 = 0 under the null too
        assert r["four-fifths"]["rate"] >= 0.005


def test_format_test_type_one_error_and_coverage():
    r = sim.evaluate(_scenario("null-50"), 25, parts=("cells", "tests"))
    assert r["tests"]["format test"]["rate"] <= 0.08
    assert 0.9 <= r["intervals"]["format test"]["coverage"] <= 0.99
