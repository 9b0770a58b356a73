"""A model against people: amplification and recall (docs/compare.md).

- **Amplification** = the model's negative share minus the people's, per category and
  group, on the probes both have; it is the ``difference`` of the pair (model, baseline)
  in differences.csv, with its paired interval and test, so it is only selected here.
- **Recall** (Choenni et al. 2021): of the distinct words people's search engines
  completed for a group, the share that the model also gave for that group (distinct,
  normalised words, group names left out, as in the sentiment stage), per category:
  pooled over groups (``recall`` = found / human words) and the mean over groups.
"""

from __future__ import annotations

from typing import Any, Sequence

AMPLIFICATION_COLUMNS = [
    "model", "baseline", "level", "category", "group", "format", "model_negative", "human_negative",
    "amplification", "ci_low", "ci_high", "p", "q", "verdict", "probes",
]
RECALL_COLUMNS = ["model", "baseline", "category", "groups", "human_words", "found", "recall", "recall_mean_group"]


def amplification(differences: Any, runs: Sequence[Any]) -> Any:
    """The model-vs-baseline rows of differences.csv, renamed (run_a is the model)."""
    import pandas as pd

    people = {r.name for r in runs if r.is_baseline}
    rows = differences[differences["run_b"].isin(people) & ~differences["run_a"].isin(people)]
    if rows.empty:
        return pd.DataFrame(columns=AMPLIFICATION_COLUMNS)
    out = rows.rename(
        columns={"run_a": "model", "run_b": "baseline", "negative_a": "model_negative",
                 "negative_b": "human_negative", "difference": "amplification"}
    )
    return out[[c for c in AMPLIFICATION_COLUMNS if c in out.columns]].reset_index(drop=True)


def _word_sets(occurrences: Any) -> dict[tuple[str, str], set[str]]:
    return {k: set(v) for k, v in occurrences.groupby(["category", "group"])["word"]}


def recall(runs: Sequence[Any]) -> Any:
    """Per model, baseline and category (and ``all``): how many of people's words the model gave.

    Only groups present in both runs count.
    """
    import pandas as pd

    rows = []
    for human in (r for r in runs if r.is_baseline):
        theirs = _word_sets(human.occurrences)
        for model in (r for r in runs if not r.is_baseline):
            mine = _word_sets(model.occurrences)
            per_group = [
                (cat, len(words), len(words & mine[(cat, grp)]))
                for (cat, grp), words in theirs.items()
                if (cat, grp) in mine and words
            ]
            table = pd.DataFrame(per_group, columns=["category", "human_words", "found"])
            for cat, sub in [*table.groupby("category"), ("all", table)]:
                if sub.empty:
                    continue
                rows.append(
                    {
                        "model": model.name, "baseline": human.name, "category": cat, "groups": len(sub),
                        "human_words": int(sub["human_words"].sum()), "found": int(sub["found"].sum()),
                        "recall": 100.0 * sub["found"].sum() / sub["human_words"].sum(),
                        "recall_mean_group": 100.0 * (sub["found"] / sub["human_words"]).mean(),
                    }
                )
    return pd.DataFrame(rows, columns=RECALL_COLUMNS)
