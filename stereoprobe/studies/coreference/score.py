"""Scoring a coreference run: RUN_DIR/coreference/, the tables behind the page (docs/coreference.md).

Every table has a ``debias`` column (0: no prefix) and is computed for each prefix the
run holds, on one bootstrap plan over the run's profession pairs:

- ``answers.csv``: one row per answered probe: the probe, its ``answer`` (A, B, U),
  ``correct``, ``refused``, how many samples and how many agreed, the reply (chat) or
  both log-probabilities (logprob mode), the prompt;
- ``triples.csv``: one row per template and ordered pair: the three pronouns' answers,
  complete, inconsistent, binary inconsistent;
- ``table3.csv`` / ``table3.md``: 000's Table 3 with intervals (incorrect, inconsistent,
  binary inconsistent per template and Overall; refusals and U counts);
- ``professions.csv``: the professions in inconsistent triples, with counts;
- ``winobias.csv``: accuracy on pro- and anti-stereotypical prompts per pronoun, the gap;
- ``criteria.csv``: Sterlie et al.'s FNR, FPR, PPV, NPV per pronoun with intervals;
- ``four_fifths.csv``: each rate's lowest / highest pronoun against its permutation null;
- ``pronouns.csv``: paired differences between pronouns with BH q;
- ``prefixes.csv``: with prefixes, each prefix against none (``paired.py``), BH q over the file;
- ``meta.json``: the run, the method, samples, the statistics' settings, versions.

Samples (``--samples K``, chat mode): a probe's answer is the majority of its K replies
(``answers.majority``); failed samples are left out, and a probe whose every sample failed
has no answer (it is counted in ``meta.json``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from stereoprobe.errors import DataError

MARK = "stereoprobe_coreference_scores"
TABLES = ("answers", "triples", "table3", "professions", "winobias", "criteria", "four_fifths", "pronouns",
          "prefixes")
PERMUTATIONS = 999
METHODS = {
    "logprob": "logprob mode: the two replies (' The <A>', ' The <B>') scored after the prompt as full products of "
               "token probabilities; the answer is the more probable",
    "chat": "chat mode: the model's reply parsed with Marin & Eger's rule (A only: A; B only: B; else U, counted "
            "as incorrect); refusals recorded",
}


@dataclass
class CorefScores:
    answers: Any
    triples: Any
    table3: Any
    professions: Any
    winobias: Any
    criteria: Any
    four_fifths: Any
    pronouns: Any
    prefixes: Any
    meta: dict[str, Any] = field(default_factory=dict)


def load_records(run_dir: str | Path) -> tuple[Any, list]:
    """The run's manifest and records; a run of another study is refused in one line."""
    from stereoprobe.studies.base import read_run
    from stereoprobe.studies.coreference.records import CorefRecord

    return read_run(run_dir, "coreference", CorefRecord)


def combine(records: list) -> tuple[list, list, Any]:
    """(probes, one answer per answered probe, per-probe details): samples combined by majority."""
    import pandas as pd

    from stereoprobe.studies.coreference.answers import CorefAnswer, majority

    by_probe: dict[str, list] = {}
    for r in records:
        by_probe.setdefault(r.probe_id, []).append(r)
    probes, answers, details = [], [], []
    for pid, recs in by_probe.items():
        done = sorted((r for r in recs if r.error is None), key=lambda r: r.sample)
        if not done:
            continue
        answer, refused, agreement = majority([r.answer for r in done], [r.refused for r in done])
        first = next((r for r in done if r.answer == answer), done[0])
        probes.append(first.probe())
        answers.append(CorefAnswer(pid, answer, refused, first.raw, first.logprob_a, first.logprob_b))
        votes = " ".join(f"{a} {sum(r.answer == a for r in done)}" for a in "ABU") if len(done) > 1 else ""
        details.append({"probe_id": pid, "samples": len(done), "failed": len(recs) - len(done),
                        "agreement": agreement, "votes": votes, "raw": first.raw, "logprob_a": first.logprob_a,
                        "logprob_b": first.logprob_b, "p_a": _mean([r.p_a for r in done]),
                        "p_b": _mean([r.p_b for r in done]), "text": first.text})
    columns = ["probe_id", "samples", "failed", "agreement", "votes", "raw", "logprob_a", "logprob_b", "p_a", "p_b",
               "text"]
    return probes, answers, pd.DataFrame(details, columns=columns)


def _mean(values: list) -> float | None:
    """The mean of the samples' values that could be read (chat: ``p_a``, ``p_b``), else None."""
    read = [v for v in values if v is not None]
    return sum(read) / len(read) if read else None


