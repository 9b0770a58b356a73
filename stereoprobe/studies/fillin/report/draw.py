"""The report's drawing: every group's clouds (and with ``--figures all`` its figures and
slide), Figure 2, and per category Figure 3 and the category cloud, as jobs for a pool of
processes.

All of it is one queue: the category figures (the largest jobs: Figure 3 of 116
professions takes as long as about 40 groups' clouds) are handed out first, the groups
after them in chunks, so that every worker is busy until the end and the main process
only waits. The libraries the workers draw with are imported, and the fonts found,
before the workers are forked, so that they share them instead of importing them again
each (docs/report.md, "Speed").
"""

from __future__ import annotations

import multiprocessing
import os
import sys
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Callable, Iterable

from stereoprobe.page import palette
from stereoprobe.studies.fillin.report import briefing as bf
from stereoprobe.studies.fillin.report import clouds, figures
from stereoprobe.studies.fillin.report.data import SentimentData

#: A category cloud's size on the category page.
CATEGORY_CLOUD = (900, 520)


@dataclass
class GroupJob:
    """One group's drawing: its clouds, and with ``figures="all"`` its figures and slide."""

    page: bf.GroupPage  # images still empty
    caption: str
    figures_dir: Path | None  # set only with figures="all"
    briefing_dir: Path | None
    palette: str


@dataclass(frozen=True)
class CategoryJob:
    """Figure 2 (``category`` None), or one category's Figure 3 or cloud (``kind``)."""

    kind: str  # "fig2", "fig3" or "cloud"
    category: str | None
    slug: str | None
    figures_dir: Path | None
    every: bool  # figures="all": SVGs too
    palette: str
    size: int  # rows drawn: the order in which jobs are handed out, largest first


def category_jobs(data: SentimentData, cats: list[str], slugs: dict[str, str], fig_dir: Path | None,
                  every: bool) -> list[CategoryJob]:
    """Figure 2, then each category's Figure 3 and cloud, largest first."""
    jobs = [CategoryJob("fig2", None, None, fig_dir, every, palette.active(), len(cats))]
    for category in cats:
        n = len(data.group_names(category))
        jobs.append(CategoryJob("fig3", category, slugs[category], fig_dir, every, palette.active(), n))
        jobs.append(CategoryJob("cloud", category, slugs[category], fig_dir, every, palette.active(), 30))
    return sorted(jobs, key=lambda j: -j.size)


def category_order(jobs: list[CategoryJob]) -> list[tuple[str, str | None]]:
    """The keys of the category figures in the order their files are listed: Figure 2,
    then per category Figure 3 and the cloud (as before the pool drew them)."""
    order: list[tuple[str, str | None]] = [("fig2", None)]
    for j in jobs:
        if j.kind == "fig3":
            order += [("fig3", j.category), ("cloud", j.category)]
    return order


# -- one job --------------------------------------------------------------------------

_DATA: dict[str, SentimentData] = {}  # the run's data in a worker (set by the pool's initializer)


def _use_data(data: SentimentData) -> None:
    _DATA["run"] = data


def render_category(job: CategoryJob, data: SentimentData | None = None) -> tuple[tuple[str, str | None], bytes, list[Path]]:
    """Draw one category figure: ((kind, category), its PNG bytes for the pages, files written)."""
    data = data if data is not None else _DATA["run"]
    palette.use_palette(job.palette)
    paths: list[Path] = []
    if job.kind == "fig2":
        fig = figures.figure_formats(data)
        png = figures.to_png(fig)
        if job.figures_dir is not None:
            paths = _save(fig, png, job.figures_dir / "fig2_negative_by_format")
    elif job.kind == "fig3":
        fig = figures.figure_templates(data, job.category)
        png = figures.to_png(fig)
        if job.figures_dir is not None:
            paths = _save(fig, png, job.figures_dir / f"fig3_templates_{job.slug}", svg=job.every)
    else:
        img = clouds.cloud_image(data.words(job.category), CATEGORY_CLOUD)
        png = clouds.png_bytes(img, 16)
        if job.figures_dir is not None:
            paths = write_cloud_figure(
                job.figures_dir / "clouds" / job.slug, f"All words for the category {job.category}",
                [(f"{len(data.group_names(job.category))} groups, question and statement probes", img)],
                data.caption(), svg=job.every,
            )
    return (job.kind, job.category), png, paths


