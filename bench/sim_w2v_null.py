"""The hobbies Word2Vec comparison at a known truth: a simulation in two families of texts.

    python bench/sim_w2v_null.py --family synth --names 214 --samples 10 --reps 100 --raw out.csv
    python bench/sim_w2v_null.py --summary out.csv [more.csv ...]       # the tables from raw rows
    python bench/sim_w2v_null.py --summary out.csv --against synth:214:real=0.348,0.136  # a larger run's truth

Families (each run's names nested in genders, each name's own mixture drawn around its
gender's, seed = 1000 + replicate):

- ``synth``: tests/hobbies_synth.py, one label's words in a fixed sentence ("Mary loves
  chess and hiking. She also enjoys quiet weekends at home."); null: one label mix for both
  genders; real: female-name texts name Art 20% instead of 14%, Technology 22% and Sport
  26% instead of 25% and 29% (``REAL``);
- ``topics``: tests/hobbies_topics.py, bags of made-up words of varied length from eight
  overlapping Zipf topics, stop and common words, the name and pronoun anywhere; null: one
  topic mix; real: ``hobbies_topics.PLANTED`` (shares moved by 0.02).

Each replicate is compared alone (``w2v.compare``) the corrected way (cross-fit, ``--folds``
k: d within each fold of names, averaged; se from the folds' name-bootstrap sds and what
``--retrain`` retrainings a fold add, ``w2v.pooled``) and, with ``--ways cross-fit,001``,
001's way (one model, in-sample, names kept). One raw row per replicate and way: d, se, the
folds' d, sd, Mann-Whitney z and retraining shifts (own, via, other), CPU seconds and load,
and p-values of the tests compared (``TESTS``); the summary recomputes each se variant
(name bootstrap alone, 3, 5 and all retrainings a fold, and var(via) in place of the
covariance) from the same rows, and ``--against`` judges a cell by a larger run's target
and sd of d. The summary's truth for d is 0 under the null and, for a real
difference, the mean d over the replicates (the procedure's own estimand at that size: a
trained axis makes d depend on the corpus), with its Monte-Carlo se.
"""

from __future__ import annotations

import argparse
import csv
import os
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

#: A modest real difference for the synth family (shares moved by 0.03 to 0.06 from the null's).
REAL = {"female": [0.22, 0.1, 0.26, 0.2, 0.12, 0.1], "male": [0.25, 0.1, 0.29, 0.14, 0.12, 0.1]}
TESTS = {
    "p_fold": "per-fold Mann-Whitney z over name means, averaged (the tool's)",
    "p_names_pooled": "Mann-Whitney over name means, the folds pooled",
    "p_names_centred": "Mann-Whitney over name means, each fold centred",
    "p_texts": "Mann-Whitney over texts (not valid: a name's texts are one cluster)",
}


def truths(family: str) -> dict:
    if family == "synth":
        import hobbies_synth as synth

        return {"null": synth.NULL, "real": REAL}
    import hobbies_topics as topics

    return {"null": topics.NULL, "real": topics.PLANTED}


def run_texts(family: str, truth: dict, names: int, samples: int, seed: int):
    import hobbies_synth
    import hobbies_topics

    from stereoprobe.studies.hobbies.text import content_words, tokens
    from stereoprobe.studies.hobbies.w2v import RunTexts

    make = hobbies_synth.texts if family == "synth" else hobbies_topics.texts
    rows = make(truth, n_per_gender=names, samples=samples, seed=seed)
    return RunTexts("sim", [tokens(r[4]) for r in rows], [content_words(r[4], [r[0]]) for r in rows],
                    [r[1] for r in rows], [r[0] for r in rows])


