"""The walkthrough notebook runs end to end, so it breaks loudly when the API changes."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOK = ROOT / "notebooks" / "walkthrough.ipynb"

# it collects six probes with the embedded model; its one long test (seconds) runs first, longest first (tests/conftest.py)
pytestmark = [pytest.mark.model, pytest.mark.long(10)]


def _outputs_text(cell) -> str:
    parts = []
    for out in cell.get("outputs", []):
        parts.append(out.get("text", ""))
        parts.append(out.get("data", {}).get("text/plain", ""))
    return "\n".join(parts)


def test_notebook_executes_and_shows_the_study(tmp_path, monkeypatch):
    nbformat = pytest.importorskip("nbformat")
    from nbclient import NotebookClient

    monkeypatch.setenv("STEREOPROBE_NOTEBOOK_OUT", str(tmp_path / "out"))
    nb = nbformat.read(NOTEBOOK, as_version=4)
    # nbclient waits 4 s by default for a cell's last outputs and then goes on without them
    # (a warning): on a busy machine the assertions below would miss text. Wait up to a
    # minute for them, and fail loudly if they never come; the kernel gets 5 min to start.
    NotebookClient(nb, timeout=600, startup_timeout=300, iopub_timeout=60, raise_on_iopub_timeout=True,
                   kernel_name="python3", resources={"metadata": {"path": str(NOTEBOOK.parent)}}).execute()
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert all(not any(o.get("output_type") == "error" for o in c.outputs) for c in code)
    text = "\n".join(_outputs_text(c) for c in code)
    assert "2292 probes" in text
    assert "Asked 6 (6 ok" in text  # the six Sikhs probes, embedded model
    assert "political" in text and "religion" in text  # Table 4 rows of the example run
    images = sum(1 for c in code for o in c.outputs if "image/png" in o.get("data", {}))
    assert images >= 3  # Figure 2, Figure 3, the word clouds
    assert "'political.html'" in text and "'index.html'" in text
    assert (tmp_path / "out" / "briefing" / "index.html").is_file()  # where the reader can open it
    assert "This run covers 2 of 9 categories (114 of 2,292 probes)." in text  # reading the results
    assert "llama" not in "".join(o.get("text", "") for c in code for o in c.outputs if o.get("name") == "stderr")
    assert "71.09375" not in text and "71.1" in text  # political's share (71.09375), shown rounded


def test_notebook_source_is_generated_from_its_script():
    """walkthrough.ipynb is written by make_notebook.py; the two must not drift apart."""
    nbformat = pytest.importorskip("nbformat")
    import runpy
    import shutil
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        script = Path(tmp) / "make_notebook.py"
        shutil.copy(ROOT / "notebooks" / "make_notebook.py", script)
        runpy.run_path(str(script), run_name="__main__")
        fresh = nbformat.read(Path(tmp) / "walkthrough.ipynb", as_version=4)
    kept = nbformat.read(NOTEBOOK, as_version=4)
    assert [c.source for c in fresh.cells] == [c.source for c in kept.cells]
