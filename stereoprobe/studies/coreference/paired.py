"""Paired differences between two sets of answers to the same prompts: two runs (two models,
or with and without a debiasing prefix) or two prefixes of one run.

The answers are aligned on the prompt (template, profession A, profession B, pronoun: the
prefix is part of the text, so not of the key); only prompts answered on both sides
count. Every measure of docs/coreference.md is compared, side B minus side A, in points:

- ``incorrect`` per template and ``Overall``, and per pronoun;
- ``inconsistent`` and ``binary_inconsistent`` per template and ``Overall`` (triples);
- ``winobias_gap`` per gendered pronoun (a difference of differences: the gap pro - anti
  of B minus A's);
- ``fnr``, ``fpr``, ``ppv``, ``npv`` per pronoun (Sterlie et al.).

Both sides are resampled together (one plan over the profession pairs both have: the
rates of both come from the same resampled pairs), so each difference is paired; its interval and p-value come from ``inference.contrast`` and the
q-values are Benjamini-Hochberg over the table; ``df`` is the degrees of freedom of its t
interval (:func:`contrast_df`; the release gate reads the p-value's tails from it).
``changed`` gives the share of prompts whose answer differs between the two sides, with
its interval.
"""

from __future__ import annotations

from typing import Any, Sequence

from stereoprobe.studies.coreference.criteria import PRONOUNS, RATES, in_criteria
from stereoprobe.studies.coreference.frame import BINARY, triple_table
from stereoprobe.studies.coreference.inference import Plan, contrast, rate_table, replicates

KEY = ["template", "profession_a", "profession_b", "pronoun"]
OVERALL = "Overall"
COLUMNS = ["measure", "template", "pronoun", "pct_a", "pct_b", "difference", "low", "high", "df", "p", "n", "q"]


def align(a: Any, b: Any) -> tuple[Any, Any]:
    """The rows of two answer frames whose prompt (``KEY``) both have, in the same order."""
    keys = a[KEY].merge(b[KEY], on=KEY)
    return keys.merge(a, on=KEY, how="left"), keys.merge(b, on=KEY, how="left")


def _pairs(plan: Plan, parts: Sequence[tuple[Any, Any, Any, Any]], n_keys: int) -> tuple[Any, Any, Any]:
    """Replicates of side A's and side B's rates per key: column 2k is A's key k, 2k+1 B's."""
    import numpy as np

    clusters = np.concatenate([np.asarray(c, dtype=object) for c, _, _, _ in parts])
    num = np.concatenate([np.asarray(x, dtype=np.float64) for _, x, _, _ in parts])
    den = np.concatenate([np.asarray(x, dtype=np.float64) for _, _, x, _ in parts])
    keys = np.concatenate([2 * np.asarray(k, dtype=np.int64) + side for side, (_, _, _, k) in enumerate(parts)])
    est, reps, _, mden = replicates(plan, clusters, num, den, keys, 2 * n_keys)
    return est, reps, mden


def contrast_df(plan: Plan, reps: Any, weights: Any, contributing: Any) -> float:
    """The degrees of freedom of ``inference.contrast``'s t interval for the same arguments:
    the crossed plan's, over the jobs with answers in every rate the contrast uses (the
    pairs' minus 1 where the variance is floored at theirs); NaN where it has no interval.
    tests/test_gate_family.py checks it against the interval and p-value contrast returns."""
    import numpy as np

    weights = np.asarray(weights, dtype=np.float64)
    used = weights != 0
    both = (contributing[:, used] > 0).all(axis=1)
    if int(both.sum()) < 2:
        return float("nan")
    with np.errstate(invalid="ignore"):
        rd = np.where(used, reps, 0.0) @ weights
    rd[np.isnan(reps[:, used]).any(axis=1)] = np.nan
    return float(plan.crossed.variance(rd[:, None], both[:, None])[1][0])


def _contrast(plan: Plan, est: Any, reps: Any, weights: Any, contributing: Any) -> dict[str, float]:
    """``inference.contrast`` with the degrees of freedom of its interval (NaN where it has none)."""
    out = contrast(plan, est, reps, weights, contributing)
    return {**out, "df": contrast_df(plan, reps, weights, contributing) if out["low"] == out["low"] else float("nan")}


