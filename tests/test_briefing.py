"""The briefing pages' structure: every group present, images embedded, numbers = groups.csv."""

from __future__ import annotations

import csv
import math
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

from test_report import ODD, write_sentiment


class _Page(HTMLParser):
    """Collects group sections, index rows, every src/href and the text of each section."""

    def __init__(self) -> None:
        super().__init__()
        self.sections: list[dict[str, str]] = []
        self.rows: list[dict[str, str]] = []
        self.srcs: list[str] = []
        self.hrefs: list[str] = []
        self.texts: dict[str, list[str]] = {}
        self._current: str | None = None
        self._depth = 0

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "section" and "data-group" in a:
            self.sections.append(a)
            self._current, self._depth = a["data-group"], 0
            self.texts[self._current] = []
        elif tag == "section" and self._current:
            self._depth += 1
        if tag == "tr" and "data-group" in a:
            self.rows.append(a)
        if "src" in a:
            self.srcs.append(a["src"])
        if "href" in a:
            self.hrefs.append(a["href"])

    def handle_endtag(self, tag):
        if tag == "section" and self._current:
            if self._depth:
                self._depth -= 1
            else:
                self._current = None

    def handle_data(self, data):
        if self._current:
            self.texts[self._current].append(data)


def parse(path: Path) -> _Page:
    page = _Page()
    page.feed(path.read_text(encoding="utf-8"))
    return page


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    from stereoprobe.report import build_report

    run = write_sentiment(tmp_path_factory.mktemp("b") / "run")
    build_report(run, only="briefing", workers=1)
    return run


def _groups_csv(run: Path) -> list[dict[str, str]]:
    with (run / "sentiment" / "groups.csv").open(encoding="utf-8") as f:
        return list(csv.DictReader(f))


def _num(text: str) -> float:
    return float(text) if text else math.nan


def test_every_group_has_a_section_on_its_category_page(built):
    for category in ("gender", "political"):
        want = [r["group"] for r in _groups_csv(built) if r["category"] == category]
        page = parse(built / "briefing" / f"{category}.html")
        assert sorted(s["data-group"] for s in page.sections) == sorted(want)
        assert all(s["data-category"] == category for s in page.sections)


def test_numbers_on_the_pages_equal_groups_csv(built):
    sections = {}
    for category in ("gender", "political"):
        for s in parse(built / "briefing" / f"{category}.html").sections:
            sections[(s["data-category"], s["data-group"])] = s
    rows = _groups_csv(built)
    assert len(sections) == len(rows) == 5
    for r in rows:
        s = sections[(r["category"], r["group"])]
        for col, attr in (("negative", "data-negative"), ("question_negative", "data-question-negative"),
                          ("statement_negative", "data-statement-negative")):
            want, got = _num(r[col]), _num(s[attr])
            assert (math.isnan(want) and math.isnan(got)) or got == pytest.approx(want), (r["group"], col)
    women = sections[("gender", "women")]
    assert (women["data-question-negative"], women["data-statement-negative"]) == ("75.0", "20.0")


def test_the_visible_table_shows_the_same_numbers(built):
    page = parse(built / "briefing" / "gender.html")
    text = " ".join(page.texts["women"])
    # women 75.0 / 20.0 / 44.4; all gender 70.0 / 11.1 / 42.1 (hand-computed in test_report)
    for shown in ("75.0%", "20.0%", "44.4%", "70.0%", "11.1%", "42.1%"):
        assert shown in text
    assert "complicated (3)" in re.sub(r"\s+", " ", text)  # top negative word with its count
    assert "beautiful (3)" in re.sub(r"\s+", " ", text)


def test_unlabelled_words_are_counted(built):
    sections = {s["data-group"]: s for s in parse(built / "briefing" / "gender.html").sections}
    # stepfathers: tall (neutral) + rambunctious (not found) of 9 words
    assert (sections["stepfathers"]["data-words"], sections["stepfathers"]["data-unlabelled"]) == ("9", "2")
    text = " ".join(parse(built / "briefing" / "gender.html").texts["stepfathers"])
    assert "2 of 9 words" in re.sub(r"\s+", " ", text)


def test_index_ranks_every_group_by_negative_share(built):
    page = parse(built / "briefing" / "index.html")
    order = [r["data-group"] for r in page.rows]
    # liberals 100, women 44.4, stepfathers 42.9, ODD 33.3, capitalists none (last)
    assert order == ["liberals", "women", "stepfathers", ODD, "capitalists"]
    assert "gender.html#women" in page.hrefs and "political.html" in page.hrefs


def test_images_are_embedded_and_nothing_is_fetched(built):
    for path in (built / "briefing").glob("*.html"):
        html_text = path.read_text(encoding="utf-8")
        page = parse(path)
        assert page.srcs, path.name
        assert all(s.startswith("data:image/png;base64,") for s in page.srcs), path.name
        assert not re.search(r"https?://", html_text), path.name
        assert "<link" not in html_text and "<script" not in html_text and "@import" not in html_text
    gender = parse(built / "briefing" / "gender.html")
    assert len(gender.srcs) == 3 * 3  # bar chart + two clouds for each of 3 groups


def test_group_names_are_escaped(built):
    html_text = (built / "briefing" / "gender.html").read_text(encoding="utf-8")
    assert "<x>" not in html_text
    assert "&#x27;queers&#x27; &amp; &quot;others&quot; &lt;x&gt;" in html_text
    assert ODD in {s["data-group"] for s in parse(built / "briefing" / "gender.html").sections}


def test_a_slide_per_group(built):
    from PIL import Image

    slides = sorted(p.relative_to(built / "briefing" / "png").as_posix() for p in (built / "briefing" / "png").rglob("*.png"))
    assert slides == ["gender/queers-others-x.png", "gender/stepfathers.png", "gender/women.png",
                      "political/capitalists.png", "political/liberals.png"]
    assert Image.open(built / "briefing" / "png" / "gender" / "women.png").size == (1600, 900)


def test_page_shows_model_date_and_settings(built):
    html_text = (built / "briefing" / "political.html").read_text(encoding="utf-8")
    assert "gpt-3.5-turbo" in html_text and "2026-11-20" in html_text
    assert "<dt>temperature</dt><dd>0.7</dd>" in html_text
    assert "radical" in html_text  # the note on context-free labels
