"""Runs for a comparison: checked, scored with one labeller, reduced to one row per probe.

Every run is scored by the same :class:`~stereoprobe.studies.fillin.sentiment.Labeller` (one lexicon,
one overrides list, one synonym setting), so a word has one label in the whole
comparison. A run without ``sentiment/`` gets one written, with that labeller.

A probe's row holds its category, group, template, format and its negative and positive
word counts summed over its samples; probes are the resampling unit of the paired
bootstrap (docs/compare.md).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

from stereoprobe.errors import DataError

PROBE_COLUMNS = ["probe_id", "category", "group", "template", "format", "text", "n_negative", "n_positive", "n_words"]
BASELINE_FORMAT = "search-engine"


@dataclass
class Run:
    """One run in a comparison."""

    name: str  # a short label, unique within the comparison
    path: Path
    manifest: dict[str, Any]
    probes: Any  # DataFrame, PROBE_COLUMNS, one row per probe id with a record
    occurrences: Any  # DataFrame as sentiment's occurrences.csv (labels from the shared labeller)
    records: int
    wrote_sentiment: bool = False
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def is_baseline(self) -> bool:
        """People, not a model: a `stereoprobe baseline` run."""
        return self.manifest.get("kind") == "baseline" or self.manifest.get("mode") == BASELINE_FORMAT

    @property
    def model(self) -> str:
        return str(self.manifest.get("model") or self.name)


def check_paths(paths: Sequence[str | Path]) -> list[Path]:
    """Two or more distinct run directories, or a one-line DataError."""
    from stereoprobe.comparing import distinct_runs
    from stereoprobe.store import COMPLETIONS

    if len(paths) < 2:
        raise DataError("compare needs at least two run directories, e.g. `stereoprobe compare runs/a runs/b --out cmp`.")
    out = []
    for p in map(Path, paths):
        if not p.is_dir() or not (p / COMPLETIONS).is_file():
            what = "no such directory" if not p.exists() else f"no {COMPLETIONS}"
            raise DataError(f"{p}: not a run directory ({what}); give directories written by `stereoprobe collect` or `baseline`.")
        out.append(p)
    distinct_runs(out)
    return out


def run_names(paths: Sequence[Path]) -> list[str]:
    """Directory names, or the paths as given where two names clash."""
    names = [p.name or str(p) for p in paths]
    return [str(p) if names.count(n) > 1 else n for p, n in zip(paths, names)]


def _manifest(path: Path) -> dict[str, Any]:
    f = path / "manifest.json"
    if not f.is_file():
        return {}
    try:
        return json.loads(f.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise DataError(f"{f}: not valid JSON ({exc}); restore it or remove it.") from None


def probe_table(records: list, occurrences: Any) -> Any:
    """One row per probe id: identity from the records, word counts from the occurrences."""
    import pandas as pd

    ident = pd.DataFrame(
        [(r.probe_id, r.category, r.group, r.template, r.format, r.prompt) for r in records],
        columns=PROBE_COLUMNS[:6],
    ).drop_duplicates("probe_id")
    occ = occurrences
    counts = pd.DataFrame(
        {
            "n_negative": (occ["label"] == "negative").groupby(occ["probe_id"]).sum(),
            "n_positive": (occ["label"] == "positive").groupby(occ["probe_id"]).sum(),
            "n_words": occ.groupby("probe_id").size(),
        }
    )
    out = ident.merge(counts, left_on="probe_id", right_index=True, how="left")
    for c in ("n_negative", "n_positive", "n_words"):
        out[c] = out[c].fillna(0).astype("int64")
    return out.sort_values(["category", "group", "probe_id"], ignore_index=True)


def load_runs(paths: Sequence[str | Path], labeller: Any, write_missing: bool = True) -> list[Run]:
    """Check, read and score every run with ``labeller``."""
    from stereoprobe.studies.fillin.sentiment import score, write_outputs
    from stereoprobe.store import read_completions

    checked = check_paths(paths)
    runs = []
    for path, name in zip(checked, run_names(checked)):
        records = read_completions(path)
        if not records:
            raise DataError(f"{path}: no answers yet (an empty completions.jsonl); collect the run, then compare it.")
        if not any(r.probe_id for r in records):
            raise DataError(f"{path}: its records have no probe ids, so it cannot be aligned with other runs.")
        wrote = write_missing and not (path / "sentiment").exists()
        if wrote:  # the full sentiment stage, with its statistics, written into the run
            result = score(path, labeller=labeller)
            write_outputs(result, path / "sentiment")
        else:  # only the labelled occurrences are used: no statistics of the run alone
            result = score(path, labeller=labeller, statistics=False)
        runs.append(
            Run(name, path, _manifest(path), probe_table(records, result.occurrences), result.occurrences,
                len(records), wrote, result.meta)
        )
    return runs


def alignment(runs: Sequence[Run]) -> tuple[Any, Any]:
    """Per run and per pair: probes, the common set and what is missing where.

    Returns (runs table, pairs table). A pair with no common probe is an error.
    """
    import pandas as pd

    ids = {r.name: set(r.probes["probe_id"]) for r in runs}
    union = set().union(*ids.values())
    common_all = set.intersection(*ids.values())
    per_run = pd.DataFrame(
        [
            {
                "run": r.name, "path": str(r.path), "model": r.model, "baseline": r.is_baseline,
                "records": r.records, "probes": len(ids[r.name]), "common_all": len(common_all),
                "missing_vs_others": len(union - ids[r.name]),
            }
            for r in runs
        ]
    )
    rows = []
    for a, b in pairs(runs):
        common = ids[a.name] & ids[b.name]
        if not common:
            raise DataError(
                f"{a.path} and {b.path} have no probe in common; compare runs of the same catalog "
                "(a baseline shares only its catalog-template questions)."
            )
        rows.append({"run_a": a.name, "run_b": b.name, "common": len(common),
                     "only_a": len(ids[a.name] - common), "only_b": len(ids[b.name] - common)})
    return per_run, pd.DataFrame(rows)


def pairs(runs: Sequence[Run]) -> list[tuple[Run, Run]]:
    """Every pair once, in the order given; a model is put first against a baseline,
    so that a difference is model minus people (amplification)."""
    out = []
    for i, a in enumerate(runs):
        for b in runs[i + 1:]:
            out.append((b, a) if a.is_baseline and not b.is_baseline else (a, b))
    return out
