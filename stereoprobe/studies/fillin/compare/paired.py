"""Paired differences between two runs, with the statistics package's variances and tests.

For a pair (A, B) the rows are the probes both runs answered. A cell's difference is
``negative_a - negative_b`` (points) over its rows; each probe's linearized score is A's
minus B's (:func:`stereoprobe.stats.variance.cell_scores`), so whatever a probe does to
both runs (its group, its template) cancels: the pairing.

- ``all`` and ``category`` cells: "these templates, groups like these": the groups are
  the clusters (within fixed category strata for ``all``); t interval and p-value with
  ``groups - strata`` degrees of freedom;
- ``group`` cells (the group's probes, questions, statements): "this group at these
  templates": a group has three probes per format, too few for a variance of its own, so
  the paired variance is pooled over the category's groups as a dispersion ``phi`` times
  the binomial variance of the difference at the two runs' pooled rate (the variance
  under "no difference", so the interval and the test agree; the same idea as the sentiment stage's
  :mod:`stereoprobe.stats.dispersion`); ``phi`` comes from each group's probes with the
  question and statement probes as strata. Identical runs have ``phi = 0`` and a
  zero-width interval; a difference with no variance at all is tested at the binomial
  variance (never p = 0).

q is Benjamini-Hochberg within each pair and level. Against a baseline of people, whose
probes carry tens of completions where a model's carry ten words, both runs are weighted
alike: every common probe with counted words in both counts once (``weighting =
probes``); otherwise shares are over words, as in Table 4 (``weighting = words``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from stereoprobe.records import FORMATS
from stereoprobe.stats.shares import MIN_PROBES

LEVELS = ("all", "category", "group")
DIFFERENCE_COLUMNS = [
    "run_a", "run_b", "level", "category", "group", "format", "negative_a", "negative_b", "difference",
    "ci_low", "ci_high", "df", "p", "q", "verdict", "probes", "clusters", "too_few_probes", "weighting",
]
VERDICTS = ("a more negative", "b more negative", "not distinguishable")
SHARE_COLUMNS = ["run", "level", "category", "group", "format", "negative", "ci_low", "ci_high", "probes", "too_few_probes"]
METHOD = ("paired linearized variances (stereoprobe.stats.variance): all and category cells resample groups (these "
          "templates, groups like these), t with groups - strata df; group cells use the category's pooled paired "
          "dispersion (this group at these templates); Benjamini-Hochberg within each pair and level")  # fmt: skip


@dataclass(frozen=True)
class Settings:
    """The statistics of one comparison (recorded in meta.json)."""

    level: float = 0.95
    alpha: float = 0.05  # q below this is a finding

    def meta(self) -> dict[str, Any]:
        return {"method": METHOD, "level": self.level, "alpha": self.alpha, "wording": "fixed",
                "estimand": "these templates: groups resampled for all and category cells; a group's own cells at "
                            "its templates"}


def aligned(a: Any, b: Any, weighting: str = "words") -> Any:
    """The probes both runs have, one row each: identity, then ``neg_a, pol_a, neg_b, pol_b``.

    The format is run A's, or B's when A is a baseline (``search-engine``). ``weighting =
    "probes"``: only probes with counted words in both runs, each run's counts replaced by
    its share on the probe (``neg = share``, ``pol = 1``), so every probe weighs the same
    in both runs.
    """
    import numpy as np

    cols = ["probe_id", "category", "group", "template", "format", "n_negative", "n_positive"]
    m = a[cols].merge(b[cols], on="probe_id", suffixes=("_a", "_b"))
    fmt = m["format_a"].where(m["format_a"].isin(FORMATS), m["format_b"])
    out = m[["probe_id"]].assign(
        category=m["category_a"], group=m["group_a"], template=m["template_a"], format=fmt,
        neg_a=m["n_negative_a"], pol_a=m["n_negative_a"] + m["n_positive_a"],
        neg_b=m["n_negative_b"], pol_b=m["n_negative_b"] + m["n_positive_b"],
    )
    if weighting == "probes":
        out = out[(out["pol_a"] > 0) & (out["pol_b"] > 0)].copy()
        for run in ("a", "b"):
            out[f"neg_{run}"] = out[f"neg_{run}"] / out[f"pol_{run}"]
            out[f"pol_{run}"] = np.ones(len(out))
    return out.sort_values(["category", "group", "probe_id"], ignore_index=True)


def _cells(rows: Any, level: str) -> tuple[Any, Any]:
    """Cell labels (category, group, format) of ``level`` and, per format selection, each row's cell code."""
    import numpy as np
    import pandas as pd

    n = len(rows)
    cat = rows["category"].to_numpy(object) if level != "all" else np.full(n, "all", dtype=object)
    grp = rows["group"].to_numpy(object) if level == "group" else np.full(n, "", dtype=object)
    fmt = rows["format"].to_numpy(object)
    base = pd.DataFrame({"category": cat, "group": grp})
    labels, codes = [], {}
    offset = 0
    for sel in ("all", *FORMATS):
        mask = np.ones(n, bool) if sel == "all" else fmt == sel
        c, uniq = pd.factorize(pd.MultiIndex.from_frame(base[mask]), sort=True)
        code = np.full(n, -1, np.int64)
        code[mask] = c + offset
        codes[sel] = code
        lab = pd.DataFrame(list(uniq), columns=["category", "group"]) if len(uniq) else pd.DataFrame(columns=["category", "group"])
        labels.append(lab.assign(format=sel))
        offset += len(uniq)
    return pd.concat(labels, ignore_index=True), codes


