"""`stereoprobe collect` refusing bad input in one line, asking nothing more and keeping
what is stored: missing or wrong keys, unknown models, unreachable endpoints, bad flags
and API parameters, unwritable or foreign run directories, empty selections (against
FakeOpenAI on 127.0.0.1; tests/test_collect.py has the runs that succeed)."""

from __future__ import annotations


import pytest
from test_collect import MODEL, api, assert_no_key, cli_args, one_error_line


def test_no_key_for_a_remote_endpoint_sends_nothing(tmp_path, run_cli, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    out = tmp_path / "run"
    res = run_cli("collect", "--model", "gpt-4o-mini", "--base-url", "https://api.example.invalid/v1",
                  "--out", out, "--limit", "2")
    # the conftest guard fails any connection or DNS lookup beyond 127.0.0.1
    assert one_error_line(res) == (
        "Error: No API key: set OPENAI_API_KEY in the environment, or pass --api-key-env NAME.")
    assert not out.exists()


def test_named_key_variable_unset_is_an_error_even_for_loopback(fake_openai, tmp_path, run_cli):
    res = run_cli(*cli_args(fake_openai, tmp_path / "run", "--api-key-env", "MY_UNSET_KEY"),
                  env={"MY_UNSET_KEY": None})
    assert "set MY_UNSET_KEY in the environment" in one_error_line(res)
    assert fake_openai.seen == []


def test_wrong_key_stops_at_the_first_request_and_keeps_stored_answers(fake_openai, api_key, tmp_path, run_cli):
    out = tmp_path / "run"
    assert run_cli(*cli_args(fake_openai, out, "--group", "Sikhs", "--limit", "3")).exit_code == 0
    before = (out / "completions.jsonl").read_bytes()
    fake_openai.clear()
    res = run_cli(*cli_args(fake_openai, out, "--group", "Sikhs"), env={"OPENAI_API_KEY": "sk-wrong-key-987"})
    line = one_error_line(res)
    assert "rejected the API key (401)" in line and "sk-wrong-key-987" not in res.stdout + res.stderr
    assert [s.outcome for s in fake_openai.seen] == ["401"]  # the preflight alone
    assert (out / "completions.jsonl").read_bytes() == before
    assert_no_key(out)


def test_unknown_model_is_one_line(fake_openai, api_key, tmp_path, run_cli):
    res = run_cli("collect", "--model", "no-such-model", "--base-url", fake_openai.base_url,
                  "--out", tmp_path / "run", "--limit", "3", "-q")
    assert "Model 'no-such-model' was not found" in one_error_line(res)
    assert len(fake_openai.seen) == 1


def test_unreachable_base_url_says_to_check_it(tmp_path, run_cli, api_key, refused_port):
    port = refused_port
    res = run_cli("collect", "--model", MODEL, "--base-url", f"http://127.0.0.1:{port}/v1",
                  "--out", tmp_path / "run", "--limit", "3", "--max-retries", "0", "-q")
    line = one_error_line(res)
    assert line.startswith(f"Error: Cannot reach http://127.0.0.1:{port}/v1/")
    assert line.endswith("check --base-url and that the server is running.")


@pytest.mark.parametrize(
    "args, message",
    [
        (["--category", "martians"], "Unknown category 'martians' in --category"),
        (["--group", "martians"], "Unknown group 'martians' in --group"),
        (["--temperature", "3"], "Invalid value for '--temperature'"),
        (["--top-p", "1.5"], "Invalid value for '--top-p'"),
        (["--max-tokens", "0"], "Invalid value for '--max-tokens'"),
        (["--concurrency", "0"], "Invalid value for '--concurrency'"),
        (["--samples", "0"], "Invalid value for '--samples'"),
        (["--base-url", "ftp://127.0.0.1/v1"], "is not an http(s) URL"),
    ],
)
def test_bad_flags_are_one_line_and_ask_nothing(fake_openai, api_key, tmp_path, run_cli, args, message):
    res = run_cli("collect", "--model", MODEL, "--base-url", fake_openai.base_url, "--out", tmp_path / "run", *args)
    assert message in one_error_line(res)
    assert fake_openai.seen == [] and not (tmp_path / "run").exists()


def test_unwritable_out_directory(fake_openai, api_key, tmp_path, run_cli):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory\n")
    res = run_cli(*cli_args(fake_openai, blocker / "run", "--limit", "2"))
    assert one_error_line(res).startswith(f"Error: Cannot write to {blocker / 'run'}")
    assert "choose a writable --out directory" in res.stderr
    assert fake_openai.seen == [] and blocker.read_text() == "not a directory\n"

    res = run_cli(*cli_args(fake_openai, blocker, "--limit", "2"))  # --out names a file
    assert "is a file" in one_error_line(res) and blocker.read_text() == "not a directory\n"


def test_a_run_dir_with_other_settings_is_left_alone(fake_openai, api_key, tmp_path, run_cli):
    out = tmp_path / "run"
    assert run_cli(*cli_args(fake_openai, out, "--group", "Sikhs")).exit_code == 0
    before = {f: (out / f).read_bytes() for f in ("completions.jsonl", "manifest.json")}
    fake_openai.clear()
    res = run_cli(*cli_args(fake_openai, out, "--group", "Sikhs", "--temperature", "0.5"))
    assert one_error_line(res) == (
        f"Error: {out} holds a run with other settings (temperature 0.0 in the run, 0.5 now); pass --out NEW_DIR "
        "for a new run, or repeat the original settings to continue it.")
    assert {f: (out / f).read_bytes() for f in before} == before
    assert fake_openai.seen == []


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(temperature=3.0), "--temperature must be from 0 to 2, not 3.0."),
        (dict(top_p=-0.5), "--top-p must be from 0 to 1, not -0.5."),
        (dict(max_tokens=0), "--max-tokens must be at least 1, not 0."),
        (dict(concurrency=0), "--concurrency must be from 1 to 256, not 0."),
        (dict(max_retries=21), "--max-retries must be from 0 to 20, not 21."),
        (dict(limit=0), "--limit must be at least 1, not 0."),
        (dict(samples=0), "--samples must be from 1 to 100, not 0."),
        (dict(timeout=0.0), "--timeout must be at least 0.1, not 0.0."),
        (dict(debias=7), "--debias must be from 1 to 6, not 7."),
    ],
)
def test_the_python_api_rejects_bad_parameters_before_asking(fake_openai, api_key, tmp_path, kwargs, message):
    from stereoprobe.errors import DataError

    with pytest.raises(DataError) as info:
        api(fake_openai, tmp_path / "run", groups=["Sikhs"], **kwargs)
    assert str(info.value) == message
    assert fake_openai.seen == [] and not (tmp_path / "run").exists()