def extra_tests(r) -> dict:
    """The other tests' p-values from one projection's text scores."""
    from scipy.stats import mannwhitneyu

    from stereoprobe.studies.hobbies.w2v import name_means

    g = np.asarray(r.genders)
    s = np.asarray(r.scores, dtype=float)
    ok = np.isfinite(s)
    out = {"p_texts": mannwhitneyu(s[ok & (g == "female")], s[ok & (g == "male")]).pvalue}
    by = name_means(r.names, r.genders, s)
    fold = dict(zip(r.names, np.asarray(r.fold)))
    by["fold"] = [fold[n] for n in by["name"]]
    female = by["gender"] == "female"
    out["p_names_pooled"] = mannwhitneyu(by.loc[female, "score"], by.loc[~female, "score"]).pvalue
    centred = by["score"] - by.groupby("fold")["score"].transform("mean")
    out["p_names_centred"] = mannwhitneyu(centred[female], centred[~female]).pvalue
    return out


def simulate(family: str, truth_name: str, names: int, samples: int, reps: int, n_boot: int,
             ways: tuple[str, ...], start: int, raw: Path | None, k: int = 3, retrain: int = 0) -> list[dict]:
    from stereoprobe.studies.hobbies import w2v

    truth = truths(family)[truth_name]
    rows = []
    for rep in range(start, start + reps):
        run = run_texts(family, truth, names, samples, seed=1000 + rep)
        for way in ways:
            cpu = time.process_time()
            r = w2v.compare([run], seed=rep, n_boot=n_boot, way=way, k=k, retrain=retrain)[0]
            row = {"family": family, "names": names, "samples": samples, "truth": truth_name,
                   "way": f"cross-fit, {k} folds" if way == "cross-fit" else way,
                   "rep": rep, "d": r.d, "se": r.se, "p_fold": r.p_names if way == "cross-fit" else np.nan,
                   "retrain": retrain if way == "cross-fit" else 0, "cpu": time.process_time() - cpu,
                   "load": os.getloadavg()[0]}
            for j, part in enumerate(r.folds):
                row.update({f"d{j}": part.d, f"sd{j}": part.sd, f"z{j}": part.z,
                            f"own{j}": " ".join(f"{x:.6g}" for x in part.own),
                            f"via{j}": " ".join(f"{x:.6g}" for x in part.via_model),
                            f"other{j}": " ".join(f"{x:.6g}" for x in part.via_other)})
            row.update(extra_tests(r))
            rows.append(row)
            if raw is not None:
                new = not raw.exists()
                with raw.open("a", newline="") as f:
                    writer = csv.DictWriter(f, fieldnames=FIELDS)
                    if new:
                        writer.writeheader()
                    writer.writerow({k: row.get(k, "") for k in FIELDS})
    return rows


FIELDS = ["family", "names", "samples", "truth", "way", "rep", "d", "se", "d0", "sd0", "z0", "d1", "sd1", "z1",
          "d2", "sd2", "z2", *TESTS, "retrain", "own0", "via0", "other0", "own1", "via1",
          "other1", "own2", "via2", "other2", "cpu", "load"]


def share(x) -> str:
    x = np.asarray(x, dtype=bool)
    p = x.mean()
    return f"{100 * p:.1f}% ± {100 * np.sqrt(p * (1 - p) / len(x)):.1f}"


def se_of(row, retrain: int, whole: bool = False) -> float:
    """A raw row's se with the first ``retrain`` retraining replicates per fold (0: the name bootstrap
    alone, models held fixed), by the tool's own rule (``w2v.pooled``); ``whole``: var(via) in place of
    cov(via, other) (what a plain retraining bootstrap would count: the check from above)."""
    from stereoprobe.studies.hobbies import w2v

    parts = []
    for j in range(3):
        own, via, other = (tuple(float(x) for x in str(row[f"{c}{j}"]).split()[:retrain]) if retrain > 1 else ()
                           for c in ("own", "via", "other"))
        parts.append(w2v.Fold(row[f"d{j}"], row[f"sd{j}"], row[f"z{j}"], 0, 0, own, via, via if whole else other))
    return w2v.pooled(parts)[1]


def reference(items: list[str] | None) -> dict:
    """``--against`` items family:names:truth=target,sd as {(family, names, truth): (target, sd)}."""
    out = {}
    for item in items or []:
        key, values = item.split("=")
        family, names, truth = key.split(":")
        target, sd = (float(x) for x in values.split(","))
        out[(family, int(names), truth)] = (target, sd)
    return out


