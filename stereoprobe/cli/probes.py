"""`stereoprobe probes`: list the expanded probes."""

from __future__ import annotations

from pathlib import Path

import click

from stereoprobe.cli._common import friendly_errors, probe_filters


@click.command("probes")
@probe_filters
@click.option("--output", "-o", type=click.Path(dir_okay=False, path_type=Path),
              help="Write the probes to FILE.csv or FILE.jsonl instead of a table.")
@friendly_errors
def command(catalog, category, group, fmt, templates, output):
    """List the masked probes: every social group in every template of its category.

    \b
    Examples:
      stereoprobe probes                              all 2,292 probes as a table
      stereoprobe probes --category age --format question
      stereoprobe probes --group "old people" --group police
      stereoprobe probes --output probes.csv          (or probes.jsonl)
      stereoprobe probes --catalog my_groups/         your own edited catalog
      stereoprobe probes --templates choenni          Choenni et al.'s template family
    """
    from stereoprobe.catalog import load_catalog
    from stereoprobe.export import probes_table, write_probes

    probes = load_catalog(catalog, templates).select(category, group, fmt)
    if output:
        write_probes(probes, output)
        click.echo(f"Wrote {len(probes)} probes to {output}.", err=True)
    else:
        click.echo(probes_table(probes))
        click.echo(f"{len(probes)} probes.", err=True)
    click.echo("Next: `stereoprobe collect` with the same filters (add --dry-run to count the cost).", err=True)
