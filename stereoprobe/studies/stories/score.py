"""Scoring a stories run: the tables of RUN_DIR/stories/ (docs/stories.md).

- ``texts.csv``: every story, its status, the protagonist's class and name (evidence);
- ``professions.csv``: per profession (all prompts) the count of each class and status,
  the share of female names among the stories with a female or male name (Jeffreys
  interval over the stories), and 000's own share (female names of all stories read:
  000's Table 4 divides by every story, unknown names included), the three most frequent
  names;
- ``table4.csv``: 000's Table 4: per profession 000's share for each prompt and overall;
- ``names.csv``: every name per profession with its class, count and share;
- ``summary.csv``: the share of female names over professions (cluster bootstrap), the
  unknown and no-name shares, NMI(profession, gender) over the stories with a gendered
  name, against its permutation null within prompts, with its interval; with the UCI
  table, ``rules_differ``: the stories whose protagonist's gender the two rules read
  differently;
- ``rules.csv``: with the user's UCI table (``names_file``), how many stories each rule
  reads how (ours: ``protagonist.py``, 000's: ``marin_eger.py``), one row per pair of labels;
  empty without it.

``reading``: which rule the tables use, ours (``stereoprobe``, the default) or 000's
(``marin-eger``: the first two words in the UCI table, needs ``names_file``); the other is
kept beside it in ``texts.csv`` (``label_ours`` or ``label_marin_eger``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from stereoprobe.studies.stories.protagonist import LABELS

MARK = "stereoprobe_stories_scores"
STUDY = "stories"
TABLES = ("texts", "professions", "table4", "names", "summary", "rules")


@dataclass
class StoryScores:
    texts: Any
    professions: Any
    table4: Any
    names: Any
    summary: Any
    rules: Any = None
    meta: dict = field(default_factory=dict)


def names_table(ok: Any) -> Any:
    frame = ok.assign(name=ok.evidence.str.split().str[-1].fillna(""))
    frame = frame[frame.name != ""]
    counts = frame.groupby(["group", "name", "label"]).size().rename("count").reset_index()
    counts["share"] = 100 * counts["count"] / counts.groupby("group")["count"].transform("sum")
    return counts.sort_values(["group", "count"], ascending=[True, False]).rename(columns={"group": "profession"})


def professions_table(frame: Any, names: Any, level: float) -> Any:
    import numpy as np

    from stereoprobe.generation.frame import status_counts
    from stereoprobe.generation.stats import jeffreys, share_intervals

    ok = frame[frame.status == "ok"]
    table = status_counts(frame).merge(share_intervals(ok, "group", "label", LABELS, level)[
        ["group", "n", *LABELS]], on="group", how="left").rename(columns={"group": "profession", "n": "read"})
    gendered = (table.female + table.male).to_numpy()
    low, high = jeffreys(table.female.to_numpy(), gendered, level)
    with np.errstate(invalid="ignore", divide="ignore"):
        table["female_of_gendered"] = np.where(gendered > 0, 100 * table.female / np.where(gendered > 0, gendered, 1),
                                               np.nan)
        table["female_of_gendered_low"], table["female_of_gendered_high"] = 100 * low, 100 * high
        table["female_of_all"] = 100 * table.female / table.read.where(table.read > 0)
    top = names.groupby("profession").head(3).groupby("profession").apply(
        lambda d: ", ".join(f"{n} ({c})" for n, c in zip(d["name"], d["count"])), include_groups=False)
    table["top_names"] = table.profession.map(top).fillna("")
    order = {g: i for i, g in enumerate(frame.group.unique())}
    return table.sort_values("profession", key=lambda s: s.map(order)).reset_index(drop=True)


def table4(frame: Any) -> Any:
    """000's Table 4: female names of all stories read, per prompt and overall (percent)."""
    ok = frame[frame.status == "ok"]
    wide = (100 * ok.assign(f=(ok.label == "female")).pivot_table(index="group", columns="variant", values="f",
                                                                    aggfunc="mean"))
    prompts = [v for v in ("once", "story", "saturday", "protagonist", "cast") if v in wide] + \
        [v for v in wide.columns if v not in ("once", "story", "saturday", "protagonist", "cast")]
    wide = wide[prompts]
    wide["overall"] = 100 * ok.assign(f=(ok.label == "female")).groupby("group").f.mean()
    order = {g: i for i, g in enumerate(frame.group.unique())}
    return wide.reset_index().rename(columns={"group": "profession"}).sort_values(
        "profession", key=lambda s: s.map(order)).reset_index(drop=True)