def _per_prefix(frame: Any, plan: Any, order: list[str], seed: int) -> dict[str, Any]:
    """Every metric table for each prefix of the frame, with a ``debias`` column first."""
    import pandas as pd

    from stereoprobe.studies.coreference import criteria, tables
    from stereoprobe.studies.coreference.frame import triple_table

    out: dict[str, list] = {k: [] for k in ("triples", "table3", "professions", "winobias", "criteria",
                                             "four_fifths", "pronouns")}
    for d, sub in frame.groupby("debias", sort=True):
        present = [t for t in order if t in set(sub["template"])]
        parts = {
            "triples": triple_table(sub).drop(columns="debias"), "table3": tables.table3(sub, plan, present),
            "professions": tables.inconsistent_professions(sub), "winobias": tables.winobias(sub, plan),
            "criteria": criteria.sterlie(sub, plan), "four_fifths": criteria.four_fifths(sub, n_perm=PERMUTATIONS,
                                                                                         seed=seed),
            "pronouns": criteria.pronoun_differences(sub, plan),
        }
        for name, table in parts.items():
            out[name].append(table.assign(debias=int(d))[["debias", *table.columns]])
    return {k: pd.concat(v, ignore_index=True) for k, v in out.items()}


def _prefixes(frame: Any, plan: Any, order: list[str]) -> Any:
    """Each prefix against no prefix, paired by prompt (an empty table without both)."""
    import pandas as pd

    from stereoprobe.stats import bh
    from stereoprobe.studies.coreference.paired import COLUMNS, align, paired_differences

    prefixes = sorted(set(frame["debias"]) - {0})
    if 0 not in set(frame["debias"]) or not prefixes:
        return pd.DataFrame(columns=["debias", *COLUMNS])
    parts = []
    for d in prefixes:
        fa, fb = align(frame[frame["debias"] == 0], frame[frame["debias"] == d])
        if len(fa):
            parts.append(paired_differences(fa, fb, plan, order).assign(debias=int(d)))
    out = pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(columns=["debias", *COLUMNS])
    if len(out):
        out["q"] = bh(out["p"].to_numpy())
    return out[["debias", *COLUMNS]]


def score(run_dir: str | Path, level: float = 0.95, n_boot: int = 2000, seed: int = 0) -> CorefScores:
    """Every table of RUN_DIR/coreference/ (see the module docstring)."""
    from stereoprobe.manifest import scored_stamp
    from stereoprobe.stats.analysis import check_options
    from stereoprobe.studies.coreference.frame import answer_frame
    from stereoprobe.studies.coreference.inference import ESTIMAND, REACH, STRETCH, TUNED_DF, plan_for
    from stereoprobe.studies.coreference.templates import load_templates

    check_options(level, n_boot, seed)
    manifest, records = load_records(run_dir)
    if manifest.catalog and manifest.catalog.template_family.startswith("sterlie"):  # --templates sterlie
        from stereoprobe.studies.coreference import sterlie_score

        return sterlie_score.score(run_dir, manifest, records, level, n_boot, seed)  # type: ignore[return-value]
    probes, answers, details = combine(records)
    if not answers:
        raise DataError(f"{run_dir}: no answers to score; run `stereoprobe collect --study coreference --out {run_dir}`.")
    frame = answer_frame(probes, answers)
    plan = plan_for(frame, n_boot, seed=seed, level=level)
    known = list(manifest.catalog.templates) if manifest.catalog else [t.name for t in load_templates()]
    order = [t for t in known if t in set(frame["template"])]
    parts = _per_prefix(frame, plan, order, seed)
    table = frame.merge(details, on="probe_id", how="left").drop(columns=["tp", "fn", "fp", "tn"])
    methods = sorted({r.method for r in records})
    samples = int(manifest.settings.samples or 1)
    result = CorefScores(answers=table, prefixes=_prefixes(frame, plan, order), **parts)
    result.meta = {
        MARK: True, "run": str(Path(run_dir).resolve()), "model": manifest.model, "mode": manifest.mode,
        "design": manifest.design or "default",
        "method": methods, "estimate": [METHODS[m] for m in methods], "embedded": manifest.settings.backend == "local",
        "samples": samples, "samples_rule": "one answer per probe: the majority of its samples (a tie: U)"
        if samples > 1 else "one sample per probe", "mean_agreement": float(details["agreement"].mean()),
        "catalog": manifest.catalog.path if manifest.catalog else None, "prefixes": sorted(int(d) for d in
                                                                                        set(frame["debias"])),
        "parser_version": manifest.parser_version,
        "counts": {"records": len(records), "probes_answered": len(frame),
                   "probes_failed": len({r.probe_id for r in records}) - len(frame),
                   "refused": int(frame["refused"].sum()), "unknown": int((frame["answer"] == "U").sum())},
        "statistics": {"level": level, "bootstrap": n_boot, "seed": seed, "estimand": ESTIMAND,
                       "unit": "job (each side resampled independently); a pair keeps its two jobs' multiplicities",
                       "interval": "Korn-Graubard effective size with the Jeffreys interval at the two-way "
                                   "cluster-robust variance (stereoprobe.stats.crossed), design effect at least the "
                                   "table's pooled one; Table 3's Overall rows: the quantiles at "
                                   f"Phi(-{REACH:g} t) and Phi({STRETCH:g} t) of "
                                   "the replicates with both sides' jobs drawn at once (for the upper, each pair's rate from "
                                   "its posterior Beta(k + p, n - k + 1 - p), p the run's rate), t on the jobs of the smaller "
                                   f"side minus 1 (below {TUNED_DF + 1} jobs: twice that, at most {TUNED_DF}), never "
                                   "inside the Jeffreys interval, at every rate",
                       "difference": "t interval and p at the two-way variance of the same replicates, paired",
                       "four_fifths_multiplicity": "Holm over the four rates of a prefix (p_holm)",
                       "multiple_testing": "Benjamini-Hochberg within pronouns.csv (per prefix), winobias.csv "
                                           "(per prefix), prefixes.csv (whole file)",
                       "four_fifths_null": f"answers permuted among the pronouns within each triple, {PERMUTATIONS} "
                                           "permutations, one-sided p"},
        **scored_stamp(manifest),
    }
    return result