def summary(frame, against: dict | None = None) -> list[str]:
    """The tables (markdown) from raw rows: per family, size, truth, way: the interval with each se
    the rows allow (models held fixed; 3, 5 and the rows' retraining replicates per fold), then the tests;
    ``against``: per (family, names, truth) a target and sd of d to judge by in place of the rows' own."""
    from scipy.stats import norm

    q = norm.isf(0.025)
    lines = ["Seeds: replicate r's texts 1000 + r; its folds, Word2Vec models, name bootstrap and retraining r.",
             "", "| family | names x texts | truth | se | replicates | reps | mean d (± se) | target | "
             "sd of d (oracle) | mean se / oracle | 95% interval covers the target | CPU s a replicate |",
             "|---|---|---|---|---|---:|---:|---:|---:|---:|---:|---:|"]
    tests = ["| family | names x texts | truth | way | reps | tool's test p < 0.05 | pooled name means | "
             "centred name means | over texts |", "|---|---|---|---|---:|---:|---:|---:|---:|"]
    for key, g in frame.groupby(["family", "names", "samples", "truth", "way"], sort=False):
        family, names, samples, truth, way = key
        d = g["d"].to_numpy(float)
        target = 0.0 if truth == "null" else d.mean()
        oracle = d.std(ddof=1)
        given = (against or {}).get((family, int(names), truth))
        if given is not None:  # a larger run's target and sd of d at the same size (--against)
            target, oracle = given
        size = f"{names}+{names} x {samples}"
        top = int(g["retrain"].min()) if "retrain" in g and g["retrain"].notna().all() else 0
        if way.startswith("cross-fit, 3"):
            reps = f"{int(g['rep'].min())}-{int(g['rep'].max())}"
            variants = [(r, False) for r in sorted({0, *(x for x in (3, 5) if x < top), top})]
            for r, whole in variants + ([(top, True)] if top > 1 else []):
                se = np.array([se_of(row, r, whole) for _, row in g.iterrows()])
                label = ("models held fixed (name bootstrap alone)" if r == 0 else
                         f"retrain {r} a fold, var(via) (too wide)" if whole else f"retrain {r} a fold")
                cpu = f"{g['cpu'].mean():.1f}" if r == top and not whole and "cpu" in g else ""
                lines.append(f"| {family} | {size} | {truth} | {label} | {reps} | {len(g)} | {d.mean():+.3f} ± "
                             f"{oracle / np.sqrt(len(d)):.3f} | {target:+.3f} | {oracle:.3f} | "
                             f"{np.mean(se) / oracle:.2f} | {share(np.abs(d - target) <= q * se)} | {cpu} |")
        rates = [share(g[t].to_numpy(float) < 0.05) if g[t].notna().all() else "-"
                 for t in ("p_fold", "p_names_pooled", "p_names_centred", "p_texts")]
        tests.append(f"| {family} | {size} | {truth} | {way} | {len(g)} | {' | '.join(rates)} |")
    return lines + [""] + tests


def read_raw(path: Path):
    """A raw CSV (``--raw``), "null" read as the truth's name, not a missing value; a replicate
    appended twice (the same seeds give the same row) counted once."""
    import pandas as pd

    frame = pd.read_csv(path, dtype={"truth": str, "family": str, "way": str}, keep_default_na=False,
                        na_values=[""])
    return frame.drop_duplicates(["family", "names", "samples", "truth", "way", "rep"])  # a replicate run twice