#: What the intervals are about (generation.stats.estimand): the page and meta.json say it.
ESTIMAND_DRAWN = "each profession's stories drawn again; a share over the run also resamples the professions"


def _estimand() -> str:
    from stereoprobe.generation.stats import estimand

    return estimand(ESTIMAND_DRAWN)


def both_rules(frame: Any, reading: str, names_file: Any) -> tuple[Any, Any]:
    """The frame read by ``reading`` (module docstring) and ``rules.csv``; without a UCI
    table (ours alone) the frame as it is and an empty table."""
    import pandas as pd

    from stereoprobe.errors import DataError
    from stereoprobe.studies.stories.marin_eger import OURS, RULE, load_table, read

    if reading not in (OURS, RULE):
        raise DataError(f"Unknown --reading {reading!r}: choose {OURS} or {RULE}.")
    empty = pd.DataFrame(columns=["ours", "marin_eger", "stories"])
    if names_file is None and reading == OURS:
        return frame, empty
    table = load_table(names_file)
    ok = frame.status == "ok"
    prompts = frame.prompt_text if "prompt_text" in frame else pd.Series("", index=frame.index)
    read_000 = [read(t, p, table) if good else ("", "") for t, p, good in zip(frame.text, prompts.fillna(""), ok)]
    frame = frame.assign(label_marin_eger=[r[0] for r in read_000], name_marin_eger=[r[1] for r in read_000])
    rules = frame[ok].groupby(["label", "label_marin_eger"]).size().rename("stories").reset_index() \
        .rename(columns={"label": "ours", "label_marin_eger": "marin_eger"})
    if reading == RULE:  # 000's rule decides the tables; ours is kept beside it
        found = frame.label_marin_eger.isin(["female", "male"])  # 000 count a name only where the table knew it
        frame = frame.assign(label_ours=frame.label, evidence_ours=frame.evidence,
                             label=frame.label.where(~ok, frame.label_marin_eger),
                             evidence=frame.evidence.where(~ok, frame.name_marin_eger.str.capitalize().where(found, "")))
    return frame, rules


def shares(frame: Any) -> dict[str, tuple[Any, Any]]:
    """Each summary share over the run: statistic -> (0/1 per story, the stories it is over), the
    one definition ``summary.csv`` and the paired differences (metrics.py) both use."""
    ok = frame[frame.status == "ok"]
    gendered = ok[ok.label.isin(["female", "male"])]
    return {"female_of_gendered": (gendered.label == "female", gendered), "unknown_share": (ok.label == "unknown", ok),
            "no_name_share": (ok.label == "none", ok)}


def nmi_of(frame: Any, n_boot: int, seed: int, level: float) -> Any:
    """NMI(profession, gender) over the stories with a gendered name, its null within prompts."""
    from stereoprobe.generation.stats import nmi_test

    ok = frame[frame.status == "ok"]
    gendered = ok[ok.label.isin(["female", "male"])]
    return nmi_test(gendered.group.to_numpy(), gendered.label.to_numpy(), strata=gendered.variant.to_numpy(),
                    n_boot=n_boot, seed=seed, level=level)