@pytest.mark.parametrize("extra, needle", [
    (["--temperature", "0.5"], "--temperature only applies to chat mode"),
    (["--top-p", "0.9", "--instruction", "List words."], "--top-p, --instruction only apply to chat mode"),
    (["--max-tokens", "20", "--dry-run"], "--max-tokens only applies to chat mode"),
])
def test_chat_settings_are_refused_in_next_word_mode(tmp_path, extra, needle):
    """The embedded model ranks its own distribution: a sampling flag would be silently ignored."""
    from click.testing import CliRunner

    from stereoprobe.cli import cli

    res = CliRunner().invoke(cli, ["collect", "--limit", "2", "--out", str(tmp_path / "run"), *extra])
    assert res.exit_code == 2
    assert res.output.strip().splitlines() == [res.output.strip()]
    assert needle in res.output
    assert not (tmp_path / "run").exists()  # refused before anything was created


def test_the_cli_and_the_api_share_one_range_per_flag(run_cli):
    from stereoprobe.cli.collect import command
    from stereoprobe.limits import RANGES

    params = {p.name: p for p in command.params}
    for name, (low, high) in RANGES.items():
        if name == "debias":  # a text flag (the jobs study takes "all"); fill-in checks RANGES itself
            continue
        assert (params[name].type.min, params[name].type.max) == (low, high), name
    res = run_cli("collect", "--debias", "7")
    assert res.exit_code == 2 and "--debias must be from 1 to 6, not 7." in res.output


# -- the run record: identity, unbinding, template family, debias ------------------------


def test_continuing_with_another_catalog_or_template_family_is_refused(fake_openai, api_key, tmp_path, run_cli):
    import shutil

    from stereoprobe.studies.fillin.catalog import default_catalog_dir

    out = tmp_path / "run"
    assert run_cli(*cli_args(fake_openai, out, "--group", "Sikhs")).exit_code == 0
    before = {f: (out / f).read_bytes() for f in ("completions.jsonl", "manifest.json")}
    res = run_cli(*cli_args(fake_openai, out, "--group", "Sikhs", "--templates", "choenni"))
    assert "(another template family)" in one_error_line(res)
    mine = tmp_path / "catalog"
    shutil.copytree(default_catalog_dir(), mine)
    with (mine / "groups.csv").open("a") as f:
        f.write("religion,Jedi,no\n")
    res = run_cli(*cli_args(fake_openai, out, "--group", "Sikhs", "--catalog", mine))
    assert "(another catalog)" in one_error_line(res)
    assert {f: (out / f).read_bytes() for f in before} == before


def test_a_failed_first_request_does_not_bind_a_new_run_dir(fake_openai, api_key, tmp_path, run_cli):
    out = tmp_path / "run"
    res = run_cli("collect", "--model", MODEL, "--base-url", fake_openai.base_url.replace("/v1", "/wrong"),
                  "--out", out, "--limit", "2", "-q")
    assert "was not found" in one_error_line(res)
    assert not out.exists()
    assert run_cli(*cli_args(fake_openai, out, "--limit", "2")).exit_code == 0  # the corrected URL


def test_an_empty_selection_is_one_line_and_creates_nothing(fake_openai, api_key, tmp_path, run_cli):
    out = tmp_path / "run"
    res = run_cli(*cli_args(fake_openai, out, "--category", "age", "--group", "Sikhs"))
    assert one_error_line(res).startswith("Error: No probes match --category age --group 'Sikhs'")
    assert not out.exists() and fake_openai.seen == []
