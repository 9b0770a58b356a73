"""Writing a comparison into DIR, all or nothing (like the sentiment stage's outputs).

    DIR/index.html                      the page (self-contained, offline)
    DIR/differences.csv                 one row per pair, level, cell and format
    DIR/shares.csv                      each run's shares with intervals (all, category)
    DIR/runs.csv, DIR/pairs.csv         alignment: probes per run, common and missing per pair
    DIR/amplification.csv, recall.csv   when a run is a baseline of people
    DIR/lexicons.csv, lexicon_band.csv  with --lexicons
    DIR/figures/categories.{png,svg}, DIR/figures/heatmap_<category>.{png,svg}
    DIR/meta.json                       runs, labeller, statistics, version, time
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any


MARK = "stereoprobe_comparison"


def _is_ours(path: Path) -> bool:
    if not any(path.iterdir()):
        return True
    try:
        return MARK in json.loads((path / "meta.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", text.lower()).strip("_") or "category"


def _write_all(result: Any, tmp: Path) -> None:
    from stereoprobe.studies.fillin.compare import figures, page

    tables = {
        "differences": result.differences, "shares": result.shares, "runs": result.runs, "pairs": result.pairs,
        "amplification": result.amplification, "recall": result.recall,
    }
    if result.lexicons is not None:
        tables |= {"lexicons": result.lexicons, "lexicon_band": result.lexicon_band}
    for name, df in tables.items():
        if name in ("amplification", "recall") and df.empty:
            continue
        df.to_csv(tmp / f"{name}.csv", index=False, float_format="%.4g")
    runs = list(result.runs.run)
    figs = tmp / "figures"
    fig = figures.figure_categories(result.shares, runs, result.lexicon_band)
    figures.save(fig, figs / "categories")
    pngs = {"categories": (figs / "categories.png").read_bytes()}
    pair_labels = list(zip(result.pairs.run_a, result.pairs.run_b))
    heat = []
    d = result.differences
    groups = d[(d.level == "group") & (d.format == "all")]
    limit = max(10.0, float(groups.difference.abs().max())) if groups.difference.notna().any() else 10.0
    for cat in sorted(groups.category.unique()):
        fig = figures.figure_heatmap(d, cat, pair_labels, result.meta["statistics"]["alpha"], limit)
        figures.save(fig, figs / f"heatmap_{_slug(cat)}", tight=False)
        heat.append((cat, (figs / f"heatmap_{_slug(cat)}.png").read_bytes()))
    (tmp / "index.html").write_text(page.render(result, pngs, heat), encoding="utf-8")
    meta = {MARK: True, **result.meta}
    (tmp / "meta.json").write_text(json.dumps(meta, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


def write(result: Any, out: Path) -> Path:
    """Write into a temporary folder next to ``out`` and rename it into place.

    A folder not written by `stereoprobe compare` is never replaced.
    """
    from stereoprobe.store import replace_folder

    return replace_folder(Path(out), lambda tmp: _write_all(result, tmp), _is_ours, "stereoprobe compare")
