"""`stereoprobe score RUN_DIR`: score a run of any study (fill-in: what `sentiment` does)."""

from __future__ import annotations

from pathlib import Path

import click

from stereoprobe.cli._common import friendly_errors, given_options


@click.command("score")
@click.argument("run_dir", type=click.Path(file_okay=False, path_type=Path))
@click.option("--ci", "ci", type=float, default=0.95, show_default=True, help="Level of every confidence interval.")
@click.option("--bootstrap", "n_boot", type=int, default=2000, show_default=True,
              help="Bootstrap replicates (at least 100).")
@click.option("--seed", type=int, default=0, show_default=True,
              help="Seed of the bootstrap and permutations: the same run and options give the same numbers.")
@click.option("--lexicon", type=str, default=None, help="fill-in only: as `stereoprobe sentiment --lexicon`.")
@click.option("--overrides", type=click.Path(dir_okay=False, path_type=Path), help="fill-in only: as `sentiment`.")
@click.option("--no-synonyms", is_flag=True, help="fill-in only: as `sentiment`.")
@click.option("--labels-from", type=click.Path(dir_okay=False, path_type=Path), default=None, metavar="FILE.csv",
              help="hobbies only: label scores made elsewhere (text_id,label,score[,labeller], e.g. by Sterlie et "
                   "al.'s DeBERTa zero-shot classifier), checked whole against the run (docs/hobbies.md).")

@click.option("--reading", type=click.Choice(["stereoprobe", "marin-eger"]), default=None,
              help="stories only: read the protagonist's name by stereoprobe's rule (default: the first 30 words) or "
                   "by Marin & Eger's (the first two words, in the UCI table given with --names-file).")
@click.option("--names-file", type=click.Path(path_type=Path), default=None, metavar="FILE.csv",
              help="stories only: your copy of the UCI Gender by Name table (name_gender_dataset.csv); the page "
                   "then counts the stories the two rules read differently (docs/stories.md).")
@friendly_errors
def command(run_dir, **options):
    """Score a run, whatever its study (read from RUN_DIR/manifest.json).

    A fill-in run gets RUN_DIR/sentiment/, exactly as `stereoprobe sentiment RUN_DIR`
    writes it. A jobs run gets RUN_DIR/jobs/: P(male), P(female), P(diverse) per job,
    prompt, prefix and setting (eq. 1-2 of Mattern et al.), the means of women- and
    men-dominated jobs with bootstrap intervals over jobs (their Tables 3 and 4),
    Spearman and Pearson correlations with the labour statistics per prompt, the
    prefixes' effects as paired differences with BH q-values, the independence criterion
    (NMI with a permutation null), and the story names' genders (docs/jobs.md). A
    coreference run gets RUN_DIR/coreference/: Marin & Eger's Table 3 (incorrect,
    inconsistent, binary inconsistent per scene) with intervals over the pairs of
    professions, the professions in inconsistent triples, accuracy on pro- and
    anti-stereotypical prompts, Sterlie et al.'s FNR, FPR, PPV, NPV per pronoun with the
    four-fifths rule against its permutation null, paired pronoun and prefix differences
    with BH q-values (docs/coreference.md). An anecdotes, hobbies or stories run gets
    RUN_DIR/anecdotes/, hobbies/ or stories/: every text with what was read from it
    (texts.csv) and the study's tables: per profession the shares of texts about a woman,
    a man or neither, NMI and Spearman against the labour statistics (docs/anecdotes.md);
    per name the six hobby labels, and the two genders' label means with their difference
    (docs/hobbies.md); the protagonists' names, their genders and Marin & Eger's Table 4
    (docs/stories.md).

    \b
    Examples:
      stereoprobe score runs/jobs-gemma-3-270m
      stereoprobe score runs/gemma-3-270m                 (fill-in: = stereoprobe sentiment)
      stereoprobe score runs/jobs-gpt-4o-mini --bootstrap 5000 --seed 1
      stereoprobe score runs/coreference-gemma-3-270m
      stereoprobe score runs/hobbies-gpt-4o-mini
    """
    from stereoprobe.cli._common import unfinished_line
    from stereoprobe.studies import study_of_run
    from stereoprobe.studies.base import check_flags

    study = study_of_run(run_dir)
    check_flags(study, "score", given_options(click.get_current_context()))
    result, written = study.score(run_dir, options)
    click.echo(study.summary(result))
    unfinished = unfinished_line(run_dir, "score")
    if unfinished:
        click.echo(unfinished)
    click.echo(f"Wrote {written}/", err=True)
    click.echo(f"Next: `stereoprobe report {run_dir}`.")
