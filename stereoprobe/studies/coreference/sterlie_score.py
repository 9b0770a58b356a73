"""Scoring a ``--templates sterlie`` run: 001's tables, every sample an answer (RUN_DIR/coreference/).

001 asks each sector prompt 50 times per pronoun at temperature 0.5 and counts every
reply: its rates are over the 50 replicates, not over a majority answer. So here every
stored sample is one answer (chat: ``--samples 50 --temperature 0.5``); a failed sample is
left out. In logprob mode each prompt has one answer, the more probable reply.

- ``samples.csv``: one row per answered sample: the probe, ``sample``, ``answer`` (A, B,
  U), ``correct``, 001's classes ``truth`` (eq. 5) and ``said`` (eq. 6), the reply;
- ``table6.csv``: 001's Table 6: the error rate per prompt and pronoun (and, from a
  multiple-choice run, per question group and pronoun);
- ``table3.csv``: 001's Table 3: each baseline question's error rate, beside the pronoun
  prompts' (he, she) of the same question;
- ``separation.csv``: 001's Tables 4 and 5: per pronoun the cells, FNR, FPR, PPV, NPV, and
  the error rate over all of the pronoun's prompts (``error_n``: its answers);
- ``gaps.csv``: per rate (error, FNR, FPR, PPV, NPV) she minus he with the MOVER interval of
  the two pronouns' intervals (their samples are independent; ``stats.mover``);
- ``four_fifths.csv``: he vs she per rate (criteria.four_fifths: the verdict, its null);
- ``readings.csv``: chat replies only: how many replies the run's reading (reading.py:
  Sterlie et al.'s, or Marin & Eger's rule) and the other rule class alike and apart, per
  prompt and pronoun: ``this`` and ``other`` (right, wrong, unclear), ``replies``;
- ``meta.json`` (with ``design``, ``reading`` and ``readings``: the replies the two rules
  class differently).

**Intervals over samples.** The prompts are 001's fixed wordings, not a sample of
wordings (three pairs of jobs: too few to resample), so the interval answers "how much
would this rate move if the model were sampled again on these prompts", not "what other
wordings would give". The unit is the sample, resampled *within its prompt and pronoun*
(a stratified bootstrap, stereoprobe.stats.cluster_weights with the probe as stratum):
samples of one prompt are independent draws given the prompt (temperature > 0, no shared
state), while samples of different prompts are not exchangeable (each prompt's wording
sets its own rate), so they are never mixed. The interval is stereoprobe.stats'
Korn-Graubard share interval (Jeffreys) on those replicates. One sample per prompt
(logprob mode, or a chat run without --samples) has no sampling variation to show: no
interval.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

from stereoprobe.studies.coreference.sterlie import BASELINE

TABLES = ("samples", "table6", "table3", "separation", "gaps", "four_fifths", "readings")
RATES = {"fnr": ("fn", ("tp", "fn")), "fpr": ("fp", ("fp", "tn")),
         "ppv": ("tp", ("tp", "fp")), "npv": ("tn", ("tn", "fn"))}
BINARY = ("he", "she")


@dataclass
class SterlieScores:
    tables: dict[str, Any]
    meta: dict[str, Any] = field(default_factory=dict)


def answered(records: Sequence[Any]) -> list[Any]:
    """The records without an error, in (probe, sample) order, not the order the answers arrived
    in, so sample_frame's rows and readings' lists are the same however a run was asked (the
    bootstrap draws a prompt's rows in the order their answers set: rates_over_samples)."""
    return sorted((r for r in records if r.error is None), key=lambda r: r.key)


def sample_frame(records: Sequence[Any]) -> Any:
    """One row per answered sample: the probe's fields, ``sample``, the answer and 001's classes."""
    from stereoprobe.studies.coreference.frame import probe_frame, with_answers

    done = answered(records)
    frame = with_answers(probe_frame([r.probe() for r in done]), [r.answer for r in done], [r.refused for r in done])
    frame["sample"] = [r.sample for r in done]
    frame["text"] = [r.text for r in done]
    frame["raw"] = [r.raw for r in done]
    frame["logprob_a"] = [r.logprob_a for r in done]
    frame["logprob_b"] = [r.logprob_b for r in done]
    return frame


def rates_over_samples(frame: Any, num: Any, den: Any, keys: Any, names: Sequence[Any], n_boot: int, seed: int,
                       level: float) -> Any:
    """Per key: n (denominator), k, pct and its interval over samples (module docstring)."""
    import numpy as np
    import pandas as pd

    from stereoprobe.stats import cluster_weights, replicate_ratio, share_interval

    num, den, keys = (np.asarray(x, dtype=np.float64) for x in (num, den, keys))
    strata = frame["probe_id"].to_numpy(object)
    weights = None
    if len(frame):
        # Rows drawn in an order their answers set (within each prompt: by num, then den), so the
        # replicates follow a prompt's counts, not which of its samples was wrong.
        order = np.lexsort((den, num, pd.factorize(strata)[0]))
        weights = np.empty((n_boot, len(frame)), dtype=np.int32)
        weights[:, order] = cluster_weights([np.arange(len(frame))], n_boot, seed=seed, strata=strata[order])
    rows = []
    for i, name in enumerate(names):
        mask = (keys == i) & (den > 0)
        n, k = float(den[mask].sum()), float(num[mask].sum())
        pct = 100 * k / n if n else np.nan
        low = high = np.nan
        if n and mask.sum() > len(set(strata[mask])):  # more than one sample in some prompt
            reps = 100 * replicate_ratio(weights[:, mask], num[mask], den[mask])
            lo, hi = share_interval(pct, reps, int(mask.sum()), n, n_strata=len(set(strata[mask])), level=level,
                                    method="jeffreys")
            low, high = float(lo), float(hi)
        rows.append({"n": int(n), "k": int(k), "pct": pct, "low": low, "high": high})
    return pd.DataFrame(rows, index=pd.Index(list(names)))


#: 001's Tables 3 and 6 list the prompts by sector, the pair's two tasks together.
ORDER_001 = ("4.3", "4.6", "4.4", "4.7", "4.5", "4.8")


def template_order(template: str) -> tuple[int, bool, str]:
    """001's order of prompts (Tables 3 and 6, a baseline as its prompt; 3.1: nurse right first)."""
    name = template.removesuffix(" baseline")
    return (ORDER_001.index(name) if name in ORDER_001 else len(ORDER_001), "doctor right" in name, name)


def _order(cell: tuple[str, str]) -> tuple[tuple[int, bool, str], int]:
    """001's order: prompts by sector (4.3, 4.6, 4.4, ...; 3.1: nurse right first), he before she."""
    template, pronoun = cell
    return template_order(template), BINARY.index(pronoun) if pronoun in BINARY else 2


def table6(frame: Any, n_boot: int, seed: int, level: float) -> Any:
    """Error rate per prompt (template) and pronoun, with the right answer, as 001's Table 6."""
    import numpy as np
    import pandas as pd

    sub = frame[frame["pronoun"] != BASELINE]
    cells = sorted(dict.fromkeys(zip(sub["template"], sub["pronoun"])), key=_order)
    index = {c: i for i, c in enumerate(cells)}
    keys = np.array([index[c] for c in zip(sub["template"], sub["pronoun"])], dtype=np.int64)
    out = rates_over_samples(sub, ~sub["correct"].to_numpy(bool), np.ones(len(sub)), keys, cells, n_boot, seed, level)
    first = sub.drop_duplicates("template").set_index("template")
    right = {t: first.loc[t, "profession_a" if first.loc[t, "expected"] == "A" else "profession_b"]
             for t in first.index}
    out = out.rename(columns={"k": "errors", "pct": "error_pct", "low": "error_low", "high": "error_high"})
    out.insert(0, "template", [c[0] for c in cells])
    out.insert(1, "pronoun", [c[1] for c in cells])
    out.insert(2, "right_answer", [right[c[0]] for c in cells])
    out.insert(3, "truth", [int(first.loc[c[0], "expected"] == "B") for c in cells])  # 001's eq. (5)
    out["p_right"] = _p_right(sub, keys, len(cells))
    return pd.DataFrame(out).reset_index(drop=True)


def _p_right(sub: Any, keys: Any, n: int) -> Any:
    """Logprob mode: the mean two-way probability of the right reply, P(right) / (P(A) + P(B)),
    per cell (NaN for chat answers): how far from a coin toss the model's choice is."""
    import numpy as np

    la, lb = (pd_float(sub[c]) for c in ("logprob_a", "logprob_b"))
    with np.errstate(invalid="ignore", over="ignore"):
        p_a = 1 / (1 + np.exp(lb - la))
    p = np.where(sub["expected"].to_numpy(object) == "A", p_a, 1 - p_a)
    ok = ~np.isnan(p)
    sums = np.bincount(keys[ok], weights=p[ok], minlength=n)
    counts = np.bincount(keys[ok], minlength=n)
    return np.where(counts > 0, sums / np.maximum(counts, 1), np.nan)


def pd_float(column: Any) -> Any:
    """A column of floats and Nones as a float array (None: NaN)."""
    import numpy as np

    return np.array([np.nan if v is None else float(v) for v in column], dtype=np.float64)


def separation(frame: Any, n_boot: int, seed: int, level: float) -> Any:
    """001's Tables 4 and 5: per pronoun TP FN FP TN, unknown, FNR FPR PPV NPV with intervals (%),
    and the error rate over all of the pronoun's prompts (``error_n`` answers, unclear ones wrong)."""
    import numpy as np
    import pandas as pd

    sub = frame[frame["pronoun"].isin(BINARY) & frame["truth"].notna()]
    keys = pd.Index(list(BINARY)).get_indexer(sub["pronoun"])
    out = pd.DataFrame(index=pd.Index(list(BINARY), name="pronoun"))
    for c in ("tp", "fn", "fp", "tn"):
        out[c] = np.bincount(keys, weights=sub[c].to_numpy(float), minlength=2).astype(int)
    out["unknown"] = np.bincount(keys, weights=sub["said"].isna().to_numpy(float), minlength=2).astype(int)
    for name, (num, den) in RATES.items():
        table = rates_over_samples(sub, sub[num], sub[list(den)].sum(axis=1), keys, BINARY, n_boot, seed, level)
        for col in ("pct", "low", "high"):
            out[f"{name}_{col}"] = table[col].to_numpy()
    every = frame[frame["pronoun"].isin(BINARY)]  # every answer, unclear ones counted wrong (Table 6's rule)
    table = rates_over_samples(every, ~every["correct"].to_numpy(bool), np.ones(len(every)),
                               pd.Index(list(BINARY)).get_indexer(every["pronoun"]), BINARY, n_boot, seed, level)
    out["error_n"] = table["n"].to_numpy()
    for col in ("pct", "low", "high"):
        out[f"error_{col}"] = table[col].to_numpy()
    return out.reset_index()


#: the rates ``gaps.csv`` sets she against he, in its order
GAP_RATES = ("error", *RATES)


def gaps(sep: Any) -> Any:
    """Per rate: she and he (percent) and she minus he (points) with the MOVER interval of the two
    pronouns' own intervals (``stats.mover``): their answers are independent samples, so the
    gap's interval is recovered from theirs, and a rate of 0 (Jeffreys' interval for 0 of n)
    still gives the gap one. NaN where a pronoun's rate has no interval."""
    import pandas as pd

    from stereoprobe.stats.intervals import mover

    by = sep.set_index("pronoun")
    rows = []
    for rate in GAP_RATES:
        he, she = (by.loc[p, [f"{rate}_pct", f"{rate}_low", f"{rate}_high"]].to_numpy(dtype=float) if p in by.index
                   else [float("nan")] * 3 for p in BINARY)
        gap, low, high = mover(*he, *she)
        rows.append({"rate": rate, "she_pct": she[0], "he_pct": he[0], "gap": float(gap), "gap_low": float(low),
                     "gap_high": float(high)})
    return pd.DataFrame(rows)


def table3(frame: Any, n_boot: int, seed: int, level: float) -> Any:
    """Each baseline question's error rate, and beside it the same question's with he and with she."""
    import numpy as np
    import pandas as pd

    base = frame[frame["pronoun"] == BASELINE]
    if not len(base):
        return pd.DataFrame()
    names = sorted(dict.fromkeys(base["template"]), key=template_order)
    keys = pd.Index(names).get_indexer(base["template"])
    out = rates_over_samples(base, ~base["correct"].to_numpy(bool), np.ones(len(base)), keys, names, n_boot, seed,
                             level)
    out = out.rename(columns={"k": "errors", "pct": "error_pct", "low": "error_low", "high": "error_high"})
    first = base.drop_duplicates("template").set_index("template")
    texts = base.groupby("template")["text"].nunique()
    many = {t: texts[t] > 1 for t in names}  # Baseline 1: one row over every question
    out.insert(0, "template", names)
    out.insert(1, "question", [f"{texts[t]} questions, each alone" if many[t] else first.loc[t, "text"]
                               for t in names])
    out.insert(2, "right_answer", ["each question's" if many[t] else first.loc[t, "profession_a" if first.loc[
        t, "expected"] == "A" else "profession_b"] for t in names])
    prompts = frame[frame["pronoun"].isin(BINARY)]
    for p in BINARY:  # the same question with the pronoun (sector prompts), or every 3.1 prompt (Baseline 1)
        mine = prompts[prompts["pronoun"] == p]
        wrong = mine.groupby("template")["correct"].agg(lambda c: 100 * (1 - c.mean()))
        overall = 100 * (1 - mine["correct"].mean()) if len(mine) else np.nan
        out[f"{p}_error_pct"] = [wrong.get(t.removesuffix(" baseline"), overall) if t.endswith(" baseline")
                                 else overall for t in names]
    return out.reset_index(drop=True)


def _kind(answer: Any, expected: Any) -> str:
    return "unclear" if answer == "U" else "right" if answer == expected else "wrong"


def readings(frame: Any, records: Sequence[Any], reading: str | None) -> tuple[Any, dict[str, Any] | None]:
    """The other rule's answer to every chat reply (``frame["other_answer"]``, set in place) and
    how the two rules' classes meet: (readings.csv, its summary for meta.json); logprob: none."""
    import pandas as pd

    from stereoprobe.studies.coreference.reading import LABELS, MARIN_EGER, other
    from stereoprobe.studies.coreference.reparse import reparsed

    done = answered(records)
    chat = [r.method == "chat" and r.raw is not None for r in done]
    if not any(chat):
        frame["other_answer"] = None
        return pd.DataFrame(columns=["template", "pronoun", "this", "other", "replies"]), None
    mine = reading or MARIN_EGER  # a run from before readings: 000's rule made its answers
    theirs = other(mine)
    frame["other_answer"] = [reparsed(r, theirs).answer if c else None for r, c in zip(done, chat)]
    sub = frame[[bool(c) for c in chat]]
    both = pd.DataFrame({"template": sub["template"], "pronoun": sub["pronoun"],
                         "this": [_kind(a, e) for a, e in zip(sub["answer"], sub["expected"])],
                         "other": [_kind(a, e) for a, e in zip(sub["other_answer"], sub["expected"])]})
    table = both.groupby(["template", "pronoun", "this", "other"], sort=False).size().rename("replies").reset_index()
    apart = both[both["this"] != both["other"]]
    moves = apart.groupby(["this", "other"]).size()
    summary = {"reading": mine, "other": theirs, "label": LABELS[mine], "other_label": LABELS[theirs],
               "replies": int(len(both)), "differ": int(len(apart)),
               "moves": {f"{a} -> {b}": int(n) for (a, b), n in moves.items()}}
    return table, summary


def score(run_dir: str | Path, manifest: Any, records: Sequence[Any], level: float, n_boot: int,
          seed: int) -> SterlieScores:
    """Every table of a sterlie run (module docstring)."""
    from stereoprobe.manifest import scored_stamp
    from stereoprobe.errors import DataError
    from stereoprobe.generation.stats import estimand
    from stereoprobe.studies.coreference.criteria import four_fifths
    from stereoprobe.studies.coreference.score import MARK, METHODS

    frame = sample_frame(records)
    if not len(frame):
        raise DataError(f"{run_dir}: no answers to score; run `stereoprobe collect --study coreference "
                        f"--templates sterlie --out {run_dir}`.")
    reading = (manifest.settings.options or {}).get("reading")
    read_table, read_summary = readings(frame, records, reading)
    prompts = frame[frame["pronoun"].isin(BINARY)]
    sep = separation(frame, n_boot, seed, level)
    tables = {"samples": frame.drop(columns=["tp", "fn", "fp", "tn"]), "table6": table6(frame, n_boot, seed, level),
              "table3": table3(frame, n_boot, seed, level), "separation": sep, "gaps": gaps(sep),
              "four_fifths": four_fifths(prompts, pronouns=BINARY, seed=seed) if len(prompts) else None,
              "readings": read_table}
    per_probe = frame.groupby("probe_id").size()
    methods = sorted({r.method for r in records})
    family = manifest.catalog.template_family if manifest.catalog else ""
    meta = {
        MARK: True, "template_set": "sterlie", "experiment": "multiple choice" if "questions" in family else "sectors",
        "run": str(Path(run_dir).resolve()), "model": manifest.model, "mode": manifest.mode, "method": methods,
        "estimate": [METHODS[m] for m in methods], "embedded": manifest.settings.backend == "local",
        "model_bytes": (manifest.settings.options or {}).get("model_size"),
        "design": manifest.design or "default", "reading": read_summary["reading"] if read_summary else None,
        "readings": read_summary,
        "samples": int(manifest.settings.samples or 1), "temperature": manifest.settings.temperature,
        "baseline_samples": int((manifest.settings.options or {}).get("baseline_samples")
                                or manifest.settings.samples or 1),
        "samples_rule": "every sample is an answer (001's rates are over its replicates, not a majority)",
        "catalog": manifest.catalog.path if manifest.catalog else None,
        "counts": {"records": len(records), "answers": len(frame), "failed": sum(r.error is not None for r in records),
                   "probes": int(len(per_probe)), "unknown": int((frame["answer"] == "U").sum()),
                   "refused": int(frame["refused"].sum())},
        "statistics": {"level": level, "bootstrap": n_boot, "seed": seed,
                       "estimand": estimand("each prompt's samples drawn again, within its prompt and pronoun"),
                       "unit": "the sample, resampled within its prompt and pronoun (stratified bootstrap)",
                       "why": "the six prompts are 001's fixed wordings, not a sample of wordings; samples of one "
                              "prompt are independent draws given it, samples of different prompts are not "
                              "exchangeable",
                       "interval": "Korn-Graubard effective size with the Jeffreys interval (stereoprobe.stats); "
                                   "none with one sample per prompt",
                       "gaps": "she minus he: the MOVER interval of the two pronouns' intervals (stereoprobe.stats."
                               "intervals.mover)",
                       "four_fifths": "he vs she (001: gender binary), answers permuted between he and she within "
                                      "each prompt"},
        **scored_stamp(manifest),
    }
    return SterlieScores({k: v for k, v in tables.items()}, meta)


def write_scores(result: SterlieScores, out: Path) -> Path:
    """RUN_DIR/coreference/ all or nothing, as score.write_scores."""
    import json

    import pandas as pd

    from stereoprobe.store import marked, replace_folder
    from stereoprobe.studies.coreference.score import MARK

    def fill(tmp: Path) -> None:
        for name in TABLES:
            table = result.tables.get(name)
            (table if table is not None else pd.DataFrame()).to_csv(tmp / f"{name}.csv", index=False,
                                                                     float_format="%.6g")
        (tmp / "meta.json").write_text(json.dumps(result.meta, indent=2, default=str) + "\n", encoding="utf-8")

    return replace_folder(Path(out), fill, marked(MARK), "stereoprobe score")


def summary(result: SterlieScores) -> str:
    """A few lines for the terminal: answers, then FNR and FPR per pronoun."""
    m = result.meta
    lines = [f"{m['counts']['answers']} answers to {m['counts']['probes']} prompts (Sterlie et al.'s "
             f"{m['experiment']} experiment; {', '.join(m['method'])} mode; every sample an answer)."]
    for r in result.tables["separation"].to_dict("records"):
        lines.append(f"  {r['pronoun']}: FNR {r['fnr_pct']:.1f}%, FPR {r['fpr_pct']:.1f}%, PPV {r['ppv_pct']:.1f}%, "
                     f"NPV {r['npv_pct']:.1f}%")
    if m.get("readings"):
        lines.append(readings_sentence(m["readings"]))
    return "\n".join(lines)


def readings_sentence(r: dict[str, Any]) -> str:
    """One sentence: the rule the replies were read by, and how many the other rule reads otherwise."""
    moves = "; ".join(f"{move.replace(' -> ', ' → ')}: {n}" for move, n in r["moves"].items())
    return (f"Replies were read by {r['label']}; {r['other_label']} would class {r['differ']} of {r['replies']} "
            f"differently" + (f" ({moves})." if moves else "."))