def _rows(measure: str, labels: Sequence[tuple[str, str]], est: Any, reps: Any, mden: Any, plan: Plan) -> list[dict]:
    import numpy as np

    out = []
    for k, (template, pronoun) in enumerate(labels):
        weights = np.zeros(len(est))
        weights[2 * k], weights[2 * k + 1] = -1.0, 1.0
        out.append({"measure": measure, "template": template, "pronoun": pronoun, "pct_a": est[2 * k],
                    "pct_b": est[2 * k + 1], **_contrast(plan, est, reps, weights, mden),
                    "n": int(round(min(mden[:, 2 * k].sum(), mden[:, 2 * k + 1].sum())))})
    return out


def _by(plan: Plan, fa: Any, fb: Any, measure: str, num: Any, den: Any, group: str, names: Sequence[str],
        overall: bool) -> list[dict]:
    """Rates per ``group`` value (and Overall) on both sides, differenced."""
    import numpy as np
    import pandas as pd

    index = pd.Index(list(names))
    parts = [(f["cluster"], num(f), den(f), index.get_indexer(f[group])) for f in (fa, fb)]
    rows = _rows(measure, [(n, "all") if group == "template" else ("all", n) for n in names],
                 *_pairs(plan, parts, len(names)), plan)
    if overall:
        parts = [(f["cluster"], num(f), den(f), np.zeros(len(f), np.int64)) for f in (fa, fb)]
        rows += _rows(measure, [(OVERALL, "all")], *_pairs(plan, parts, 1), plan)
    return rows


def paired_differences(fa: Any, fb: Any, plan: Plan, order: Sequence[str] | None = None) -> Any:
    """Every measure of side B minus side A (module docstring), for two aligned frames."""
    import numpy as np
    import pandas as pd

    from stereoprobe.stats import bh

    order = list(order) if order is not None else list(pd.unique(fa["template"]))
    ones = lambda f: np.ones(len(f))  # noqa: E731
    rows = _by(plan, fa, fb, "incorrect", lambda f: ~f["correct"].to_numpy(bool), ones, "template", order, True)
    ta, tb = triple_table(fa), triple_table(fb)  # the same triples: the frames hold the same prompts
    for m, den in (("inconsistent", "complete"), ("binary_inconsistent", "binary_complete")):
        rows += _by(plan, ta, tb, m, lambda t, m=m: t[m].to_numpy(float), lambda t, d=den: t[d].to_numpy(float),
                    "template", order, True)
    pronouns = [p for p in PRONOUNS if (fa["pronoun"] == p).any()]
    rows += _by(plan, fa, fb, "incorrect", lambda f: ~f["correct"].to_numpy(bool), ones, "pronoun", pronouns, False)
    for p in [p for p in BINARY if p in pronouns]:
        sides = [f[(f["pronoun"] == p) & f["stereotype"].isin(["pro", "anti"])] for f in map(in_criteria, (fa, fb))]
        if not len(sides[0]):
            continue
        parts = [(s["cluster"], s["correct"].to_numpy(float), np.ones(len(s)),
                  (s["stereotype"] == "anti").to_numpy().astype(np.int64)) for s in sides]
        est, reps, mden = _pairs(plan, parts, 2)  # columns: pro A, pro B, anti A, anti B
        weights = np.array([-1.0, 1.0, 1.0, -1.0])  # (pro B - anti B) - (pro A - anti A)
        rows.append({"measure": "winobias_gap", "template": "all", "pronoun": p, "pct_a": est[0] - est[2],
                     "pct_b": est[1] - est[3], **_contrast(plan, est, reps, weights, mden),
                     "n": int(round(mden[:, 0].sum() + mden[:, 2].sum()))})
    gendered = [f[f["truth"].notna()] for f in map(in_criteria, (fa, fb))]  # book owner left out, as in criteria
    if len(gendered[0]):
        for name, (num, den) in RATES.items():
            rows += _by(plan, *gendered, name, lambda f, c=num: f[c].to_numpy(float),
                        lambda f, d=den: f[list(d)].sum(axis=1).to_numpy(float), "pronoun", pronouns, False)
    out = pd.DataFrame(rows)
    out["q"] = bh(out["p"].to_numpy()) if len(out) else []
    return out[COLUMNS]


def changed(fa: Any, fb: Any, plan: Plan) -> Any:
    """The share of aligned prompts whose answer differs between the sides, with its interval."""
    import numpy as np

    diff = (fa["answer"].to_numpy() != fb["answer"].to_numpy()).astype(float)
    table = rate_table(plan, fa["cluster"], diff, np.ones(len(fa)), np.zeros(len(fa), np.int64), ["changed"])
    return table.reset_index(names="measure")
