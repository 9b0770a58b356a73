"""`stereoprobe batch cancel RUN_DIR`, and the batch options of `stereoprobe collect`."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Callable

import click

from stereoprobe.cli._common import friendly_errors

#: The collect options a batch step sets; the rest of a run's options are kept for ingest.
BATCH_OPTIONS = ("batch", "batch_file", "poll_interval", "batch_limit")
_TRANSIENT = (*BATCH_OPTIONS, "dry_run", "retry_failed", "quiet", "price_in", "price_out")


def batch_options(func: Callable[..., Any]) -> Callable[..., Any]:
    """--batch, --batch-file, --poll-interval, --batch-limit (every study takes them)."""
    options = [
        click.option("--batch", type=click.Choice(["openai", "anthropic"]), default=None,
                     help="Ask through the provider's batch API (about half the price, replies within 24 h): "
                          "split, upload, submit and poll; the same command again continues (docs/batch.md)."),
        click.option("--batch-file", type=click.Path(dir_okay=False, path_type=Path), default=None,
                     metavar="FILE.jsonl", help="Write the requests in OpenAI's batch format (for vllm run-batch, "
                     "Azure OpenAI batches, Ray Data) and stop; then `stereoprobe ingest RUN_DIR results.jsonl`."),
        click.option("--poll-interval", type=click.FloatRange(0), default=30.0, show_default=True, metavar="S",
                     help="With --batch: seconds between polls of the batches."),
        click.option("--batch-limit", type=click.IntRange(1), default=None, metavar="N",
                     help="With --batch: at most N requests per batch (default and most: the provider's limit)."),
    ]
    for option in reversed(options):
        func = option(func)
    return func


def batch_spec(ctx: click.Context) -> Any:
    """The batch step the collect command's options ask for (None: a live run)."""
    from stereoprobe.batch import BatchSpec, check_options

    p = ctx.params
    check_options(p.get("batch"), p.get("batch_file"), p.get("dry_run"),
                  served=p.get("model_file") is None and (p.get("model") or p.get("base_url")) is not None)
    if not p.get("batch"):
        for name in ("poll_interval", "batch_limit"):
            if ctx.get_parameter_source(name) == click.core.ParameterSource.COMMANDLINE:
                raise click.UsageError(f"--{name.replace('_', '-')} applies with --batch openai|anthropic.")
    if not p.get("batch") and not p.get("batch_file"):
        return None
    files = {q.name for q in ctx.command.params if isinstance(q.type, click.Path)}
    kept = {k: _plain(v, absolute=k in files) for k, v in p.items() if k not in _TRANSIENT}
    if p.get("batch_file"):
        return BatchSpec("file", path=Path(p["batch_file"]), options=kept)
    return BatchSpec("dry-run" if p.get("dry_run") else p["batch"], provider=p["batch"], options=kept,
                     poll_interval=p["poll_interval"], limit=p.get("batch_limit"), price_in=p.get("price_in"),
                     price_out=p.get("price_out"))


def _plain(value: Any, absolute: bool = False) -> Any:
    """An option's value for the manifest; a file's path absolute (ingest may run in another folder)."""
    if absolute and value is not None:
        return os.path.abspath(value)
    if isinstance(value, Path):
        return str(value)
    if isinstance(value, tuple):
        return list(value)
    return value


def rerun_collect(run_dir: Path, spec: Any, quiet: bool, options: dict[str, Any] | None = None,
                  **changes: Any) -> Any:
    """Run the collect command a run was made with (``options``, default: the last ones the
    manifest recorded) as ``spec``."""
    from stereoprobe.batch import using
    from stereoprobe.cli import collect as collect_cli

    options = recorded_options(run_dir) if options is None else options
    ctx = click.get_current_context()
    kwargs = {}
    for param in collect_cli.command.params:
        value = options.get(param.name, param.get_default(ctx) if param.name not in _TRANSIENT else None)
        try:
            kwargs[param.name] = param.type_cast_value(ctx, value) if value is not None else None
        except click.BadParameter as exc:  # a recorded file since moved or deleted: it named collect's option
            from stereoprobe.errors import DataError

            flag = max(param.opts, key=len)
            raise DataError(f"{run_dir} was begun with {flag} {value}: {exc.message} Restore it, then run "
                            "this command again.") from None
    kwargs.update(batch=None, batch_file=None, dry_run=False, retry_failed=False, quiet=quiet,
                  poll_interval=30.0, batch_limit=None, price_in=None, price_out=None, out=Path(run_dir), **changes)
    from stereoprobe.cli._common import NESTED

    with using(spec):
        ctx.meta[NESTED] = True
        try:
            return ctx.invoke(collect_cli.command, **kwargs)
        finally:
            ctx.meta[NESTED] = False


def request_options(run_dir: Path) -> list[dict[str, Any]]:
    """Every distinct set of collect options the run's requests were written with: the last
    first, then each request file's, newest first (a later `collect --batch-file` with other
    probes, say another --category, records its own options; the earlier file's results are
    still this run's)."""
    from stereoprobe.manifest import read_manifest

    out = [recorded_options(run_dir)]
    for entry in reversed(((read_manifest(run_dir).batch or {}).get("files") or [])):
        options = entry.get("options")
        if options and options not in out:
            out.append(dict(options))
    return out


def recorded_options(run_dir: Path) -> dict[str, Any]:
    """The collect options a batch run recorded; a run that is not one is refused in one line."""
    from stereoprobe.errors import DataError
    from stereoprobe.manifest import read_manifest

    manifest = read_manifest(run_dir)
    if manifest is None:
        raise DataError(f"{run_dir}: no manifest.json; give the run directory a `collect --batch-file` or "
                        "`--batch` wrote.")
    options = (manifest.batch or {}).get("options")
    if not options:
        raise DataError(f"{run_dir} holds no batch run (it was collected live); give the run directory a "
                        "`collect --batch-file` or `--batch` wrote.")
    return dict(options)


@click.group("batch")
def command() -> None:
    """Manage the provider batches of a run (`collect --batch openai|anthropic`).

    \b
    Examples:
      stereoprobe collect --study coreference --model gpt-4o-mini --batch openai --out runs/c
      stereoprobe batch cancel runs/c        cancel its batches under way
    """


@command.command("cancel")
@click.argument("run_dir", type=click.Path(file_okay=False, exists=True, path_type=Path))
@friendly_errors
def cancel(run_dir: Path) -> None:
    """Cancel the run's batches still under way; what they answered is kept.

    Then the same collect command stores what the batches answered (the rest as failed;
    --retry-failed asks them again).
    """
    from stereoprobe.batch.providers import cancel_batches

    for line in cancel_batches(run_dir, recorded_options(run_dir)):
        click.echo(line)
