"""The report stage on small hand-made sentiment outputs (docs/design.md, "Sentiment outputs").

The fixture writes what `stereoprobe sentiment` is specified to write, from a dozen
hand-chosen word occurrences, so every share below can be checked by hand.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from stereoprobe.errors import DataError

QUESTION = ("why_are_so", "why_are_always_so", "why_are_all_so")
STATEMENT = ("are_so", "are_always_so", "all_are_so")
ODD = "'queers' & \"others\" <x>"  # a name that must be escaped everywhere

# (category, group, template, word, label)
OCCURRENCES = [
    ("gender", "women", "why_are_so", "complicated", "negative"),
    ("gender", "women", "why_are_always_so", "complicated", "negative"),
    ("gender", "women", "why_are_all_so", "emotional", "negative"),
    ("gender", "women", "why_are_all_so", "beautiful", "positive"),
    ("gender", "women", "are_so", "beautiful", "positive"),
    ("gender", "women", "are_always_so", "beautiful", "positive"),
    ("gender", "women", "are_always_so", "strong", "positive"),
    ("gender", "women", "all_are_so", "caring", "positive"),
    ("gender", "women", "all_are_so", "complicated", "negative"),
    ("gender", "stepfathers", "why_are_so", "mean", "negative"),
    ("gender", "stepfathers", "why_are_always_so", "mean", "negative"),
    ("gender", "stepfathers", "why_are_all_so", "strict", "negative"),
    ("gender", "stepfathers", "why_are_all_so", "loving", "positive"),
    ("gender", "stepfathers", "are_so", "loving", "positive"),
    ("gender", "stepfathers", "are_always_so", "loving", "positive"),
    ("gender", "stepfathers", "all_are_so", "kind", "positive"),
    ("gender", "stepfathers", "all_are_so", "tall", "neutral"),
    ("gender", "stepfathers", "are_so", "rambunctious", "unassigned"),
    ("gender", ODD, "why_are_so", "radical", "positive"),
    ("gender", ODD, "why_are_so", "angry", "negative"),
    ("gender", ODD, "are_so", "proud", "both"),
    ("gender", ODD, "are_so", "happy", "positive"),
    ("political", "liberals", "why_are_so", "woke", "negative"),
    ("political", "capitalists", "why_are_so", "rich", "neutral"),
    ("political", "capitalists", "are_so", "capitalist", "unassigned"),
]
SHARE_COLS = ("negative", "positive", "question_negative", "question_positive", "statement_negative", "statement_positive")


def _fmt(template: str) -> str:
    return "question" if template.startswith("why_") else "statement"  # true of both template sets


def _shares(rows) -> dict[str, object]:
    out: dict[str, object] = {}
    for prefix, keep in (("", None), ("question_", "question"), ("statement_", "statement")):
        labels = [r[4] for r in rows if keep is None or _fmt(r[2]) == keep]
        pos, neg = labels.count("positive"), labels.count("negative")
        out[prefix + "negative"] = round(100 * neg / (pos + neg), 4) if pos + neg else ""
        out[prefix + "positive"] = round(100 * pos / (pos + neg), 4) if pos + neg else ""
    out["labelled"] = sum(1 for r in rows if r[4] in ("positive", "negative"))
    out["words"] = len(rows)
    return out


def _write_csv(path: Path, rows: list[dict]) -> None:
    with path.open("w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)


def write_sentiment(run: Path, occurrences=OCCURRENCES, model: str = "gpt-3.5-turbo") -> Path:
    """Write RUN/manifest.json and RUN/sentiment/* as the sentiment stage would."""
    sdir = run / "sentiment"
    sdir.mkdir(parents=True, exist_ok=True)
    cats = list(dict.fromkeys(o[0] for o in occurrences))
    groups = list(dict.fromkeys((o[0], o[1]) for o in occurrences))
    table4 = [{"category": c, **_shares([o for o in occurrences if o[0] == c])} for c in cats]
    table4.append({"category": "all", **_shares(occurrences)})
    _write_csv(sdir / "table4.csv", table4)
    _write_csv(sdir / "groups.csv", [
        {"category": c, "group": g, **_shares([o for o in occurrences if o[:2] == (c, g)])} for c, g in groups
    ])
    keys = list(dict.fromkeys((o[0], o[2]) for o in occurrences))
    _write_csv(sdir / "templates.csv", [
        {"category": c, "template": t, "format": _fmt(t), **_shares([o for o in occurrences if (o[0], o[2]) == (c, t)])}
        for c, t in keys
    ])
    words = {}
    for o in occurrences:
        words.setdefault(o[3], {"word": o[3], "label": o[4], "source": "lexicon", "voters": "", "count": 0})["count"] += 1
    _write_csv(sdir / "words.csv", list(words.values()))
    _write_csv(sdir / "occurrences.csv", [
        {"probe_id": f"p{i:03d}", "sample": 0, "category": c, "group": g, "template": t, "format": _fmt(t),
         "word": w, "label": lab, "source": "lexicon"}
        for i, (c, g, t, w, lab) in enumerate(occurrences)
    ])
    (sdir / "coverage.json").write_text(json.dumps({"unique_words": len(words)}))
    (sdir / "meta.json").write_text(json.dumps({"model": model, "run_started_at": "2026-11-20T10:00:00+00:00",
                                                "lexicon": {"name": "nrclex"}, "synonyms": True}))
    (run / "manifest.json").write_text(json.dumps({"model": model, "mode": "chat", "started_at": "2026-11-20T10:00:00+00:00",
                                                   "parameters": {"temperature": 0.7, "samples": 1}}))
    return run


@pytest.fixture
def run(tmp_path: Path) -> Path:
    return write_sentiment(tmp_path / "run")


def test_fixture_shares_are_the_hand_computed_ones(run):
    from stereoprobe.report import load_sentiment

    data = load_sentiment(run)
    # women: questions 3 negative of 4 labelled, statements 1 of 5, overall 4 of 9
    assert data.group_row("gender", "women")["question_negative"] == 75.0
    assert data.group_row("gender", "women")["statement_negative"] == 20.0
    assert data.group_row("gender", "women")["negative"] == pytest.approx(44.4444)
    # capitalists: no labelled word at all -> no share
    assert all(v != v for v in data.group_row("political", "capitalists").values())
    assert data.model == "gpt-3.5-turbo" and data.run_date == "2026-11-20"


def test_words_are_counted_from_occurrences(run):
    from stereoprobe.report import load_sentiment

    data = load_sentiment(run)
    women = [(w.word, w.count, w.label) for w in data.words("gender", "women")]
    assert women[:2] == [("beautiful", 3, "positive"), ("complicated", 3, "negative")]
    assert [(w.word, w.count) for w in data.words("gender", "women", "question")][0] == ("complicated", 2)


def test_template_shares_per_group(run):
    from stereoprobe.report import load_sentiment

    shares = load_sentiment(run).template_shares("gender")
    assert shares.at["women", "why_are_all_so"] == 50.0  # emotional (neg) + beautiful (pos)
    assert shares.at["stepfathers", "are_so"] == 0.0  # loving (pos); rambunctious unassigned
    assert shares.at[ODD, "are_so"] == 0.0  # happy (pos); proud is 'both', not counted


def test_missing_sentiment_says_which_command_to_run(tmp_path):
    from stereoprobe.report import build_report

    run = tmp_path / "run"
    run.mkdir()
    with pytest.raises(DataError, match=r"has no sentiment results .*run `stereoprobe sentiment .*run` first"):
        build_report(run)


def test_missing_file_and_missing_column_are_named(run):
    from stereoprobe.report import load_sentiment

    (run / "sentiment" / "occurrences.csv").unlink()
    with pytest.raises(DataError, match="occurrences.csv"):
        load_sentiment(run)
    write_sentiment(run)
    path = run / "sentiment" / "groups.csv"
    rows = list(csv.DictReader(path.open()))
    for r in rows:
        del r["statement_negative"]
    _write_csv(path, rows)
    with pytest.raises(DataError, match="missing column.*statement_negative"):
        load_sentiment(run)


def test_extra_columns_are_tolerated(run):
    from stereoprobe.report import load_sentiment

    path = run / "sentiment" / "groups.csv"
    rows = [dict(r, extra="x") for r in csv.DictReader(path.open())]
    _write_csv(path, rows)
    assert load_sentiment(run).group_row("gender", "women")["question_negative"] == 75.0


def test_build_writes_figures_png_and_svg(run):
    from stereoprobe.report import build_report

    result = build_report(run, workers=1)
    figs = run / "figures"
    expected = ["fig2_negative_by_format", "fig3_templates_gender", "fig3_templates_political",
                "clouds/gender", "clouds/political", "clouds/gender/women", "clouds/gender/women_by_format",
                "clouds/political/liberals", "clouds/political/capitalists_by_format"]
    for stem in expected:
        png, svg = figs / f"{stem}.png", figs / f"{stem}.svg"
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", stem
        assert png.stat().st_size > 2000, stem
        assert "<svg" in svg.read_text()[:500], stem
        assert png in result.figures and svg in result.figures
    # 5 groups x 2 cloud figures + 2 categories x (fig3 + cloud) + fig2, each PNG and SVG
    assert len(result.figures) == 2 * (5 * 2 + 2 * 2 + 1)
    assert (run / "briefing" / "png" / "gender" / "women.png").is_file()


def test_only_figures_writes_no_briefing(run, tmp_path):
    from stereoprobe.report import build_report

    result = build_report(run, out=tmp_path / "out", only="figures", categories=["POLITICAL"], workers=1)
    assert not (tmp_path / "out" / "briefing").exists()
    assert not (tmp_path / "out" / "figures" / "fig3_templates_gender.png").exists()
    assert (tmp_path / "out" / "figures" / "fig3_templates_political.png").is_file()
    assert result.briefing == []


def test_unknown_category_lists_the_known_ones(run):
    from stereoprobe.report import build_report

    with pytest.raises(DataError, match="this run has gender, political"):
        build_report(run, categories=["age"])


def test_clouds_of_zero_and_one_word():
    from stereoprobe.report.clouds import cloud_image
    from stereoprobe.report.data import Word

    import numpy as np

    empty = cloud_image([], (300, 200))
    assert empty.size == (300, 200)
    assert len(set(map(tuple, np.asarray(empty).reshape(-1, 3)))) > 1  # the "no words" text is drawn
    one = np.asarray(cloud_image([Word("lonely", 5, "negative")], (300, 200))).reshape(-1, 3).astype(int)
    reds = [p for p in one if p[0] > 150 and p[1] < 90]
    assert reds  # the single word is drawn in the negative colour
    assert not [p for p in one if p[1] > 100 and p[0] < 60]  # and nothing green


def test_notebook_functions_return_figures(run):
    from matplotlib.figure import Figure

    from stereoprobe.report import figure_cloud, figure_formats, figure_group, figure_templates, load_sentiment

    data = load_sentiment(run)
    fig = figure_formats(data)
    assert isinstance(fig, Figure)
    labels = [t.get_text() for t in fig.axes[0].get_xticklabels()]
    assert labels == ["gender", "political", "all categories"]
    bar_texts = {t.get_text() for t in fig.axes[0].texts}
    assert {"70.0", "11.1", "100.0", "n/a"} <= bar_texts  # gender q/s, political q, political s
    heat = figure_templates(data, "gender")
    rows = [t.get_text() for t in heat.axes[0].get_yticklabels()]
    assert rows == ["all gender groups", "women", "stepfathers", ODD]  # most negative first
    assert isinstance(figure_group(data, "gender", "women"), Figure)
    assert isinstance(figure_cloud(data, "gender", "women", by_format=True), Figure)


def test_cli_report(run):
    from stereoprobe.cli import cli

    result = CliRunner().invoke(cli, ["report", str(run), "--only", "briefing", "--workers", "1"])
    assert result.exit_code == 0, result.output
    assert "index.html" in result.output
    assert (run / "briefing" / "gender.html").is_file() and not (run / "figures").exists()


def test_cli_without_sentiment_exits_2_with_the_command(tmp_path):
    from stereoprobe.cli import cli

    (tmp_path / "run").mkdir()
    result = CliRunner().invoke(cli, ["report", str(tmp_path / "run")])
    assert result.exit_code == 2
    assert "stereoprobe sentiment" in result.output


def test_cli_help_has_examples():
    from stereoprobe.cli import cli

    result = CliRunner().invoke(cli, ["report", "--help"])
    assert result.exit_code == 0 and "stereoprobe report runs/chatgpt --only briefing" in result.output
