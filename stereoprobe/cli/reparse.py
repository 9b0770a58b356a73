"""`stereoprobe reparse RUN_DIR`: apply the current reply parser to stored chat replies."""

from __future__ import annotations

from pathlib import Path

import click

from stereoprobe.cli._common import friendly_errors


@click.command("reparse")
@click.argument("run_dir", type=click.Path(file_okay=False, path_type=Path))
@friendly_errors
def command(run_dir):
    """Parse the stored raw chat replies again with the current parser; asks no model.

    Records whose words come out the same are left as they are; the manifest records
    the parser version.

    \b
    Examples:
      stereoprobe reparse runs/gpt-4o-mini
      stereoprobe reparse runs/gpt-4o-mini && stereoprobe sentiment runs/gpt-4o-mini
    """
    from stereoprobe.reparse import reparse

    click.echo(reparse(run_dir).summary())
