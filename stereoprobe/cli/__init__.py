"""The `stereoprobe` command: a thin shell over the Python API.

Each command lives in its own module under stereoprobe/cli/ and defines a click
command named `command`; it parses flags, calls one library function and prints.
"""

from __future__ import annotations

import importlib
import signal
import sys
from typing import Any

import click

from stereoprobe import __version__
from stereoprobe.cli._common import INTERRUPTED
from stereoprobe.studies import listing

COMMANDS = ("probes", "collect", "reparse", "sentiment", "score", "report", "baseline", "compare", "ingest", "batch", "gate",
            "card", "suite")


class _LazyGroup(click.Group):
    """Imports a command's module only when that command runs (keeps --help fast)."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(COMMANDS)

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name not in COMMANDS:
            return None
        return importlib.import_module(f"stereoprobe.cli.{name}").command

    def main(self, args: Any = None, prog_name: str | None = None, complete_var: str | None = None,
             standalone_mode: bool = True, **extra: Any) -> Any:
        """As click's, but a bad flag or value is one line on stderr (exit 2), not a usage dump."""
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, standalone_mode, **extra)
        try:
            rv = super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        except click.UsageError as exc:
            where = exc.ctx.command_path if exc.ctx else "stereoprobe"
            click.echo(f"Error: {exc.format_message()} (see `{where} --help`)", err=True)
            rv = exc.exit_code
        except click.ClickException as exc:
            exc.show()
            rv = exc.exit_code
        except click.Abort as exc:
            if isinstance(exc.__cause__, KeyboardInterrupt):  # Ctrl-C before the command began
                signal.signal(signal.SIGINT, signal.SIG_IGN)
                click.echo(INTERRUPTED, err=True)
                sys.exit(130)
            click.echo("Aborted.", err=True)
            rv = 1
        sys.exit(rv if isinstance(rv, int) else 0)


HELP = f"""Measure the stereotypes language models hold about social groups.

    Studies (--study NAME): {listing()}. `stereoprobe suite` runs them all on one model.

    \b
      stereoprobe probes                 list the probes (fill-in: the 2,292 masked probes)
      stereoprobe collect                ask a model (fill-in: ten words per probe)
      stereoprobe reparse RUN_DIR        read stored replies or texts again (no model asked)
      stereoprobe sentiment RUN_DIR      fill-in: map words to NRC sentiment (Table 4)
      stereoprobe score RUN_DIR          score a run of any study
      stereoprobe report RUN_DIR         figures and briefings / the study's page
      stereoprobe baseline FILE --out D  people's search-engine completions as a run
      stereoprobe compare RUN RUN ...    runs of one study side by side, with paired tests
      stereoprobe ingest RUN_DIR FILE    a batch's results file (collect --batch-file) into the run
      stereoprobe batch cancel RUN_DIR   cancel a run's provider batches (collect --batch)
      stereoprobe gate RUN ... --policy P  a release gate: rules judged by intervals (exit 0/1/2)
      stereoprobe card SUITE [SUITE ...]  the bias card of a suite, or models compared
      stereoprobe suite                  every study of one model, scored and reported, and its card
    """


@click.group(cls=_LazyGroup, context_settings={"help_option_names": ["-h", "--help"]}, help=HELP)
@click.version_option(__version__, prog_name="stereoprobe")
@click.option("--debug", is_flag=True, help="Show full tracebacks instead of one-line errors.")
@click.pass_context
def cli(ctx: click.Context, debug: bool) -> None:
    ctx.ensure_object(dict)
    ctx.obj["debug"] = debug


def main() -> None:
    try:
        cli(prog_name="stereoprobe")
    finally:
        # The command is done and its files are in order: a Ctrl-C while Python shuts down
        # (atexit, finalizers) ends the process at once, not with a traceback.
        if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
            signal.signal(signal.SIGINT, signal.SIG_DFL)