def render_group(job: GroupJob) -> tuple[bf.GroupPage, list[Path]]:
    """Draw one group's clouds (and with --figures all its figures and slide)."""
    palette.use_palette(job.palette)
    page, paths = job.page, []
    q = clouds.cloud_image(page.words_by_format["question"])
    s = clouds.cloud_image(page.words_by_format["statement"])
    page.question_png, page.statement_png = clouds.png_bytes(q, 8), clouds.png_bytes(s, 8)
    title = f"{page.group} ({page.category})"
    if job.figures_dir is not None:
        stem = job.figures_dir / "clouds" / page.category_slug / page.slug
        a = clouds.cloud_image(page.words)
        paths += write_cloud_figure(stem, f"{title}: words from all probes",
                                    [("question and statement probes", a)], job.caption)
        paths += write_cloud_figure(
            stem.with_name(stem.name + "_by_format"), f"{title}: question vs statement probes",
            [("question probes", q), ("statement probes", s)], job.caption,
            pngs=[page.question_png, page.statement_png],
        )
    if page.slide and job.briefing_dir is not None:
        bars = figures.to_image(figures.group_bars(page.group, page.category, page.mine, page.cat, page.everyone))
        path = job.briefing_dir / "png" / page.category_slug / f"{page.slug}.png"
        path.parent.mkdir(parents=True, exist_ok=True)
        clouds.save_png(bf.group_slide(page, q, s, bars, job.caption), path)
        paths.append(path)
    return page, paths


def _render_group_images(job: GroupJob) -> tuple[bytes, bytes, list[Path]]:
    page, paths = render_group(job)
    return page.question_png, page.statement_png, paths


def _with_images(page: bf.GroupPage, images: tuple[bytes, bytes, list[Path]]) -> tuple[bf.GroupPage, list[Path]]:
    page.question_png, page.statement_png, paths = images
    return page, paths


def write_cloud_figure(stem: Path, title: str, panels, caption: str, pngs=None, svg: bool = True) -> list[Path]:
    stem.parent.mkdir(parents=True, exist_ok=True)
    png_path = stem.with_suffix(".png")
    clouds.save_png(clouds.compose_png(title, panels, caption), png_path)
    if not svg:
        return [png_path]
    pngs = pngs or [clouds.png_bytes(img) for _, img in panels]
    svg_panels = [(sub, b) for (sub, _), b in zip(panels, pngs)]
    svg_path = stem.with_suffix(".svg")
    svg_path.write_text(clouds.compose_svg(title, svg_panels, panels[0][1].size, caption), encoding="utf-8")
    return [png_path, svg_path]


def _save(fig, png: bytes, stem: Path, svg: bool = True) -> list[Path]:
    """STEM.png from the bytes already drawn for the page, and STEM.svg."""
    stem.parent.mkdir(parents=True, exist_ok=True)
    stem.with_suffix(".png").write_bytes(png)
    return [stem.with_suffix(".png"), *(figures.save(fig, stem, formats=("svg",)) if svg else [])]


# -- all jobs ---------------------------------------------------------------------------

def draw_all(data: SentimentData, make_groups: Callable[[], list[GroupJob]], n_groups: int,
             cat_jobs: list[CategoryJob], workers: int | None, progress: Callable[[int, int], None] | None,
             meanwhile: Callable[[], None] = lambda: None,
             ) -> tuple[list[tuple[bf.GroupPage, list[Path]]], dict[tuple[str, str | None], tuple[bytes, list[Path]]]]:
    """Every group's page and files (in order) and every category figure's PNG and files.

    In ``workers`` processes (default: one per CPU) when there are 8 groups or more, else
    in this one. The groups' jobs are made (``make_groups``) and ``meanwhile`` is run in this
    process while the workers draw the category figures and groups.
    """
    done: list[tuple[bf.GroupPage, list[Path]]] = []

    def collect(items: Iterable[tuple[bf.GroupPage, list[Path]]]) -> None:
        for item in items:
            done.append(item)
            if progress is not None:
                progress(len(done), n_groups)

    n = workers or os.cpu_count() or 1
    if n > 1 and n_groups >= 8:
        from concurrent.futures import ProcessPoolExecutor

        _warm()
        method = "fork" if sys.platform.startswith("linux") else "spawn"
        with ProcessPoolExecutor(n, mp_context=multiprocessing.get_context(method), initializer=_use_data,
                                 initargs=(data,)) as pool:
            pending_cats = [pool.submit(render_category, j) for j in cat_jobs]
            groups = make_groups()
            # a worker gets a group's page without its probes (the pages' tables need them, the
            # drawing does not) and sends back the images and files only
            light = [replace(j, page=replace(j.page, probes=[])) for j in groups]
            drawn = pool.map(_render_group_images, light, chunksize=4)
            meanwhile()
            collect(_with_images(j.page, images) for j, images in zip(groups, drawn))
            cat_done = [f.result() for f in pending_cats]
    else:
        collect(render_group(j) for j in make_groups())
        cat_done = [render_category(j, data) for j in cat_jobs]
        meanwhile()
    return done, {key: (png, paths) for key, png, paths in cat_done}


def _warm() -> None:
    """Import what the workers draw with and find the fonts, before they are forked."""
    import matplotlib.backends.backend_agg  # noqa: F401  (Figures 2 and 3)
    import matplotlib.figure  # noqa: F401
    import wordcloud.query_integral_image  # noqa: F401  (the clouds)
    from PIL import ImageDraw  # noqa: F401

    clouds.font_path()
    clouds.font_path(True)
