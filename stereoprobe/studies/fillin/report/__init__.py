"""Figures and briefings from a run's sentiment outputs (`stereoprobe report RUN_DIR`).

Build everything::

    from stereoprobe.studies.fillin.report import build_report
    result = build_report("runs/chatgpt")      # -> runs/chatgpt/figures, runs/chatgpt/briefing

Or draw single figures in a notebook (each returns a matplotlib Figure)::

    from stereoprobe.studies.fillin.report import load_sentiment, figure_formats, figure_templates, figure_cloud
    data = load_sentiment("runs/chatgpt")
    figure_formats(data)                         # Figure 2 of the paper
    figure_templates(data, "gender")             # Figure 3
    figure_cloud(data, "gender", "women", by_format=True)   # Figure 4
"""

from __future__ import annotations

from stereoprobe.studies.fillin.report.build import ReportResult, build_report
from stereoprobe.studies.fillin.report.clouds import figure_cloud
from stereoprobe.studies.fillin.report.data import SentimentData, load_sentiment
from stereoprobe.studies.fillin.report.figures import figure_formats, figure_group, figure_templates

__all__ = [
    "ReportResult",
    "SentimentData",
    "build_report",
    "figure_cloud",
    "figure_formats",
    "figure_group",
    "figure_templates",
    "load_sentiment",
]
