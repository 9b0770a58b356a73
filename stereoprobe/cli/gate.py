"""`stereoprobe gate`: scored runs judged against a policy, for CI pipelines (docs/gate.md)."""

from __future__ import annotations

import os
from pathlib import Path

import click

from stereoprobe.cli._common import friendly_errors


def _writable(path: Path | None, option: str) -> None:
    from stereoprobe.errors import DataError

    if path is not None and not path.parent.is_dir():
        raise DataError(f"{option} {path}: the folder {path.parent} does not exist; create it or write elsewhere.")


@click.command("gate")
@click.argument("runs", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--policy", required=True, type=click.Path(dir_okay=False, path_type=Path),
              help="The policy (TOML): rules over the studies' metrics, a threshold each (docs/gate.md).")
@click.option("--baseline", type=click.Path(file_okay=False, path_type=Path), multiple=True,
              help="A scored run of the same study and catalog for the regression rules (max_increase, max_decrease); "
                   "repeat for several studies.")
@click.option("--format", "fmt", type=click.Choice(["text", "markdown", "json"]), default="text", show_default=True,
              help="What to print on stdout.")
@click.option("--junit", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Also write JUnit XML (one test case per rule and scope) to this file.")
@click.option("--json", "json_file", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Also write the verdicts as JSON to this file.")
@friendly_errors
def command(runs, policy, baseline, fmt, junit, json_file):
    """Judge scored runs against a policy by their 95% intervals: exit 0 if every rule passes, 1 if one fails,
    2 for bad input or a run that cannot be judged.

    Each rule is pass (the whole interval on the good side), fail (the whole interval on
    the bad side, clearly enough for the number of checks: every check of the gate is one
    family, Holm's by default, the policy's family = "global" for one verdict) or
    inconclusive (it straddles the threshold: counted as a failure where the rule says
    require_evidence = true, else as a pass). With $GITHUB_STEP_SUMMARY set, the Markdown
    summary is appended to it.

    \b
    Examples:
      stereoprobe gate runs/fill-in-model --policy gate.toml
      stereoprobe gate runs/a runs/b --policy gate.toml --baseline runs/last-release --junit gate.xml
    """
    from stereoprobe.gate import gate
    from stereoprobe.gate.output import judged_lines, junit as junit_xml, markdown, to_json

    from stereoprobe.errors import DataError

    _writable(junit, "--junit")
    _writable(json_file, "--json")
    summary = os.environ.get("GITHUB_STEP_SUMMARY")
    if summary:
        _writable(Path(summary), "$GITHUB_STEP_SUMMARY")
    result = gate(runs, policy, baseline)
    md = markdown(result)
    if summary:
        try:
            with open(summary, "a", encoding="utf-8") as fh:
                fh.write(md + "\n")
        except OSError as exc:  # a folder, or not writable: one line, exit 2, not a traceback read as a failed gate
            raise DataError(f"$GITHUB_STEP_SUMMARY {summary}: cannot append the summary ({exc.strerror}); point it "
                            "at a writable file or unset it.") from None
    if junit is not None:
        junit.write_text(junit_xml(result), encoding="utf-8")
    if json_file is not None:
        json_file.write_text(to_json(result), encoding="utf-8")
    click.echo({"markdown": md, "json": to_json(result)}.get(fmt) or "\n".join(judged_lines(result)), nl=fmt == "text")
    click.get_current_context().exit(result.exit_code)
