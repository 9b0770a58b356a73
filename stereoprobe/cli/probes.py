"""`stereoprobe probes`: list the expanded probes."""

from __future__ import annotations

from pathlib import Path

import click

from stereoprobe.cli._common import design_option, friendly_errors, given_options, probe_filters, study_option


@click.command("probes")
@study_option
@design_option
@probe_filters
@click.option("--limit", type=click.IntRange(1), default=None, help="Only the first N probes.")
@click.option("--output", "-o", type=click.Path(dir_okay=False, path_type=Path),
              help="Write the probes to FILE.csv or FILE.jsonl instead of a table.")
@friendly_errors
def command(study, design, output, **options):
    """List the probes: fill-in's masked probes, the jobs study's prompts, the coreference scenes, or the
    generation studies' prompts (anecdotes, hobbies, stories).

    \b
    Examples:
      stereoprobe probes                              all 2,292 probes as a table
      stereoprobe probes --category age --format question
      stereoprobe probes --group "old people" --group police
      stereoprobe probes --output probes.csv          (or probes.jsonl)
      stereoprobe probes --catalog my_groups/         your own edited catalog
      stereoprobe probes --templates choenni          Choenni et al.'s template family
      stereoprobe probes --study jobs --job nurse --debias all
      stereoprobe probes --study jobs --catalog my_jobs.csv
      stereoprobe probes --study coreference                      16,800: 7 templates x 800 pairs x 3
      stereoprobe probes --study coreference --pairs 100 --seed 1 --prompt late
    """
    from stereoprobe.designs import apply
    from stereoprobe.page.numbers import counted
    from stereoprobe.studies import get_study
    from stereoprobe.studies.base import check_flags

    chosen = get_study(study)
    given = [n for n in given_options(click.get_current_context()) if n not in ("study", "design")]
    check_flags(chosen, "probes", given)
    probes = chosen.list_probes(apply(chosen, design, dict(options, given=frozenset(given))))
    if study in (None, "fill-in") and options.get("limit"):
        probes = probes[: options["limit"]]
    if output:
        chosen.write_probes(probes, output)
        click.echo(f"Wrote {counted(len(probes), 'probe')} to {output}.", err=True)
    else:
        click.echo(chosen.probes_table(probes))
        click.echo(f"{counted(len(probes), 'probe')}.", err=True)
    click.echo("Next: `stereoprobe collect` with the same options (add --dry-run to count the cost).", err=True)
