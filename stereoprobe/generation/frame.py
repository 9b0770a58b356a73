"""A generation run's records as tables, and scores written all or nothing (every study's).

``text_frame``: one row per stored text (failed requests included) with its ``status``
(``ok``, ``empty``, ``truncated``, ``refused``, ``language``, ``failed``), class and evidence, plus the
probe's ``attrs`` as columns; ``status_counts``: how many texts of each status per
group, so what was not classified is counted and shown; ``write_folder``: the tables and
meta.json of ``RUN_DIR/<study>/`` through ``store.replace_folder``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Mapping, Sequence

STATUSES = ("ok", "empty", "truncated", "refused", "language", "failed")


def text_frame(records: Sequence[Any]) -> Any:
    import pandas as pd

    rows = []
    for r in records:
        status = "failed" if r.error is not None else r.problem or ("ok" if r.label is not None else "empty")
        rows.append({"probe_id": r.probe_id, "group": r.group, "variant": r.variant, "sample": r.sample,
                     "status": status, "label": r.label or "", "evidence": " ".join(r.evidence),
                     "finish_reason": r.finish_reason or "", "text": r.text or "", **(r.attrs or {})})
    columns = ["probe_id", "group", "variant", "sample", "status", "label", "evidence", "finish_reason", "text"]
    frame = pd.DataFrame(rows)
    return frame if len(frame) else pd.DataFrame(columns=columns)


def status_counts(frame: Any, by: str = "group") -> Any:
    import pandas as pd

    counts = pd.crosstab(frame[by], frame["status"]).reindex(columns=list(STATUSES), fill_value=0)
    counts.columns = [f"n_{c}" for c in counts.columns]
    return counts.reset_index()


def write_folder(out: Path, tables: Mapping[str, Any], meta: Mapping[str, Any], mark: str,
                 files: Mapping[str, bytes] | None = None, stage: str = "stereoprobe score",
                 of: str | None = None) -> Path:
    """``out``/<name>.csv for each table, each of ``files`` (name -> bytes: a page, a
    figure) and meta.json (carrying ``mark``), all or nothing (``stage``, ``of``: who writes
    it, for the line refusing a folder it did not write)."""
    from stereoprobe.store import marked, replace_folder

    def fill(tmp: Path) -> None:
        for name, table in tables.items():
            table.to_csv(tmp / f"{name}.csv", index=False, float_format="%.6g")
        for name, data in (files or {}).items():
            (tmp / name).write_bytes(data)
        (tmp / "meta.json").write_text(json.dumps({mark: True, **meta}, indent=2, default=str) + "\n",
                                       encoding="utf-8")

    return replace_folder(Path(out), fill, marked(mark), stage, of=of)


def read_texts(run_dir: str | Path, study: str, noun: str, level: float, n_boot: int, seed: int) -> tuple[Any, Any]:
    """A generation run's manifest and :func:`text_frame`, the statistics' settings checked
    first; a run without records is a one-line ``DataError`` (``noun``: what it lacks)."""
    from stereoprobe.errors import DataError
    from stereoprobe.generation.records import GenRecord
    from stereoprobe.stats.analysis import check_options
    from stereoprobe.studies.base import read_run

    check_options(level, n_boot, seed)
    manifest, records = read_run(run_dir, study, GenRecord)
    if not records:
        raise DataError(f"{run_dir}: no {noun} to score; run `stereoprobe collect --study {study} --out {run_dir}`.")
    return manifest, text_frame(records)


def range_text(low: float, high: float, fmt: str, missing: str = "no interval") -> str:
    """``low to high``, or ``missing`` where a run is too small for an interval or a row has none
    (the terminal and the pages never read "nan")."""
    from stereoprobe.page.numbers import number

    return f"{number(low, fmt)} to {number(high, fmt)}" if low == low and high == high else missing


def pct_text(row: Any, interval: bool = True) -> str:
    """A share in percent with its interval, or a dash where nothing was counted."""
    if row.value != row.value:
        return "–"
    return f"{row.value:.1f}%" + (f" ({range_text(row.low, row.high, '{:.1f}')})" if interval else "")


def reader_line(meta: dict[str, Any], current: str) -> list[str]:
    """A line for the score's summary when the run's texts were read by another version of the
    study's reader than this stereoprobe's ``current`` one (labels are stored at collect time).

    >>> reader_line({"classifier": "protagonist-1", "run": "runs/x"}, "protagonist-2")[0][:58]
    'Read at collect time by protagonist-1; this stereoprobe re'
    >>> reader_line({"classifier": "protagonist-2", "run": "runs/x"}, "protagonist-2")
    []
    """
    stored = meta.get("classifier")
    if not stored or stored == current:
        return []
    return [f"Read at collect time by {stored}; this stereoprobe reads with {current}: "
            f"`stereoprobe reparse {meta.get('run')}` reads the stored texts again, then score."]


def run_meta(run_dir: str | Path, manifest: Any, **fields: Any) -> dict[str, Any]:
    """A generation study's meta.json: the run, its model and method, ``fields``, the time."""
    from stereoprobe.manifest import scored_stamp

    settings = manifest.settings
    return {"run": str(Path(run_dir).resolve()), "model": manifest.model, "mode": manifest.mode,
            "method": settings.options.get("method"), "embedded": settings.backend == "local",
            "design": manifest.design or "default",
            "temperature": settings.temperature, "samples": settings.samples, **fields,
            **scored_stamp(manifest)}
