"""Comparing jobs runs (two models, or a run with and one without a prefix), paired per job.

Runs are aligned on (job, prompt, setting, prefix); when they share no prefix and each
has only one (a run with prefix 5 against one without), on (job, prompt, setting). For
every pair of runs and every prompt set (1, 2-4), prefix, setting and group (all jobs,
women-, men-dominated) the difference of mean P(male), P(female), P(diverse), run B
minus run A, is the mean of the per-job differences, with the jobs resampled
(studies/jobs/stats.py) and Benjamini-Hochberg q-values over the pair's rows.

    DIR/index.html       the page (the core's page shell, comparing.py)
    DIR/differences.csv  one row per pair, prompt set, prefix, setting, group and gender
    DIR/jobs.csv         per job and run: P(male), P(female), P(diverse) per prompt set
    DIR/meta.json        runs, estimates, statistics
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

from stereoprobe.errors import DataError
from stereoprobe.studies.jobs.records import GENDERS

MARK = "stereoprobe_jobs_comparison"


@dataclass
class JobsComparison:
    differences: Any
    jobs: Any
    meta: dict[str, Any] = field(default_factory=dict)

    def summary(self) -> str:
        d = self.differences
        lines = []
        for (a, b), rows in d.groupby(["run_a", "run_b"], sort=False):
            flagged = rows[rows.q < 0.05]
            lines.append(f"{a} vs {b}: {rows.jobs.max()} jobs; {len(flagged)} of {len(rows)} differences with q < 0.05")
            key = rows[(rows.prompts == "2-4") & (rows.group == "all") & (rows.gender == "female")]
            for r in key.itertuples():
                lines.append(f"  P(female), prompts 2-4, prefix {r.debias}, {r.setting}: {r.mean_a:.1f}% vs {r.mean_b:.1f}% "
                             f"({r.difference:+.1f} points, {r.ci_low:+.1f} to {r.ci_high:+.1f}; q = {r.q:.2g})")
        return "\n".join(lines)


def _load(run: Path) -> tuple[str, Any, dict[str, Any]]:
    from stereoprobe.studies.jobs.score import load_records, probe_table

    manifest, records = load_records(run)
    probes, _ = probe_table(records)
    if probes.empty:
        raise DataError(f"{run}: no answers to the task prompts to compare.")
    return str(run.name or run), probes, {"run": run.name, "path": str(run.resolve()), "model": manifest.model,
                                          "estimates": sorted(set(probes.estimate))}


def _sets(probes: Any) -> Any:
    """Per job, prompt set (1, 2-4), prefix and setting: mean P(g)."""
    import pandas as pd

    cols = [f"p_{g}" for g in GENDERS]
    one = probes[probes.prompt == "1"].assign(prompts="1")
    implicit = probes[probes.prompt.isin(["2", "3", "4"])].assign(prompts="2-4")
    both = pd.concat([one, implicit])
    return both.groupby(["job", "dominated_by", "prompts", "debias", "setting"], as_index=False)[cols].mean()


def compare_runs(runs: Sequence[str | Path], n_boot: int = 2000, seed: int = 2023, level: float = 0.95) -> JobsComparison:
    import pandas as pd

    from stereoprobe.comparing import comparison_meta, run_names, run_paths
    from stereoprobe.stats import bh
    from stereoprobe.studies.jobs.stats import paired_differences

    paths = run_paths(runs)
    loaded = [_load(p) for p in paths]
    names = run_names([n for n, _, _ in loaded], paths)
    tables = {n: _sets(probes) for n, (_, probes, _) in zip(names, loaded)}
    rows, per_job = [], []
    for n, t in tables.items():
        per_job.append(t.assign(run=n))
    for a, b in itertools.combinations(names, 2):
        ta, tb = tables[a], tables[b]
        keys = ["job", "dominated_by", "prompts", "setting", "debias"]
        if not set(ta.debias) & set(tb.debias) and ta.debias.nunique() == 1 and tb.debias.nunique() == 1:
            keys = keys[:-1]  # one prefix against another: aligned on job, prompt and setting
        merged = ta.merge(tb, on=keys, suffixes=("_a", "_b"))
        if merged.empty:
            raise DataError(f"{a} and {b} have no job, prompt and setting in common; collect the same jobs in both.")
        pair_rows = []
        group_keys = [k for k in ("prompts", "setting", "debias", "debias_a") if k in merged]
        if "debias" not in keys:
            merged = merged.rename(columns={"debias_a": "debias", "debias_b": "debias_b_run"})
            group_keys = ["prompts", "setting", "debias"]
        for cell, sel in merged.groupby(group_keys, sort=False):
            cell = dict(zip(group_keys, cell))
            for group in ("all", "women", "men"):
                part = sel if group == "all" else sel[sel.dominated_by == group]
                part = part.dropna(subset=[f"p_{g}_{s}" for g in GENDERS for s in "ab"])
                if len(part) < 2:
                    continue
                cols = [f"p_{g}" for g in GENDERS]
                r = paired_differences(part[[c + "_b" for c in cols]].to_numpy(), part[[c + "_a" for c in cols]].to_numpy(),
                                       list(part.job), n_boot, seed, level)
                for i, g in enumerate(GENDERS):
                    pair_rows.append({"run_a": a, "run_b": b, **cell, "group": group, "gender": g,
                                      "mean_a": 100 * part[f"p_{g}_a"].mean(), "mean_b": 100 * part[f"p_{g}_b"].mean(),
                                      "difference": r["difference"][i], "ci_low": r["low"][i], "ci_high": r["high"][i],
                                      "df": r["df"], "p": r["p"][i], "jobs": r["n"]})
        if pair_rows:
            frame = pd.DataFrame(pair_rows)
            frame["q"] = bh(frame.p.to_numpy())
            rows.append(frame)
    if not rows:
        raise DataError("The runs share too few jobs (at least two per group) to compare.")
    meta = comparison_meta(MARK, [m for _, _, m in loaded], {"level": level, "bootstrap": n_boot, "seed": seed,
                                                            "unit": "job", "interval": "t-based bootstrap over jobs, paired"})
    return JobsComparison(pd.concat(rows, ignore_index=True), pd.concat(per_job, ignore_index=True), meta)


def write_comparison(result: JobsComparison, out: str | Path) -> Path:
    from stereoprobe.comparing import comparison_page, write_comparison_folder
    from stereoprobe.page.shell import esc

    d = result.differences
    clear = d[(d.q < 0.05) & (d.group == "all")].sort_values("difference", key=abs, ascending=False)
    findings = [f"{r.run_b} vs {r.run_a}: P({r.gender}) with prompts {r.prompts}, prefix {r.debias}, {r.setting}: "
                f"{r.mean_a:.1f}% vs {r.mean_b:.1f}% ({r.difference:+.1f} points, {r.ci_low:+.1f} to {r.ci_high:+.1f}; "
                f"q = {r.q:.2g})." for r in clear.head(5).itertuples()] or ["No difference between the runs is clear "
                                                                            "(every q >= 0.05)."]
    head = ("run A", "run B", "prompts", "prefix", "setting", "group", "gender", "A %", "B %", "B − A", "95% low",
            "95% high", "q")
    body = "".join(
        "<tr>" + "".join(f"<td>{esc(v)}</td>" for v in (r.run_a, r.run_b, r.prompts, r.debias, r.setting, r.group,
                                                         r.gender))
        + "".join(f'<td class="num">{v:.1f}</td>' for v in (r.mean_a, r.mean_b, r.difference, r.ci_low, r.ci_high))
        + f'<td class="num">{r.q:.2g}</td></tr>' for r in d.itertuples())
    html = comparison_page(
        "Jobs study: runs compared", result.meta, findings,
        "; ".join(f"{m['run']}: {m['model']} ({', '.join(m['estimates'])} estimate)" for m in result.meta["runs"])
        + ". Runs with different estimates (exact vs sampled) differ by method as well as by model.",
        ("differences.csv", "jobs.csv"), "Paired differences per job (B − A, points)", head, body,
        "<p>Each difference is the mean over the jobs both runs answered of run B's probability minus run A's; "
        "its interval resamples jobs (the same jobs in both runs), q-values are Benjamini-Hochberg over each "
        "pair's rows.</p>")
    return write_comparison_folder(out, MARK, {"differences.csv": d, "jobs.csv": result.jobs}, html, result.meta)
