"""Tests write nothing outside their temporary directories (issue 24)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def test_stereoprobes_cache_is_the_runs_temp_dir(tmp_path_factory):
    from conftest import run_shared_dir

    from stereoprobe.datafiles import cache_dir

    base = tmp_path_factory.getbasetemp()
    assert cache_dir() == run_shared_dir(tmp_path_factory) / "stereoprobe-cache"
    assert base == run_shared_dir(tmp_path_factory) or base.parent == run_shared_dir(tmp_path_factory)
    assert Path(os.environ["MPLCONFIGDIR"]).parent == base


def test_reaching_wordnet_writes_nothing_in_home(tmp_path):
    # a fresh process with this session's environment and an empty HOME: after it has looked
    # WordNet up (copying it into the cache) HOME is still empty, the copy is in the cache
    home = tmp_path / "home"
    home.mkdir()
    env = {**os.environ, "HOME": str(home), "PYTHONPATH": str(REPO)}
    env.pop("XDG_CACHE_HOME", None)
    code = "from stereoprobe.studies.fillin.wordnet import synonyms; print(sorted(synonyms('happy'))[:2])"
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "['felicitous', 'glad']"
    assert list(home.iterdir()) == []
    assert (Path(os.environ["STEREOPROBE_CACHE"]) / "nltk_data" / "corpora" / "wordnet").is_dir()
