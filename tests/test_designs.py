"""Named designs (stereoprobe/designs.py): options applied, conflicts refused, the design in
the manifest, and a run never continued under another design."""

from __future__ import annotations

import json
import types

import pytest

from stereoprobe.designs import Design, apply, designs_of
from stereoprobe.errors import DataError
from conftest import TEST_KEY


class _Study:
    """A study whose folder's designs.py offers one quick design (3 samples, two groups)."""

    name = "toy"

    def designs(self):
        return types.SimpleNamespace(designs=lambda options: {
            "quick": Design("quick", {"samples": 3, "group": ("atheists", "Muslims")}, "two groups x 3 samples",
                            "a test")})


def test_a_design_sets_its_options_and_counts_them_as_given():
    options = apply(_Study(), "quick", {"samples": 1, "limit": 4, "given": frozenset({"limit"})})
    assert options["samples"] == 3 and options["group"] == ("atheists", "Muslims") and options["limit"] == 4
    assert options["given"] == {"limit", "samples", "group"}
    assert options["design"] == "quick"


def test_no_design_is_the_default_and_changes_nothing():
    options = apply(_Study(), None, {"samples": 2, "given": frozenset({"samples"})})
    assert options == {"samples": 2, "given": {"samples"}, "design": "default"}
    assert set(designs_of(_Study())) == {"default", "quick"}


def test_an_option_given_that_the_design_sets_otherwise_is_refused():
    with pytest.raises(DataError, match=r"--samples 5 conflicts with the quick design of the toy study, which "
                                        r"sets 3; drop --samples or drop --design quick"):
        apply(_Study(), "quick", {"samples": 5, "given": frozenset({"samples"})})
    # the same value is no conflict; a list and a tuple of the same groups are the same
    assert apply(_Study(), "quick", {"samples": 3, "group": ["atheists", "Muslims"],
                                     "given": frozenset({"samples", "group"})})["samples"] == 3


def test_a_design_the_study_lacks_is_refused_in_one_line():
    with pytest.raises(DataError, match=r"The toy study has no published design here; choose default, quick"):
        apply(_Study(), "published", {})
    with pytest.raises(DataError, match=r"Unknown design 'huge': choose default, quick, published"):
        apply(_Study(), "huge", {})


def test_the_manifest_records_the_design_and_another_design_is_refused(fake_openai, api_key, tmp_path, monkeypatch):
    from stereoprobe.studies.fillin.collect import CollectRequest, run_collect

    out = tmp_path / "run"
    request = CollectRequest(model="fake-chat", base_url=fake_openai.base_url, out=out, groups=("atheists",),
                             categories=("religion",), timeout=5, max_retries=1, design="quick")
    run_collect(request, progress=False)
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["design"] == "quick"
    before = (out / "completions.jsonl").read_bytes()
    from dataclasses import replace

    with pytest.raises(DataError, match=r"holds a run of the quick design, not the default one; pass --design quick"):
        run_collect(replace(request, design=None), progress=False)
    assert (out / "completions.jsonl").read_bytes() == before  # nothing stored was touched
    assert TEST_KEY not in (out / "manifest.json").read_text()


def test_a_run_from_before_designs_continues_as_the_default(fake_openai, api_key, tmp_path):
    from stereoprobe.studies.fillin.collect import CollectRequest, run_collect

    out = tmp_path / "run"
    request = CollectRequest(model="fake-chat", base_url=fake_openai.base_url, out=out, groups=("atheists",),
                             categories=("religion",), timeout=5, max_retries=1, limit=3)
    run_collect(request, progress=False)
    path = out / "manifest.json"
    old = json.loads(path.read_text())
    del old["design"]  # as every manifest written before designs existed
    path.write_text(json.dumps(old))
    from dataclasses import replace

    result = run_collect(replace(request, limit=6), progress=False)
    assert result.asked == 3 and json.loads(path.read_text())["design"] == "default"


def test_the_cli_takes_design_for_every_study_and_refuses_a_conflict_in_one_line(run_cli, tmp_path):
    from stereoprobe.studies import names

    for study in names():
        result = run_cli("probes", "--study", study, "--design", "default", "--limit", "1")
        assert result.exit_code == 0, (study, result.stderr)
        assert result.stderr.startswith("1 probe.\n"), (study, result.stderr)  # it read '1 probes.'
    bad = run_cli("collect", "--design", "huge")
    assert bad.exit_code == 2 and "Invalid value for '--design'" in bad.stderr


def test_the_quick_designs_width_costs_are_the_measured_table_in_docs_designs_md():
    # docs/designs.md, "What the quick designs cost in width": the medians bench/suite_width.py measured.
    # The card quotes a quick design's width_cost; a figure edited in one place and not the other fails here.
    import re
    from pathlib import Path

    from stereoprobe.studies import get_study

    text = (Path(__file__).resolve().parent.parent / "docs" / "designs.md").read_text(encoding="utf-8")
    section = text.split("### What the quick designs cost in width", 1)[1].split("\n## ", 1)[0]
    table = {m.group(1): float(m.group(2)) for m in re.finditer(r"^\| (\S+) \| [^|]+ \| ([0-9.]+) \|", section, re.M)}
    assert table == {"jobs": 1.64, "coreference": 2.9, "anecdotes": 3.53, "hobbies": 4.73}
    for name, cost in table.items():
        assert designs_of(get_study(name))["quick"].width_cost == cost, name
    for name in ("fill-in", "stories"):  # not measured at their final sizes: the card's square-root line
        assert designs_of(get_study(name))["quick"].width_cost is None, name
