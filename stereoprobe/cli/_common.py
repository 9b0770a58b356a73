"""Shared pieces of the CLI: turning library errors into one line and an exit code."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any, Callable

import click

from stereoprobe.errors import StereoprobeError
from stereoprobe.studies import listing

EXIT_USER_ERROR = 2
#: ``ctx.meta`` key (shared by a command and the commands it invokes): a command run by another
#: one (ingest runs collect) hands its errors up instead of exiting
NESTED = "stereoprobe.nested"
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
            if debug or ctx.meta.get(NESTED):
                raise
            click.echo(f"Error: {exc}", err=True)
            ctx.exit(EXIT_USER_ERROR)
        except KeyboardInterrupt:
            import signal

            signal.signal(signal.SIGINT, signal.SIG_IGN)  # a second Ctrl-C: no traceback
            click.echo(INTERRUPTED, err=True)
            ctx.exit(130)

    return wrapper


class _FiniteFloat(click.FloatRange):
    """``click.FloatRange`` that also refuses ``nan`` and ``inf`` (which pass its comparisons):
    a price of nan printed every cost as nan."""

    def convert(self, value: Any, param: Any, ctx: Any) -> Any:
        import math

        number = super().convert(value, param, ctx)
        if not math.isfinite(number):
            self.fail(f"{value!r} is not a finite number; give a number, 0 or more.", param, ctx)
        return number


#: a price per million tokens, or seconds to wait: a finite number, 0 or more
NON_NEGATIVE = _FiniteFloat(0)


def check_prices(price_in: float | None, price_out: float | None, served: bool, dry_run: bool) -> None:
    """--price-in and --price-out come with --dry-run (a run that asks prices nothing: collect took
    them and said nothing), together (one alone counted the other side as free), and only for a
    served model: the embedded model or a --model-file runs on this machine and is charged by
    nobody (its dry run printed a cost)."""
    from stereoprobe.errors import DataError

    if price_in is None and price_out is None:
        return
    if not dry_run:
        raise DataError("--price-in and --price-out apply with --dry-run; add it, or drop them.")
    if price_in is None or price_out is None:
        given, missing = ("--price-in", "--price-out") if price_out is None else ("--price-out", "--price-in")
        raise DataError(f"{given} without {missing}: give both, per million tokens (0 for a side that is free).")
    if not served:
        raise DataError("--price-in and --price-out price a served model's tokens; the embedded model or a "
                        "--model-file runs on this machine at no charge: drop them, or give --model.")


def in_range(name: str, kind: str = "float") -> click.ParamType:
    """The click type of a numeric flag, with the range stereoprobe.limits defines."""
    from stereoprobe.limits import RANGES

    low, high = RANGES[name]
    return click.IntRange(low, high) if kind == "int" else click.FloatRange(low, high)


def given_options(ctx: click.Context) -> list[str]:
    """The options set on the command line (not defaults): what a study may refuse."""
    from click.core import ParameterSource

    return [p.name for p in ctx.command.params
            if isinstance(p, click.Option) and ctx.get_parameter_source(p.name) == ParameterSource.COMMANDLINE]


def study_option(func: Callable[..., Any]) -> Callable[..., Any]:
    return click.option("--study", default=None, metavar="NAME", help=listing() + ".")(func)


def design_option(func: Callable[..., Any]) -> Callable[..., Any]:
    return click.option("--design", type=click.Choice(["default", "quick", "published"]), default=None,
                        help="A named design (docs/designs.md): default (the study's own settings), quick (a "
                             "documented subset, for a fast first look) or published (the paper's own settings, "
                             "so its figures can stand beside the run's).")(func)


def probe_filters(func: Callable[..., Any]) -> Callable[..., Any]:
    """The catalog and filter options shared by `probes` and `collect` (every study's)."""
    options = [
        click.option("--catalog", type=click.Path(path_type=str), default=None,
                     help="fill-in: a catalog directory (categories.csv, groups.csv, templates.csv); "
                          "jobs, anecdotes, stories: a CSV file of jobs (job or profession, optional female_share); "
                          "hobbies: a CSV of names (name, gender = female or male) or your copy of the SSA's "
                          "names.zip. Default: the paper's."),
        click.option("--category", "-c", multiple=True, help="Only this category (repeatable)."),
        click.option("--group", "-g", multiple=True, help="Only this social group (repeatable)."),
        click.option("--format", "fmt", type=click.Choice(["question", "statement"]), default=None,
                     help="Only questions or only statements."),
        click.option("--templates", default=None, metavar="NAME",
                     help="Template family: paper (default, Busker et al.'s six) or choenni "
                          "(Choenni et al.'s five questions and statement counterparts). coreference: marin-eger "
                          "(default, Marin & Eger's seven scenes) or sterlie (Sterlie et al.'s own prompts)."),
        click.option("--questions", type=click.Path(path_type=str), default=None, metavar="FILE.jsonl",
                     help="coreference --templates sterlie: multiple-choice questions (MedQA-USMLE's format: "
                          "question, options A-D, answer_idx) for Sterlie et al.'s Template Prompt 3.1."),
        click.option("--job", multiple=True, help="jobs study: only this job (repeatable). coreference: only the "
                     "pairs both of whose professions are named."),
        click.option("--prompt", multiple=True, metavar="ID",
                     help="jobs study: only this prompt, 1-4 or a story (once, story, saturday, protagonist, "
                          "cast); coreference: only this template (late, cake, marriage, award, cash, "
                          "'book borrower', 'book owner'; --templates sterlie: 4.3-4.8); repeatable."),
        click.option("--pairs", type=int, default=None, metavar="N",
                     help="coreference: N random pairs of the catalog's professions (as Marin & Eger sample "
                          "theirs) instead of the jobs study's 40 occupations."),
        click.option("--seed", type=int, default=None, metavar="S", help="coreference: the seed of --pairs N (0)."),
        click.option("--pairs-file", type=click.Path(path_type=str), default=None, metavar="CSV",
                     help="coreference: your pairs, a CSV with profession_a, profession_b and optionally "
                          "gender_a, gender_b (women/men)."),
        click.option("--setting", multiple=True, type=click.Choice(["without dialogue", "with dialogue"]),
                     help="jobs study: only this position of the prefix (default both)."),
        click.option("--debias", default=None, metavar="N",
                     help="fill-in (chat): Mattern et al.'s debiasing prompt N (1-6) before the instruction. "
                          "jobs, coreference: all (none and 1-6), none (default), or numbers 0-6 with commas."),
        click.option("--labels", type=click.Path(path_type=str), default=None, metavar="CSV",
                     help="hobbies: your hobby labels (label,kind,item); default Sterlie et al.'s six from Empath."),
    ]
    for option in reversed(options):
        func = option(func)
    return func


def unfinished_line(run_dir: Path, command: str) -> str | None:
    """A line when the run's collect stopped before every prompt was answered (or is still
    running): its numbers are of the prompts answered so far, which need not be a fair part of
    the design; ``command`` is what to run again once collect has finished."""
    from stereoprobe.errors import StereoprobeError
    from stereoprobe.manifest import read_manifest, unfinished

    try:
        manifest = read_manifest(run_dir)
    except StereoprobeError:
        return None
    if manifest is None or not unfinished(manifest.status):
        return None
    held = (manifest.counts or {}).get("records")
    return (f"This run's collect did not finish (status {manifest.status}" + (f", {held:,} answers stored" if held else "")
            + "): these numbers are of the prompts answered so far. The same `stereoprobe collect` command "
              f"with --out {run_dir} continues it; then {command} again.")
