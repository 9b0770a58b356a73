"""`stereoprobe reparse RUN_DIR`: apply the current reply parser to stored chat replies."""

from __future__ import annotations

from pathlib import Path

import click

from stereoprobe.cli._common import friendly_errors


@click.command("reparse")
@click.argument("run_dir", type=click.Path(file_okay=False, path_type=Path))
@friendly_errors
def command(run_dir):
    """Read the stored answers again with the current rules; asks no model.

    fill-in and coreference: the raw chat replies are parsed again (a next-word or
    scoring run has nothing to parse); anecdotes, hobbies and stories: the stored texts
    are classified again. The jobs study's answers are not parsed store-side.
    Records that come out the same are left as they are; the manifest records the
    parser version. Then score the run again (fill-in: `stereoprobe sentiment`).

    \b
    Examples:
      stereoprobe reparse runs/gpt-4o-mini
      stereoprobe reparse runs/gpt-4o-mini && stereoprobe sentiment runs/gpt-4o-mini
      stereoprobe reparse runs/anecdotes-gpt-4o-mini && stereoprobe score runs/anecdotes-gpt-4o-mini
    """
    from stereoprobe.reparse import reparse

    click.echo(reparse(run_dir).summary())
