"""`stereoprobe collect`: pose the probes to a model and store its answers."""

from __future__ import annotations

from pathlib import Path

import click

from stereoprobe.cli._common import (NON_NEGATIVE, design_option, friendly_errors, given_options, in_range,
                                     probe_filters, study_option)
from stereoprobe.cli.batch import batch_options


@click.command("collect")
@study_option
@design_option
@probe_filters
@click.option("--model", "-m", default=None, help="Model name at the endpoint, e.g. gpt-4o-mini. "
              "Without --model and --base-url: the embedded Gemma 3 270M, offline.")
@click.option("--base-url", default=None, help="An OpenAI-compatible endpoint, e.g. http://127.0.0.1:8000/v1 "
              "(vLLM, Ollama, llama.cpp server, Azure). Default: OpenAI.")
@click.option("--model-file", type=click.Path(path_type=Path), default=None, metavar="PATH.gguf",
              help="Run this GGUF model file in-process, offline, instead of the embedded Gemma 3 270M "
                   "(next-word mode; --mode chat uses the file's own chat template).")
@click.option("--api-key-env", default=None, metavar="NAME",
              help="Environment variable holding the API key (default OPENAI_API_KEY).")
@click.option("--mode", type=click.Choice(["chat", "next-word"]), default=None,
              help="chat: ask for ten words (the paper's method, default for remote models); "
                   "next-word: the model's own most probable next words (/v1/completions with logprobs).")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Run directory (default runs/<model>). Running again continues it.")
@click.option("--temperature", type=in_range("temperature"), default=0.0,
              help="Sampling temperature. Not given: the study decides (0; anecdotes 0.5, hobbies 0.5, "
                   "stories 0.6: the papers').")
@click.option("--max-tokens", type=in_range("max_tokens", "int"), default=300,
              help="Longest answer in tokens. Not given: the study decides (300; anecdotes 200, hobbies "
                   "80, stories 300).")
@click.option("--top-p", type=in_range("top_p"), default=1.0, show_default=True)
@click.option("--instruction", default=None, help="Instruction text for chat mode; {probe} marks where the "
              "probe goes (else it is appended). Stored in the run's manifest.")
@click.option("--instruction-file", type=click.Path(dir_okay=False, exists=True, path_type=Path), default=None,
              help="Read the instruction from a file.")
@click.option("--concurrency", "-j", type=in_range("concurrency", "int"), default=8, show_default=True,
              help="Parallel requests (the embedded model: at most --workers).")
@click.option("--workers", type=in_range("workers", "int"), default=None,
              help="Embedded model: probes asked at once, one llama.cpp thread each (default: cores).")
@click.option("--no-phrase-filter", "phrase_filter", flag_value=False, default=True,
              help="Next-word mode: keep words after which the model expects the phrase to go on "
                   "(\"so hard [to]\"); stereoprobe 0.1.0's words.")
@click.option("--timeout", type=in_range("timeout"), default=60.0, show_default=True,
              help="Seconds before a request times out (then it is retried).")
@click.option("--max-retries", type=in_range("max_retries", "int"), default=4, show_default=True,
              help="Retries of 429, 5xx, timeouts and dropped connections before a probe is stored as failed.")
@click.option("--samples", type=in_range("samples", "int"), default=1,
              help="Ask every probe K times, to see drift even at temperature 0. Not given: the study "
                   "decides (1; anecdotes 30, hobbies 10, stories 20: the papers').")
@click.option("--baseline-samples", type=in_range("samples", "int"), default=None, metavar="K",
              help="coreference --templates sterlie: ask the baseline questions K times (Sterlie et al.: 30). "
                   "Not given: as often as the prompts (--samples).")
@click.option("--reading", type=click.Choice(["sterlie", "marin-eger"]), default=None,
              help="coreference --templates sterlie, chat: how a reply is read. sterlie (default): the job the "
                   "reply gives as its answer, as Sterlie et al. read it; marin-eger: Marin & Eger's rule, a "
                   "reply naming both jobs is unclear.")
@click.option("--limit", type=in_range("limit", "int"), default=None, help="Only the first N selected probes.")
@click.option("--retry-failed", is_flag=True, help="Ask again the probes whose request failed.")
@click.option("--dry-run", is_flag=True, help="Print the probe count and estimated tokens and cost; ask nothing.")
@click.option("--price-in", type=NON_NEGATIVE, default=None, metavar="PRICE",
              help="With --dry-run: price per million prompt tokens.")
@click.option("--price-out", type=NON_NEGATIVE, default=None, metavar="PRICE",
              help="With --dry-run: price per million completion tokens.")
