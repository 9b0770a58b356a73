"""`stereoprobe sentiment`: NRC sentiment of the collected words, the paper's Table 4."""

from __future__ import annotations

from pathlib import Path

import click

from stereoprobe.cli._common import friendly_errors


@click.command("sentiment")
@click.argument("run_dir", required=False, type=click.Path(path_type=Path))
@click.option("--input", "input_file", type=click.Path(dir_okay=False, path_type=Path),
              help="Completions collected elsewhere: JSON Lines (category, group, format, words) "
                   "or CSV with one word per row (category, group, format, word).")
@click.option("--out", "out_dir", type=click.Path(file_okay=False, path_type=Path),
              help="With --input: the run directory to write sentiment/ into.")
@click.option("--lexicon", type=str, default=None,
              help="nrc (default: the EmoLex subset bundled with nrclex), vader, afinn or textblob "
                   "(see lexicons/README.md), or a path to the official NRC-Emotion-Lexicon-Wordlevel-v0.92.txt.")
@click.option("--overrides", type=click.Path(dir_okay=False, path_type=Path),
              help="A word<TAB>label<TAB>reason file applied on top of the lexicon "
                   "(see lexicons/README.md).")
@click.option("--no-synonyms", is_flag=True,
              help="Do not label missing words by their WordNet synonyms' majority.")
@click.option("--ci", "ci", type=float, default=0.95, show_default=True,
              help="Level of every confidence interval (docs/statistics.md).")
@click.option("--wording", type=click.Choice(["fixed", "random"]), default="fixed", show_default=True,
              help="What the intervals generalise to: fixed = these templates (groups like these asked the same "
                   "way); random = the templates as a sample of wordings too (wider).")
@click.option("--bootstrap", type=int, default=2000, show_default=True,
              help="Bootstrap replicates of the rank-stability interval (at least 100).")
@click.option("--seed", type=int, default=0, show_default=True,
              help="Seed of the bootstrap and permutations: the same run and options give the same numbers.")
@friendly_errors
def command(run_dir, input_file, out_dir, lexicon, overrides, no_synonyms, ci, wording, bootstrap, seed):
    """Map every completion word to NRC sentiment and print Table 4.

    Writes RUN_DIR/sentiment/: table4.csv, table4.md, groups.csv, templates.csv,
    words.csv, occurrences.csv, coverage.json, meta.json, format_test.csv,
    criteria.csv, robustness.csv (see docs/sentiment.md and docs/statistics.md).

    \b
    Examples:
      stereoprobe sentiment runs/gpt-3.5
      stereoprobe sentiment runs/gpt-3.5 --no-synonyms
      stereoprobe sentiment runs/gpt-3.5 --lexicon ~/NRC-Emotion-Lexicon-Wordlevel-v0.92.txt
      stereoprobe sentiment runs/gpt-3.5 --overrides lexicons/overrides.example.tsv
      stereoprobe sentiment --input answers.jsonl --out runs/elsewhere
      stereoprobe sentiment runs/gpt-3.5 --ci 0.9 --bootstrap 5000 --seed 1
      stereoprobe sentiment runs/gpt-3.5 --wording random
    """
    from stereoprobe.studies.fillin.sentiment import analyse, format_summary

    if (run_dir is None) == (input_file is None):
        raise click.UsageError("Give either RUN_DIR or --input FILE --out DIR.")
    if input_file is not None and out_dir is None:
        raise click.UsageError("--input FILE needs --out DIR (the run directory to write sentiment/ into).")
    from stereoprobe.errors import DataError

    if input_file is not None and not input_file.is_file():
        raise DataError(f"--input {input_file}: no such file; give a JSON Lines or CSV file of completions.")
    if run_dir is not None and run_dir.is_dir():
        from stereoprobe.studies import study_of_run

        study = study_of_run(run_dir).name
        if study != "fill-in":
            from stereoprobe.occupations import article_for

            raise DataError(f"{run_dir} is {article_for(study)} {study} run: sentiment scores fill-in runs; use "
                            f"`stereoprobe score {run_dir}`.")
    result, written = analyse(
        input_file or run_dir, out_dir=out_dir, lexicon=lexicon, overrides=overrides, synonyms=not no_synonyms,
        ci=ci, bootstrap=bootstrap, seed=seed, wording=wording,
    )
    click.echo(format_summary(result))
    if run_dir is not None:
        from stereoprobe.cli._common import unfinished_line

        unfinished = unfinished_line(run_dir, "run sentiment")
        if unfinished:
            click.echo(unfinished)
    click.echo(f"Wrote {written}/", err=True)
    click.echo(f"Next: `stereoprobe report {written.parent}` draws the figures and briefings.")
