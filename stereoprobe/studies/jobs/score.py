"""Scoring a jobs run: RUN_DIR/jobs/, the tables behind the page (docs/jobs.md).

- ``probes.csv``: per job x prompt x prefix x setting, p_male, p_female, p_diverse (eq. 2)
  and ``mass`` (P_m + P_f + P_d of eq. 1: how much of the model's next-word probability
  the expressions take), the estimate and how many samples/answers stand behind it;
- ``groups.csv``: the means of women- and men-dominated jobs with bootstrap intervals
  over jobs, per prompt set (1, 2, 3, 4, and 2-4: each job's mean of prompts 2-4);
- ``table3.csv/.md`` and ``table4.csv/.md``: laid out as Mattern et al.'s Tables 3
  (prompt 1) and 4 (prompts 2-4);
- ``correlations.csv``: Spearman and Pearson of P(female) with the share of women in
  the job (BLS), per prompt set, prefix and setting, with intervals; ``gap.csv``:
  explicit (prompt 1) vs implicit (prompts 2-4);
- ``debias.csv``: each prefix's paired difference from no prefix, per group and gender,
  with intervals, p, BH q and a sentence;
- ``independence.csv``: NMI between job and gender with its stratified permutation null;
- ``stories.csv``, ``story_jobs.csv``: the story names' genders per job and prompt, and
  per job as Marin & Eger's Table 4 (share of female names per template and overall);
- ``meta.json``: the run, the estimate, the names table, the statistics' settings.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from stereoprobe.errors import DataError
from stereoprobe.studies.jobs.records import GENDERS, SETTINGS

SETS = ("1", "2", "3", "4", "2-4")  # prompt sets: each prompt, and Table 4's implicit prompts
IMPLICIT = ("2", "3", "4")
GROUPS = ("women", "men")
MARK = "stereoprobe_jobs_scores"


@dataclass
class JobsScores:
    probes: Any
    groups: Any
    table3: Any
    table4: Any
    correlations: Any
    gap: Any
    debias: Any
    independence: Any
    stories: Any
    story_jobs: Any
    meta: dict[str, Any] = field(default_factory=dict)


def load_records(run_dir: str | Path) -> tuple[Any, list]:
    """The run's manifest and records; a run of another study is refused in one line."""
    from stereoprobe.studies.base import read_run
    from stereoprobe.studies.jobs.records import JobAnswer

    return read_run(run_dir, "jobs", JobAnswer)


def probe_table(records: list) -> tuple[Any, Any]:
    """(gender probes, story probes) as DataFrames, samples of one probe combined."""
    import pandas as pd

    from stereoprobe.studies.jobs.measure import normalise

    gender: dict[str, dict[str, Any]] = {}
    story: dict[str, dict[str, Any]] = {}
    for r in records:
        base = {"probe_id": r.probe_id, "job": r.job, "dominated_by": r.dominated_by, "female_share": r.female_share,
                "prompt": r.prompt, "debias": r.debias, "setting": r.setting, "estimate": r.estimate}
        if r.kind == "gender":
            row = gender.setdefault(r.probe_id, {**base, **dict.fromkeys(GENDERS, 0.0), "answers": 0, "samples": 0,
                                                 "failed": 0, "refused": 0})
            row["samples"] += 1
            if r.status in ("failed", "refused"):
                row[r.status] += 1
            elif r.status == "ok":
                row["answers"] += 1
                for g in GENDERS:
                    row[g] += float((r.mass or {}).get(g, 0.0))
        else:
            row = story.setdefault(r.probe_id, {**base, "names": {}, "samples": 0, "answers": 0})
            row["samples"] += 1
            if r.status == "ok":
                row["answers"] += 1
                for name, p in (r.names or {}).items():
                    row["names"][name] = row["names"].get(name, 0.0) + p
    grows = []
    for row in gender.values():
        mass = {g: row.pop(g) for g in GENDERS}
        shares = normalise(mass)
        per = row["answers"] or 1
        grows.append({**row, "mass": sum(mass.values()) / per, **{f"p_{g}": shares[g] for g in GENDERS}})
    columns = ["probe_id", "job", "dominated_by", "female_share", "prompt", "debias", "setting", "estimate",
               "p_male", "p_female", "p_diverse", "mass", "answers", "samples", "failed", "refused"]
    gdf = pd.DataFrame(grows, columns=columns)
    return gdf, list(story.values())


def story_table(rows: list, table: Any) -> Any:
    """Per story probe: the probability (or share of samples) of female, male, unclassified
    and unknown names, the share of female names among gendered ones, the top name. Names
    take the majority gender of their bearers (stereoprobe.names, Marin & Eger's rule); a
    title is never a name: one that marks a gender (Mrs, Ms, Sir) counts as that gender,
    one that does not (Dr, Captain) as ``title``, neither male nor female."""
    import pandas as pd

    from stereoprobe.names import title_gender

    names = sorted({n for r in rows for n in r["names"]})
    classes = table.classify(names) if names else {}  # a title is "title", never a name
    classes = {n: (title_gender(n) or "title") if c == "title" else c for n, c in classes.items()}
    out = []
    for r in rows:
        mass = dict.fromkeys(("female", "male", "unclassified", "unknown", "title"), 0.0)
        per = r["answers"] or 1
        for name, p in r["names"].items():
            mass[classes[name]] += p / per
        gendered = mass["female"] + mass["male"]
        top = max(((n, p) for n, p in r["names"].items() if classes[n] != "title"), key=lambda kv: kv[1],
                  default=("", 0))[0]
        out.append({k: r[k] for k in ("probe_id", "job", "dominated_by", "female_share", "estimate", "answers",
                                      "samples")}
                   | {"story": r["prompt"], **mass, "names_mass": sum(mass.values()),
                      "share_female": mass["female"] / gendered if gendered > 0 else math.nan, "top_name": top})
    columns = ["probe_id", "job", "dominated_by", "female_share", "story", "estimate", "female", "male",
               "unclassified", "unknown", "title", "names_mass", "share_female", "top_name", "answers", "samples"]
    return pd.DataFrame(out, columns=columns)


