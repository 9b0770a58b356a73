"""`stereoprobe baseline`: Choenni et al.'s search-engine completions as a run directory of people."""

from __future__ import annotations

from pathlib import Path

import click

from stereoprobe.cli._common import friendly_errors


@click.command("baseline")
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--out", "out_dir", required=True, type=click.Path(file_okay=False, path_type=Path),
              help="The new run directory to write (must not hold a run yet).")
@click.option("--catalog", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="A catalog directory to match groups and probes against; default: the paper's.")
@click.option("--mapping", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Group-name mapping (choenni_category,choenni_group,category,group); "
                   "default: groups/choenni_groups.csv.")
@friendly_errors
def command(file, out_dir, catalog, mapping):
    """Turn Choenni et al.'s (2021) search-engine data into a run of human completions.

    FILE is their stereo_dataset.csv or single_word_stereo_dataset.csv (download it from
    github.com/RochelleChoenni/stereotypes_in_lms, data_collection/stereo_dataset/; MIT
    licence). Then `stereoprobe sentiment OUT`, `report OUT` and `compare RUN OUT` work on it.

    \b
    Examples:
      stereoprobe baseline single_word_stereo_dataset.csv --out runs/people
      stereoprobe sentiment runs/people
    """
    from stereoprobe.studies.fillin.baseline import build_baseline

    click.echo(build_baseline(file, out_dir, catalog=catalog, mapping=mapping).summary())
