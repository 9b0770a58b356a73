"""`stereoprobe compare`: runs side by side, with paired intervals, tests and verdicts."""

from __future__ import annotations

from pathlib import Path

import click

from stereoprobe.cli._common import friendly_errors, given_options


@click.command("compare")
@click.argument("runs", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--out", "out_dir", required=True, type=click.Path(file_okay=False, path_type=Path),
              help="Folder for index.html, the CSV tables and figures.")
@click.option("--lexicon", type=str, default=None,
              help="The one labeller for every run: nrc (default), vader, afinn, textblob, or the NRC file's path.")
@click.option("--overrides", type=click.Path(dir_okay=False, path_type=Path),
              help="A word<TAB>label<TAB>reason file applied on top of the lexicon.")
@click.option("--no-synonyms", is_flag=True, help="Do not label missing words by their WordNet synonyms.")
@click.option("--lexicons", default=None,
              help="Also show each category's range of shares across these lexicons, e.g. nrc,vader,afinn.")
@click.option("--bootstrap", "n_boot", type=click.IntRange(min=100), default=2000, show_default=True,
              help="Bootstrap replicates over jobs (jobs study; fill-in comparisons need none).")
@click.option("--seed", type=int, default=2023, show_default=True,
              help="Seed of the bootstrap (jobs study).")
@friendly_errors
def command(runs, out_dir, lexicon, overrides, no_synonyms, lexicons, n_boot, seed):
    """Compare two or more runs of one study: models, prompts, samples, or a model against people.

    Jobs runs are compared per job: paired differences of P(female), P(male), P(diverse)
    per prompt, prefix and setting, with intervals over jobs and BH q-values.
    Coreference runs (two models, or with and without a prefix) are compared by prompt:
    every measure of the run's scores, B minus A, with intervals over the pairs of
    professions and BH q-values, and the share of prompts answered differently.
    Anecdotes and stories runs are compared by their summary rows (shares, NMI) and per
    profession; hobbies runs by Sterlie et al.'s Word2Vec comparison, the corrected
    measure beside 001's own way, each labelled (docs/hobbies.md).

    Fill-in runs: every run is scored with one labeller and aligned on probe ids; each pair gets paired
    differences of negative shares (overall, per category, per group) with intervals,
    Benjamini-Hochberg q-values and verdicts. Writes OUT/index.html, differences.csv
    and more (see docs/compare.md).

    \b
    Examples:
      stereoprobe compare runs/gpt-4o-mini runs/gemma-3-270m --out comparisons/two-models
      stereoprobe compare runs/gpt-4o-mini runs/people --out comparisons/vs-people
      stereoprobe compare runs/a runs/b --lexicons nrc,vader,afinn --out comparisons/lexicons
      stereoprobe compare runs/jobs-gemma-3-270m runs/jobs-gpt-4o-mini --out comparisons/jobs
      stereoprobe compare runs/coreference-gpt-4o-mini runs/coreference-gpt-4o-mini-prefix5 --out comparisons/c
      stereoprobe compare runs/hobbies-gpt-4o-mini runs/hobbies-llama3 --out comparisons/hobbies
    """
    from stereoprobe.studies import study_of_runs
    from stereoprobe.studies.base import check_flags
    from stereoprobe.studies.fillin.compare.runs import check_paths

    check_paths(runs)  # every study's: a path that is no run read as a fill-in run of 'different studies'
    study = study_of_runs(runs)
    check_flags(study, "compare", given_options(click.get_current_context()))
    _check_out(out_dir, None if study.name == "fill-in" else study.name)
    if study.name != "fill-in":
        for line in study.compare(runs, out_dir, {"n_boot": n_boot, "seed": seed}):
            click.echo(line)
        return
    from stereoprobe.studies.fillin.compare import compare, write_comparison

    result = compare(runs, lexicon=lexicon, overrides=overrides, synonyms=not no_synonyms, lexicons=lexicons)
    written = write_comparison(result, out_dir)
    click.echo(result.summary())
    click.echo(f"Wrote {written}/ (open {written / 'index.html'})", err=True)


def _check_out(out: Path, of: str | None) -> None:
    """An --out that no `stereoprobe compare` wrote (a run, notes) is refused before the runs are
    read: it was refused only once every run was scored, after missing sentiment/ folders had
    been written into them. Which study's comparison a folder is, the study's writer checks."""
    import json

    from stereoprobe.errors import DataError

    if not out.exists() or out.is_dir() and not any(out.iterdir()):
        return
    try:
        meta = json.loads((out / "meta.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        meta = None
    if not (isinstance(meta, dict) and any(k.startswith("stereoprobe_") and k.endswith("comparison") for k in meta)):
        whose = f" of {of} runs" if of else ""  # as store.replace_folder says it, after the work
        raise DataError(f"{out} exists and was not written by `stereoprobe compare`{whose}; move it away or pick "
                        "another --out.")