def _group_dispersion(rows: Any, codes: dict[str, Any], n_cells: int, m: Any, z: Any) -> tuple[Any, Any]:
    """Per group cell: its category's pooled paired dispersion and that dispersion's degrees of freedom.

    From the groups' all-format cells: ``sum(own variance) / sum(binomial variance m)``,
    the own variance with the group's probes as clusters and its formats as strata, ``m``
    over the same probes (a format with a single probe adds to neither).
    """
    import numpy as np
    import pandas as pd

    from stereoprobe.stats.variance import cluster_variance

    counted = (rows["pol_a"].to_numpy() > 0) | (rows["pol_b"].to_numpy() > 0)
    cat = pd.factorize(rows["category"])[0]
    n_cat = int(cat.max()) + 1 if len(cat) else 0
    cat_of_cell = np.zeros(n_cells, np.int64)
    for code in codes.values():
        cat_of_cell[code[code >= 0]] = cat[code >= 0]
    code = codes["all"]
    fmt = rows["format"].to_numpy()
    v, k, h = cluster_variance(z["all"], code, n_cells, rows["probe_id"].to_numpy(), fmt, counted)
    # the binomial variance of the same probes: a format with one probe adds nothing to v, so not to m
    stratum = pd.factorize(pd.Series(code).astype(str) + "\x1f" + pd.Series(fmt).astype(str))[0]
    alone = np.bincount(stratum, counted.astype(float))[stratum] < 2
    wa = np.bincount(np.where(code >= 0, code, 0), rows["pol_a"].to_numpy(float), n_cells)
    wb = np.bincount(np.where(code >= 0, code, 0), rows["pol_b"].to_numpy(float), n_cells)
    with np.errstate(invalid="ignore", divide="ignore"):
        part = rows["pol_a"].to_numpy(float) / wa[code] ** 2 + rows["pol_b"].to_numpy(float) / wb[code] ** 2
        share = np.bincount(code, np.where(alone | ~counted, 0.0, part), n_cells) / (1 / wa + 1 / wb)
    use = np.zeros(n_cells, bool)
    use[code[code >= 0]] = True
    use &= np.isfinite(m) & np.isfinite(share)
    num = np.bincount(cat_of_cell[use], v[use], n_cat)
    den = np.bincount(cat_of_cell[use], (m * share)[use], n_cat)
    df = np.bincount(cat_of_cell[use], (k - h)[use].astype(np.float64), n_cat)
    with np.errstate(invalid="ignore", divide="ignore"):
        phi = np.where(den > 0, num / np.where(den > 0, den, 1), 0.0)
    return phi[cat_of_cell], np.maximum(df, 1)[cat_of_cell]


def pair_differences(name_a: str, name_b: str, rows: Any, settings: Settings, weighting: str = "words") -> Any:
    """differences.csv rows of one pair of aligned runs (see the module docstring)."""
    import numpy as np
    import pandas as pd

    from stereoprobe.stats.variance import cell_scores, cluster_variance

    out = []
    arr = {c: rows[c].to_numpy(np.float64) for c in ("neg_a", "pol_a", "neg_b", "pol_b")}
    counted = (arr["pol_a"] > 0) | (arr["pol_b"] > 0)
    for level in LEVELS:
        labels, codes = _cells(rows, level)
        n_cells = len(labels)
        est_a, est_b, m = (np.full(n_cells, np.nan) for _ in range(3))
        var, g, h = np.zeros(n_cells), np.zeros(n_cells, np.int64), np.zeros(n_cells, np.int64)
        probes, answered = np.zeros(n_cells, np.int64), np.zeros(n_cells, np.int64)
        z = {}
        for sel, code in codes.items():
            ea, za, wa = cell_scores(arr["neg_a"], arr["pol_a"], code, n_cells)
            eb, zb, wb = cell_scores(arr["neg_b"], arr["pol_b"], code, n_cells)
            own = np.bincount(code[code >= 0], minlength=n_cells) > 0
            est_a[own], est_b[own] = ea[own], eb[own]
            both = own & (wa > 0) & (wb > 0)
            with np.errstate(invalid="ignore", divide="ignore"):
                pooled = (est_a * wa + est_b * wb + 0.5) / (wa + wb + 1)  # both runs, (x + 1/2) / (n + 1): never 0
                m[both] = (pooled * (1 - pooled) * (1 / wa + 1 / wb))[both]
            z[sel] = za - zb
            probes += np.bincount(code[code >= 0], minlength=n_cells)
            answered += np.bincount(code[(code >= 0) & counted], minlength=n_cells)
            if level != "group":
                strata = rows["category"].to_numpy() if level == "all" else None
                v, gg, hh = cluster_variance(z[sel], code, n_cells, rows["group"].to_numpy(), strata, counted)
                var[own], g[own], h[own] = v[own], gg[own], hh[own]
        est_a, est_b = 100 * est_a, 100 * est_b
        diff = est_a - est_b
        if level == "group":
            phi, df = _group_dispersion(rows, codes, n_cells, m, z)
            var = phi * m
            g = answered.copy()
            ok = np.isfinite(m) & (answered >= MIN_PROBES)
        else:
            df = (g - h).astype(np.float64)
            ok = df >= 1
        low, high, p, q, too_few, verdict = _tested(diff, var, m, g, h, ok, df, settings)
        df = np.where(np.isnan(low), np.nan, df)
        out.append(pd.DataFrame({
            "run_a": name_a, "run_b": name_b, "level": level,
            "category": labels["category"], "group": labels["group"], "format": labels["format"],
            "negative_a": est_a, "negative_b": est_b, "difference": diff, "ci_low": low, "ci_high": high, "df": df,
            "p": p, "q": q, "verdict": verdict, "probes": probes, "clusters": g, "too_few_probes": too_few,
            "weighting": weighting,
        }))
    return _ordered(pd.concat(out, ignore_index=True))[DIFFERENCE_COLUMNS]


