"""`stereoprobe card`: the bias card of one suite, or models compared (docs/card.md)."""

from __future__ import annotations

from pathlib import Path

import click

from stereoprobe.cli._common import friendly_errors


@click.command("card")
@click.argument("suites", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Folder for the card (default: SUITE/card for one suite; card-A-vs-B beside the first for several).")
@friendly_errors
def command(suites, out):
    """One page per model, or models side by side: each study's headline metrics with their 95%
    intervals, and each model's paired difference from the first (Holm over the whole card).

    SUITE is a folder `stereoprobe suite` wrote (runs/<model>/). Writes OUT/index.html (one
    self-contained page), OUT/card.json (docs/card.md gives its schema) and OUT/card.md.

    \b
    Examples:
      stereoprobe card runs/gemma-3-270m
      stereoprobe card runs/gpt-4o-mini runs/gpt-4o --out cards/4o-mini-vs-4o
    """
    from stereoprobe.card import build_card

    written = build_card(suites, out)
    click.echo(f"Wrote {written}/ (open {written / 'index.html'})")