@click.option("--quiet", "-q", is_flag=True, help="No progress bar.")
@batch_options
@friendly_errors
def command(study, design, catalog, category, group, fmt, templates, questions, job, prompt, pairs, seed, pairs_file, setting, debias, labels,
            model,
            base_url, model_file, api_key_env, mode, out, temperature, max_tokens, top_p, instruction, instruction_file,
            concurrency, workers,
            phrase_filter, timeout, max_retries, samples, baseline_samples, reading, limit, retry_failed, dry_run, price_in, price_out, quiet,
            batch, batch_file, poll_interval, batch_limit):
    """Ask a model: the ten words that fill each probe (fill-in), P(gender | job) (jobs), who did it
    (coreference), or texts to read (anecdotes, hobbies, stories).

    With no --model and no --base-url it runs offline on the embedded Gemma 3 270M
    (fill-in: next-word mode; jobs: exact probabilities). Answers go to
    RUN_DIR/completions.jsonl as they arrive; running the same command again continues
    where it stopped and asks nothing twice.

    The jobs study (--study jobs) asks every job of Mattern et al.'s Table 6 (or
    --catalog FILE.csv) with their four prompts and Marin & Eger's five story prompts;
    --debias all adds their six prefixes, inside the prompt and before a conversation.
    Against a chat model it reads the first token's logprobs, or with --samples K
    --temperature T the shares of K sampled answers.

    The coreference study (--study coreference) asks Marin & Eger's seven scenes with he,
    she and they for every pair of a women- and a men-dominated job (or --pairs N, or
    --pairs-file CSV). The embedded model and --mode next-word score the two replies
    ("The nurse" vs "The pilot"); a chat model answers in 000's format, parsed with
    000's rule (--samples K: the majority of K replies).

    The generation studies (--study anecdotes, hobbies or stories) ask a model to write,
    30, 10 and 20 texts a prompt at the papers' temperatures, and read what it wrote: the
    gender of the person an anecdote is about, the hobbies it gives a student with a female
    or male name, the name it gives a story's protagonist. The embedded model is a base
    model that only continues a completion form of each prompt (a demonstration); a chat
    model, or an instruction-tuned GGUF with --mode chat, gives the study's real numbers.

    \b
    Examples:
      stereoprobe collect                                 embedded model, all probes
      stereoprobe collect --category religion --limit 12
      OPENAI_API_KEY=... stereoprobe collect --model gpt-4o-mini -j 16
      stereoprobe collect --model llama3 --base-url http://127.0.0.1:11434/v1
      stereoprobe collect --model gpt-4o-mini --dry-run --price-in 0.15 --price-out 0.6
      stereoprobe collect --model gpt-4o-mini --retry-failed
      stereoprobe collect --model gpt-4o-mini --samples 3 --out runs/drift
      stereoprobe collect --study jobs --debias all       the whole jobs study, embedded model
      stereoprobe collect --study jobs --model gpt-4o-mini --samples 20 --temperature 1
      stereoprobe collect --study coreference             16,800 scenes, embedded model
      stereoprobe collect --study coreference --model gpt-4o-mini --pairs 1000 --seed 1
      stereoprobe collect --study coreference --templates sterlie --model gpt-4o --design published
      stereoprobe collect --study anecdotes --model gpt-4o-mini --dry-run   requests and tokens first
      stereoprobe collect --study hobbies --design quick --model gpt-4o-mini   40 names x 2 texts
      stereoprobe collect --model-file ~/models/my-model.Q4_K_M.gguf      a GGUF of your own
      stereoprobe collect --model-file ~/models/instruct.gguf --mode chat  with its chat template
      stereoprobe collect --study coreference --model gpt-4o-mini --batch openai     at the batch price
      stereoprobe collect --model M --batch-file requests.jsonl --out runs/m   for vllm run-batch; then ingest
    """
    from stereoprobe.batch import using
    from stereoprobe.cli._common import check_prices
    from stereoprobe.cli.batch import BATCH_OPTIONS, batch_spec

    check_prices(price_in, price_out, served=model is not None, dry_run=dry_run)
    spec = batch_spec(click.get_current_context())
    with using(spec):
        _collect(study, dry_run and spec is None, quiet,
                 exempt=(*BATCH_OPTIONS, "price_in", "price_out") if spec else BATCH_OPTIONS)


def _collect(study, dry_run, quiet, exempt):
    from stereoprobe.designs import apply
    from stereoprobe.studies import get_study
    from stereoprobe.studies.base import check_flags

    chosen = get_study(study)
    ctx = click.get_current_context()
    given = [n for n in given_options(ctx) if n not in ("study", "design") and n not in exempt]
    check_flags(chosen, "collect", given)
    params = {k: v for k, v in ctx.params.items() if k != "design"}
    options = apply(chosen, ctx.params.get("design"), dict(params, given=frozenset(given)))
    if dry_run:
        click.echo(chosen.estimate(options).summary())
        stored = _stored(chosen.run_dir(options))
        if stored:
            click.echo(stored)
        return
    result = chosen.collect(options, progress=not quiet)
    for line in (result.summary(), result.next_step()):
        if line:
            click.echo(line)


def _stored(run_dir):
    """A line when --dry-run's folder already holds answers: the estimate is of the whole design,
    and the same command without --dry-run asks only the prompts not yet answered."""
    from stereoprobe.errors import StereoprobeError
    from stereoprobe.manifest import read_manifest

    try:
        manifest = read_manifest(run_dir)
    except StereoprobeError:
        return None
    held = (manifest.counts or {}).get("records") if manifest else None
    if not held:
        return None
    if manifest.status == "complete":
        failed = (manifest.counts or {}).get("failed") or 0
        return (f"{run_dir} already holds a complete collect ({held:,} answers): these figures are of the whole "
                "design; the same command without --dry-run asks nothing"
                + (f", and with --retry-failed only the {failed:,} failed." if failed else "."))
    return (f"{run_dir} already holds {held:,} answers of a collect that did not finish: these figures are of the "
            "whole design; the same command without --dry-run asks only the prompts not yet answered.")
