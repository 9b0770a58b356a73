"""The papers' figures (stereoprobe/papers.py): read from a study's CSV, and printed beside a
run's value only when the run asked the published design in the figure's unit."""

from __future__ import annotations

import pytest

from stereoprobe.errors import DataError
from stereoprobe.papers import PaperFigure, comparable, read_figures


def test_a_figures_file_is_read_with_its_scope(tmp_path):
    path = tmp_path / "paper_figures.csv"
    path.write_text("# Sterlie et al. (2024)\nmetric,scope,value,unit,model,source,note\n"
                    "nmi,,0.426,NMI,GPT-4,\"Sterlie et al. (2024), section 5.1\",100 professions\n"
                    "share_female,profession=nurse;variant=anecdote,97,percent,GPT-4,Fig. 1,\n", encoding="utf-8")
    first, second = read_figures(path)
    assert first == PaperFigure("nmi", (), 0.426, "NMI", "GPT-4", "Sterlie et al. (2024), section 5.1",
                                "100 professions")
    assert second.scope == (("profession", "nurse"), ("variant", "anecdote")) and second.value == 97.0


def test_a_figure_that_is_not_a_number_is_refused_naming_its_line(tmp_path):
    path = tmp_path / "paper_figures.csv"
    path.write_text("metric,scope,value,unit,model,source,note\nnmi,,high,NMI,GPT-4,001,\n", encoding="utf-8")
    with pytest.raises(DataError, match=r"line 2: value 'high' is not a number; fix that row"):
        read_figures(path)


@pytest.mark.parametrize("design, unit, shown", [
    ("published", "NMI", True),
    ("default", "NMI", False),  # the same unit, another design
    ("quick", "NMI", False),
    (None, "NMI", False),  # a run made before designs: the default
    ("published", "share of its ceiling", False),  # the paper's design, another unit
])
def test_a_figure_is_shown_only_beside_a_like_for_like_value(design, unit, shown):
    fig = PaperFigure("nmi", (), 0.426, "NMI", "GPT-4", "Sterlie et al. (2024), section 5.1")
    reason = comparable(fig, design, unit)
    assert (reason is None) == shown
    if not shown:  # one line that says why, and never the number as if it were comparable
        assert "\n" not in reason and "not shown beside it" in reason


#: figures of a measure the gate has no metric for: named for what they count, never set beside a gate value
NOT_GATE_METRICS = {"stories": {"female_of_all"},  # 000's share of all stories (the gate's is of the gendered ones)
                    "hobbies": {"w2v_d", "w2v_p"}}  # the cross-run Word2Vec d: not one run's metric
#: scope keys that say which of the paper's own settings a figure is from (no gate value has them,
#: so the card never sets such a figure beside one): 001's experiment, 003's debiasing prompts
PAPER_ONLY_KEYS = {"coreference": {"experiment"}, "jobs": {"abstraction", "id"}}


def test_every_papers_figure_is_named_and_scoped_as_the_gate_names_its_metric():
    from stereoprobe.studies import get_study, names

    checked = 0
    for name in names():
        study = get_study(name)
        metrics = study.metrics()
        if metrics is None:
            continue
        for f in study.paper_figures():
            if f.metric in NOT_GATE_METRICS.get(name, ()):
                continue
            assert f.metric in metrics.SPECS, (name, f.metric)  # the gate's name (fill-in: negative_share, not negative)
            keys = set(dict(f.scope)) - PAPER_ONLY_KEYS.get(name, set())
            assert keys <= set(metrics.SPECS[f.metric].scopes), (name, f.metric, keys)  # and its scope keys
            checked += 1
    # fill-in 54, jobs 240, coreference 19 + 16 (Sterlie) + 48 (Marin & Eger), anecdotes 2
    assert checked == 54 + 240 + 35 + 48 + 2