def half_resamples(tables, k: int, retrain: int, seed: int):
    """``w2v.resamples`` with half-samples: per fold, ``retrain`` rows of 0/1 that pick half of each run's and
    gender's names without replacement (an odd one out to either half by chance); the same Word2Vec seeds."""
    out = []
    for h in range(k):
        strata = np.array([f"{i}\x00{g}" for i, t in enumerate(tables) for g in t.loc[t["fold"] == h, "gender"]])
        rng = np.random.default_rng([seed, 7, h])
        w = np.zeros((retrain, len(strata)), dtype=np.int32)
        for s in dict.fromkeys(strata.tolist()):
            ix = np.flatnonzero(strata == s)
            for b in range(retrain):
                w[b, rng.choice(ix, size=len(ix) // 2 + int(len(ix) % 2 and rng.random() < 0.5), replace=False)] = 1
        out.append((w, [int(np.random.SeedSequence([seed, h, b]).generate_state(1)[0]) for b in range(retrain)]))
    return out


def twostage_fold_texts(runs, split, fold: int, counts=None) -> list:
    """``w2v._fold_texts`` where each copy of a name drawn by a retraining replicate (``counts``) brings its texts
    drawn again with replacement; the generator is seeded by the fold, the texts and the counts, so a run's draws
    do not depend on what ran before. Without ``counts`` (the fold's own model), the texts as they are."""
    if counts is None:
        return [s for r, f in zip(runs, split) for s, j in zip(r.sentences, f) if j == fold]
    out = []
    for i, (r, f) in enumerate(zip(runs, split)):
        texts: dict[str, list] = {}
        for s, j, n in zip(r.sentences, f, r.names):
            if j == fold:
                texts.setdefault(n, []).append(s)
        key = [fold, len(texts), *[int(counts[i].get(n, 0)) for n in sorted(texts)]]
        rng = np.random.default_rng(key)
        for n in sorted(texts):
            mine = texts[n]
            for _ in range(int(counts[i].get(n, 0))):
                out += [mine[x] for x in rng.integers(len(mine), size=len(mine))]
    return out


def main() -> None:
    import pandas as pd

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--family", choices=["synth", "topics"], default="synth")
    parser.add_argument("--names", type=int, default=107, help="names per gender")
    parser.add_argument("--samples", type=int, default=20)
    parser.add_argument("--reps", type=int, default=40)
    parser.add_argument("--bootstrap", type=int, default=500)
    parser.add_argument("--truths", default="null,real")
    parser.add_argument("--ways", default="cross-fit")
    parser.add_argument("--folds", type=int, default=3, help="cross-fitting's folds of names")
    parser.add_argument("--retrain", type=int, default=10,
                        help="retraining bootstrap replicates per fold (the summary also shows fewer, and none)")
    parser.add_argument("--start", type=int, default=0, help="first replicate (its seeds)")
    parser.add_argument("--resampling", choices=["bootstrap", "half", "twostage"], default="bootstrap",
                        help="how retraining draws a fold's names: the tool's bootstrap; half of each run's and "
                             "gender's names without replacement; or the bootstrap's names, each copy of a name "
                             "with its texts drawn again with replacement (experiments, docs/hobbies.md)")
    parser.add_argument("--raw", type=Path, default=None, help="append one row per replicate and way to this CSV")
    parser.add_argument("--summary", type=Path, nargs="+", default=None, help="print the tables of raw CSVs")
    parser.add_argument("--against", nargs="+", default=None, metavar="FAMILY:NAMES:TRUTH=TARGET,SD",
                        help="judge a cell by another run's target and sd of d (e.g. more replicates, same seeds)")
    args = parser.parse_args()
    if args.summary:
        print("\n".join(summary(pd.concat([read_raw(p) for p in args.summary], ignore_index=True),
                                reference(args.against))))
        return
    if args.resampling == "half":
        from stereoprobe.studies.hobbies import w2v

        w2v.resamples = half_resamples
    if args.resampling == "twostage":
        from stereoprobe.studies.hobbies import w2v

        w2v._fold_texts = twostage_fold_texts
    t0 = time.perf_counter()
    print(f"{args.family}: {args.names}+{args.names} names x {args.samples} samples, {args.reps} replicates from "
          f"{args.start}, {args.bootstrap} bootstrap; load before {os.getloadavg()[0]:.2f}", flush=True)
    rows = []
    for t in args.truths.split(","):
        rows += simulate(args.family, t, args.names, args.samples, args.reps, args.bootstrap,
                         tuple(args.ways.split(",")), args.start, args.raw, args.folds, args.retrain)
    print("\n".join(summary(pd.DataFrame(rows))))
    print(f"\n{time.perf_counter() - t0:.0f} s; load after {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
