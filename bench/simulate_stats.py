"""Simulations with a known truth for stereoprobe's statistics (docs/statistics.md, "Checked by simulation").

    python bench/simulate_stats.py                  # every scenario, writes bench/results/simulate_stats.md
    python bench/simulate_stats.py --reps 100 --scenarios null-50,template-effects
    python bench/simulate_stats.py --quick          # a few minutes
    python bench/simulate_stats.py --study coreference,jobs --reps 400   # the crossed designs (bench/sim_crossed.py)

Each scenario draws many runs of the catalog's design (9 categories of 9 to 116 groups,
six templates, three questions and three statements) from a logit model

    logit P(negative word) = base + category + group + template + question + group x template

with replies whose words agree more than chance (each reply's rate is a Beta draw around
the model's, concentration ``kappa``; its counted words a Binomial of ten). The truth of
every cell is computed by quadrature from the model, for the estimand the tool states:

- cells over groups (category, template, question/statement of a category, ``all``):
  groups are drawn afresh in every run, templates are the scenario's fixed ones ("these
  templates"); with ``--wording random`` the template effects are drawn afresh too;
- a group's own cells (all probes, questions, statements): the groups are the
  scenario's fixed ones; replies (and any group x template interaction) are drawn afresh;
- compare pair cells: run B is run A's model asked again (new replies), shifted by the
  scenario's ``shift`` (logit) in one category.

Every number comes from the package's own functions (the same ones ``stereoprobe
sentiment`` and ``compare`` run), on probe-level rows. Seeds are fixed: the same command
gives the same table. tests/test_stats_simulation.py runs a small subset.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # run from a checkout without installing
sys.path.insert(0, str(ROOT / "bench"))

from sim_model import (POWER, SCENARIOS, SMALL, TEMPLATES, Scenario, World, draw,  # noqa: E402,F401
                       truth)


# -- running the package's statistics on drawn runs -------------------------------------------


def prepared(rows: Any) -> Any:
    """Probe rows as :func:`stereoprobe.stats.shares.probe_rows` makes them (group_key, cat_code)."""
    import pandas as pd

    rows = rows.sort_values(["category", "group", "probe_id"], ignore_index=True)
    rows["group_key"] = rows["category"] + "\x1f" + rows["group"]
    rows["cat_code"] = pd.Categorical(rows["category"]).codes.astype("int64")
    return rows


def _estimates(rows: Any, keys: list[str], fmt: str | None = None) -> Any:
    sub = rows if fmt is None else rows[rows["format"] == fmt]
    g = sub.groupby(keys)[["neg", "polar"]].sum()
    return 100 * g["neg"] / g["polar"].where(g["polar"] > 0)


@dataclass
class Tally:
    """Interval records of one cell type: cell id, truth, estimate, low, high (one row per cell and run)."""

    rows: list[Any] = field(default_factory=list)

    def add(self, ids: Any, truth: Any, est: Any, low: Any, high: Any) -> None:
        import numpy as np

        self.rows.append(np.column_stack([np.asarray(a, np.float64) for a in (ids, truth, est, low, high)]))

    def summary(self) -> dict[str, float]:
        """coverage, mean width, oracle width (2 x 1.96 x sd of estimate - truth per cell), their ratio, n."""
        import numpy as np
        import pandas as pd

        if not self.rows:
            return {}
        a = pd.DataFrame(np.vstack(self.rows), columns=["id", "truth", "est", "low", "high"]).dropna()
        if a.empty:
            return {}
        a["covered"] = (a["low"] <= a["truth"] + 1e-9) & (a["truth"] - 1e-9 <= a["high"])
        a["width"] = a["high"] - a["low"]
        a["err"] = a["est"] - a["truth"]
        per = a.groupby("id").agg(width=("width", "mean"), sd=("err", "std"), n=("err", "size"))
        per = per[(per["n"] >= 5) & (per["sd"] > 1e-9)]  # cells always exact (a group at 0%) have no oracle
        oracle = 2 * 1.96 * per["sd"]
        return {"coverage": float(a["covered"].mean()), "width": float(a["width"].mean()),
                "oracle": float(oracle.mean()), "ratio": float(per["width"].mean() / oracle.mean()) if len(per) else np.nan,
                "below": float((a["truth"] < a["low"] - 1e-9).mean()), "n": int(len(a))}


@dataclass
class Rejections:
    """p-values of one test under a null (or an alternative, for power)."""

    p: list[Any] = field(default_factory=list)
    any_flag: list[bool] = field(default_factory=list)  # per family and run: anything flagged after BH

    def add(self, p: Any, q: Any = None, alpha: float = 0.05) -> None:
        import numpy as np

        p = np.asarray(p, np.float64)
        self.p.append(p[~np.isnan(p)])
        if q is not None:
            self.any_flag.append(bool(np.nanmin(np.append(np.asarray(q, np.float64), np.inf)) < alpha))

    def summary(self, alpha: float = 0.05) -> dict[str, float]:
        import numpy as np

        if not self.p:
            return {}
        p = np.concatenate(self.p)
        out = {"rate": float((p < alpha).mean()) if len(p) else np.nan, "n": int(len(p))}
        if self.any_flag:
            out["any_flag"] = float(np.mean(self.any_flag))
        return out


def _aligned(a: Any, b: Any) -> Any:
    m = a.merge(b[["probe_id", "neg", "polar"]], on="probe_id", suffixes=("_a", "_b"))
    return m.rename(columns={"polar_a": "pol_a", "polar_b": "pol_b"})[
        ["probe_id", "category", "group", "template", "format", "neg_a", "pol_a", "neg_b", "pol_b"]]


def evaluate(s: Scenario, reps: int, wording: str = "fixed", level: float = 0.95, perms: int = 199,
             parts: tuple[str, ...] = ("groups", "cells", "tests", "compare", "criteria")) -> dict[str, Any]:
    """Coverage, width and rejection tallies of every cell type and test for one scenario."""
    import numpy as np
    from stereoprobe.studies.fillin.compare.paired import Settings, pair_differences
    from stereoprobe.stats.analysis import share_tables
    from stereoprobe.stats.criteria import criteria
    from stereoprobe.stats.format_test import format_test

    world = World.make(s)
    t_a, t_b = truth(world, wording), truth(world, wording, s.shift)
    tally: dict[str, Tally] = {}
    rej: dict[str, Rejections] = {}
    tpos = {t: i for i, (t, _) in enumerate(TEMPLATES)}
    null_groups = s.sd_group == 0 and s.sd_inter == 0 and s.zero_groups == 0
    null_format = s.question == 0 and (s.sd_template == 0 or wording == "random")
    rng = np.random.default_rng([s.seed, 11, 0 if wording == "fixed" else 1])
    settings = Settings(level=level)

    def T(name: str) -> Tally:
        return tally.setdefault(name, Tally())

    sizes = np.asarray(s.sizes)

    def by_size(name: str, cat_index: Any, *values: Any) -> None:
        """Add to ``name`` and to its small-category (9 to 15 groups) or large-category row."""
        T(name).add(*values)
        small = sizes[np.asarray(cat_index, int)] <= SMALL
        for label, m in ((f"{name}, <= {SMALL} groups", small), (f"{name}, > {SMALL} groups", ~small)):
            if m.any():
                T(label).add(*(np.asarray(v)[m] if np.ndim(v) else v for v in values))

    def R(name: str) -> Rejections:
        return rej.setdefault(name, Rejections())

    for _ in range(reps):
        if "cells" in parts or "compare" in parts or "criteria" in parts:  # groups drawn afresh
            runs = [prepared(r) for r in draw(world, rng, False, wording, runs=2)]
            rows = runs[0]
            st = share_tables(rows, level, wording)
            if "cells" in parts:
                t4 = st["table4"]
                cat_id = np.array([int(c[1:]) if c != "all" else -1 for c in t4["category"]])
                for name, pre, fmt in (("category", "", None), ("format", "question_", "question"),
                                       ("format", "statement_", "statement")):
                    est = _estimates(rows, ["category"], fmt)
                    cats = t4["category"] != "all"
                    key = "category" if fmt is None else f"category_{fmt}"
                    ids = cat_id[cats] + (0 if fmt is None else (100 if fmt == "question" else 200))
                    by_size(name, cat_id[cats], ids, t_a[key][cat_id[cats]],
                            est.reindex(t4.loc[cats, "category"]).to_numpy(),
                            t4.loc[cats, f"{pre}negative_ci_low"].to_numpy(), t4.loc[cats, f"{pre}negative_ci_high"].to_numpy())
                allrow = t4[t4["category"] == "all"].iloc[0]
                T("all").add([0], [t_a["all"]], [100 * rows["neg"].sum() / rows["polar"].sum()],
                             [allrow["negative_ci_low"]], [allrow["negative_ci_high"]])
                tt = st["templates"] if wording == "fixed" else st["templates"].iloc[:0]  # a template is its own
                est = _estimates(rows, ["category", "template"])
                ci = np.array([int(c[1:]) for c in tt["category"]], dtype=int)
                ti = np.array([tpos[t] for t in tt["template"]], dtype=int)
                if len(tt):
                    by_size("template", ci, ci * 10 + ti, t_a["template"][ci, ti],
                            est.reindex(list(zip(tt["category"], tt["template"]))).to_numpy(),
                            tt["negative_ci_low"].to_numpy(), tt["negative_ci_high"].to_numpy())
            if "tests" in parts:
                ft = format_test(rows, level, wording, st["phi"])
                cats = ft["category"] != "all"
                ci = np.array([int(c[1:]) for c in ft.loc[cats, "category"]])
                by_size("format test", ci, ci, t_a["format_difference"][ci], ft.loc[cats, "difference"].to_numpy(),
                        ft.loc[cats, "ci_low"].to_numpy(), ft.loc[cats, "ci_high"].to_numpy())
                fa = ft[~cats].iloc[0]
                T("format test, all").add([0], [t_a["format_difference_all"]], [fa["difference"]], [fa["ci_low"]],
                                          [fa["ci_high"]])
                R("format test" if null_format else "format test (effect)").add(ft["p"], ft.loc[cats, "q"])
            if "criteria" in parts and perms and (null_groups or s.sd_group > 0):
                cr = criteria(rows, int(rng.integers(2**31)), perms)
                effect = "" if null_groups else " (effect)"
                R("NMI" + effect).add(cr["nmi_p"])
                R("four-fifths" + effect).add(cr["four_fifths_p"])
            if "compare" in parts:
                d = pair_differences("a", "b", _aligned(runs[0], runs[1]), settings)
                for level_name in ("all", "category"):
                    sub = d[(d["level"] == level_name) & (d["format"] == "all")]
                    ci = np.array([int(c[1:]) if c != "all" else -1 for c in sub["category"]])
                    tr = (t_a["all"] - t_b["all"]) if level_name == "all" else (t_a["category"] - t_b["category"])[ci]
                    vals = (np.maximum(ci, 0), np.broadcast_to(tr, len(sub)), sub["difference"].to_numpy(),
                            sub["ci_low"].to_numpy(), sub["ci_high"].to_numpy())
                    if level_name == "all":
                        T("compare all").add(*vals)
                    else:
                        by_size("compare category", ci, *vals)
                    hit = (ci <= 0) if s.shift else np.zeros(len(ci), bool)  # c0 and all are shifted
                    R(f"compare {level_name}").add(sub["p"][~hit], sub["q"][~hit])
                    if hit.any():
                        R(f"compare {level_name} (effect)").add(sub["p"][hit])
        if "groups" in parts or "compare" in parts:  # the scenario's fixed groups
            runs = [prepared(r) for r in draw(world, rng, True, wording, runs=2)]
            rows = runs[0]
            if "groups" in parts:
                st = share_tables(rows, level, wording)
                gt = st["groups"]
                gi = np.array([int(g[1:]) for g in gt["group"]])
                for name, pre, key, fmt in (("group", "", "group", None),
                                            ("group 3-probe", "question_", "group_question", "question"),
                                            ("group 3-probe", "statement_", "group_statement", "statement")):
                    est = _estimates(rows, ["g_index"], fmt).reindex(gi).to_numpy()
                    T(name).add(gi + (0 if fmt is None else 1000 if fmt == "question" else 2000), t_a[key][gi], est,
                                gt[f"{pre}negative_ci_low"], gt[f"{pre}negative_ci_high"])
                shifted = np.isin(gi, np.r_[0, np.cumsum(s.sizes)[:-1]]) if s.group_shift else np.zeros(len(gi), bool)
                if null_groups or s.group_shift:
                    for c in gt["category"].unique():
                        m = (gt["category"] == c).to_numpy() & ~shifted
                        R("group vs category").add(gt.loc[m, "vs_category_p"], gt.loc[m, "vs_category_q"])
                if s.group_shift:
                    R("group vs category (effect)").add(gt.loc[shifted, "vs_category_p"])
                    R("group vs category (effect, q)").add(gt.loc[shifted, "vs_category_q"])
            if "compare" in parts:
                d = pair_differences("a", "b", _aligned(runs[0], runs[1]), settings)
                sub = d[d["level"] == "group"]
                gi = np.array([int(g[1:]) for g in sub["group"]])
                for fmt, key, name in (("all", "group", "compare group"), ("question", "group_question", "compare 3-probe"),
                                       ("statement", "group_statement", "compare 3-probe")):
                    m = (sub["format"] == fmt).to_numpy()
                    T(name).add(gi[m] + (0 if fmt == "all" else 1000 if fmt == "question" else 2000),
                                (t_a[key] - t_b[key])[gi[m]], sub.loc[m, "difference"], sub.loc[m, "ci_low"],
                                sub.loc[m, "ci_high"])
                    for c in sub.loc[m, "category"].unique():
                        mc = m & (sub["category"] == c).to_numpy()
                        effect = s.shift != 0 and c == "c0"
                        R(name + (" (effect)" if effect else "")).add(sub.loc[mc, "p"], sub.loc[mc, "q"])
    return {"scenario": s, "wording": wording, "reps": reps, "intervals": {k: v.summary() for k, v in tally.items()},
            "tests": {k: v.summary() for k, v in rej.items()}}


# -- the report --------------------------------------------------------------------------------

CELL_ORDER = ["group", "group 3-probe", "category", "category, <= 15 groups", "category, > 15 groups", "format",
              "format, <= 15 groups", "format, > 15 groups", "template", "template, <= 15 groups",
              "template, > 15 groups", "all", "format test", "format test, <= 15 groups", "format test, > 15 groups",
              "format test, all", "compare group", "compare 3-probe", "compare category",
              "compare category, <= 15 groups", "compare category, > 15 groups", "compare all"]
TEST_ORDER = ["group vs category", "format test", "NMI", "four-fifths", "compare group", "compare 3-probe",
              "compare category", "compare all"]


def _fmt(v: Any, spec: str) -> str:
    return "" if v is None or v != v else format(v, spec)


def markdown(results: list[dict[str, Any]]) -> str:
    """Coverage, width ratio, type-I error and power tables (Markdown)."""
    lines = []
    for wording in ("fixed", "random"):
        res = [r for r in results if r["wording"] == wording and not r["scenario"].name.startswith("power")]
        if not res:
            continue
        names = [r["scenario"].name for r in res]
        cells = [c for c in CELL_ORDER if any(c in r["intervals"] and r["intervals"][c] for r in res)]
        for title, key, spec in (("coverage of 95% intervals", "coverage", ".3f"),
                                 ("mean width / oracle width (2 x 1.96 x true sd)", "ratio", ".2f")):
            lines += [f"**{title}, wording {wording}**", "", "| cell | " + " | ".join(names) + " |",
                      "|---|" + "---:|" * len(names)]
            for c in cells:
                vals = [_fmt(r["intervals"].get(c, {}).get(key), spec) for r in res]
                lines.append(f"| {c} | " + " | ".join(vals) + " |")
            lines.append("")
        tests = [t for t in TEST_ORDER if any(t in r["tests"] and r["tests"][t] for r in res)]
        if tests:
            lines += [f"**type-I error at alpha 0.05 (raw p < 0.05 under the null), wording {wording}**", "",
                      "| test | " + " | ".join(names) + " |", "|---|" + "---:|" * len(names)]
            for t in tests:
                vals = []
                for r in res:
                    v = r["tests"].get(t, {})
                    vals.append(f"{v['rate']:.3f} ({v['n']:,})" if v and v.get("n") else "")
                lines.append(f"| {t} | " + " | ".join(vals) + " |")
            lines.append("")
            lines += [f"**families with any finding after BH (q < 0.05) under the null, wording {wording}**", "",
                      "| test | " + " | ".join(names) + " |", "|---|" + "---:|" * len(names)]
            for t in tests:
                vals = [_fmt(r["tests"].get(t, {}).get("any_flag"), ".3f") for r in res]
                lines.append(f"| {t} | " + " | ".join(vals) + " |")
            lines.append("")
    lines += ["**power (share of true effects with p < 0.05; q: after BH)**", "", "| scenario | effect | test | power |",
              "|---|---|---|---:|"]
    for r in results:
        name = r["scenario"].name
        for t, v in r["tests"].items():
            criterion = t.split(" (")[0] in ("NMI", "four-fifths")
            wanted = (name.startswith("power") and not criterion) or (name.startswith("groups-") and criterion)
            if "(effect" in t and v.get("n") and r["wording"] == "fixed" and wanted:
                lines.append(f"| {name} | {r['scenario'].note} | {t} | {v['rate']:.3f} ({v['n']:,}) |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reps", type=int, default=200, help="runs per scenario and design (default 200)")
    parser.add_argument("--perms", type=int, default=199, help="permutations of the NMI and four-fifths tests")
    parser.add_argument("--scenarios", default="", help="comma-separated names (default: all)")
    parser.add_argument("--random-wording", default="null-50,template-effects,interaction",
                        help="scenarios also run with --wording random")
    parser.add_argument("--wordings", default="fixed,random", help="which designs to run (default both)")
    parser.add_argument("--quick", action="store_true", help="40 runs per scenario")
    parser.add_argument("--out", type=Path, default=None,
                        help="default bench/results/simulate_stats.md (fill-in), simulate_crossed.md (others)")
    parser.add_argument("--study", default="fillin", help="fillin, or coreference and/or jobs (comma-separated)")
    parser.add_argument("--boot", type=int, default=200, help="replicates per block of the crossed plan")
    args = parser.parse_args(argv)
    if args.study != "fillin":
        return _crossed(args)
    args.out = args.out or ROOT / "bench" / "results" / "simulate_stats.md"
    reps = 40 if args.quick else args.reps
    chosen = [x for x in args.scenarios.split(",") if x]
    wordings = args.wordings.split(",")
    todo = [(sc, "fixed") for sc in SCENARIOS + POWER if "fixed" in wordings and (not chosen or sc.name in chosen)]
    todo += [(sc, "random") for sc in SCENARIOS if "random" in wordings and sc.name in args.random_wording.split(",")
             and (not chosen or sc.name in chosen)]
    results = []
    load0, t0 = os.getloadavg(), time.perf_counter()
    for sc, wording in todo:
        t = time.perf_counter()
        parts = ("groups", "cells", "tests") if wording == "random" else ("groups", "cells", "tests", "compare", "criteria")
        results.append(evaluate(sc, reps, wording, perms=args.perms, parts=parts))
        print(f"{sc.name} ({wording}): {time.perf_counter() - t:.0f} s", file=sys.stderr, flush=True)
    took, load1 = time.perf_counter() - t0, os.getloadavg()
    head = [f"Simulations: {reps} runs per scenario and design, {args.perms} permutations, seeds fixed "
            f"(`python bench/simulate_stats.py --reps {reps}`); {took / 60:.1f} min on {os.cpu_count()} cores, "
            f"load average {load0[0]:.1f} before and {load1[0]:.1f} after.", "",
            "| scenario | model |", "|---|---|"]
    head += [f"| {sc.name} | {sc.note} |" for sc in SCENARIOS + POWER if not chosen or sc.name in chosen]
    text = "\n".join(head) + "\n\n" + markdown(results) + "\n"
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(text, encoding="utf-8")
    print(text)


def _crossed(args: Any) -> None:
    """The coreference and jobs studies' statistics (bench/sim_crossed.py)."""
    import sim_crossed

    load0, t0 = os.getloadavg(), time.perf_counter()
    res = sim_crossed.run(args.study.split(","), args.reps, args.boot, args.perms,
                          log=lambda m: print(m, file=sys.stderr, flush=True),
                          scenarios=[x for x in args.scenarios.split(",") if x])
    load1 = os.getloadavg()
    head = (f"Simulations: `python bench/simulate_stats.py --study {args.study} --reps {args.reps} --boot {args.boot} "
            f"--perms {args.perms}` (coref-20: {args.reps // 4} runs); {(time.perf_counter() - t0) / 60:.1f} min on "
            f"{os.cpu_count()} cores, load average {load0[0]:.1f} before and {load1[0]:.1f} after.")
    out = args.out or ROOT / "bench" / "results" / "simulate_crossed.md"
    out.write_text(sim_crossed.markdown(res, head), encoding="utf-8")
    print(out)


if __name__ == "__main__":
    main()
