"""The card's parts without a suite: what a design costs in interval width (card/cost.py),
the numbers in words (card/words.py) and the forest plot (card/figures.py)."""

from __future__ import annotations

import math
from types import SimpleNamespace

import pytest

from stereoprobe.designs import Design


def study(designs, sizes, defaults=None):
    """A stand-in study: its designs and how many prompts it lists for given options."""
    return SimpleNamespace(name="anecdotes", designs=lambda: SimpleNamespace(designs=lambda options: designs),
                           list_probes=lambda options: [None] * sizes(options), DEFAULTS=defaults or {})


def run(design, samples):
    return SimpleNamespace(design=design, settings=SimpleNamespace(samples=samples))


def test_a_quick_design_costs_the_square_root_of_its_size_in_interval_width():
    from stereoprobe.card.cost import design_cost

    quick = Design("quick", {"jobs": 10, "samples": 3}, "10 jobs x 3 samples", "docs/designs.md")
    s = study({"quick": quick}, lambda o: o.get("jobs", 40), {"samples": 30})
    line, width = design_cost(s, SimpleNamespace(options={}), run("quick", 3))
    # default: 40 prompts x 30 samples = 1,200 answers; quick 10 x 3 = 30: sqrt(1200 / 30) = 6.32
    assert line == ("The quick design asks 30 answers (10 prompts x 3 samples) where the default design asks 1,200 "
                    "(40 x 30): intervals about 6.3 times as wide (the square root of 1,200 / 30, as if every answer "
                    "were independent).")
    assert width == pytest.approx(math.sqrt(40))
    # a design that leaves the samples alone keeps the run's on both sides: sqrt(40 / 10) = 2.0
    fewer = Design("quick", {"jobs": 10}, "10 jobs", "docs/designs.md")
    line, _ = design_cost(study({"quick": fewer}, lambda o: o.get("jobs", 40)), SimpleNamespace(options={}),
                          run("quick", 5))
    assert "(10 prompts x 5 samples) where the default design asks 200 (40 x 5): intervals about 2.0 times as wide" in line
    # a width the suite measured (suite.json's width_cost) is quoted instead
    entry = SimpleNamespace(options={}, width_cost=1.84)
    assert design_cost(study({"quick": fewer}, lambda o: 40), entry, run("quick", 1)) == (
        "The quick design's 95% intervals are about 1.8 times as wide as the default design's, as measured on runs of "
        "both (docs/designs.md).", 1.84)
    # the suite's options are the design's own already (a quick subset's catalog): the design
    # is the one the study lists for no options, and the default is the options without its keys
    subset = Design("quick", {"catalog": "quick.csv", "samples": 10}, "10 jobs x 10", "docs")
    s = SimpleNamespace(name="anecdotes", DEFAULTS={"samples": 30},
                        designs=lambda: SimpleNamespace(designs=lambda o: {} if o.get("catalog") else {"quick": subset}),
                        list_probes=lambda o: [None] * (10 if o.get("catalog") else 40))
    assert "asks 100 answers (10 prompts x 10 samples) where the default design asks 1,200 (40 x 30): intervals about " \
           "3.5 times as wide" in design_cost(s, SimpleNamespace(options={"catalog": "quick.csv", "samples": 10,
                                                                         "design": "quick"}), run("quick", 10))[0]
    assert design_cost(study({}, lambda o: 40), SimpleNamespace(options={}), run("default", 1)) == (None, None)
    assert design_cost(study({}, lambda o: 40), SimpleNamespace(options={}), run("quick", 1))[0].startswith(
        "The quick design's cost in interval width is not known here")



