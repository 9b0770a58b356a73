"""`stereoprobe ingest RUN_DIR results.jsonl`: a batch's results stored as the run's records."""

from __future__ import annotations

from pathlib import Path

import click

from stereoprobe.cli._common import friendly_errors


@click.command("ingest")
@click.argument("run_dir", type=click.Path(file_okay=False, exists=True, path_type=Path))
@click.argument("results", type=click.Path(dir_okay=False, exists=True, path_type=Path))
@click.option("--quiet", "-q", is_flag=True, help="No progress bar.")
@click.option("--reply-model", metavar="NAME", default=None,
              help="The model name the replies carry, when it is not the run's --model: an Azure OpenAI deployment "
                   "replies with the model's own name (e.g. gpt-4o-2024-08-06), not the deployment's. Recorded in "
                   "the manifest.")
@friendly_errors
def command(run_dir: Path, results: Path, quiet: bool, reply_model: str | None) -> None:
    """Store RESULTS, a batch output file in OpenAI's format (OpenAI's Batch API, vllm
    run-batch, Azure OpenAI), as the records of the run in RUN_DIR that `collect
    --batch-file` began: each reply parsed as a live reply is.

    The whole file is checked first: a custom_id the run never asked, one given twice, or
    a reply of another model is one error naming the line, and nothing is stored. Lines
    that errored or expired are stored as failures: `collect ... --retry-failed
    --batch-file NEW.jsonl` writes them again. Answers already stored are kept.

    \b
    Examples:
      stereoprobe collect --study coreference --model M --batch-file requests.jsonl --out runs/c
      vllm run-batch -i requests.jsonl -o results.jsonl --model M
      stereoprobe ingest runs/c results.jsonl
    """
    from stereoprobe.batch import BatchSpec
    from stereoprobe.batch.files import NotARequest
    from stereoprobe.cli.batch import request_options, rerun_collect

    first = None
    last, *earlier = request_options(run_dir)  # a run that is not a batch run is refused here
    for options in (last, *earlier):
        try:  # the file is checked whole before anything is stored: a refused try changes nothing
            rerun_collect(run_dir, BatchSpec("ingest", path=results, show_next=options is last,
                                             reply_model=reply_model), quiet, options=options)
        except NotARequest as exc:
            first = first or exc
            continue
        if options is not last:  # results of an earlier request file: the run's state by its last options
            rerun_collect(run_dir, BatchSpec("refresh"), quiet, options=last)
        return
    raise first
