"""Docs that cannot drift: the README's commands and every command's help."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from stereoprobe.cli import COMMANDS, cli

ROOT = Path(__file__).resolve().parent.parent


def _readme_command(label: str) -> str:
    text = (ROOT / "README.md").read_text()
    match = re.search(rf"<!-- {label} -->\s*```(?:bash|sh)?\n(.+?)\n```", text, re.S)
    assert match, f"README.md has no block marked <!-- {label} -->"
    return match.group(1).strip()


def test_ci_runs_the_readme_test_command():
    command = _readme_command("test-command")
    ci = (ROOT / ".ci" / "run").read_text()
    assert command in ci.splitlines()


def test_readme_main_command_uses_the_embedded_default():
    command = _readme_command("main-command")
    assert "pip install '.[local]'" in command
    assert "stereoprobe collect" in command and "--model" not in command


@pytest.mark.parametrize("name", COMMANDS)
def test_every_command_has_help_with_examples(name):
    result = CliRunner().invoke(cli, [name, "--help"])
    assert result.exit_code == 0, result.output
    assert "Examples:" in result.output
    assert f"stereoprobe {name}" in result.output


def test_top_level_help_lists_the_pipeline():
    result = CliRunner().invoke(cli, ["--help"])
    assert result.exit_code == 0
    for name in COMMANDS:
        assert name in result.output


@pytest.mark.parametrize("argv", [["--help"], ["collect", "--help"], ["probes", "--help"]])
def test_the_help_names_every_study(argv):
    """The help listed three studies when there were six; it now reads the registry."""
    from stereoprobe.studies import STUDIES

    result = CliRunner().invoke(cli, argv, terminal_width=200)
    assert result.exit_code == 0, result.output
    text = " ".join(result.output.split())
    for name in STUDIES:
        assert f"{name} (" in text, (name, argv)
    assert "fill-in (the default:" in text


@pytest.mark.parametrize("command", ["probes", "score", "report", "compare", "reparse"])
def test_each_step_says_what_it_does_for_every_study(command):
    """score, report and compare described three studies' outputs and left the generation studies out;
    reparse spoke of chat replies only, though it classifies the generation studies' texts again."""
    from stereoprobe.studies import STUDIES

    result = CliRunner().invoke(cli, [command, "--help"], terminal_width=200)
    intro = result.output.split("Examples:")[0].lower()
    assert [name for name in STUDIES if name not in intro] == []


def test_the_catalog_option_says_what_each_study_takes():
    from stereoprobe.studies import STUDIES

    result = CliRunner().invoke(cli, ["collect", "--help"], terminal_width=200)
    text = " ".join(result.output.split())
    catalog = text[text.index("--catalog PATH"):text.index("-c, --category")]
    assert [s for s in STUDIES if s != "coreference" and s not in catalog] == []  # coreference: --pairs-file


def test_collect_help_shows_a_generation_example():
    result = CliRunner().invoke(cli, ["collect", "--help"], terminal_width=200)
    assert "stereoprobe collect --study hobbies --design quick" in result.output
    assert "--study anecdotes, hobbies or stories" in " ".join(result.output.split())


@pytest.mark.parametrize("argv, needle", [
    (["collect", "--temperature", "3"], "Invalid value for '--temperature': 3.0 is not in the range 0<=x<=2."),
    (["probes", "--bogus"], "No such option '--bogus'"),
    (["frobnicate"], "No such command 'frobnicate'"),
    (["collect", "--concurrency", "0"], "Invalid value for '--concurrency'"),
])
def test_bad_flags_are_one_line_with_exit_code_2(argv, needle):
    result = CliRunner().invoke(cli, argv)
    assert result.exit_code == 2
    lines = result.output.strip().splitlines()
    assert len(lines) == 1, result.output
    assert lines[0].startswith("Error: ") and needle in lines[0] and "--help" in lines[0]
