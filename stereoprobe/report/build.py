"""`build_report`: a run's sentiment outputs -> RUN_DIR/figures/ and RUN_DIR/briefing/.

Layout written (``<cat>`` and ``<group>`` are slugs, see data.slugify)::

    figures/fig2_negative_by_format.{png,svg}        Figure 2 of the paper
    figures/fig3_templates_<cat>.{png,svg}           Figure 3, one per category
    figures/clouds/<cat>.{png,svg}                   all words of a category
    figures/clouds/<cat>/<group>.{png,svg}           all words of a group
    figures/clouds/<cat>/<group>_by_format.{png,svg} question | statement
    briefing/index.html, briefing/<cat>.html         self-contained pages
    briefing/png/<cat>/<group>.png                   one slide per group

Per-group work (three clouds, two figures, a bar chart, a slide) runs in a process pool.
"""

from __future__ import annotations

import multiprocessing
import os
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

from stereoprobe.errors import DataError
from stereoprobe.report import briefing as bf
from stereoprobe.report import clouds, figures
from stereoprobe.report.data import ALL, SentimentData, Word, load_sentiment, slugify, unique_slugs

PARTS = ("figures", "briefing")


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


@dataclass
class _GroupJob:
    page: bf.GroupPage  # images still empty
    words_question: list[Word]
    words_statement: list[Word]
    caption: str
    figures_dir: Path | None
    briefing_dir: Path | None


def build_report(
    run_dir: str | Path,
    out: str | Path | None = None,
    categories: Sequence[str] | None = None,
    only: str | None = None,
    workers: int | None = None,
) -> ReportResult:
    """Draw the figures and write the briefings of a scored run.

    ``out`` defaults to the run directory; ``categories`` limits the per-category
    figures and pages (names match case-insensitively); ``only`` is "figures" or
    "briefing"; ``workers`` processes draw the groups (default: one per CPU).
    """
    start = time.perf_counter()
    if only not in (None, *PARTS):
        raise DataError(f"Unknown part {only!r}: use --only figures or --only briefing.")
    data = load_sentiment(run_dir)
    cats = _select(data, categories)
    root = Path(out) if out is not None else data.run_dir
    fig_dir = root / "figures" if only in (None, "figures") else None
    brief_dir = root / "briefing" if only in (None, "briefing") else None
    result = ReportResult(out=root)
    cat_slugs = unique_slugs(cats)
    jobs = list(_jobs(data, cats, cat_slugs, fig_dir, brief_dir))

    n = workers or os.cpu_count() or 1
    if n > 1 and len(jobs) >= 8:
        from concurrent.futures import ProcessPoolExecutor

        method = "fork" if sys.platform.startswith("linux") else "spawn"
        with ProcessPoolExecutor(n, mp_context=multiprocessing.get_context(method)) as pool:
            pending = pool.map(_render_group, jobs, chunksize=4)
            fig2_png = _category_figures(data, cats, cat_slugs, fig_dir, result)
            done = list(pending)
    else:
        done = [_render_group(j) for j in jobs]
        fig2_png = _category_figures(data, cats, cat_slugs, fig_dir, result)
    pages = []
    for page, paths in done:
        pages.append(page)
        for p in paths:
            (result.briefing if brief_dir and brief_dir in p.parents else result.figures).append(p)
    if brief_dir is not None:
        result.briefing += _write_html(data, cats, cat_slugs, pages, fig2_png, brief_dir)
    result.seconds = time.perf_counter() - start
    return result


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


def _jobs(data, cats, cat_slugs, fig_dir, brief_dir):
    everyone = data.category_row(ALL)
    caption = data.caption()
    for category in cats:
        cat_row = data.category_row(category)
        names = data.group_names(category)
        slugs = unique_slugs(names)
        for name in names:
            page = bf.GroupPage(
                category=category,
                category_slug=cat_slugs[category],
                group=name,
                slug=slugs[name],
                mine=data.group_row(category, name),
                cat=cat_row,
                everyone=everyone,
                words=data.words(category, name),
                question_png=b"",
                statement_png=b"",
                bars_png=b"",
            )
            yield _GroupJob(
                page,
                data.words(category, name, "question"),
                data.words(category, name, "statement"),
                caption,
                fig_dir,
                brief_dir,
            )