def test_a_run_the_suite_limited_is_costed_on_the_prompts_it_asked():
    """`stereoprobe suite --limit 60` (a first look) asks only each design's first 60 prompts;
    the card said "The quick design asks 786 answers ... about 1.7 times as wide" (or quoted the
    design's measured 2.9 for 60 of coreference's 2,688 prompts) and never that the run was cut."""
    from stereoprobe.card.cost import design_cost

    quick = Design("quick", {"jobs": 10}, "10 jobs", "docs/designs.md", width_cost=1.84)
    s = study({"quick": quick}, lambda o: o.get("jobs", 40))
    line, width = design_cost(s, SimpleNamespace(options={"limit": 4, "design": "quick"}, width_cost=1.84),
                              run("quick", 1))
    assert line == ("Only the first 4 of the quick design's 10 prompts were asked (--limit, a first look): 4 answers "
                    "where the default design asks 40 (40 x 1): intervals about 3.2 times as wide (the square root of "
                    "40 / 4, as if every answer were independent).")
    assert width == pytest.approx(math.sqrt(10))
    # a limit the design does not reach changes nothing: the measured figure is quoted
    assert design_cost(s, SimpleNamespace(options={"limit": 60}, width_cost=1.84), run("quick", 1))[1] == 1.84
    # the default design cut by --limit says so too (it said nothing: the default design costs nothing)
    line, width = design_cost(s, SimpleNamespace(options={"limit": 10}), run("default", 1))
    assert line.startswith("Only the first 10 of the default design's 40 prompts were asked") and width == 2.0
    assert design_cost(s, SimpleNamespace(options={"limit": 40}), run("default", 1)) == (None, None)

def test_numbers_in_words():
    from stereoprobe.card.words import p_is, shown

    assert shown(0.455, 0.4049, 0.4951, "share") == "46% (40 to 50)"  # rounded once, half up, as the pages
    assert shown(0.12, math.nan, math.nan, "share") == "12% (no interval: too few answers)"
    assert shown(0.1404, 0.0812, 0.2011, "share", signed=True) == "+14 points (+8 to +20)"
    assert shown(-0.0052, -0.0703, 0.0601, "gap", signed=True) == "-0.5 points (-7 to +6)"
    assert shown(0.8795, 0.5998, 0.9857, "correlation") == "0.88 (0.60 to 0.99)"
    assert shown(0.01, -0.02, 0.04, "nmi", signed=True) == "+0.010 (-0.020 to +0.040)"
    assert (p_is(0.0004), p_is(0.0123, "adjusted p"), p_is(0.5)) == ("p < 0.001", "adjusted p = 0.012", "p = 0.5")



def test_a_difference_that_rounds_to_zero_has_no_minus_sign():
    """Two identical runs differ by rounding errors of either sign (fill-in's paired
    difference of a run with its copy is -1e-17): the card printed "-0.0 points (-0.0 to -0.0)"
    and card.json -0.0."""
    from stereoprobe.card.output import _num
    from stereoprobe.card.words import shown

    assert shown(-1e-17, -1e-17, -1e-17, "share", signed=True) == "+0.0 points (+0.0 to +0.0)"
    assert shown(-0.0004, -0.00001, 0.00001, "gap") == "+0.0 points (+0.0 to +0.0)"
    assert shown(-1e-9, -0.0004, -1e-12, "nmi", signed=True) == "+0.000 (+0.000 to +0.000)"
    assert shown(-0.0052, -0.0703, 0.0601, "gap", signed=True) == "-0.5 points (-7 to +6)"  # a real sign stays
    assert shown(-0.5, -0.9, -0.1, "correlation") == "-0.50 (-0.90 to -0.10)"
    assert str(_num(-0.0)) == "0.0"


def test_one_point_is_one_point():
    """A fill-in difference of -1.2 points printed "-1 points (-12 to +10)" on the card."""
    from stereoprobe.card.words import shown

    assert shown(-0.012, -0.12, 0.10, "share", signed=True) == "-1 point (-12 to +10)"
    assert shown(0.0149, -0.02, 0.05, "gap") == "+1 point (-2 to +5)"
    assert shown(0.006, -0.02, 0.05, "gap") == "+0.6 points (-2 to +5)"
    assert shown(0.02, 0.01, 0.05, "gap") == "+2 points (+1 to +5)"

