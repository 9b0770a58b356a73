"""The units statistics resample: one row per counted reply (probe x sample), and probe status.

``unit_table`` turns the word occurrences of the sentiment stage into one row per reply
with its counts of negative and positive words; ``probe_status`` counts per group how
many probes were asked, answered, refused and failed (from the records, so refused and
failed probes, which have no words, are counted too).
"""

from __future__ import annotations

from typing import Any, Iterable

UNIT_KEYS = ["category", "group", "probe_id", "sample"]
STATUS_COLUMNS = ["probes_asked", "probes_answered", "probes_refused", "probes_failed"]


def unit_table(occ: Any) -> Any:
    """Rows (category, group, probe_id, sample, template, format, neg, pos), sorted by the keys."""
    import pandas as pd

    lab = occ["label"]
    counts = occ.assign(neg=(lab == "negative").astype("int64"), pos=(lab == "positive").astype("int64"))
    units = counts.groupby([*UNIT_KEYS, "template", "format"], sort=True, observed=True)[["neg", "pos"]].sum()
    units = units.reset_index().sort_values(UNIT_KEYS, ignore_index=True)
    units["polar"] = units["neg"] + units["pos"]
    return pd.DataFrame(units)


def probe_status(records: Iterable[Any]) -> Any:
    """Per (category, group): probes asked, answered (some sample gave words), refused, failed.

    A probe counts as answered when at least one of its samples has words; otherwise as
    refused when one was refused, otherwise as failed when one failed. Probes whose
    replies had no readable words (unparseable) are asked but in none of the other three.
    """
    import pandas as pd

    rows = [(r.category, r.group, r.probe_id, r.status) for r in records]
    df = pd.DataFrame(rows, columns=["category", "group", "probe_id", "status"])
    flags = pd.crosstab([df["category"], df["group"], df["probe_id"]], df["status"]).reindex(
        columns=["ok", "refused", "failed"], fill_value=0
    ) > 0
    answered = flags["ok"]
    refused = ~answered & flags["refused"]
    failed = ~answered & ~flags["refused"] & flags["failed"]
    per = pd.DataFrame({"probes_asked": 1, "probes_answered": answered, "probes_refused": refused,
                        "probes_failed": failed}).astype("int64")
    return per.groupby(level=["category", "group"]).sum().reset_index()