def _tested(diff: Any, var: Any, m: Any, g: Any, h: Any, ok: Any, df: Any, settings: Settings) -> tuple:
    """Intervals, p- and q-values, too-few flags and verdicts of a level's differences."""
    import numpy as np

    from stereoprobe import stats

    se = np.where(ok, 100 * np.sqrt(np.maximum(var, 0)), np.nan)
    # a difference with no variance at all is judged at the binomial variance (interval and test alike)
    se = np.where((se == 0) & (diff != 0), 100 * np.sqrt(np.nan_to_num(m)), se)
    df = np.where(ok, df, np.nan)
    low, high = stats.t_interval(diff, None, g, h, level=settings.level, bounds=(-100.0, 100.0), se=se, df=df)
    p = stats.t_pvalue(diff, None, g, h, se=se, df=df)
    q = stats.bh(p)
    too_few = np.isnan(p) | np.isnan(diff)
    found = ~too_few & (q < settings.alpha)
    verdict = np.where(found & (diff > 0), VERDICTS[0], np.where(found & (diff < 0), VERDICTS[1], VERDICTS[2]))
    return low, high, p, q, too_few, verdict


def _ordered(df: Any) -> Any:
    """Rows in reading order: 'all' first, then categories; formats all, question, statement."""
    order = {"all": 0, "question": 1, "statement": 2, "search-engine": 3}
    return df.assign(_l=df["level"].map({lv: i for i, lv in enumerate(LEVELS)}), _f=df["format"].map(order)) \
        .sort_values(["_l", "category", "group", "_f"], kind="stable").drop(columns=["_l", "_f"]).reset_index(drop=True)


def run_shares(name: str, probes: Any, settings: Settings) -> Any:
    """One run's shares with intervals, overall and per category (for the dot-and-interval plot).

    The same intervals as the sentiment stage's ``table4.csv`` (cells over groups,
    :func:`stereoprobe.stats.shares.over_groups`, these templates).
    """
    import numpy as np
    import pandas as pd

    from stereoprobe.stats.shares import over_groups, probe_rows

    units = probes.rename(columns={"n_negative": "neg", "n_positive": "pos"})
    units = units.assign(polar=units["neg"] + units["pos"])
    rows = probe_rows(units)
    out = []
    for level in ("all", "category"):
        for sel in ("all", *FORMATS):
            mask = np.ones(len(rows), bool) if sel == "all" else (rows["format"] == sel).to_numpy()
            if not mask.any():
                continue
            sub = rows[mask].reset_index(drop=True)
            keys = np.zeros(len(sub), np.int64) if level == "all" else pd.factorize(sub["category"], sort=True)[0]
            names = ["all"] if level == "all" else sorted(sub["category"].unique())
            ci = over_groups(sub, keys, len(names), settings.level, strata="cat_code" if level == "all" else None)
            neg = np.bincount(keys, sub["neg"].to_numpy(np.float64), len(names))
            pol = np.bincount(keys, sub["polar"].to_numpy(np.float64), len(names))
            with np.errstate(invalid="ignore", divide="ignore"):
                share = 100 * neg / np.where(pol > 0, pol, np.nan)
            out.append(pd.DataFrame({
                "run": name, "level": level, "category": names, "group": "", "format": sel, "negative": share,
                "ci_low": ci["negative_ci_low"], "ci_high": ci["negative_ci_high"], "probes": ci["n_probes"],
                "too_few_probes": ci["negative_ci_low"].isna(),
            }))
    return _ordered(pd.concat(out, ignore_index=True))[SHARE_COLUMNS]
