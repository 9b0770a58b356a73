"""The jobs study's tables, from the per-probe table (score.probe_table) and studies/jobs/stats.py."""

from __future__ import annotations

import math
from typing import Any

from stereoprobe.studies.jobs.records import GENDERS, SETTINGS
from stereoprobe.studies.jobs.score import GROUPS, IMPLICIT, SETS, per_job

LETTERS = {"male": "M", "female": "F", "diverse": "D"}
ABSTRACTION = {1: "High", 2: "High", 3: "Med.", 4: "Med.", 5: "Low", 6: "Low"}
SHORT = {"without dialogue": "without", "with dialogue": "with"}


def _cells(probes: Any) -> list[tuple[str, int, str]]:
    """The (prompt set, prefix, setting) cells the run has answers for."""
    out = []
    for setting in SETTINGS:
        for debias in sorted(set(probes.debias)):
            for s in SETS:
                prompts = IMPLICIT if s == "2-4" else (s,)
                if ((probes.debias == debias) & (probes.setting == setting) & probes.prompt.isin(prompts)).any():
                    out.append((s, int(debias), setting))
    return out


def groups(probes: Any, level: float, n_boot: int, seed: int) -> Any:
    """Per prompt set x prefix x setting x group: mean P(gender) (percent) with intervals."""
    import pandas as pd

    from stereoprobe.studies.jobs.stats import group_means

    rows = []
    for s, debias, setting in _cells(probes):
        jobs = per_job(probes, s, debias, setting)
        for group in GROUPS:
            sel = jobs[jobs.dominated_by == group].dropna(subset=[f"p_{g}" for g in GENDERS])
            m = group_means(sel[[f"p_{g}" for g in GENDERS]].to_numpy(), list(sel.job), n_boot, seed, level)
            row = {"prompts": s, "debias": debias, "setting": setting, "group": group, "jobs": m["n"]}
            for i, g in enumerate(GENDERS):
                row.update({g: m["mean"][i], f"{g}_ci_low": m["low"][i], f"{g}_ci_high": m["high"][i]})
            rows.append(row)
    return pd.DataFrame(rows)


def paper_table(groups_df: Any, prompt_set: str) -> Any:
    """Mattern et al.'s Table 3 (set "1") or 4 (set "2-4"): rows no prefix, 1-6 with each
    abstraction's average; columns M F D per group, without and with dialogue."""
    import pandas as pd

    g = groups_df[groups_df.prompts == prompt_set] if len(groups_df) else groups_df
    rows = []
    order = [("None", 0)]
    for label, pair in (("High", (1, 2)), ("Med.", (3, 4)), ("Low", (5, 6))):
        order += [(label, pair[0]), (label, pair[1]), (label, "Avg")]
    for label, debias in order:
        row: dict[str, Any] = {"abstraction": label, "id": debias if debias != 0 else "None"}
        ids = [n for n in range(1, 7) if ABSTRACTION[n] == label] if debias == "Avg" else [debias]
        found = False
        for setting in SETTINGS:
            for group in GROUPS:
                sel = g[(g.setting == setting) & (g.group == group) & g.debias.isin(ids)] if len(g) else g
                for gender in GENDERS:
                    col = f"{SHORT[setting]}_{group}_{LETTERS[gender]}"
                    if len(sel) == len(ids) and len(sel):
                        row[col] = float(sel[gender].mean())
                        if debias != "Avg":
                            row[f"{col}_ci_low"] = float(sel[f"{gender}_ci_low"].iloc[0])
                            row[f"{col}_ci_high"] = float(sel[f"{gender}_ci_high"].iloc[0])
                        found = True
                    else:
                        row[col] = math.nan
        if found:
            rows.append(row)
    return pd.DataFrame(rows)


def markdown(table: Any, title: str) -> str:
    """A paper table as Markdown (percent, one decimal), in the paper's layout."""
    head = [f"**{title}.** Mean probability of gender expressions (%) for women- and men-dominated jobs. "
            "Columns 3-8: without dialogue, columns 9-14: with dialogue; in each, women-dominated jobs "
            "(M F D), then men-dominated jobs (M F D). The paper's layout (Mattern et al., Tables 3 and 4).", "",
            "| Abs. | ID | " + " | ".join(f"{g} {x}" for s in SETTINGS for g in GROUPS for x in "MFD") + " |",
            "|---|---|" + "---:|" * 12]
    lines = []
    for row in table.to_dict("records"):
        cells = []
        for s in SETTINGS:
            for g in GROUPS:
                for x in "MFD":
                    v = row.get(f"{SHORT[s]}_{g}_{x}", math.nan)
                    cells.append("–" if v is None or math.isnan(v) else f"{v:.1f}%")
        lines.append(f"| {row['abstraction']} | {row['id']} | " + " | ".join(cells) + " |")
    return "\n".join(head + lines) + "\n"


