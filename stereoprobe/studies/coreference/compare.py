"""Comparing coreference runs (two models, or a run with and one without a prefix), paired by prompt.

Runs are aligned on the prompt (template, profession A, profession B, pronoun) within each
prefix both hold; when they share no prefix and each has one (a run with prefix 5 against
one without), on the prompt alone. For every pair of runs, ``paired.paired_differences``
gives each measure of run B minus run A (incorrect, inconsistent, binary inconsistent per
scene and overall; incorrect per pronoun; the WinoBias gaps; FNR, FPR, PPV, NPV per
pronoun) with intervals over the profession pairs both answered and Benjamini-Hochberg
q-values over the pair's rows; ``changed`` the share of prompts answered differently.

    DIR/index.html       the page (the core's page shell, comparing.py)
    DIR/differences.csv  one row per pair of runs, prefix, measure, scene and pronoun
    DIR/changed.csv      per pair of runs and prefix: the share of prompts answered differently
    DIR/meta.json        runs, methods, statistics
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

from stereoprobe.errors import DataError

MARK = "stereoprobe_coreference_comparison"


@dataclass
class CorefComparison:
    differences: Any
    changed: Any
    meta: dict[str, Any] = field(default_factory=dict)

    def summary(self) -> str:
        d, lines = self.differences, []
        for (a, b, p), rows in d.groupby(["run_a", "run_b", "debias"], sort=False):
            flagged = rows[rows.q < 0.05]
            ch = self.changed[(self.changed.run_a == a) & (self.changed.run_b == b) & (self.changed.debias == p)]
            lines.append(f"{a} vs {b} ({'prefixes ' + p if isinstance(p, str) else 'no prefix' if p == 0 else f'prefix {p}'}): "
                         f"{int(ch.n.iloc[0]) if len(ch) else 0} prompts in both, "
                         f"{ch.pct.iloc[0] if len(ch) else float('nan'):.1f}% answered differently; "
                         f"{len(flagged)} of {len(rows)} differences with q < 0.05")
            for r in rows[(rows.template == "Overall")].itertuples():
                lines.append(f"  {r.measure}: {r.pct_a:.1f}% vs {r.pct_b:.1f}% ({r.difference:+.1f} points, "
                             f"{r.low:+.1f} to {r.high:+.1f}; q = {r.q:.2g})")
        return "\n".join(lines)


def _load(run: Path) -> tuple[Any, dict[str, Any]]:
    from stereoprobe.studies.coreference.frame import answer_frame
    from stereoprobe.studies.coreference.score import combine, load_records

    manifest, records = load_records(run)
    if manifest.catalog and manifest.catalog.template_family.startswith("sterlie"):
        raise DataError(f"{run} asks Sterlie et al.'s prompts (--templates sterlie); compare takes runs of Marin & "
                        "Eger's scenes: put their pages side by side instead.")
    probes, answers, _ = combine(records)
    if not answers:
        raise DataError(f"{run}: no answers to compare; collect the run first.")
    return answer_frame(probes, answers), {"run": run.name, "path": str(run.resolve()), "model": manifest.model,
                                           "method": sorted({r.method for r in records}),
                                           "samples": manifest.settings.samples}


def _cells(fa: Any, fb: Any) -> list[tuple[Any, Any, Any]]:
    """(label, frame A, frame B) per prefix to compare (see the module docstring)."""
    pa, pb = sorted(set(fa.debias)), sorted(set(fb.debias))
    common = [p for p in pa if p in pb]
    if common:
        return [(p, fa[fa.debias == p], fb[fb.debias == p]) for p in common]
    if len(pa) == 1 and len(pb) == 1:
        return [(f"{pa[0]} vs {pb[0]}", fa, fb)]
    raise DataError("The runs share no prefix and hold several each; compare runs with a prefix in common, or one "
                    "prefix each.")


def compare_runs(runs: Sequence[str | Path], n_boot: int = 2000, seed: int = 2023, level: float = 0.95) -> CorefComparison:
    import pandas as pd

    from stereoprobe.comparing import comparison_meta, run_names, run_paths
    from stereoprobe.stats.analysis import check_options
    from stereoprobe.studies.coreference.inference import ESTIMAND, plan_for
    from stereoprobe.studies.coreference.paired import align, changed, paired_differences
    from stereoprobe.studies.coreference.templates import load_templates

    check_options(level, n_boot, seed)
    paths = run_paths(runs)
    loaded = [_load(p) for p in paths]
    names = run_names([m["run"] for _, m in loaded], paths)
    order = [t.name for t in load_templates()]
    diffs, changes = [], []
    for (i, a), (j, b) in itertools.combinations(enumerate(names), 2):
        for label, sa, sb in _cells(loaded[i][0], loaded[j][0]):
            fa, fb = align(sa, sb)
            if fa["cluster"].nunique() < 2:
                raise DataError(f"{a} and {b} share answers to fewer than two pairs of professions; collect the same "
                                "pairs in both.")
            plan = plan_for(fa, n_boot, seed=seed, level=level)
            present = [t for t in order if t in set(fa.template)]
            diffs.append(paired_differences(fa, fb, plan, present).assign(run_a=a, run_b=b, debias=label))
            changes.append(changed(fa, fb, plan).assign(run_a=a, run_b=b, debias=label))
    differences = pd.concat(diffs, ignore_index=True)
    front = ["run_a", "run_b", "debias"]
    differences = differences[front + [c for c in differences.columns if c not in front]]
    change = pd.concat(changes, ignore_index=True)
    change = change[front + [c for c in change.columns if c not in front]]
    meta = comparison_meta(MARK, [m for _, m in loaded],
                           {"level": level, "bootstrap": n_boot, "seed": seed, "estimand": ESTIMAND,
                            "unit": "job (each side resampled independently)",
                            "pairing": "by prompt (template, profession A, profession B, pronoun)",
                            "interval": "t interval at the two-way cluster-robust variance, paired",
                            "multiple_testing": "Benjamini-Hochberg over each pair of runs' rows (per prefix)"})
    return CorefComparison(differences, change, meta)


def write_comparison(result: CorefComparison, out: str | Path) -> Path:
    from stereoprobe.comparing import comparison_page, write_comparison_folder
    from stereoprobe.page.shell import esc

    d = result.differences
    clear = d[(d.q < 0.05) & d.template.isin(["Overall", "all"])].sort_values("difference", key=abs, ascending=False)
    findings = [f"Answered differently: {r.pct:.1f}% ({r.low:.1f} to {r.high:.1f}) of the {int(r.n):,} prompts both "
                f"runs answered ({r.run_b} vs {r.run_a}, {_label(r.debias)})." for r in result.changed.itertuples()]
    findings += [f"{r.run_b} vs {r.run_a} ({_label(r.debias)}): {_measure(r.measure)}"
                 f"{'' if r.template in ('all', 'Overall') else ', ' + r.template}"
                 f"{'' if r.pronoun == 'all' else ', ' + r.pronoun}: {r.pct_a:.1f} vs {r.pct_b:.1f} "
                 f"({r.difference:+.1f} points, {r.low:+.1f} to {r.high:+.1f}; q = {r.q:.2g})."
                 for r in clear.head(6).itertuples()] or ["No difference between the runs is clear (every q >= 0.05)."]
    head = ("run A", "run B", "prefix", "measure", "scene", "pronoun", "A", "B", "B − A", "95% low", "95% high", "q")

    def num(v: float, fmt: str = "{:.1f}") -> str:
        return "–" if v != v else fmt.format(v)

    body = "".join(
        "<tr>" + "".join(f"<td>{esc(v)}</td>" for v in (r.run_a, r.run_b, _label(r.debias), r.measure, r.template,
                                                         r.pronoun))
        + "".join(f'<td class="num">{num(v)}</td>' for v in (r.pct_a, r.pct_b, r.difference, r.low, r.high))
        + f'<td class="num">{num(r.q, "{:.2g}")}</td></tr>' for r in d.itertuples())
    runs = result.meta["runs"]
    html = comparison_page(
        "Coreference study: runs compared", result.meta, findings,
        "; ".join(f"{m['run']}: {m['model']} ({', '.join(m['method'])} mode)" for m in runs)
        + ". Runs in different modes (logprob vs chat) differ by method as well as by model.",
        ("differences.csv", "changed.csv"), "Paired differences by prompt (B − A; % of answers, triples, or points "
        "for the WinoBias gap)", head, body,
        "<p>Both runs' answers to the same prompts are compared; the interval resamples the pairs of "
        "professions both answered (the same pairs for both runs), q-values are Benjamini-Hochberg over each "
        "pair of runs' rows. docs/coreference.md defines every measure.</p>")
    return write_comparison_folder(out, MARK, {"differences.csv": d, "changed.csv": result.changed}, html,
                                   result.meta)


def _measure(name: str) -> str:
    return name.upper() if name in ("fnr", "fpr", "ppv", "npv") else name.replace("_", " ")


def _label(p: Any) -> str:
    return f"prefixes {p}" if isinstance(p, str) else "no prefix" if int(p) == 0 else f"prefix {int(p)}"
