"""`build_report`: a run's sentiment outputs -> RUN_DIR/figures/ and RUN_DIR/briefing/.

Layout written by default (``<cat>`` and ``<group>`` are slugs, see words.slugify)::

    figures/fig2_negative_by_format.{png,svg}        Figure 2 of the paper
    figures/fig3_templates_<cat>.png                 Figure 3, one per category
    figures/clouds/<cat>.png                         all words of a category
    briefing/index.html, briefing/<cat>.html         self-contained pages (zip and e-mail)
    briefing/data/*.csv                              the numbers behind every table and figure

With ``figures="all"`` also, per group::

    figures/fig3_templates_<cat>.svg, figures/clouds/<cat>.svg, figures/clouds/<cat>/<group>.{png,svg},
    figures/clouds/<cat>/<group>_by_format.{png,svg}, briefing/png/<cat>/<group>.png (a slide)

The drawing (every group's clouds, the category figures; with "all" also the group figures and
slides) runs in a process pool: draw.py.
"""

from __future__ import annotations

import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Sequence

from stereoprobe.errors import DataError
from stereoprobe.studies.fillin.report import briefing as bf
from stereoprobe.page import palette
from stereoprobe.studies.fillin.report import clouds, context, draw
from stereoprobe.studies.fillin.report.data import ALL, SHARES, SentimentData, load_sentiment
from stereoprobe.studies.fillin.report.words import slugify, unique_slugs

PARTS = ("figures", "briefing")
FIGURE_SETS = ("pages", "all")
DATA_FILES = ("table4.csv", "groups.csv", "templates.csv", "words.csv", "occurrences.csv", "format_test.csv",
              "criteria.csv", "robustness.csv")


@dataclass
class ReportResult:
    """What build_report wrote."""

    out: Path
    figures: list[Path] = field(default_factory=list)
    briefing: list[Path] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def paths(self) -> list[Path]:
        return self.figures + self.briefing


def build_report(
    run_dir: str | Path,
    out: str | Path | None = None,
    categories: Sequence[str] | None = None,
    only: str | None = None,
    workers: int | None = None,
    figures: str = "pages",
    palette_name: str = palette.DEFAULT,
    progress: Callable[[int, int], None] | None = None,
) -> ReportResult:
    """Draw the figures and write the briefings of a scored run.

    ``out`` defaults to the run directory; ``categories`` limits the per-category
    figures and pages (names match case-insensitively); ``only`` is "figures" or
    "briefing"; ``workers`` processes draw the groups (default: one per CPU);
    ``figures="all"`` adds per-group cloud figures (PNG and SVG) and slides;
    ``palette_name`` is "safe" (colour-blind safe, default) or "paper" (red/green);
    ``progress(done, total)`` is called as groups are drawn.
    """
    start = time.perf_counter()
    _check_parts(only, figures)
    palette.use_palette(palette_name)
    data = load_sentiment(run_dir)
    cats = _select(data, categories)
    root = Path(out) if out is not None else data.run_dir
    fig_dir = root / "figures" if only in (None, "figures") else None
    brief_dir = root / "briefing" if only in (None, "briefing") else None
    result = ReportResult(out=root)
    cat_slugs = unique_slugs(cats, reserved=["index", "data", "png"])
    every = figures == "all"
    cat_jobs = draw.category_jobs(data, cats, cat_slugs, fig_dir, every)
    data_files: list[Path] = []

    def make_groups() -> list[draw.GroupJob]:
        return list(_jobs(data, cats, cat_slugs, fig_dir if every else None, brief_dir, every))

    def meanwhile() -> None:  # while the workers draw
        if brief_dir is not None:
            data_files.extend(_write_data(data, cats, cat_slugs, brief_dir / "data"))

    n_groups = sum(len(data.group_names(c)) for c in cats)
    done, drawn = draw.draw_all(data, make_groups, n_groups, cat_jobs, workers, progress, meanwhile)
    cat_figs: dict = {}  # "fig2", ("fig3", category), ("cloud", category) -> PNG bytes
    for kind, category in draw.category_order(cat_jobs):
        png, paths = drawn[(kind, category)]
        cat_figs[kind if category is None else (kind, category)] = png
        result.figures += paths
    pages = []
    for page, paths in done:
        pages.append(page)
        for p in paths:
            (result.briefing if brief_dir and brief_dir in p.parents else result.figures).append(p)
    if brief_dir is not None:
        result.briefing += data_files
        result.briefing += _write_html(data, cats, cat_slugs, pages, cat_figs, brief_dir)
    result.seconds = time.perf_counter() - start
    return result


def _check_parts(only: str | None, figures: str) -> None:
    if only not in (None, *PARTS):
        raise DataError(f"Unknown part {only!r}: use --only figures or --only briefing.")
    if figures not in FIGURE_SETS:
        raise DataError(f"Unknown figure set {figures!r}: use --figures pages or --figures all.")


def _select(data: SentimentData, wanted: Sequence[str] | None) -> list[str]:
    known = data.categories
    if not wanted:
        return known
    by_lower = {c.lower(): c for c in known}
    out = []
    for name in wanted:
        if name.lower() not in by_lower:
            raise DataError(f"Unknown category {name!r} in --category: this run has {', '.join(known)}.")
        out.append(by_lower[name.lower()])
    return list(dict.fromkeys(out))


def shares_of(data: SentimentData, category: str, group: str | None = None) -> dict:
    return {k: data.share(category, group, k) for k in SHARES}


