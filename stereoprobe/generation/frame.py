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


def write_folder(out: Path, tables: Mapping[str, Any], meta: Mapping[str, Any], mark: str) -> Path:
    """``out``/<name>.csv for each table and meta.json (carrying ``mark``), all or nothing."""
    from stereoprobe.store import marked, replace_folder

    def fill(tmp: Path) -> None:
        for name, table in tables.items():
            table.to_csv(tmp / f"{name}.csv", index=False, float_format="%.6g")
        (tmp / "meta.json").write_text(json.dumps({mark: True, **meta}, indent=2, default=str) + "\n",
                                       encoding="utf-8")

    return replace_folder(Path(out), fill, marked(mark), "stereoprobe score")