def per_job(probes: Any, prompt_set: str, debias: int, setting: str) -> Any:
    """One row per job: its P(male/female/diverse) for the prompt set (2-4: the mean of
    the job's prompts 2, 3 and 4), with its group and share of women."""
    prompts = IMPLICIT if prompt_set == "2-4" else (prompt_set,)
    sel = probes[probes.prompt.isin(prompts) & (probes.debias == debias) & (probes.setting == setting)]
    cols = [f"p_{g}" for g in GENDERS]
    jobs = sel.groupby("job", sort=False).agg({**{c: "mean" for c in cols}, "dominated_by": "first",
                                               "female_share": "first", "prompt": "count"})
    return jobs.rename(columns={"prompt": "prompts"}).reset_index()


def score(run_dir: str | Path, level: float = 0.95, n_boot: int = 2000, seed: int = 0) -> JobsScores:
    """Every table of RUN_DIR/jobs/ (see the module docstring)."""
    from stereoprobe.manifest import scored_stamp
    from stereoprobe.stats.analysis import check_options
    from stereoprobe import names as names_mod
    from stereoprobe.studies.jobs import tables

    check_options(level, n_boot, seed)
    manifest, records = load_records(run_dir)
    probes, story_rows = probe_table(records)
    if probes.empty and not story_rows:
        raise DataError(f"{run_dir}: no answers to score; run `stereoprobe collect --study jobs --out {run_dir}`.")
    name_table = names_mod.load() if story_rows else None
    stories = story_table(story_rows, name_table) if story_rows else story_table([], None)
    opts = {"level": level, "n_boot": n_boot, "seed": seed}
    groups = tables.groups(probes, **opts)
    result = JobsScores(
        probes=probes, groups=groups, table3=tables.paper_table(groups, "1"), table4=tables.paper_table(groups, "2-4"),
        correlations=tables.correlations(probes, stories, level),
        gap=tables.gap(probes, **opts), debias=tables.debias(probes, **opts),
        independence=tables.independence(probes, stories, seed), stories=stories,
        story_jobs=tables.story_jobs(stories, **opts),
    )
    estimates = sorted(set(probes.estimate) | set(stories.estimate))
    result.meta = {
        MARK: True, "run": str(Path(run_dir).resolve()), "model": manifest.model, "mode": manifest.mode,
        "design": manifest.design or "default", "estimates": estimates, "embedded": manifest.settings.backend == "local",
        "catalog": manifest.catalog.path if manifest.catalog else None,
        "names_table": name_table.source if name_table else None,
        "statistics": {"level": level, "bootstrap": n_boot, "seed": seed, "unit": "job",
                       "interval": "t-based cluster bootstrap over jobs (stereoprobe.stats)",
                       "correlation_interval": "jackknife on atanh r over jobs (bias-corrected centre, t n-1)",
                       "nmi_null": "job labels permuted within prompt strata (999 permutations)"},
        **scored_stamp(manifest),
    }
    return result


def write_scores(result: JobsScores, out: Path) -> Path:
    """Write RUN_DIR/jobs/ all or nothing (store.replace_folder)."""
    import json

    from stereoprobe.store import marked, replace_folder
    from stereoprobe.studies.jobs.tables import markdown

    def fill(tmp: Path) -> None:
        for name in ("probes", "groups", "table3", "table4", "correlations", "gap", "debias", "independence",
                     "stories", "story_jobs"):
            getattr(result, name).to_csv(tmp / f"{name}.csv", index=False, float_format="%.6g")
        for name, title in (("table3", "Prompt 1 (explicit)"), ("table4", "Prompts 2-4 (implicit)")):
            (tmp / f"{name}.md").write_text(markdown(getattr(result, name), title), encoding="utf-8")
        (tmp / "meta.json").write_text(json.dumps(result.meta, indent=2) + "\n", encoding="utf-8")

    return replace_folder(Path(out), fill, marked(MARK), "stereoprobe score")


def summary(result: JobsScores) -> str:
    """A few lines for the terminal: the correlations without prefix, and the groups."""
    c = result.correlations
    lines = [f"Estimate: {', '.join(result.meta.get('estimates', []))}; {len(result.probes)} prompt answers, "
             f"{len(result.stories)} story answers."]
    base = c[(c.method == "spearman") & (c.debias == 0) & (c.setting == SETTINGS[0])]
    for row in base.itertuples():
        lines.append(f"  Spearman of P(female) with the share of women, prompt {row.prompts}: {row.r:.2f} "
                     f"({row.low:.2f} to {row.high:.2f}, p = {row.p:.2g}, {row.n} jobs)")
    return "\n".join(lines)
