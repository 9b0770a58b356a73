"""`stereoprobe report RUN_DIR`: figures and per-group briefings from sentiment outputs."""

from __future__ import annotations

import time
from pathlib import Path

import click

from stereoprobe.cli._common import friendly_errors, given_options
from stereoprobe.progress import progress_callback


@click.command("report")
@click.argument("run_dir", type=click.Path(file_okay=False, path_type=Path))
@click.option("--only", type=click.Choice(["figures", "briefing"]), help="Write only the figures or only the briefings.")
@click.option("--category", "categories", multiple=True, metavar="C",
              help="Only this category's figures and briefing page (repeatable).")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path),
              help="Write figures/ and briefing/ under DIR instead of RUN_DIR.")
@click.option("--figures", "figure_set", type=click.Choice(["pages", "all"]), default="pages", show_default=True,
              help="'pages': what the pages show; 'all': also per-group cloud figures (PNG, SVG) and slides.")
@click.option("--palette", "palette_name", type=click.Choice(["safe", "paper"]), default="safe", show_default=True,
              help="'safe': colour-blind-safe blue/vermilion; 'paper': the paper's green/red.")
@click.option("--workers", type=click.IntRange(1, 64), help="Processes drawing groups (default: one per CPU).")
@friendly_errors
def command(run_dir, only, categories, out, figure_set, palette_name, workers):
    """Draw the paper's figures and write policy briefings for a scored run (any study).

    A jobs run (scored with `stereoprobe score`) gets RUN_DIR/report/index.html: the key
    findings, the scatter of P(female) against the labour statistics per prompt, Mattern
    et al.'s Tables 3 and 4, the prefixes' effects, independence, story names. A
    coreference run gets RUN_DIR/report/index.html (key findings, Table 3 and the
    criteria with intervals) and triples.html (every inconsistent triple's prompts and
    answers). An anecdotes, hobbies or stories run gets RUN_DIR/report/index.html: its
    findings, figures and tables, each with its intervals, and the texts behind them.

    A fill-in run needs RUN_DIR/sentiment/ from `stereoprobe sentiment RUN_DIR`. Writes
    RUN_DIR/figures/ (Figure 2, Figure 3 per category, category word clouds) and
    RUN_DIR/briefing/ (index.html and one self-contained HTML page per category, with
    the CSVs behind them in briefing/data/). Open briefing/index.html in a browser; no
    network needed; zip the briefing folder to send it.

    \b
    Examples:
      stereoprobe report runs/chatgpt
      stereoprobe report runs/chatgpt --only briefing --category gender
      stereoprobe report runs/chatgpt --category political --category religion
      stereoprobe report runs/chatgpt --figures all --palette paper
      stereoprobe report runs/chatgpt --out /tmp/report
      stereoprobe report runs/jobs-gemma-3-270m
      stereoprobe report runs/coreference-gemma-3-270m
      stereoprobe report runs/anecdotes-gpt-4o-mini
    """
    from stereoprobe.studies import study_of_run
    from stereoprobe.studies.base import check_flags

    study = study_of_run(run_dir)
    check_flags(study, "report", given_options(click.get_current_context()))
    start = time.perf_counter()
    options = {"out": out, "categories": categories, "only": only, "workers": workers, "figure_set": figure_set,
               "palette_name": palette_name, "progress": progress_callback("group")}
    for line in study.report(run_dir, options):
        click.echo(line)
    if study.name == "fill-in":
        click.echo(f"Done in {time.perf_counter() - start:.1f} s.", err=True)