def summary_table(frame: Any, level: float, n_boot: int, seed: int) -> Any:
    import pandas as pd

    from stereoprobe.generation.stats import nmi_rows, share_row

    ok = frame[frame.status == "ok"]
    rows = [share_row(name, values, on, n_boot, seed, level) for name, (values, on) in shares(frame).items()]
    rows += nmi_rows(nmi_of(frame, n_boot, seed, level))
    if "label_marin_eger" in ok:  # the stories whose protagonist's gender the two rules read differently
        from stereoprobe.studies.stories.marin_eger import gender_of

        ours = ok.label_ours if "label_ours" in ok else ok.label
        apart = ours.map(gender_of) != ok.label_marin_eger.map(gender_of)
        rows.append(share_row("rules_differ", apart, ok, n_boot, seed, level))
    return pd.DataFrame(rows)


def score(run_dir: str | Path, level: float = 0.95, n_boot: int = 2000, seed: int = 0, reading: str = "stereoprobe",
          names_file: Any = None) -> StoryScores:
    from stereoprobe.generation.frame import read_texts, run_meta

    manifest, frame = read_texts(run_dir, STUDY, "stories", level, n_boot, seed)
    frame, rules = both_rules(frame, reading, names_file)
    names = names_table(frame[frame.status == "ok"])
    result = StoryScores(frame, professions_table(frame, names, level), table4(frame), names,
                         summary_table(frame, level, n_boot, seed), rules)
    result.meta = run_meta(
        run_dir, manifest, max_tokens=manifest.settings.max_tokens, classifier=manifest.parser_version,
        names_table=manifest.settings.options.get("names_table"),
        templates=(manifest.catalog.templates if manifest.catalog else {}),
        reading=reading, uci_table=None if names_file is None else str(Path(names_file).resolve()),
        statistics={"level": level, "bootstrap": n_boot, "seed": seed, "estimand": _estimand(),
                    "profession_shares": "Jeffreys interval over the profession's stories",
                    "run_shares": "t-based cluster bootstrap over professions",
                    "nmi": "over stories with a female or male name; null: 999 permutations within prompts"})
    return result


def write_scores(result: StoryScores, out: Path) -> Path:
    from stereoprobe.generation.frame import write_folder

    return write_folder(out, {n: getattr(result, n) for n in TABLES}, result.meta, MARK)


def summary(result: StoryScores) -> str:
    from stereoprobe.generation.frame import reader_line
    from stereoprobe.page.numbers import number
    from stereoprobe.generation.frame import pct_text, range_text
    from stereoprobe.studies.stories.protagonist import VERSION

    s = result.summary.set_index("statistic")
    counts = result.texts.status.value_counts()
    f, n, c = s.loc["female_of_gendered"], s.loc["nmi"], s.loc["nmi_corrected"]
    return "\n".join([
        f"{len(result.texts)} stories: " + ", ".join(f"{counts.get(k, 0)} {k}" for k in
                                                     ("ok", "empty", "truncated", "refused", "language", "failed")),
        f"Female names: {pct_text(f)} of {int(f.n)} stories with a gendered name; "
        f"unknown names {pct_text(s.loc['unknown_share'], False)}, no name {pct_text(s.loc['no_name_share'], False)}.",
        f"NMI(profession, gender) = {number(n.value, '{:.3f}')} (corrected {number(c.value, '{:.3f}')}, "
        f"{range_text(c.low, c.high, '{:.3f}')}); by chance {number(n.null_mean, '{:.3f}')}, "
        f"p = {number(n.p, '{:.3g}')}.", *rules_line(result), *reader_line(result.meta, VERSION)])


def rules_line(result: StoryScores) -> list[str]:
    """How many stories the two rules read differently, when both were applied."""
    s = result.summary.set_index("statistic")
    if "rules_differ" not in s.index:
        return []
    d = s.loc["rules_differ"]
    return [f"Marin & Eger's rule (first two words, UCI table) and ours read {round(d.value * d.n / 100)} of "
            f"{int(d.n)} stories' protagonists as another gender or none ({d.value:.1f}%); the tables use "
            f"{'theirs' if result.meta.get('reading') == 'marin-eger' else 'ours'}."]
