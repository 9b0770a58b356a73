"""Shared pieces of the CLI: turning library errors into one line and an exit code."""

from __future__ import annotations

import functools
from typing import Any, Callable

import click

from stereoprobe.errors import StereoprobeError

EXIT_USER_ERROR = 2
INTERRUPTED = "Interrupted. Run the same command again to continue."  # exit 130, after Ctrl-C


def friendly_errors(func: Callable[..., Any]) -> Callable[..., Any]:
    """Run a command; a StereoprobeError becomes one line on stderr and exit code 2.

    With `stereoprobe --debug ...` the traceback is shown instead.
    """

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        ctx = click.get_current_context()
        debug = bool((ctx.find_root().obj or {}).get("debug"))
        try:
            return func(*args, **kwargs)
        except StereoprobeError as exc:
            if debug:
                raise
            click.echo(f"Error: {exc}", err=True)
            ctx.exit(EXIT_USER_ERROR)
        except KeyboardInterrupt:
            import signal

            signal.signal(signal.SIGINT, signal.SIG_IGN)  # a second Ctrl-C: no traceback
            click.echo(INTERRUPTED, err=True)
            ctx.exit(130)

    return wrapper


def in_range(name: str, kind: str = "float") -> click.ParamType:
    """The click type of a numeric flag, with the range stereoprobe.limits defines."""
    from stereoprobe.limits import RANGES

    low, high = RANGES[name]
    return click.IntRange(low, high) if kind == "int" else click.FloatRange(low, high)


def probe_filters(func: Callable[..., Any]) -> Callable[..., Any]:
    """The catalog and filter options shared by `probes` and `collect`."""
    options = [
        click.option("--catalog", type=click.Path(file_okay=False, path_type=str), default=None,
                     help="A catalog directory (categories.csv, groups.csv, templates.csv); "
                          "default: the paper's."),
        click.option("--category", "-c", multiple=True, help="Only this category (repeatable)."),
        click.option("--group", "-g", multiple=True, help="Only this social group (repeatable)."),
        click.option("--format", "fmt", type=click.Choice(["question", "statement"]), default=None,
                     help="Only questions or only statements."),
        click.option("--templates", default=None, metavar="NAME",
                     help="Template family: paper (default, Busker et al.'s six) or choenni "
                          "(Choenni et al.'s five questions and statement counterparts)."),
    ]
    for option in reversed(options):
        func = option(func)
    return func