def _jobs(data, cats, cat_slugs, fig_dir, brief_dir, every):
    everyone = shares_of(data, ALL)
    caption = data.caption()
    for category in cats:
        cat_row = shares_of(data, category)
        names = data.group_names(category)
        slugs = unique_slugs(names)
        for name in names:
            words = data.words(category, name)
            row = data.row(category, name)
            page = bf.GroupPage(
                category=category,
                category_slug=cat_slugs[category],
                group=name,
                slug=slugs[name],
                mine=shares_of(data, category, name),
                cat=cat_row,
                everyone=everyone,
                words=words,
                counts=data.probe_counts(category, name),
                probes=data.probes_of(category, name),
                vs_category=_text(row.get("vs_category")),
                words_by_format={f: data.words(category, name, f) for f in ("question", "statement")},
                slide=every and brief_dir is not None,
            )
            page.evidence = {w.word: data.evidence(w.word) for w in words if data.evidence(w.word)[0]}
            yield draw.GroupJob(page, caption, fig_dir, brief_dir, palette.active())


def _text(value) -> str:
    """A table cell as text; empty for a missing value (NaN)."""
    return "" if value is None or value != value else str(value)


def _write_data(data: SentimentData, cats, cat_slugs, out: Path) -> list[Path]:
    """The CSVs behind the pages: the sentiment tables as written, and per category the
    numbers of Figure 3 and of the category cloud."""
    import pandas as pd

    out.mkdir(parents=True, exist_ok=True)
    written = []
    for name in DATA_FILES:
        src = data.run_dir / "sentiment" / name
        if src.is_file():
            shutil.copyfile(src, out / name)
            written.append(out / name)
    for category in cats:
        slug = cat_slugs[category]
        path = out / f"fig3_templates_{slug}.csv"
        data.template_shares(category).round(2).to_csv(path)
        written.append(path)
        path = out / f"words_{slug}.csv"
        pd.DataFrame([(w.word, w.label, w.count) for w in data.words(category)],
                     columns=["word", "label", "count"]).to_csv(path, index=False)
        written.append(path)
    return written


def _context(data: SentimentData, category: str | None) -> dict:
    return {
        "meta": bf.esc(f"Model: {data.model} · run {data.run_date} · ") + bf.esc(context.coverage_text(data)),
        "findings": context.key_findings(data, category),
        "model": context.model_note(data),
        "settings": bf.settings_html(data.settings()),
    }


def _synonym_rows(data: SentimentData, category: str) -> list:
    rows = []
    for w in data.words(category):
        source, voters, single = data.evidence(w.word)
        if source == "synonyms" and w.label in ("positive", "negative"):
            rows.append((w.word, w.label, w.count, voters, single))
    return rows


def _write_html(data, cats, cat_slugs, pages, figs, out: Path) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    files = {c: f"{cat_slugs[c]}.html" for c in cats}
    written = []
    for category in cats:
        slug = cat_slugs[category]
        mine = [p for p in pages if p.category == category]
        top = ", ".join(w.word for w in data.words(category)[:10])
        fig_html = (
            "<h2>Figures</h2>"
            + bf.figure_html(
                f"Negative share per group and probe template ({category})", figs[("fig3", category)],
                f"Heatmap of negative shares for {len(mine)} groups of {category} and each template; "
                f"all {category} groups: {data.share(category, None, 'negative').text()} negative.",
                "Colour: % of labelled words that are negative. A cell resting on too few probes for a share "
                "(each group cell, in a one-sample run) shows negative / labelled words; n: answered probes.",
                [("numbers (CSV)", f"data/fig3_templates_{slug}.csv"), ("per template (CSV)", "data/templates.csv")],
                clouds.data_uri)
            + bf.figure_html(
                f"All words for {category}", figs[("cloud", category)],
                f"Word cloud of all words for {category}; most frequent: {top}.",
                "Size: how often the model returned the word; colour: its label.",
                [("word counts (CSV)", f"data/words_{slug}.csv"), ("all labels and voters (CSV)", "data/words.csv"),
                 ("every word occurrence (CSV)", "data/occurrences.csv")],
                clouds.data_uri, kind="cloud")
        )
        html_text = bf.category_page(category, mine, _context(data, category), fig_html,
                                     bf.synonyms_html(_synonym_rows(data, category)), clouds.data_uri)
        (out / files[category]).write_text(html_text, encoding="utf-8")
        written.append(out / files[category])
    cat_rows = [
        {"category": c, **{k: data.share(c, None, k) for k in ("negative", "question_negative", "statement_negative")},
         "probes": data.polar_probes(c)}
        for c in [*data.categories, ALL]
    ]
    fig2 = bf.figure_html(
        "Negative share per category, question vs statement probes", figs["fig2"],
        "Bar chart: " + "; ".join(
            f"{r['category']}: question {r['question_negative'].short()}, statement {r['statement_negative'].short()}"
            for r in cat_rows) + ".",
        "The paper's Figure 2 for this run" + ("; whiskers show intervals." if _has_intervals(data) else "."),
        [("numbers (CSV)", "data/table4.csv")] + ([("question vs statement test (CSV)", "data/format_test.csv")]
                                                  if data.format_test is not None else []),
        clouds.data_uri)
    from stereoprobe.studies.fillin import paper

    used = (data.manifest.get("design"), data.manifest.get("mode"), data.meta.get("lexicon"), data.meta.get("synonyms"))
    why = paper.reason(*used)
    line = why or "Under each category: Busker et al.'s own negative shares (gpt-3.5-turbo-0301, 2023, their Table 4)."
    index = out / "index.html"
    index.write_text(bf.index_page(pages, files, cat_rows, _context(data, None), fig2, paper.negative(*used), line),
                     encoding="utf-8")
    return [index] + written


def _has_intervals(data: SentimentData) -> bool:
    return "negative_ci_low" in data.table4.columns


__all__ = ["ReportResult", "build_report", "slugify"]
