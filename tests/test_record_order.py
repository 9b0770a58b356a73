"""The same answers give the same numbers however they arrived: several workers, retries and
resumed runs store answers in any order, and the bootstraps and permutations draw rows by
position, so every study reads a run's records in key order (``store.read_completions``).
Before, a shuffled copy of a full default run gave a coreference pronoun's rate of 31.92% the
interval 29.74-34.15 where the run as stored gave 29.64-34.26, the WinoBias share 67.22-70.69
against 67.24-70.68, the anecdotes' majority share 88.03-92.55 against 87.95-92.63, and the
jobs table its columns in another order; the stories' and fill-in's row order moved too."""

from __future__ import annotations

import json
import random
import shutil
from pathlib import Path

import pytest
from card_suites import FakeModel, _cli, make_suite

from stereoprobe.records import Completion
from stereoprobe.store import read_completions

KEYS = ("fill-in", "jobs", "coreference", "sterlie", "anecdotes", "stories", "hobbies")
#: what a scoring writes that names the run's folder or the minute it ran
VARYING = {"run", "path", "created_at"}


def _record(probe_id: str, sample: int, words: list[str]) -> dict:
    return Completion(probe_id, sample, "age", "old people", "are_so", "statement", "old people are so ...",
                      words=words).to_dict()


def test_records_are_read_in_key_order_whatever_order_the_file_holds(tmp_path):
    rows = [_record("b", 1, ["x"]), _record("a", 0, ["y"]), _record("b", 0, ["z"]), _record("a", 0, ["retried"])]
    path = tmp_path / "completions.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    got = read_completions(path)
    # (a, 0) appears twice: the later record wins, and it sits in key order, not where it arrived
    assert [(r.probe_id, r.sample, r.words) for r in got] == [("a", 0, ["retried"]), ("b", 0, ["z"]), ("b", 1, ["x"])]


def _without_varying(obj):
    if isinstance(obj, dict):
        return {k: _without_varying(v) for k, v in obj.items() if k not in VARYING}
    if isinstance(obj, list):
        return [_without_varying(v) for v in obj]
    return obj


def _outputs(run: Path) -> dict[str, object]:
    """Every file a scoring wrote under ``run`` (JSON without the run's path and time)."""
    out: dict[str, object] = {}
    for f in sorted(run.rglob("*")):
        if f.is_file() and f.parent != run:
            rel = str(f.relative_to(run))
            out[rel] = _without_varying(json.loads(f.read_text())) if f.suffix == ".json" else f.read_bytes()
    return out


@pytest.fixture(scope="module")
def suite(tmp_path_factory):
    return make_suite(tmp_path_factory.mktemp("order"), FakeModel("m", gen_seed=1), KEYS, n_boot=200)


@pytest.mark.parametrize("key", KEYS)
def test_a_run_whose_answers_arrived_in_another_order_scores_the_same(suite, key, tmp_path):
    run = suite / key
    copy = tmp_path / key
    copy.mkdir()
    shutil.copy(run / "manifest.json", copy / "manifest.json")
    lines = (run / "completions.jsonl").read_text(encoding="utf-8").splitlines(keepends=True)
    shuffled = lines[:]
    random.Random(11).shuffle(shuffled)
    assert shuffled != lines
    (copy / "completions.jsonl").write_text("".join(shuffled), encoding="utf-8")
    _cli("sentiment", copy) if key == "fill-in" else _cli("score", copy, "--bootstrap", 200)
    mine, theirs = _outputs(run), _outputs(copy)
    assert mine.keys() == theirs.keys() and len(mine) >= 3
    for name in mine:
        assert mine[name] == theirs[name], f"{key}: {name} differs"
