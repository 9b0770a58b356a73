"""stereoprobe: measure the stereotypes language models hold about social groups.

The Python API mirrors the CLI:

    >>> import stereoprobe
    >>> probes = stereoprobe.load_probes(category="religion", format="question")
    >>> len(probes)
    30
    >>> probes[0].text
    'why are atheists so ...'
"""

from __future__ import annotations

__version__ = "0.1.0"

from stereoprobe.studies.fillin.collect import CollectRequest, estimate_collect, run_collect  # noqa: E402
from stereoprobe.studies.fillin.catalog import Catalog, load_catalog, load_probes  # noqa: E402
from stereoprobe.studies.fillin.compare import compare  # noqa: E402
from stereoprobe.errors import StereoprobeError  # noqa: E402
from stereoprobe.manifest import RunManifest, read_manifest  # noqa: E402
from stereoprobe.records import Answer, Completion, Probe  # noqa: E402
from stereoprobe.reparse import reparse  # noqa: E402
from stereoprobe.store import read_completions  # noqa: E402

__all__ = [
    "Answer",
    "Catalog",
    "CollectRequest",
    "Completion",
    "Probe",
    "RunManifest",
    "StereoprobeError",
    "__version__",
    "compare",
    "estimate_collect",
    "load_catalog",
    "load_probes",
    "read_completions",
    "read_manifest",
    "reparse",
    "run_collect",
]