def correlations(probes: Any, stories: Any, level: float) -> Any:
    """Spearman and Pearson of P(female) (stories: the share of female names) with the
    job's share of women, per prompt set, prefix and setting."""
    import pandas as pd

    from stereoprobe.stats.correlation import correlation

    rows = []
    for s, debias, setting in _cells(probes):
        jobs = per_job(probes, s, debias, setting)
        for method in ("spearman", "pearson"):
            c = correlation(jobs.p_female, jobs.female_share.astype(float), method, level)
            rows.append({"prompts": s, "debias": debias, "setting": setting, "method": method, "r": c.r,
                         "low": c.low, "high": c.high, "p": c.p, "n": c.n})
    if len(stories):
        jobs = stories.groupby("job").agg(share=("share_female", "mean"), female_share=("female_share", "first"))
        for method in ("spearman", "pearson"):
            c = correlation(jobs.share, jobs.female_share.astype(float), method, level)
            rows.append({"prompts": "stories", "debias": 0, "setting": "story", "method": method, "r": c.r,
                         "low": c.low, "high": c.high, "p": c.p, "n": c.n})
    return pd.DataFrame(rows, columns=["prompts", "debias", "setting", "method", "r", "low", "high", "p", "n"])


def gap(probes: Any, level: float, n_boot: int, seed: int) -> Any:
    """Explicit (prompt 1) vs implicit (prompts 2-4), per prefix and setting: the Spearman
    correlations with the share of women and their difference (jobs resampled together),
    and the separation, mean P(female) of women- minus men-dominated jobs, and its
    difference (jobs resampled within their group)."""
    import numpy as np
    import pandas as pd

    from stereoprobe.stats import cluster_weights, t_interval
    from stereoprobe.stats.correlation import correlation, correlation_difference

    rows = []
    for debias in sorted(set(probes.debias)):
        for setting in SETTINGS:
            a, b = per_job(probes, "1", debias, setting), per_job(probes, "2-4", debias, setting)
            both = a.merge(b, on=["job", "dominated_by", "female_share"], suffixes=("_1", "_24"))
            both = both[both.dominated_by.isin(GROUPS)].dropna(subset=["p_female_1", "p_female_24"])
            if len(both) < 4:
                continue
            share = both.female_share.astype(float)
            r1, r2 = (correlation(both[c], share).r for c in ("p_female_1", "p_female_24"))
            d, dlow, dhigh = correlation_difference(both.p_female_1, share, both.p_female_24, share, "spearman",
                                                    level, n_boot, seed)
            women = (both.dominated_by == "women").to_numpy()
            w = cluster_weights([list(both.job)], n_boot, seed=seed, strata=list(both.dominated_by)).astype(float)

            def separation(values: Any) -> tuple[float, Any]:
                v = 100 * values.to_numpy()
                est = v[women].mean() - v[~women].mean()
                reps = (w[:, women] @ v[women]) / w[:, women].sum(1) - (w[:, ~women] @ v[~women]) / w[:, ~women].sum(1)
                return est, reps

            s1, reps1 = separation(both.p_female_1)
            s2, reps2 = separation(both.p_female_24)
            low, high = t_interval(s2 - s1, reps2 - reps1, len(both), 2, level=level, bounds=(-200.0, 200.0))
            rows.append({"debias": debias, "setting": setting, "jobs": len(both), "spearman_explicit": r1,
                         "spearman_implicit": r2, "spearman_difference": d, "spearman_difference_low": dlow,
                         "spearman_difference_high": dhigh, "separation_explicit": s1, "separation_implicit": s2,
                         "separation_difference": s2 - s1, "separation_difference_low": float(np.asarray(low)),
                         "separation_difference_high": float(np.asarray(high))})
    return pd.DataFrame(rows)


def debias(probes: Any, level: float, n_boot: int, seed: int) -> Any:
    """Each prefix's paired difference from no prefix (same jobs), per prompt set (1, 2-4),
    setting, group and gender; BH q over all of them; a sentence per row."""
    import pandas as pd

    from stereoprobe.stats import bh
    from stereoprobe.studies.jobs.stats import paired_differences

    rows = []
    for setting in SETTINGS:
        for s in ("1", "2-4"):
            base = per_job(probes, s, 0, setting)
            for number in sorted(n for n in set(probes.debias) if n):
                other = per_job(probes, s, number, setting)
                both = base.merge(other, on=["job", "dominated_by"], suffixes=("_0", "_d"))
                for group in GROUPS:
                    sel = both[both.dominated_by == group].dropna()
                    if len(sel) < 2:
                        continue
                    cols = [f"p_{g}" for g in GENDERS]
                    r = paired_differences(sel[[c + "_d" for c in cols]].to_numpy(), sel[[c + "_0" for c in cols]].to_numpy(),
                                           list(sel.job), n_boot, seed, level)
                    for i, g in enumerate(GENDERS):
                        rows.append({"prompts": s, "setting": setting, "debias": number, "group": group, "gender": g,
                                     "without_prefix": 100 * sel[f"p_{g}_0"].mean(),
                                     "with_prefix": 100 * sel[f"p_{g}_d"].mean(), "difference": r["difference"][i],
                                     "ci_low": r["low"][i], "ci_high": r["high"][i], "p": r["p"][i], "jobs": r["n"]})
    out = pd.DataFrame(rows)
    if out.empty:
        return out
    out["q"] = bh(out.p.to_numpy())
    out["sentence"] = [sentence(r) for r in out.to_dict("records")]
    return out


