"""`stereoprobe suite`: every study of one model in one folder, scored, reported, and its card."""

from __future__ import annotations

from pathlib import Path

import click

from stereoprobe.cli._common import NON_NEGATIVE, friendly_errors, in_range


@click.command("suite")
@click.option("--model", "-m", default=None, help="Model name at the endpoint, e.g. gpt-4o-mini. Without --model "
              "and --model-file: the embedded Gemma 3 270M, offline.")
@click.option("--base-url", default=None, help="An OpenAI-compatible endpoint (default: OpenAI).")
@click.option("--model-file", type=click.Path(path_type=Path), default=None, metavar="PATH.gguf",
              help="A GGUF model file run in-process, offline (--mode chat: with its own chat template).")
@click.option("--mode", type=click.Choice(["chat"]), default=None, help="With --model-file: ask it in chat.")
@click.option("--api-key-env", default=None, metavar="NAME",
              help="Environment variable holding the API key (default OPENAI_API_KEY).")
@click.option("--studies", default="all", show_default=True, metavar="all|LIST",
              help="all (every study the model can answer) or a comma list of fill-in, jobs, coreference, sterlie, "
                   "anecdotes, stories, hobbies (and multiple-choice, which joins with --questions).")
@click.option("--design", type=click.Choice(["quick", "published", "default"]), default=None,
              help="quick (default on the embedded model and model files: a documented subset of each study), "
                   "published (the papers' own settings) or default (each study's own; default for served models). "
                   "docs/designs.md.")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="The suite's folder (default runs/suite-<model>). Running again continues it.")
@click.option("--questions", type=click.Path(path_type=str), default=None, metavar="FILE.jsonl",
              help="Multiple-choice questions in MedQA-USMLE's format: Sterlie et al.'s multiple-choice study joins.")
@click.option("--concurrency", "-j", type=in_range("concurrency", "int"), default=None,
              help="Parallel requests of each study (default: each study's own).")
@click.option("--limit", type=in_range("limit", "int"), default=None, metavar="N",
              help="Only the first N probes of each study (a first look); the same command without it continues.")
@click.option("--dry-run", is_flag=True, help="Print each study's requests, tokens and cost; ask nothing.")
@click.option("--price-in", type=NON_NEGATIVE, default=None, metavar="PRICE",
              help="With --dry-run: price per million prompt tokens.")
@click.option("--price-out", type=NON_NEGATIVE, default=None, metavar="PRICE",
              help="With --dry-run: price per million completion tokens.")
@click.option("--batch", type=click.Choice(["openai", "anthropic"]), default=None,
              help="Ask every study a provider's batch can carry through its batch API (about half the price); "
                   "the others live.")
@click.option("--poll-interval", type=NON_NEGATIVE, default=None, metavar="S",
              help="With --batch: seconds between polls of the batches (30).")
@click.option("--quiet", "-q", is_flag=True, help="No progress display.")
@friendly_errors
def command(model, base_url, model_file, mode, api_key_env, studies, design, out, questions, concurrency, limit,
            dry_run, price_in, price_out, batch, poll_interval, quiet):
    """Run every study on one model: one folder, one run per study, scored and reported, and the card.

    With no --model it runs the embedded Gemma 3 270M offline, in the quick design (a
    documented subset of each study; docs/designs.md). Each study's run folder inside
    (SUITE/fill-in, SUITE/jobs, ...) is exactly what `stereoprobe collect --study S --out
    SUITE/S` writes, so every command works on it; SUITE/suite.json says which model,
    design and studies, and how far each got. Running the same command again continues
    every study where it stopped and asks nothing twice; Ctrl-C (or kill) stops the whole
    suite at once, every answer kept.

    \b
    Examples:
      stereoprobe suite                                        the embedded model, quick design
      stereoprobe suite --model gpt-4o-mini --dry-run --price-in 0.15 --price-out 0.6
      stereoprobe suite --model gpt-4o-mini -j 16
      stereoprobe suite --model gpt-4o-mini --studies fill-in,coreference,anecdotes
      stereoprobe suite --model gpt-4o-mini --batch openai     at the batch price where a batch can carry it
      stereoprobe suite --model llama3.1 --base-url http://127.0.0.1:11434/v1
      stereoprobe suite --model-file ~/models/instruct.gguf --mode chat
      stereoprobe suite --model gpt-4o --questions medqa_us_test.jsonl
    """
    from stereoprobe.cli._common import check_prices
    from stereoprobe.errors import DataError, StereoprobeError
    from stereoprobe.suite.plan import ModelSpec, describe_plan, plan_suite

    if poll_interval is not None and batch is None:
        raise DataError("--poll-interval applies with --batch openai|anthropic.")
    spec = ModelSpec(model, base_url, None if model_file is None else str(model_file), mode, api_key_env)
    plan = plan_suite(spec, studies, design, out, questions, concurrency, batch, limit)
    check_prices(price_in, price_out, plan.model.served, dry_run)
    for line in describe_plan(plan):
        click.echo(line)
    if dry_run:
        from stereoprobe.suite.cost import batch_total_note, cost_table, suite_costs

        rows = suite_costs(plan, price_in, price_out, batch or "openai")
        priced = price_in is not None or price_out is not None
        click.echo(cost_table(rows, priced=priced))
        for row in rows:
            if row.unbatched is not None and plan.model.served:
                click.echo(f"{row.key}: no batch ({row.unbatched})")
        note = batch_total_note(rows) if priced and plan.model.served else None
        if note:
            click.echo(note)
        click.echo("Nothing was asked (--dry-run).")
        return
    from stereoprobe.suite.run import run_suite, summary

    result = run_suite(plan, progress=not quiet, batch=batch, poll_interval=poll_interval, say=click.echo)
    for line in summary(result):
        click.echo(line)
    if result.failed:
        raise StereoprobeError("Not done: " + "; ".join(result.failed) + ". Fix it and run the same command again "
                               "(every answer is kept).")
