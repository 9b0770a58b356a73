"""`stereoprobe reparse RUN_DIR`: the current parser over stored raw replies, no model asked."""

from __future__ import annotations

import json

from test_collect import cli_args, lines, one_error_line


def test_reparse_fixes_an_echo_and_leaves_well_parsed_records_unchanged(fake_openai, api_key, tmp_path, run_cli):
    out = tmp_path / "run"
    assert run_cli(*cli_args(fake_openai, out, "--group", "Sikhs")).exit_code == 0
    path = out / "completions.jsonl"
    old_lines = path.read_text().splitlines()
    echo = json.loads(old_lines[2])
    echo.update(raw="10. Sikhs", words=["sikhs"])  # what the 0.1.0 parser stored for an echo
    old_lines[2] = json.dumps(echo)
    path.write_text("\n".join(old_lines) + "\n")
    manifest = json.loads((out / "manifest.json").read_text())
    manifest.pop("parser_version")
    (out / "manifest.json").write_text(json.dumps(manifest))
    fake_openai.clear()

    res = run_cli("reparse", out)
    assert res.exit_code == 0, res.stderr
    assert res.stdout.startswith("Parser 3: 1 record changed, 5 unchanged.")
    assert res.stdout.rstrip().endswith(f"Next: `stereoprobe sentiment {out}`.")
    new_lines = path.read_text().splitlines()
    assert [n for i, n in enumerate(new_lines) if i != 2] == [o for i, o in enumerate(old_lines) if i != 2]
    fixed = json.loads(new_lines[2])
    assert (fixed["raw"], fixed["words"], fixed["refused"]) == ("10. Sikhs", [], False)
    m = json.loads((out / "manifest.json").read_text())
    assert m["parser_version"] == "3" and m["counts"]["unparseable"] == 1 and m["counts"]["ok"] == 5
    assert fake_openai.seen == []  # no model asked
    assert run_cli("reparse", out).stdout.startswith("Parser 3: 0 records changed, 6 unchanged.")
    assert len(lines(out)) == 6


def test_reparse_refuses_a_next_word_run(tmp_path, run_cli):
    (tmp_path / "completions.jsonl").write_text("")
    (tmp_path / "manifest.json").write_text(json.dumps({"mode": "next-word", "settings": {"backend": "local"}}))
    assert "only chat replies are parsed" in one_error_line(run_cli("reparse", tmp_path))


def test_reparse_of_a_run_in_use_does_not_advise_an_out_it_does_not_take(tmp_path, run_cli):
    """reparse of a run being collected said '... or pass --out NEW_DIR': reparse has no --out."""
    from stereoprobe.store import RunStore

    (tmp_path / "completions.jsonl").write_text("")
    (tmp_path / "manifest.json").write_text(json.dumps({"mode": "chat", "settings": {"backend": "openai-chat"}}))
    holder = RunStore(tmp_path)
    holder.lock()
    try:
        error = one_error_line(run_cli("reparse", tmp_path))
    finally:
        holder.unlock()
    assert error.startswith(f"Error: {tmp_path} is in use by pid ")
    assert error.endswith("; wait for it to finish (or stop it), then run this command again.")
