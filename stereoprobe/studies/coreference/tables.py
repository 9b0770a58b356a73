"""000's Table 3, the professions behind inconsistent triples, and WinoBias-style accuracy.

- :func:`table3`: per template (Table 1's order) and ``Overall``: **incorrect** = answers
  that are not the expected one (U and refusals included) / all answers; **inconsistent**
  = complete triples whose three answers are not all the same / complete triples;
  **binary inconsistent** = triples whose he and she answers differ / triples with both.
  Each with its interval (stereoprobe.studies.coreference.inference), and the counts of
  refusals and U answers. As 000 notes, 100 pairs give 300 answers but 100 triples.
- :func:`inconsistent_professions`: per profession, the inconsistent triples it is in (as
  000 counts them: each inconsistent triple counts once for A and once for B, over all
  templates), out of the complete triples it is in.
- :func:`winobias`: per gendered pronoun, and for he and she pooled (``he+she``: WinoBias
  reports one gap), accuracy on pro- and anti-stereotypical prompts (labelled by the
  referent, see stereoprobe.studies.coreference.probes) and the gap pro - anti in points,
  paired on the pairs' bootstrap, with a t-test p (``gap_df``: its degrees of freedom) and
  BH q over the three rows. Book owner,
  whose pronoun does not refer to the right answer, is left out (criteria.in_criteria).
"""

from __future__ import annotations

from typing import Any, Sequence

from stereoprobe.studies.coreference.frame import BINARY, triple_table
from stereoprobe.studies.coreference.inference import Plan, difference, rate_table, replicates

OVERALL = "Overall"
METRICS = ("incorrect", "inconsistent", "binary_inconsistent")


def _by_template(plan: Plan, clusters: Any, num: Any, den: Any, templates: Any, order: Sequence[str]) -> Any:
    import pandas as pd

    codes = pd.Index(list(order)).get_indexer(templates)
    return rate_table(plan, clusters, num, den, codes, list(order), total=OVERALL)


def table3(frame: Any, plan: Plan, order: Sequence[str] | None = None) -> Any:
    """000's Table 3 with intervals: one row per template (``order``, default as they
    first appear) and ``Overall``; columns ``<metric>_{n,k,pct,low,high}`` for incorrect,
    inconsistent and binary_inconsistent, then ``refused`` and ``unknown`` counts.
    """
    import numpy as np
    import pandas as pd

    order = list(order) if order is not None else list(pd.unique(frame["template"]))
    triples = triple_table(frame)
    parts = {
        "incorrect": _by_template(plan, frame["cluster"], ~frame["correct"], np.ones(len(frame)),
                                  frame["template"], order),
        "inconsistent": _by_template(plan, triples["cluster"], triples["inconsistent"], triples["complete"],
                                     triples["template"], order),
        "binary_inconsistent": _by_template(plan, triples["cluster"], triples["binary_inconsistent"],
                                            triples["binary_complete"], triples["template"], order),
    }
    out = pd.concat({m: parts[m] for m in METRICS}, axis=1)
    out.columns = [f"{m}_{c}" for m, c in out.columns]
    counts = frame.assign(unknown=frame["answer"] == "U").groupby("template")[["refused", "unknown"]].sum()
    counts.loc[OVERALL] = counts.sum()
    out = out.join(counts.reindex(out.index).fillna(0).astype(int))
    out.index.name = "template"
    return out.reset_index()


def inconsistent_professions(frame: Any, top: int | None = None) -> Any:
    """Professions by the number of inconsistent triples they are in (most first, then by name)."""
    import pandas as pd

    triples = triple_table(frame)
    done = triples[triples["complete"]]
    long = pd.concat([done[["profession_a", "inconsistent"]].set_axis(["profession", "inconsistent"], axis=1),
                      done[["profession_b", "inconsistent"]].set_axis(["profession", "inconsistent"], axis=1)])
    out = long.groupby("profession").agg(inconsistent=("inconsistent", "sum"), triples=("inconsistent", "size"))
    out["pct"] = 100 * out["inconsistent"] / out["triples"]
    out = out.reset_index().sort_values(["inconsistent", "profession"], ascending=[False, True], kind="stable")
    out["inconsistent"] = out["inconsistent"].astype(int)
    return (out.head(top) if top else out).reset_index(drop=True)


def winobias(frame: Any, plan: Plan, pronouns: Sequence[str] = BINARY) -> Any:
    """Per pronoun and pooled (``he+she``): accuracy (%) on pro- and anti-stereotypical prompts
    with intervals, the gap pro - anti (points) with its interval, p and BH q (over the rows)."""
    import numpy as np
    import pandas as pd

    from stereoprobe.stats import bh
    from stereoprobe.studies.coreference.criteria import in_criteria
    from stereoprobe.studies.coreference.paired import contrast_df

    frame = in_criteria(frame)
    rows = []
    for p in [*pronouns, *(["+".join(pronouns)] if len(pronouns) > 1 else [])]:
        sub = frame[frame["pronoun"].isin(p.split("+")) & frame["stereotype"].isin(["pro", "anti"])]
        keys = (sub["stereotype"] == "anti").to_numpy().astype(np.int64)  # 0 pro, 1 anti
        acc = rate_table(plan, sub["cluster"], sub["correct"], np.ones(len(sub)), keys, ["pro", "anti"])
        est, reps, _, mden = replicates(plan, sub["cluster"], sub["correct"], np.ones(len(sub)), keys, 2)
        gap = difference(plan, est, reps, 0, 1, mden)
        gap_df = contrast_df(plan, reps, [1.0, -1.0], mden) if gap["low"] == gap["low"] else np.nan
        row: dict[str, Any] = {"pronoun": p}
        for kind in ("pro", "anti"):
            for col in ("n", "pct", "low", "high"):
                row[f"{kind}_{col}"] = acc.loc[kind, col]
        row.update({"gap": gap["difference"], "gap_low": gap["low"], "gap_high": gap["high"], "gap_df": gap_df,
                    "p": gap["p"]})
        rows.append(row)
    out = pd.DataFrame(rows)
    out["q"] = bh(out["p"].to_numpy()) if len(out) else []
    return out
