"""Compare runs side by side: models, prompts, samples and people (docs/compare.md).

    >>> import stereoprobe
    >>> result = stereoprobe.studies.fillin.compare(["runs/gpt-4o-mini", "runs/gemma"])   # doctest: +SKIP
    >>> result.differences.query("level == 'category' and format == 'all'")  # doctest: +SKIP

:func:`compare` scores every run with one labeller, aligns them on probe ids and
computes, for every pair of runs, paired differences of negative shares with intervals,
tests and verdicts (:mod:`stereoprobe.studies.fillin.compare.paired`); against a baseline run of people
also amplification and recall (:mod:`stereoprobe.studies.fillin.compare.human`); with ``lexicons`` the
band of shares across lexicons (:mod:`stereoprobe.studies.fillin.compare.lexicons`).
:func:`write_comparison` writes the CSV tables, figures and ``index.html``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

from stereoprobe.studies.fillin.compare.paired import Settings

__all__ = ["ComparisonResult", "Settings", "compare", "write_comparison"]


@dataclass
class ComparisonResult:
    """DataFrames of one comparison, and what it was made with."""

    runs: Any  # per run: probes, records, common_all, missing_vs_others, ...
    pairs: Any  # per pair: common, only_a, only_b
    differences: Any  # differences.csv
    shares: Any  # per run, level (all/category), format: share with interval
    amplification: Any
    recall: Any
    lexicons: Any | None = None  # per run, category, lexicon
    lexicon_band: Any | None = None
    meta: dict[str, Any] = field(default_factory=dict)
    loaded: list[Any] = field(default_factory=list, repr=False)  # stereoprobe.studies.fillin.compare.runs.Run

    def summary(self) -> str:
        """A few lines for the terminal: alignment and what was found per pair."""
        lines = [f"Labeller: {self.meta['labeller']['description']}"]
        for r in self.runs.itertuples():
            lines.append(f"  {r.run}: {r.probes:,} probes ({r.missing_vs_others:,} that other runs have are missing)")
        d = self.differences
        for p in self.pairs.itertuples():
            sub = d[(d.run_a == p.run_a) & (d.run_b == p.run_b)]
            overall = sub[(sub.level == "all") & (sub.format == "all")].iloc[0]
            groups = sub[(sub.level == "group") & (sub.format == "all")]
            flagged = int((groups.verdict != "not distinguishable").sum())
            lines.append(
                f"{p.run_a} vs {p.run_b}: {p.common:,} common probes; negative {overall.negative_a:.1f}% vs "
                f"{overall.negative_b:.1f}% (difference {overall.difference:+.1f} points, "
                f"{overall.ci_low:+.1f} to {overall.ci_high:+.1f}): {overall.verdict}; "
                f"{flagged} of {len(groups)} groups differ"
            )
        return "\n".join(lines)


def compare(
    runs: Sequence[str | Path],
    lexicon: str | Path | None = None,
    overrides: str | Path | None = None,
    synonyms: bool = True,
    lexicons: str | Sequence[str] | None = None,
    settings: Settings | None = None,
    write_missing_sentiment: bool = True,
) -> ComparisonResult:
    """Compare two or more run directories (see the module docstring and docs/compare.md)."""
    import pandas as pd

    from stereoprobe import __version__
    from stereoprobe.studies.fillin.compare import human, paired
    from stereoprobe.studies.fillin.compare import lexicons as lex_mod
    from stereoprobe.studies.fillin.compare.runs import alignment, load_runs, pairs
    from stereoprobe.studies.fillin.lexicon import load_lexicon
    from stereoprobe.studies.fillin.sentiment import Labeller
    from stereoprobe.store import now_iso

    settings = settings or Settings()
    names = lex_mod.parse_names(lexicons)
    lexi = load_lexicon(lexicon, overrides)
    labeller = Labeller(lexi, synonyms=synonyms)
    loaded = load_runs(runs, labeller, write_missing=write_missing_sentiment)
    per_run, per_pair = alignment(loaded)
    diffs = []
    for a, b in pairs(loaded):
        weighting = "probes" if a.is_baseline or b.is_baseline else "words"
        rows = paired.aligned(a.probes, b.probes, weighting)
        diffs.append(paired.pair_differences(a.name, b.name, rows, settings, weighting))
    differences = pd.concat(diffs, ignore_index=True)
    shares = pd.concat([paired.run_shares(r.name, r.probes, settings) for r in loaded], ignore_index=True)
    table = band = None
    if names:
        ref = shares[(shares.level != "group") & (shares.format == "all")][["run", "category", "negative"]]
        table, band = lex_mod.shares_by_lexicon(loaded, names, synonyms, ref.rename(columns={"negative": "reference"}))
    meta = {
        "runs": [{"run": r.name, "path": str(r.path.resolve()), "model": r.model, "baseline": r.is_baseline,
                  "wrote_sentiment": r.wrote_sentiment} for r in loaded],
        "labeller": {"lexicon": lexi.meta(), "synonyms": synonyms, "description": _describe(lexi, synonyms)},
        "lexicons": names or None,
        "statistics": {**settings.meta(), "weighting": {
            "words": "pairs of models: shares over counted words, as in Table 4, on the common probes",
            "probes": "a model against people: every common probe with counted words in both runs counts once"}},
        "stereoprobe_version": __version__,
        "created_at": now_iso(),
    }
    return ComparisonResult(
        runs=per_run, pairs=per_pair, differences=differences, shares=shares,
        amplification=human.amplification(differences, loaded), recall=human.recall(loaded),
        lexicons=table, lexicon_band=band, meta=meta, loaded=loaded,
    )


def _describe(lexi: Any, synonyms: bool) -> str:
    return f"{lexi.describe()}; synonym fallback {'on' if synonyms else 'off'} (one labeller for every run)"


def write_comparison(result: ComparisonResult, out_dir: str | Path) -> Path:
    """Write tables (CSV), figures (PNG, SVG), index.html and meta.json into ``out_dir``."""
    from stereoprobe.studies.fillin.compare.output import write

    return write(result, Path(out_dir))
