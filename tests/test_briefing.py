"""The briefing pages: what they say first, every group present, evidence, numbers = the tables,
self-contained, accessible."""

from __future__ import annotations

import csv
import math
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

from test_report import ODD, PROBES, records, write_run


class _Page(HTMLParser):
    """Collects group sections, index rows, every src/href and the text of each section."""

    def __init__(self) -> None:
        super().__init__()
        self.sections: list[dict[str, str]] = []
        self.rows: list[dict[str, str]] = []
        self.srcs: list[str] = []
        self.hrefs: list[str] = []
        self.texts: dict[str, list[str]] = {}
        self.headings: list[int] = []
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
        if tag in ("h1", "h2", "h3", "h4", "h5", "h6"):
            self.headings.append(int(tag[1]))
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
    from stereoprobe.studies.fillin.report import build_report

    run = write_run(tmp_path_factory.mktemp("b") / "run")
    build_report(run, only="briefing", workers=1)
    return run


def _groups_csv(run: Path) -> list[dict[str, str]]:
    with (run / "sentiment" / "groups.csv").open(encoding="utf-8") as f:
        return list(csv.DictReader(f))


def _num(text: str) -> float:
    return float(text) if text else math.nan


def _text(path: Path) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", path.read_text(encoding="utf-8")))


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
            want, got = _num(r[col]), _num(s[attr])  # the CSV is rounded to 2 decimals, the page is not
            assert (math.isnan(want) and math.isnan(got)) or got == pytest.approx(want, abs=0.005), (r["group"], col)
    women = sections[("gender", "women")]
    assert (women["data-question-negative"], women["data-statement-negative"]) == ("80.0", "20.0")


def test_the_visible_table_shows_the_same_numbers_rounded_once(built):
    page = parse(built / "briefing" / "gender.html")
    text = re.sub(r"\s+", " ", " ".join(page.texts["women"]))
    # women 80 / 20 / 50; all gender 8/11 = 72.7 -> 73, 1/9 -> 11, 9/20 -> 45 (hand-computed in test_report)
    for shown in ("80%", "20%", "50%", "73%", "11%", "45%"):
        assert shown in text
    assert "72.7" not in text and "72.73" not in text
    assert "complicated (3)" in text and "beautiful (3)" in text  # top words with their counts


def test_no_share_from_one_probe_is_shown_as_a_number(built):
    for name in ("political.html", "index.html"):
        html_text = (built / "briefing" / name).read_text(encoding="utf-8")
        html_text = re.sub(r"<svg.*?</svg>|<style>.*?</style>", "", html_text, flags=re.S)  # axis and CSS say 100%
        assert "100%" not in html_text, name
        assert "too few probes" in html_text


def test_answered_probes_per_group(built):
    page = parse(built / "briefing" / "gender.html")
    odd = re.sub(r"\s+", " ", " ".join(page.texts[ODD]))
    assert "Answered 2 of 4 probes (1 refused, 1 failed)" in odd
    assert "Answered 6 of 6 probes." in " ".join(page.texts["women"])


def test_unlabelled_words_are_counted(built):
    sections = {s["data-group"]: s for s in parse(built / "briefing" / "gender.html").sections}
    # stepfathers: blue (neutral) + xyzzy (not found) of 9 words
    assert (sections["stepfathers"]["data-words"], sections["stepfathers"]["data-unlabelled"]) == ("9", "2")
    text = " ".join(parse(built / "briefing" / "gender.html").texts["stepfathers"])
    assert "2 of 9 words" in re.sub(r"\s+", " ", text)