def _render_group(job: _GroupJob) -> tuple[bf.GroupPage, list[Path]]:
    """Draw one group's clouds, figures and slide; return its page data and paths."""
    page, paths = job.page, []
    q, s = clouds.cloud_image(job.words_question), clouds.cloud_image(job.words_statement)
    page.question_png, page.statement_png = clouds.png_bytes(q), clouds.png_bytes(s)
    title = f"{page.group} ({page.category})"
    if job.figures_dir is not None:
        stem = job.figures_dir / "clouds" / page.category_slug / page.slug
        a = clouds.cloud_image(page.words)
        paths += _write_cloud_figure(stem, f"{title}: words from all probes",
                                     [("question and statement probes", a)], job.caption)
        paths += _write_cloud_figure(
            stem.with_name(stem.name + "_by_format"), f"{title}: question vs statement probes",
            [("question probes", q), ("statement probes", s)], job.caption,
            pngs=[page.question_png, page.statement_png],
        )
    if job.briefing_dir is not None:
        bars = figures.to_image(figures.group_bars(page.group, page.category, page.mine, page.cat, page.everyone))
        page.bars_png = clouds.png_bytes(bars)
        path = job.briefing_dir / "png" / page.category_slug / f"{page.slug}.png"
        path.parent.mkdir(parents=True, exist_ok=True)
        clouds.save_png(bf.group_slide(page, q, s, bars, job.caption), path)
        paths.append(path)
    return page, paths


def _write_cloud_figure(stem: Path, title: str, panels, caption: str, pngs=None) -> list[Path]:
    stem.parent.mkdir(parents=True, exist_ok=True)
    png, svg = stem.with_suffix(".png"), stem.with_suffix(".svg")
    clouds.save_png(clouds.compose_png(title, panels, caption), png)
    pngs = pngs or [clouds.png_bytes(img) for _, img in panels]
    svg_panels = [(sub, b) for (sub, _), b in zip(panels, pngs)]
    svg.write_text(clouds.compose_svg(title, svg_panels, panels[0][1].size, caption), encoding="utf-8")
    return [png, svg]


def _category_figures(data, cats, cat_slugs, fig_dir, result) -> bytes:
    """Figure 2, Figure 3 per category, a cloud per category; return Figure 2 as PNG."""
    fig2 = figures.figure_formats(data)
    png = figures.to_png(fig2)
    if fig_dir is None:
        return png
    result.figures += figures.save(fig2, fig_dir / "fig2_negative_by_format")
    for category in cats:
        slug = cat_slugs[category]
        result.figures += figures.save(figures.figure_templates(data, category), fig_dir / f"fig3_templates_{slug}")
        img = clouds.cloud_image(data.words(category), (900, 520))
        result.figures += _write_cloud_figure(
            fig_dir / "clouds" / slug, f"All words for the category {category}",
            [(f"{len(data.group_names(category))} groups, question and statement probes", img)], data.caption(),
        )
    return png


def _write_html(data, cats, cat_slugs, pages, fig2_png, out: Path) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    meta = bf.esc(data.caption())
    settings = bf.settings_html(data.settings())
    files = {c: f"{cat_slugs[c]}.html" for c in cats}
    written = []
    for category in cats:
        mine = [p for p in pages if p.category == category]
        path = out / files[category]
        path.write_text(bf.category_page(category, mine, meta, settings, clouds.data_uri), encoding="utf-8")
        written.append(path)
    table4 = [
        {k: (r[k] if k == "category" else float(r[k])) for k in ("category", "negative", "question_negative", "statement_negative")}
        for _, r in data.table4.iterrows()
    ]
    index = out / "index.html"
    index.write_text(
        bf.index_page(pages, files, table4, clouds.data_uri(fig2_png), meta, settings), encoding="utf-8"
    )
    return [index] + written


__all__ = ["ReportResult", "build_report", "slugify"]