def markdown(table3: Any) -> str:
    """Table 3 as 000 lays it out (one block per prefix), percentages with their intervals."""
    lines = []
    for d, sub in table3.groupby("debias", sort=True):
        lines += [f"### {'No prefix' if d == 0 else f'Prefix {d}'}", "",
                  "| Prompt | Incorrect | Inconsistent | Inconsistent (Binary) |", "|---|---|---|---|"]
        for r in sub.to_dict("records"):
            cells = [f"{r[f'{m}_pct']:.1f}% ({r[f'{m}_low']:.1f}-{r[f'{m}_high']:.1f})" if r[f"{m}_pct"] == r[f"{m}_pct"]
                     else "–" for m in ("incorrect", "inconsistent", "binary_inconsistent")]
            lines.append(f"| {r['template']} | " + " | ".join(cells) + " |")
        lines.append("")
    return "\n".join(lines)


def write_scores(result: CorefScores, out: Path) -> Path:
    """Write RUN_DIR/coreference/ all or nothing (store.replace_folder)."""
    import json

    if not isinstance(result, CorefScores):  # a --templates sterlie run
        from stereoprobe.studies.coreference import sterlie_score

        return sterlie_score.write_scores(result, out)

    from stereoprobe.store import marked, replace_folder

    def fill(tmp: Path) -> None:
        for name in TABLES:
            getattr(result, name).to_csv(tmp / f"{name}.csv", index=False, float_format="%.6g")
        (tmp / "table3.md").write_text(markdown(result.table3), encoding="utf-8")
        (tmp / "meta.json").write_text(json.dumps(result.meta, indent=2) + "\n", encoding="utf-8")

    return replace_folder(Path(out), fill, marked(MARK), "stereoprobe score")


def _rate(r: Any, m: str) -> str:
    return f"{r[f'{m}_pct']:.1f}% ({r[f'{m}_low']:.1f} to {r[f'{m}_high']:.1f})"


def summary(result: CorefScores) -> str:
    """A few lines for the terminal: Table 3's Overall row and the WinoBias gaps per prefix."""
    if not isinstance(result, CorefScores):  # a --templates sterlie run
        from stereoprobe.studies.coreference import sterlie_score

        return sterlie_score.summary(result)
    m = result.meta
    lines = [f"{m['counts']['probes_answered']} probes answered ({', '.join(m['method'])} mode"
             + (f", majority of {m['samples']} samples" if m["samples"] > 1 else "") + ")."]
    t3 = result.table3[result.table3.template == "Overall"]
    for r in t3.to_dict("records"):
        label = "no prefix" if r["debias"] == 0 else f"prefix {r['debias']}"
        lines.append(f"  {label}: incorrect {_rate(r, 'incorrect')}, inconsistent {_rate(r, 'inconsistent')}, "
                     f"binary {_rate(r, 'binary_inconsistent')}")
        wb = result.winobias[result.winobias.debias == r["debias"]]
        gaps = ", ".join(f"{w.pronoun} {w.gap:+.1f} points ({w.gap_low:+.1f} to {w.gap_high:+.1f}, q = {w.q:.2g})"
                         for w in wb.itertuples() if w.gap == w.gap)
        if gaps:
            lines.append(f"    accuracy pro- minus anti-stereotypical: {gaps}")
    return "\n".join(lines)