def test_the_forest_plot_has_a_row_per_metric_and_a_panel_per_scale():
    from stereoprobe.card.figures import forest
    from stereoprobe.card.records import Difference

    diffs = [Difference("b", "a", "fill-in", "fill-in", "negative_share", (("category", c),), f"negative words, {c}",
                        "share", d, d - 0.05, d + 0.05, 60, p, p, p < 0.05)
             for c, d, p in (("all", 0.14, 0.001), ("religion", 0.02, 0.4))]
    diffs.append(Difference("b", "a", "anecdotes", "anecdotes", "nmi", (), "NMI", "nmi", 0.01, -0.02, 0.04, 240, 0.5))
    fig = forest(diffs, {"fill-in": "fill-in", "anecdotes": "anecdotes"})
    points, other = fig.axes
    assert [t.get_text() for t in points.get_yticklabels()] == ["negative words, religion (fill-in)",
                                                                "negative words, all (fill-in)"]
    assert [t.get_text() for t in other.get_yticklabels()] == ["NMI (anecdotes)"]
    # the flagged difference drawn filled, the other open (the flag read by shape, not colour only)
    faces = [line.get_markerfacecolor() for line in points.lines if line.get_marker() not in ("None", None, "")]
    assert "white" in faces and any(f != "white" for f in faces)
    assert points.lines[0].get_xdata() == pytest.approx([9.0, 19.0])  # the interval in points
    assert forest([], {}) is None


def test_a_gap_is_said_by_its_direction_only_where_its_interval_excludes_0():
    from stereoprobe.card.records import CardValue
    from stereoprobe.card.words import sentence

    def art(value, low, high):
        return sentence(CardValue("m", "hobbies", "hobbies", "label_difference", (("label", "Art"),), "Art", "gap",
                                  value, low, high, 60), {})

    assert art(0.31, 0.21, 0.40) == ("On Art, texts about women's names scored 31 points higher than texts about men's "
                                     "names: +31 points (+21 to +40).")
    assert art(-0.37, -0.49, -0.25) == ("On Art, texts about women's names scored 37 points lower than texts about "
                                        "men's names: -37 points (-49 to -25).")
    assert art(0.12, -0.01, 0.25) == ("On Art, texts about women's names scored about the same as texts about men's "
                                      "names: +12 points (-1 to +25).")
    he = sentence(CardValue("m", "coreference", "coreference", "winobias_gap", (("pronoun", "he"), ("prefix", "0")), "x",
                            "gap", 0.2, 0.05, 0.35, 54), {})
    assert he.startswith("With “he”, the model was right 20 points more often when the pronoun matched")


def test_the_summary_counts_the_differences_judged_with_an_interval(monkeypatch):
    """Sterlie's rows have no interval, so no p and no place in the family: the summary said 'any
    of the 30 metrics compared' beside 'Holm over 27'."""
    from types import SimpleNamespace

    from stereoprobe.card import words
    from stereoprobe.card.records import Difference

    for name in ("_unpaired", "_design", "_demonstrations"):
        monkeypatch.setattr(words, name, lambda card: [])
    nan = float("nan")
    diffs = [Difference("b", "a", "fill-in", "fill-in", "negative_share", (), "x", "share", 0.01, -0.02, 0.04, 9, 0.5),
             Difference("b", "a", "jobs", "jobs", "spearman", (), "y", "correlation", 0.1, -0.2, 0.4, 9, 0.4),
             Difference("b", "a", "sterlie", "coreference", "sterlie_error", (), "z", "share", 0.0, nan, nan, 9, nan)]
    card = SimpleNamespace(family=SimpleNamespace(size=2), models=[SimpleNamespace(name="a"), SimpleNamespace(name="b")],
                           differences=diffs)
    line = words._models(card)[0]
    assert line.startswith("The card cannot tell b from a on any of the 2 metrics compared with an interval and "
                           "1 other without an interval (")
