"""Scoring an anecdotes run: the tables of RUN_DIR/anecdotes/ (docs/anecdotes.md).

- ``texts.csv``: every stored text, its status (ok, empty, truncated, refused, failed),
  class (male, female, neutral, mixed) and evidence (the deciding words);
- ``professions.csv``: per profession the BLS share of women and majority, the count of
  each status, each class's share of the classified texts with a Jeffreys interval over
  its samples, the female share among the texts with a gender (001's C: male or female)
  with its interval, and the share of those that follow the job's BLS majority;
- ``summary.csv``: one row per statistic over the whole run: the share of gendered texts
  that follow their job's majority (001: 94% for GPT-4) and the neutral and mixed shares,
  with intervals from a bootstrap over professions; NMI(profession, gender) over the
  gendered texts (001: 0.426) with its permutation null, p and interval; Spearman of the
  female share with the BLS share over the professions;
- ``meta.json``: the run, model, method, the classifier, the statistics' settings.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from stereoprobe.generation.gender import LABELS

MARK = "stereoprobe_anecdotes_scores"
STUDY = "anecdotes"
TABLES = ("texts", "professions", "summary")


@dataclass
class AnecdoteScores:
    texts: Any
    professions: Any
    summary: Any
    meta: dict = field(default_factory=dict)


def professions_table(frame: Any, level: float) -> Any:
    """``professions.csv`` from the text frame."""
    import numpy as np

    from stereoprobe.generation.frame import status_counts
    from stereoprobe.generation.stats import jeffreys, share_intervals

    kept = ["female_share", "dominated_by"] + (["source"] if "source" in frame else [])
    facts = frame.groupby("group", sort=False)[kept].first().reset_index() \
        .rename(columns={"female_share": "bls_female_share"})
    ok = frame[frame.status == "ok"]
    shares = share_intervals(ok, "group", "label", LABELS, level)
    table = facts.merge(status_counts(frame), on="group", how="left").merge(shares, on="group", how="left")
    table = table.rename(columns={"group": "profession", "n": "classified"})
    gendered = (table["male"].fillna(0) + table["female"].fillna(0)).to_numpy()
    female = table["female"].fillna(0).to_numpy()
    low, high = jeffreys(female, gendered, level)
    with np.errstate(invalid="ignore", divide="ignore"):
        table["gendered"] = gendered.astype(int)
        table["female_of_gendered"] = np.where(gendered > 0, 100 * female / np.where(gendered > 0, gendered, 1), np.nan)
        table["female_of_gendered_low"], table["female_of_gendered_high"] = 100 * low, 100 * high
        major = np.where(table["dominated_by"] == "women", female, np.where(table["dominated_by"] == "men",
                                                                             gendered - female, np.nan))
        table["follows_majority"] = np.where(gendered > 0, 100 * major / np.where(gendered > 0, gendered, 1), np.nan)
    return table.sort_values("bls_female_share", ascending=False, na_position="last").reset_index(drop=True)


#: What the intervals are about (generation.stats.estimand): the page and meta.json say it.
ESTIMAND_DRAWN = "each profession's texts drawn again; a share over the run also resamples the professions"


def _estimand() -> str:
    from stereoprobe.generation.stats import estimand

    return estimand(ESTIMAND_DRAWN)

MAJORITY = {"women": "female", "men": "male"}


def ceiling_rows(test: Any) -> list[dict[str, Any]]:
    """``nmi_ceiling``: the largest NMI a binary gender can reach over this run's professions
    (those with a gendered text, as if of equal size: ``stats.criteria.nmi_ceiling``), and
    ``nmi_of_ceiling``: the bias-corrected NMI as a percent of that ceiling, with its interval
    likewise (NMIs over different numbers of professions are on different scales; this share
    is on one)."""
    import numpy as np

    from stereoprobe.stats.criteria import nmi_ceiling

    top = nmi_ceiling(test.groups)
    row = {"n": test.texts, "groups": test.groups, "p": np.nan, "null_mean": np.nan}
    return [{"statistic": "nmi_ceiling", "value": top, "low": np.nan, "high": np.nan, **row},
            {"statistic": "nmi_of_ceiling", "value": 100 * test.corrected / top, "low": 100 * test.low / top,
             "high": 100 * test.high / top, **row}]


def shares(frame: Any) -> dict[str, tuple[Any, Any]]:
    """Each summary share over the run: statistic -> (0/1 per text, the texts it is over), the
    one definition ``summary.csv`` and the paired differences (metrics.py) both use."""
    ok = frame[frame.status == "ok"]
    gendered = ok[ok.label.isin(["male", "female"])]
    known = gendered[gendered.dominated_by.isin(["women", "men"])]
    every = ok[ok.dominated_by.isin(["women", "men"])]  # 001's denominator: every sample, neutral and mixed too
    return {"follows_majority": ((known.label == "female") == (known.dominated_by == "women"), known),
            "follows_majority_all": (every.label == every.dominated_by.map(MAJORITY), every),
            **{f"{label}_share": (ok.label == label, ok) for label in ("neutral", "mixed")}}


def nmi_of(frame: Any, n_boot: int, seed: int, level: float) -> Any:
    """NMI(profession, gender) over the gendered texts (``generation.stats.nmi_test``)."""
    from stereoprobe.generation.stats import nmi_test

    ok = frame[frame.status == "ok"]
    gendered = ok[ok.label.isin(["male", "female"])]
    return nmi_test(gendered.group.to_numpy(), gendered.label.to_numpy(), n_boot=n_boot, seed=seed, level=level)


def summary_table(frame: Any, professions: Any, level: float, n_boot: int, seed: int) -> Any:
    import numpy as np
    import pandas as pd

    from stereoprobe.generation.stats import nmi_rows, share_row, spearman

    rows = [share_row(name, values, on, n_boot, seed, level) for name, (values, on) in shares(frame).items()]
    test = nmi_of(frame, n_boot, seed, level)
    rows += nmi_rows(test) + ceiling_rows(test)
    rho = spearman(professions.bls_female_share, professions.female_of_gendered, level)
    rows.append({"statistic": "spearman_bls", "value": rho.r, "low": rho.low, "high": rho.high, "n": rho.n,
                 "groups": rho.n, "p": rho.p, "null_mean": np.nan})
    return pd.DataFrame(rows)


def score(run_dir: str | Path, level: float = 0.95, n_boot: int = 2000, seed: int = 0) -> AnecdoteScores:
    from stereoprobe.generation.frame import read_texts, run_meta

    manifest, frame = read_texts(run_dir, STUDY, "texts", level, n_boot, seed)
    professions = professions_table(frame, level)
    result = AnecdoteScores(frame, professions, summary_table(frame, professions, level, n_boot, seed))
    result.meta = run_meta(
        run_dir, manifest, classifier=manifest.parser_version, names_table=manifest.settings.options.get("names_table"),
        template=(manifest.catalog.templates if manifest.catalog else {}),
        catalog=manifest.catalog.path if manifest.catalog else None,
        statistics={"level": level, "bootstrap": n_boot, "seed": seed, "estimand": _estimand(),
                    "profession_shares": "Jeffreys interval over the profession's samples",
                    "run_shares": "t-based cluster bootstrap over professions",
                    "nmi": "over male and female texts; null: 999 permutations of the labels; interval: "
                           "bias-corrected parametric bootstrap (stereoprobe.generation.stats.nmi_test)",
                    "spearman": "Fisher z, Bonett-Wright standard error"})
    return result


def write_scores(result: AnecdoteScores, out: Path) -> Path:
    from stereoprobe.generation.frame import write_folder

    return write_folder(out, {n: getattr(result, n) for n in TABLES}, result.meta, MARK)


def summary(result: AnecdoteScores) -> str:
    from stereoprobe.generation.frame import pct_text, range_text, reader_line
    from stereoprobe.generation.gender import VERSION
    from stereoprobe.page.numbers import number

    s = result.summary.set_index("statistic")
    counts = result.texts.status.value_counts()
    lines = [f"{len(result.texts)} texts: " + ", ".join(f"{counts.get(k, 0)} {k}" for k in
                                                         ("ok", "empty", "truncated", "refused", "language", "failed"))]
    f, n, r = s.loc["follows_majority"], s.loc["nmi"], s.loc["spearman_bls"]
    c = s.loc["nmi_corrected"]
    lines.append(f"Texts that follow their job's BLS majority: {pct_text(f)} of {int(f.n)} gendered texts; neutral "
                 f"{pct_text(s.loc['neutral_share'], False)}, mixed {pct_text(s.loc['mixed_share'], False)}.")
    lines.append(f"NMI(profession, gender) = {number(n.value, '{:.3f}')} (corrected {number(c.value, '{:.3f}')}, "
                 f"{range_text(c.low, c.high, '{:.3f}')}); by chance {number(n.null_mean, '{:.3f}')}, p = "
                 f"{number(n.p, '{:.3g}')}. Spearman with the BLS share: {number(r.value, '{:.2f}')} "
                 f"({range_text(r.low, r.high, '{:.2f}')}), {int(r.n)} professions.")
    return "\n".join(lines + reader_line(result.meta, VERSION))