def _pct(x: float) -> str:
    return f"{x:.1f}%" if abs(x) < 10 else f"{x:.0f}%"


def sentence(r: dict) -> str:
    """'prefix 5 moves P(diverse) for men-dominated jobs from 0.1% to 94% (+93.9 points,
    95% CI ...; q = ...), prompts 2-4, without dialogue.'"""
    verb = "moves" if r["q"] < 0.05 else "does not clearly move"
    return (f"Prefix {r['debias']} {verb} P({r['gender']}) for {r['group']}-dominated jobs from "
            f"{_pct(r['without_prefix'])} to {_pct(r['with_prefix'])} ({r['difference']:+.1f} points, "
            f"{r['ci_low']:+.1f} to {r['ci_high']:+.1f}; q = {r['q']:.2g}), prompts {r['prompts']}, {r['setting']}.")


def independence(probes: Any, stories: Any, seed: int) -> Any:
    """NMI between job and gender per prompt set (1-4, 2-4, 1), prefix and setting, and for
    the story names, each with its permutation null (studies/jobs/stats.py)."""
    import pandas as pd

    from stereoprobe.studies.jobs.stats import PERMUTATIONS, independence as nmi_test

    rows = []
    cols = [f"p_{g}" for g in GENDERS]
    for setting in SETTINGS:
        for debias in sorted(set(probes.debias)):
            for name, prompts in (("1-4", ("1", *IMPLICIT)), ("2-4", IMPLICIT), ("1", ("1",))):
                sel = probes[(probes.debias == debias) & (probes.setting == setting) & probes.prompt.isin(prompts)]
                sel = sel.dropna(subset=cols)
                if sel.job.nunique() < 2:
                    continue
                nmi, null, p = nmi_test(list(sel.job), list(sel.prompt), sel[cols].to_numpy(), seed=seed)
                rows.append({"prompts": name, "debias": debias, "setting": setting, "nmi": nmi, "null_mean": null,
                             "p": p, "jobs": sel.job.nunique(), "strata": len(set(sel.prompt)),
                             "permutations": PERMUTATIONS})
    if len(stories):
        sel = stories.dropna(subset=["share_female"])
        if sel.job.nunique() >= 2:
            nmi, null, p = nmi_test(list(sel.job), list(sel.story), sel[["female", "male"]].to_numpy(), seed=seed)
            rows.append({"prompts": "stories", "debias": 0, "setting": "story", "nmi": nmi, "null_mean": null, "p": p,
                         "jobs": sel.job.nunique(), "strata": sel.story.nunique(), "permutations": PERMUTATIONS})
    return pd.DataFrame(rows)


def story_jobs(stories: Any, level: float, n_boot: int, seed: int) -> Any:
    """Marin & Eger's Table 4: per job the share of female names (percent) per story
    prompt and overall (the mean over the prompts), then each group's mean with its interval."""
    import pandas as pd

    from stereoprobe.studies.jobs.stats import group_means

    if not len(stories):
        return pd.DataFrame()
    order = list(dict.fromkeys(stories.story))
    jobs = stories.drop_duplicates("job").set_index("job")[["dominated_by", "female_share"]]
    shares = 100 * stories.groupby(["job", "story"]).share_female.mean().unstack("story").reindex(columns=order)
    wide = jobs.join(shares).reset_index()
    wide["overall"] = wide[order].mean(axis=1)
    wide["unknown_or_unclassified"] = (100 * stories.groupby("job")[[c for c in ("unknown", "unclassified", "title") if c in stories]].sum().sum(axis=1)
                                       / stories.groupby("job").names_mass.sum().where(lambda x: x > 0)).reindex(wide.job).to_numpy()
    rows = [wide.assign(row="job")]
    for group in GROUPS:
        sel = wide[wide.dominated_by == group].dropna(subset=["overall"])
        if len(sel) < 2:
            continue
        m = group_means(sel[order + ["overall"]].to_numpy() / 100, list(sel.job), n_boot, seed, level)
        summary = {"job": f"mean of {group}-dominated jobs", "dominated_by": group, "row": "group",
                   **dict(zip(order + ["overall"], m["mean"])), "overall_ci_low": float(m["low"][-1]),
                   "overall_ci_high": float(m["high"][-1])}
        rows.append(pd.DataFrame([summary]))
    return pd.concat(rows, ignore_index=True)
