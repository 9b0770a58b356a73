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
