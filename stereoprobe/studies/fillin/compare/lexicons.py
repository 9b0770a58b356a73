"""How much a finding depends on the lexicon: each run's shares under several lexicons.

The words of every run (already normalised, group names left out) are labelled again
with each lexicon named in ``--lexicons`` (same lemma and synonym fallback, same
synonym setting), and the negative share per category and overall is recomputed. The
band is the lowest and highest share across the lexicons; ``reference`` is the
comparison's own labeller's share (NRC by default).
"""

from __future__ import annotations

from typing import Any, Sequence

LEXICON_COLUMNS = ["run", "category", "lexicon", "negative", "n_negative", "n_positive"]
BAND_COLUMNS = ["run", "category", "reference", "band_low", "band_high", "lexicons"]


def parse_names(text: str | Sequence[str] | None) -> list[str]:
    """``"nrc,vader, afinn"`` -> ``["nrc", "vader", "afinn"]``, each checked."""
    from stereoprobe.errors import DataError
    from stereoprobe.studies.fillin.lexicon import NAMES

    if text is None:
        return []
    items = text.split(",") if isinstance(text, str) else list(text)
    names = [n.strip().lower() for n in items if n.strip()]
    bad = [n for n in names if n not in NAMES]
    if bad:
        raise DataError(f"--lexicons: {', '.join(bad)} unknown; use names from {', '.join(NAMES)}.")
    if len(set(names)) < 2:
        raise DataError("--lexicons needs at least two different names, e.g. nrc,vader,afinn.")
    return list(dict.fromkeys(names))


def shares_by_lexicon(runs: Sequence[Any], names: Sequence[str], synonyms: bool, reference: Any) -> tuple[Any, Any]:
    """(per run, category and lexicon shares; per run and category band) as DataFrames."""
    import pandas as pd

    from stereoprobe.studies.fillin.lexicon import load_named
    from stereoprobe.studies.fillin.sentiment import Labeller

    rows = []
    for name in names:
        labeller = Labeller(load_named(name), synonyms=synonyms)
        for run in runs:
            occ = run.occurrences
            labels = {w: labeller.label(w).label for w in occ["word"].unique()}
            lab = occ["word"].map(labels)
            for cat, mask in [*((c, occ["category"] == c) for c in sorted(occ["category"].unique())), ("all", None)]:
                sub = lab if mask is None else lab[mask]
                neg, pos = int((sub == "negative").sum()), int((sub == "positive").sum())
                rows.append({"run": run.name, "category": cat, "lexicon": name,
                             "negative": 100.0 * neg / (neg + pos) if neg + pos else float("nan"),
                             "n_negative": neg, "n_positive": pos})
    table = pd.DataFrame(rows, columns=LEXICON_COLUMNS)
    band = table.groupby(["run", "category"], sort=False)["negative"].agg(band_low="min", band_high="max").reset_index()
    band["lexicons"] = ",".join(names)
    band = band.merge(reference, on=["run", "category"], how="left")
    return table, band[BAND_COLUMNS]