def test_pages_open_with_key_findings_model_and_coverage(built):
    for name in ("index.html", "gender.html"):
        html_text = (built / "briefing" / name).read_text(encoding="utf-8")
        text = _text(built / "briefing" / name)
        assert html_text.index("Key findings") < html_text.index("<table")
        assert "This run covers 2 of 9 categories (19 of 2,292 probes)." in text
        assert "gpt-3.5-turbo, asked in a chat as in Busker, Choenni &amp; Bargh (2023)" in html_text
        assert "doi:10.1145/3614321.3614325" in text
    findings = parse(built / "briefing" / "index.html")
    index = _text(built / "briefing" / "index.html")
    # political's only share rests on one probe, so gender is the only category with a share: 9 of 20
    assert re.search(r"gender: 45% \(\d+ to \d+\) of labelled words negative\.", index)
    # the question-vs-statement finding comes from format_test.csv: three paired groups, a t test with 2
    # degrees of freedom: a 62-point gap is found, with the wide interval three groups allow (the standard
    # error floored at the binomial one at the categories' dispersion, which is above the three groups' own)
    assert ("Questions are more negative than statements for all categories: 73% vs 11%, 62 points "
            "(95% CI 14 to 100), q = 0.031") in index
    assert "Numbers in brackets are 95% intervals" in index
    assert findings.headings[0] == 1


def test_settings_are_collapsed_at_the_end_with_the_chat_settings(built):
    html_text = (built / "briefing" / "political.html").read_text(encoding="utf-8")
    assert "<dt>temperature</dt><dd>0.7</dd>" in html_text  # nested under settings.parameters by collect
    assert "<dt>max_tokens</dt><dd>300</dd>" in html_text and "<dt>top_p</dt><dd>1.0</dd>" in html_text
    assert html_text.index('<details class="settings">') > html_text.rindex('<section class="group"')
    assert "radical" in html_text  # the note on context-free labels


def test_synonym_labels_are_marked_with_their_voters(built):
    html_text = (built / "briefing" / "gender.html").read_text(encoding="utf-8")
    assert re.search(r'title="negative through WordNet synonyms: [^"]*tough:negative[^"]*">hard\*</span>', html_text)
    political = (built / "briefing" / "political.html").read_text(encoding="utf-8")
    assert ('title="negative through WordNet synonyms: pop:negative (decided by one vote)">popular*<sup>1</sup>'
            in political)
    assert "pop:negative — decided by one vote" in political  # the synonym table


def test_each_group_lists_its_probes_with_the_models_words(built):
    html_text = (built / "briefing" / "gender.html").read_text(encoding="utf-8")
    assert "<td>why are women so ...</td><td>question</td>" in html_text
    assert '<td>complicated</td>' not in html_text
    assert '<span class="n">complicated</span>, <span class="p">beautiful</span>' in html_text
    assert "<em>refused</em>" in html_text and "<em>failed</em>" in html_text


def test_index_lists_every_group_without_a_rank(built):
    page = parse(built / "briefing" / "index.html")
    order = [r["data-group"] for r in page.rows]
    # by share, women 50, stepfathers 42.9; then too few probes: liberals (one probe, 100), ODD (two, 33.3),
    # capitalists (none)
    assert order == ["women", "stepfathers", "liberals", ODD, "capitalists"]
    assert "gender.html#women" in page.hrefs and "political.html" in page.hrefs
    assert "The order is not a ranking" in _text(built / "briefing" / "index.html")


def test_the_folder_is_self_contained(built):
    root = built / "briefing"
    for path in root.glob("*.html"):
        html_text = path.read_text(encoding="utf-8")
        page = parse(path)
        assert page.srcs, path.name
        assert all(s.startswith("data:image/png;base64,") for s in page.srcs), path.name
        assert "<link" not in html_text and "<script" not in html_text and "@import" not in html_text
        assert "url(" not in html_text
        for href in page.hrefs:
            target = href.split("#")[0]
            assert not re.match(r"[a-z]+:", href), href  # no http:, file:, mailto: ...
            assert not target or (root / target).is_file(), (path.name, href)
    gender = parse(root / "gender.html")
    assert len(gender.srcs) == 2 * 3 + 2  # two clouds for each of 3 groups, Figure 3, category cloud
    assert {"data/fig3_templates_gender.csv", "data/words_gender.csv", "data/occurrences.csv"} <= set(gender.hrefs)


def test_group_names_are_escaped(built):
    html_text = (built / "briefing" / "gender.html").read_text(encoding="utf-8")
    assert "<x>" not in html_text
    assert "&#x27;queers&#x27; &amp; &quot;others&quot; &lt;x&gt;" in html_text
    assert ODD in {s["data-group"] for s in parse(built / "briefing" / "gender.html").sections}


