"""The same answers give the same numbers however they arrived. Several workers, retries and
resumed runs append answers in any order, and the bootstraps and permutations draw rows by
position: a shuffled copy of a full default run once gave a coreference pronoun's rate of
31.92% the interval 29.74-34.15 where the run as stored gave 29.64-34.26, the WinoBias share
67.22-70.69 against 67.24-70.68, the anecdotes' majority share 88.03-92.55 against
87.95-92.63, and the jobs table its columns in another order. Every collect now ends by
compacting the run in its design's order (``RunStore.compact``)."""

from __future__ import annotations

import json
import random
import shutil
import threading
import time
from pathlib import Path

import pytest
from card_suites import FakeModel, _cli, make_suite

from stereoprobe.records import Answer, Completion, Probe
from stereoprobe.store import RunStore, read_completions
from stereoprobe.studies import study_of_run

KEYS = ("fill-in", "jobs", "coreference", "sterlie", "anecdotes", "stories", "hobbies")
#: what a scoring writes that names the run's folder or the minute it ran
VARYING = {"run", "path", "created_at"}


def _record(probe_id: str, sample: int, words: list[str]) -> Completion:
    return Completion(probe_id, sample, "age", "old people", "are_so", "statement", "old people are so ...",
                      words=words)


def test_compaction_writes_the_designs_order_and_the_last_record_of_a_key(tmp_path):
    store = RunStore(tmp_path / "run")
    store.open()
    for rec in (_record("b", 1, ["x"]), _record("zz", 0, ["kept"]), _record("a", 0, ["y"]), _record("b", 0, ["z"]),
                _record("a", 0, ["retried"])):
        store.append(rec)
    store.close()
    assert store.compact([("b", 0), ("a", 0), ("b", 1)]) == 1  # (a, 0)'s first line dropped
    # the design's order; (a, 0) as it was last answered; a key the design does not name ("zz": a probe
    # of an earlier catalog) kept, after the design's
    got = [(r.probe_id, r.sample, r.words) for r in read_completions(tmp_path / "run")]
    assert got == [("b", 0, ["z"]), ("a", 0, ["retried"]), ("b", 1, ["x"]), ("zz", 0, ["kept"])]
    assert store.compact([("b", 0), ("a", 0), ("b", 1)]) == 0


class Jittery:
    """A next-word backend whose answers take 0-20 ms at random, on 8 workers: they arrive out of order."""

    mode, max_concurrency = "next-word", 8

    def __init__(self) -> None:
        self.finished: list[str] = []
        self._lock = threading.Lock()
        self._rng = random.Random(5)

    def describe(self) -> dict:
        return {"backend": "jittery", "model": "jittery"}

    def prompt(self, probe: Probe) -> str:
        return probe.text

    def ask(self, probe: Probe) -> Answer:
        with self._lock:
            pause = self._rng.random() * 0.02
        time.sleep(pause)
        with self._lock:
            self.finished.append(probe.probe_id)
        return Answer(words=["kind", "old"], raw="", probabilities=[0.2, 0.1])

    def attempts_of_last_ask(self) -> int:
        return 1

    def close(self) -> None:
        pass


def test_a_collect_whose_answers_arrive_out_of_order_stores_them_in_the_designs_order(tmp_path):
    from stereoprobe.collect import collect
    from stereoprobe.studies.fillin.ask import study_run
    from stereoprobe.studies.fillin.catalog import load_catalog

    catalog = load_catalog()
    probes = [p for p in catalog.probes() if p.category == "age"]
    backend = Jittery()
    collect(probes, backend, tmp_path / "run", samples=2, progress=False,
            study=study_run(catalog, probes, "next-word"))
    design = [(p.probe_id, s) for p in probes for s in range(2)]
    assert backend.finished[:len(probes)] != [p.probe_id for p in probes]  # they did arrive out of order
    assert [r.key for r in read_completions(tmp_path / "run")] == design


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
def test_a_run_compacted_in_its_designs_order_scores_as_it_did_whatever_order_it_was_stored_in(suite, key,
                                                                                               tmp_path):
    # each study's run as collect left it (in its design's order), shuffled as answers arriving in another
    # order would store it, then compacted as the end of a collect does: every output the same
    run = suite / key
    copy = tmp_path / key
    copy.mkdir()
    shutil.copy(run / "manifest.json", copy / "manifest.json")
    lines = (run / "completions.jsonl").read_text(encoding="utf-8").splitlines(keepends=True)
    shuffled = lines[:]
    random.Random(11).shuffle(shuffled)
    assert shuffled != lines
    (copy / "completions.jsonl").write_text("".join(shuffled), encoding="utf-8")
    record = study_of_run(run).record
    RunStore(copy, record).compact([r.key for r in read_completions(run, record)])
    assert (copy / "completions.jsonl").read_text(encoding="utf-8") == "".join(lines)
    _cli("sentiment", copy) if key == "fill-in" else _cli("score", copy, "--bootstrap", 200)
    mine, theirs = _outputs(run), _outputs(copy)
    assert mine.keys() == theirs.keys() and len(mine) >= 3
    for name in mine:
        assert mine[name] == theirs[name], f"{key}: {name} differs"
