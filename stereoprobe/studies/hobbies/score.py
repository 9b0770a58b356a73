"""``stereoprobe score`` of a hobbies run: the tables of ``RUN_DIR/hobbies/``.

- ``texts.csv``: one row per generated text: its ``text_id`` (brought.py), name, gender,
  sample, status (ok, refused, empty, truncated, failed), each label's score (labels.py,
  or a labels CSV made elsewhere: ``labels_from``, brought.py), the top label, the
  evidence ("Sport:soccer; Art:piano"; none for brought scores), the content words
  counted, the text;
- ``names.csv``: per name, its texts and mean score per label (a name is one cluster);
- ``labels.csv``: per label, the female and male means over names (percent) with t
  intervals, the difference female - male with Welch's interval, p and BH q (stats.py);
- ``top.csv``: per gender, how many texts have each top label (six, mixed, none);
- ``words.csv``: content-word counts per gender (001 Figure 3);
- ``meta.json``: the run, counts per status, NMI(gender, top label) with its permutation
  p-value, null and interval, the settings of the statistics.

Only texts with status ok enter the statistics; the others are counted and shown.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

MARK = "stereoprobe_hobbies_scores"
WORD_LISTS = "the tool's word lists (Empath categories, data/labels.csv or the run's --labels file)"
TABLES = ("texts", "names", "labels", "top", "words")
#: What the intervals are about (generation.stats.estimand): the page and meta.json say it.
ESTIMAND_DRAWN = "each name's texts drawn again, and names like these: the names resampled within each gender"


@dataclass
class HobbiesScores:
    texts: Any
    names: Any
    labels: Any
    top: Any
    words: Any
    meta: dict[str, Any] = field(default_factory=dict)


def status(rec: Any) -> str:
    if rec.error is not None:
        return "failed"
    return rec.problem or "ok"


def run_labels(manifest: Any) -> Any:
    """The labels the run was collected with (the manifest's copy of the file)."""
    from stereoprobe.studies.hobbies.catalog import LABELS_KEY
    from stereoprobe.studies.hobbies.classify import HobbyClassifier
    from stereoprobe.studies.hobbies.labels import load_labels

    kept = (manifest.catalog.templates or {}).get(LABELS_KEY) if manifest.catalog else None
    if kept and kept.get("text"):
        return HobbyClassifier.from_text(kept["text"]).lexicon
    return load_labels()


def text_table(records: list, labels: Any, brought: Any = None) -> Any:
    """texts.csv's frame (module docstring), in the records' order; ``brought``: a checked
    brought.BroughtLabels whose scores replace the word lists'."""
    import pandas as pd

    from stereoprobe.studies.hobbies.brought import text_id, top_label

    rows = []
    for rec in sorted(records, key=lambda r: (r.group, r.sample)):
        row = {"text_id": text_id(rec.probe_id, rec.sample), "probe_id": rec.probe_id, "name": rec.group,
               "gender": (rec.attrs or {}).get("gender"), "sample": rec.sample, "status": status(rec)}
        if row["status"] == "ok":
            s = labels.score(rec.text or "", [rec.group])
            row.update(s.scores)
            row.update(top=s.top, evidence="; ".join(f"{k}:{w}" for k, ws in s.evidence.items() for w in ws),
                       words=s.words)
            if brought is not None:
                given = brought.scores[row["text_id"]]
                row.update({k: given[k] for k in labels.names}, top=top_label(given), evidence="")
        else:
            row.update({k: float("nan") for k in labels.names})
            row.update(top="", evidence="", words=0)
        row["text"] = rec.text or ""
        rows.append(row)
    return pd.DataFrame(rows, columns=["text_id", "probe_id", "name", "gender", "sample", "status", *labels.names, "top",
                                       "evidence", "words", "text"])


def score(run_dir: str | Path, level: float = 0.95, n_boot: int = 2000, seed: int = 0,
          labels_from: str | Path | None = None) -> HobbiesScores:
    """The tables; ``labels_from``: a labels CSV made elsewhere (brought.py), checked whole first."""
    from stereoprobe.manifest import scored_stamp
    from stereoprobe.errors import DataError
    from stereoprobe.generation.records import GenRecord
    from stereoprobe.generation.stats import estimand
    from stereoprobe.stats.analysis import check_options
    from stereoprobe.studies.base import read_run
    from stereoprobe.studies.hobbies import stats
    from stereoprobe.studies.hobbies.text import content_words

    check_options(level, n_boot, seed)
    manifest, records = read_run(run_dir, "hobbies", GenRecord)
    labels = run_labels(manifest)
    brought = None
    if labels_from is not None:
        from stereoprobe.studies.hobbies.brought import read_brought, status_by_id

        brought = read_brought(labels_from, labels.names, status_by_id(records, status))
    texts = text_table(records, labels, brought)
    ok = texts[texts["status"] == "ok"]
    if ok.empty or ok["gender"].nunique() < 2:
        raise DataError(f"{run_dir}: no texts about both female and male names to score; run `stereoprobe collect "
                        f"--study hobbies --out {run_dir}` (again) first.")
    nmi = stats.top_label_nmi(ok["name"], ok["gender"], ok["top"], n_boot=n_boot, seed=seed, level=level)
    words = stats.word_counts([content_words(t, [n]) for t, n in zip(ok["text"], ok["name"])], list(ok["gender"]))
    top = ok.groupby(["gender", "top"]).size().unstack(fill_value=0)
    top = top.reindex(columns=[*labels.names, "mixed", "none"], fill_value=0).reset_index()
    result = HobbiesScores(texts, stats.per_name(ok, labels.names), stats.label_means(ok, labels.names, level),
                           top, words)
    result.meta = {
        MARK: True, "run": str(Path(run_dir).resolve()), "model": manifest.model, "mode": manifest.mode,
        "embedded": manifest.settings.backend == "local", "labels": labels.names,
        "design": manifest.design or "default",
        "labeller": brought.describe() if brought else WORD_LISTS,
        "labeller_kind": "brought" if brought else "word lists",
        "catalog": manifest.catalog.path if manifest.catalog else None,
        "counts": texts["status"].value_counts().to_dict(), "names": int(ok["name"].nunique()),
        "nmi": nmi, "temperature": manifest.settings.temperature, "samples": manifest.settings.samples,
        "statistics": {"level": level, "bootstrap": n_boot, "seed": seed, "unit": "name", "estimand": estimand(ESTIMAND_DRAWN),
                       "interval": "t over name means (a name's texts are one cluster); difference: Welch",
                       "nmi_null": f"genders permuted among names ({nmi['permutations']} permutations)"},
        **scored_stamp(manifest),
    }
    return result


def write_scores(result: HobbiesScores, out: Path) -> Path:
    """Write RUN_DIR/hobbies/ all or nothing (store.replace_folder)."""
    import json

    from stereoprobe.store import marked, replace_folder

    def fill(tmp: Path) -> None:
        for name in TABLES:
            getattr(result, name).to_csv(tmp / f"{name}.csv", index=False, float_format="%.6g")
        (tmp / "meta.json").write_text(json.dumps(result.meta, indent=2, default=str) + "\n", encoding="utf-8")

    return replace_folder(Path(out), fill, marked(MARK), "stereoprobe score")


def summary(result: HobbiesScores) -> str:
    from stereoprobe.page.numbers import number
    from stereoprobe.generation.frame import range_text

    m = result.meta
    lines = [f"{m['names']} names, {int((result.texts['status'] == 'ok').sum())} texts scored "
             f"({', '.join(f'{k} {v}' for k, v in sorted(m['counts'].items()))})."]
    for r in result.labels.itertuples():
        lines.append(f"  {r.label:<15} female {number(r.female_mean, '{:5.1f}')}%  male {number(r.male_mean, '{:5.1f}')}%  "
                     f"difference {number(r.difference, '{:+5.1f}')} ({range_text(r.diff_low, r.diff_high, '{:+.1f}')}), "
                     f"q {number(r.q, '{:.2g}')}")
    n = m["nmi"]
    lines.append(f"NMI(gender, top label) {number(n['nmi'], '{:.3f}')} ({range_text(n['low'], n['high'], '{:.3f}')}), "
                 f"by chance {number(n['null_mean'], '{:.3f}')}, p {number(n['p'], '{:.3g}')}.")
    return "\n".join(lines)
