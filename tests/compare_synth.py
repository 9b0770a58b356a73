"""Synthetic runs with a known truth for the compare tests and the benchmark.

Every probe of the catalog is answered with ten words from the bundled NRC lexicon's
plain negative and positive words; each probe's chance of a negative word is drawn around
its group's rate (a Beta with the given concentration: words of one reply agree more than
chance), so replies are the clusters the statistics must respect.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable

NEGATIVE = ("hateful", "lazy", "grumpy", "unruly", "angry", "cruel", "stupid", "selfish")
POSITIVE = ("wise", "kind", "happy", "honest", "loyal", "generous", "clever", "friendly")


def make_run(out: Path, seed: int, rate: Callable[[str, str], float], concentration: float = 8.0,
             probes=None, model: str = "synthetic") -> Path:
    import json

    import numpy as np

    from stereoprobe import load_probes
    from stereoprobe.records import Completion
    from stereoprobe.store import RunStore

    rng = np.random.default_rng(seed)
    probes = probes if probes is not None else load_probes()
    store = RunStore(out)
    store.open()
    try:
        for p in probes:
            r = min(max(rate(p.category, p.group), 1e-3), 1 - 1e-3)
            pr = rng.beta(r * concentration, (1 - r) * concentration)
            neg = rng.random(10) < pr
            words = [str(rng.choice(NEGATIVE)) if n else str(rng.choice(POSITIVE)) for n in neg]
            store.append(Completion(p.probe_id, 0, p.category, p.group, p.template, p.format, p.text, words=words))
    finally:
        store.close()
    (out / "manifest.json").write_text(json.dumps({"model": model, "mode": "chat", "status": "complete"}))
    return out


def group_rates(seed: int = 7) -> Callable[[str, str], float]:
    """A fixed negative rate per group, between 0.2 and 0.8 (the truth both null runs share)."""
    import zlib

    def rate(category: str, group: str) -> float:
        h = zlib.crc32(f"{seed}\t{category}\t{group}".encode()) / 2**32
        return 0.2 + 0.6 * h

    return rate