def test_headings_in_order_tables_captioned_images_described(built):
    for path in (built / "briefing").glob("*.html"):
        page = parse(path)
        assert page.headings[0] == 1
        assert all(b - a <= 1 for a, b in zip(page.headings, page.headings[1:])), path.name
        html_text = path.read_text(encoding="utf-8")
        assert html_text.count("<table") == html_text.count("<caption>"), path.name
        assert 'alt=""' not in html_text
    html_text = (built / "briefing" / "gender.html").read_text(encoding="utf-8")
    # a cloud's alt text carries the share and the top words
    assert re.search(r"Word cloud, question probes, women: negative share 80% \(\d+ to \d+\)\. "
                     r"Top words: complicated \(negative, 2\)", html_text)


def test_text_colours_have_enough_contrast():
    from stereoprobe.page import palette
    from stereoprobe.studies.fillin.report import briefing

    colours = set(re.findall(r"color:(#[0-9a-f]{3,6})", briefing.CSS))
    for name in palette.PALETTES:
        colours |= {palette.PALETTES[name][k] for k in ("positive", "negative", "other")}
    for c in colours:
        full = c if len(c) == 7 else "#" + "".join(ch * 2 for ch in c[1:])
        assert palette.contrast(full) >= 4.5, c


def test_intervals_and_tests_slot_in_when_the_tables_have_them(tmp_path):
    """Columns of the statistics stage (docs/statistics.md) are shown as '50% (30 to 70)'."""
    from stereoprobe.studies.fillin.report import build_report

    run = write_run(tmp_path / "run")
    sdir = run / "sentiment"
    rows = _groups_csv(run)
    for r in rows:
        for col in ("negative", "question_negative", "statement_negative", "positive", "question_positive",
                    "statement_positive"):
            ok = r[col] != "" and r["group"] != "liberals"
            r[f"{col}_ci_low"] = round(float(r[col]) - 20.4, 2) if ok else ""
            r[f"{col}_ci_high"] = round(float(r[col]) + 20.4, 2) if ok else ""
        r["too_few_probes"] = r["group"] in ("liberals", "capitalists")
        r["vs_category"] = {"women": "more negative", "liberals": "too few probes"}.get(r["group"], "not distinguishable")
    with (sdir / "groups.csv").open("w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    with (sdir / "table4.csv").open(encoding="utf-8") as f:
        t4 = list(csv.DictReader(f))
    for r in t4:
        for col in ("negative", "question_negative", "statement_negative"):
            ok = r[col] != "" and r["category"] != "political"
            r[f"{col}_ci_low"] = round(float(r[col]) - 10, 2) if ok else ""
            r[f"{col}_ci_high"] = round(float(r[col]) + 10, 2) if ok else ""
    with (sdir / "table4.csv").open("w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=list(t4[0]))
        w.writeheader()
        w.writerows(t4)
    sentence = "Questions are more negative than statements for all categories: 75% vs 11%, 64 points."
    (sdir / "format_test.csv").write_text(
        "category,question_negative,statement_negative,difference,ci_low,ci_high,p,q,cohens_h,groups,sentence\n"
        f'all,75,11.1,63.9,40,80,0.01,0.02,1.4,5,"{sentence}"\n', encoding="utf-8")
    build_report(run, only="briefing", workers=1)
    gender = (run / "briefing" / "gender.html").read_text(encoding="utf-8")
    assert '<td class="num" data-field="question_negative">80% (60 to 100)</td>' in gender
    assert "(more negative than the category)" in gender
    assert "(not distinguishable from its category)" in gender
    index = _text(run / "briefing" / "index.html")
    assert sentence in index
    assert "Numbers in brackets are 95% intervals" in index
    assert (run / "briefing" / "data" / "format_test.csv").is_file()
    # the group chart draws whiskers for the interval
    assert "whiskers: interval" in gender
    # Figure 2: gender's question bar 72.7 with whiskers 62.7 to 82.7; its label sits above the whisker
    from stereoprobe.studies.fillin.report import figure_formats, load_sentiment

    fig = figure_formats(load_sentiment(run))
    ax = fig.axes[0]
    segments = [seg for coll in ax.collections for seg in coll.get_segments()]
    assert any(abs(seg[0][1] - 800 / 11 + 10) < 0.01 and abs(seg[1][1] - 800 / 11 - 10) < 0.01 for seg in segments)
    labels = {t.get_text(): t.get_position()[1] for t in ax.texts}
    assert labels["73"] == pytest.approx(800 / 11 + 10 + 1, abs=0.01)  # bounds come from the CSV (2 decimals)


def test_embedded_model_is_not_chatgpt_and_not_comparable(tmp_path):
    from stereoprobe.studies.fillin.report import build_report

    run = write_run(tmp_path / "run", model="gemma-3-270m-q4_k_m", mode="next-word")
    build_report(run, only="briefing", workers=1)
    for name in ("index.html", "gender.html"):
        text = _text(run / "briefing" / name)
        assert "a small base language model run offline" in text
        assert "It is not ChatGPT" in text and "not comparable to Table 4 of Busker, Choenni" in text


def test_names_with_dollar_and_a_category_called_index(tmp_path):
    from stereoprobe.studies.fillin.report import build_report

    probes = [("index", "$100 earners", t, ["complicated", "kind"]) for t in ("why_are_so", "are_so")]
    probes += [("$money", "misers", t, ["greedy"]) for t in ("why_are_so", "are_so")]
    run = write_run(tmp_path / "run", records(probes))
    result = build_report(run, workers=1)  # a `$...$` label would fail in matplotlib's mathtext
    index = (run / "briefing" / "index.html").read_text(encoding="utf-8")
    assert "<title>Stereotype briefings: all groups</title>" in index
    assert (run / "briefing" / "index-2.html").is_file()
    assert 'href="index-2.html"' in index
    assert (run / "figures" / "fig3_templates_index-2.png") in result.figures


def test_template_texts_come_from_the_run(tmp_path):
    from stereoprobe.studies.fillin.report import figure_templates, load_sentiment

    templates = {"why_are_so": {"text": "waarom zijn <group> zo ...", "format": "question"},
                 "are_so": {"text": "<group> zijn zo ...", "format": "statement"}}
    run = write_run(tmp_path / "run", records([p for p in PROBES if p[2] in ("why_are_so", "are_so")]),
                    extra_manifest={"catalog": {"path": "nl", "sha256": "0" * 64, "templates": templates, "probes": 10}})
    labels = [t.get_text() for t in figure_templates(load_sentiment(run), "gender").axes[0].get_xticklabels()]
    assert labels == ["waarom zijn …\nzo", "… zijn zo"]


def test_paper_palette_on_request(tmp_path):
    from stereoprobe.page import palette
    from stereoprobe.studies.fillin.report import build_report

    run = write_run(tmp_path / "run")
    try:
        build_report(run, only="briefing", workers=1, palette_name="paper")
        assert "--neg:#cf222e" in (run / "briefing" / "index.html").read_text(encoding="utf-8")
    finally:
        palette.use_palette(palette.DEFAULT)
    build_report(run, only="briefing", workers=1)
    assert "--neg:#b14200" in (run / "briefing" / "index.html").read_text(encoding="utf-8")


def test_cli_progress_is_plain_lines_off_a_terminal(tmp_path):
    from click.testing import CliRunner

    from stereoprobe.cli import cli

    run = write_run(tmp_path / "run")
    result = CliRunner().invoke(cli, ["report", str(run), "--only", "briefing", "--workers", "1"])
    assert result.exit_code == 0, result.output
    assert "5/5 groups, " in result.output and "\r" not in result.output


def test_tables_without_statistics_show_counts_and_apply_the_same_floor(tmp_path):
    """Sentiment outputs written before the statistics stage: no intervals, no tests."""
    from stereoprobe.studies.fillin.report import build_report, load_sentiment

    run = write_run(tmp_path / "run")
    sdir = run / "sentiment"
    for name in ("groups.csv", "table4.csv", "templates.csv"):
        with (sdir / name).open(encoding="utf-8") as f:
            rows = list(csv.DictReader(f))
        keep = [c for c in rows[0] if not (c.endswith(("_ci_low", "_ci_high")) or c.startswith(("vs_category", "probes_"))
                                           or c in ("too_few_probes", "n_probes"))]
        with (sdir / name).open("w", newline="", encoding="utf-8") as f:
            w = csv.DictWriter(f, fieldnames=keep, extrasaction="ignore")
            w.writeheader()
            w.writerows(rows)
    for name in ("format_test.csv", "criteria.csv", "robustness.csv"):
        (sdir / name).unlink()
    data = load_sentiment(run)
    assert data.share("gender", "stepfathers", "negative").text() == "43%"  # six probes, no interval
    assert data.share("gender", ODD, "negative").text() == "too few probes"  # two probes, the same floor
    assert data.probe_counts("gender", ODD) == {"asked": 4, "answered": 2, "refused": 1, "failed": 1}  # records
    build_report(run, only="briefing", workers=1)
    index = _text(run / "briefing" / "index.html")
    assert "These tables have no intervals yet" in index
    assert "not yet tested" in index and "not tested" in index


def test_key_findings_say_when_the_extremes_are_not_clearly_different(tmp_path):
    from stereoprobe.studies.fillin.report import build_report

    probes = [(c, g, t, words) for c, words in (("gender", ["complicated", "kind"]), ("political", ["greedy"]))
              for g in ("a", "b") for t in ("why_are_so", "are_so", "why_are_always_so")]
    probes[0] = ("gender", "a", "why_are_so", ["beautiful"])
    run = write_run(tmp_path / "run", records(probes))
    build_report(run, only="briefing", workers=1)
    index = _text(run / "briefing" / "index.html")
    # political: 6 of 6 labelled words negative; gender: 5 of 11; with six probes each, intervals overlap
    assert re.search(r"Most negative category: political, 100% \(\d+ to 100\) of labelled words negative; "
                     r"least negative: gender, 45% \(\d+ to \d+\)\. Their intervals overlap", index)


def test_chart_text_is_at_least_9_pt(built):
    """12 px = 9 pt in the inline charts; matplotlib sizes are in points."""
    html_text = (built / "briefing" / "gender.html").read_text(encoding="utf-8")
    sizes = [int(s) for s in re.findall(r'font-size="(\d+)"', html_text)]
    assert sizes and min(sizes) >= 12
    from stereoprobe.studies.fillin.report import figure_formats, figure_templates, load_sentiment

    data = load_sentiment(built)
    for fig in (figure_formats(data), figure_templates(data, "gender")):
        texts = [t for ax in fig.axes for t in (*ax.texts, *ax.get_xticklabels(), *ax.get_yticklabels())]
        texts += fig.texts
        assert min(t.get_fontsize() for t in texts if t.get_text() or getattr(t, "items", None)) >= 9  # page.figures.texts


def test_key_findings_say_how_much_the_wording_moves_the_result(built):
    """Issue 7, section 5: one sentence from robustness.csv on every page."""
    import pandas as pd

    rob = pd.read_csv(built / "sentiment" / "robustness.csv")
    spread = rob.groupby("category")["spread"].first().dropna()
    import html

    index = html.unescape(_text(built / "briefing" / "index.html"))
    assert list(spread.index) == ["gender"]  # political's groups rest on too few probes
    assert f"changing the template moves the negative share of gender by up to {spread['gender']:.0f} points" in index
    gender = rob[rob["category"] == "gender"]["sentence"].iloc[0]
    assert gender.startswith("For gender, the wording moves the negative share by up to")
    assert gender in html.unescape(_text(built / "briefing" / "gender.html"))


def test_wording_sentence_over_categories_names_the_smallest_and_largest_spread():
    from types import SimpleNamespace

    import pandas as pd

    from stereoprobe.studies.fillin.report.context import wording_sentence

    rob = pd.DataFrame({"category": ["age", "age", "race", "race"], "spread": [12.4, 12.4, 40.6, 40.6],
                        "sentence": ["For age, ...", "For age, ...", "For race, ...", "For race, ..."]})
    data = SimpleNamespace(robustness=rob)
    assert wording_sentence(data, None) == ("The wording matters: changing the template moves a category's negative "
                                            "share by 12 (age) to 41 (race) points; each category page says more.")
    assert wording_sentence(data, "race") == "For race, ..."
    assert wording_sentence(SimpleNamespace(robustness=None), None) == ""
