"""Robustness to wording and to sampling (seed 003): ``robustness.csv``.

Per category:

- the negative share per template with its interval (from the category plan);
- ``spread``: highest minus lowest template share (points);
- a variance decomposition of probe-level negative shares into group, template and
  residual parts: a two-way ANOVA without interaction (statsmodels ``ols`` +
  ``anova_lm``, type II sums of squares), each part as a fraction of their sum;
- ``rank_stability``: mean Spearman correlation of the groups' shares between every two
  templates, with a t-based interval from resampling groups;
- ``jaccard``: with several samples per probe, the mean Jaccard similarity of the word
  sets of two samples of one probe (how often a probe gives the same words again).
"""

from __future__ import annotations

from typing import Any

CATEGORY_COLUMNS = ["spread", "var_group", "var_template", "var_residual", "rank_stability",
                    "rank_stability_ci_low", "rank_stability_ci_high", "jaccard", "sentence"]  # fmt: skip


def variance_parts(probe_shares: Any) -> dict[str, float]:
    """Fractions of the group, template and residual sums of squares of probe-level shares.

    ``probe_shares``: DataFrame with ``group``, ``template``, ``share`` (one row per probe).
    Type II sums of squares of the additive model ``share ~ group + template``: each
    factor's is the rise in residual sum of squares when it is dropped (statsmodels'
    ``anova_lm`` on the nested OLS fits).
    """
    import numpy as np
    import pandas as pd
    import statsmodels.api as sm
    from statsmodels.stats.anova import anova_lm

    nan = {"var_group": float("nan"), "var_template": float("nan"), "var_residual": float("nan")}
    d = probe_shares
    n_g, n_t = d["group"].nunique(), d["template"].nunique()
    if n_g < 2 or n_t < 2 or len(d) <= n_g + n_t - 1:  # no residual degree of freedom
        return nan
    g = pd.get_dummies(d["group"], drop_first=True, dtype=float).to_numpy()
    t = pd.get_dummies(d["template"], drop_first=True, dtype=float).to_numpy()
    one = np.ones((len(d), 1))
    y = d["share"].to_numpy(dtype=float)

    def fit(*parts: Any) -> Any:
        return sm.OLS(y, np.hstack([one, *parts])).fit(method="qr")

    full = fit(g, t)
    ss_group = anova_lm(fit(t), full)["ss_diff"].iloc[1]
    ss_template = anova_lm(fit(g), full)["ss_diff"].iloc[1]
    ss_resid = full.ssr
    total = ss_group + ss_template + ss_resid
    if not total > 0:
        return nan
    return {"var_group": ss_group / total, "var_template": ss_template / total, "var_residual": ss_resid / total}


def rank_stability(matrix: Any, n_boot: int, seed: int, level: float) -> tuple[float, float, float]:
    """(mean pairwise Spearman between templates, ci_low, ci_high); ``matrix``: groups x templates."""
    import numpy as np
    from scipy.stats import rankdata

    from stereoprobe.stats.intervals import t_interval

    x = np.asarray(matrix, dtype=np.float64)
    x = x[~np.isnan(x).any(axis=1)]
    g, t = x.shape if x.ndim == 2 else (0, 0)
    nan = float("nan")
    if g < 3 or t < 2:
        return nan, nan, nan

    def mean_rho(stack: Any) -> Any:  # (..., groups, templates)
        r = rankdata(stack, axis=-2)
        r = r - r.mean(axis=-2, keepdims=True)
        norm = np.sqrt((r**2).sum(axis=-2))
        with np.errstate(invalid="ignore", divide="ignore"):
            corr = np.einsum("...gi,...gj->...ij", r, r) / (norm[..., :, None] * norm[..., None, :])
        iu = np.triu_indices(t, 1)
        return np.nanmean(corr[..., iu[0], iu[1]], axis=-1)

    est = float(mean_rho(x))
    idx = np.random.default_rng(seed).integers(0, g, size=(n_boot, g))
    with np.errstate(invalid="ignore"):
        reps = mean_rho(x[idx])
    low, high = t_interval(est, reps[~np.isnan(reps)], g, 1, level, bounds=(-1.0, 1.0))
    return est, float(low), float(high)


def jaccard(occ: Any) -> dict[str, float]:
    """Per category: mean over probes of the mean pairwise Jaccard of their samples' word sets."""
    import itertools

    import numpy as np

    sets = occ.groupby(["category", "probe_id", "sample"], sort=False)["word"].agg(frozenset)
    out: dict[str, list[float]] = {}
    for (cat, _), per in sets.groupby(level=["category", "probe_id"], sort=False):
        words = list(per)
        if len(words) < 2:
            continue
        sims = [len(a & b) / len(a | b) for a, b in itertools.combinations(words, 2) if a | b]
        if sims:
            out.setdefault(cat, []).append(float(np.mean(sims)))
    return {c: float(np.mean(v)) for c, v in out.items()}


def _sentence(cat: str, parts: dict[str, Any], level: float) -> str:
    if parts["spread"] != parts["spread"]:
        return f"{cat}: too few templates or probes to judge the wording."
    text = f"For {cat}, the wording moves the negative share by up to {parts['spread']:.0f} points across templates"
    if parts["var_template"] == parts["var_template"]:
        text += (f" (templates explain {100 * parts['var_template']:.0f}% of the probe-level variance, "
                 f"groups {100 * parts['var_group']:.0f}%)")
    if parts["rank_stability"] == parts["rank_stability"]:
        text += (f"; group rankings agree across templates with Spearman {parts['rank_stability']:.2f} "
                 f"({level * 100:g}% CI {parts['rank_stability_ci_low']:.2f} to {parts['rank_stability_ci_high']:.2f})")
    return text + "."


def robustness(templates: Any, units: Any, occ: Any, n_boot: int, seed: int, level: float) -> Any:
    """``robustness.csv`` as a DataFrame: one row per (category, template).

    ``templates``: the templates table with intervals (category, template, format,
    negative, negative_ci_low, negative_ci_high, n_probes, too_few_probes).
    """
    import numpy as np
    import pandas as pd

    samples = occ.groupby("probe_id")["sample"].nunique().max()
    jac = jaccard(occ) if samples >= 2 else {}
    probes = units.groupby(["category", "group", "template", "probe_id"], sort=True)[["neg", "polar"]].sum()
    probes = probes[probes["polar"] > 0].reset_index()
    probes["share"] = 100 * probes["neg"] / probes["polar"]
    cols = ["category", "template", "format", "negative", "negative_ci_low", "negative_ci_high", "n_probes",
            "too_few_probes"]
    base = templates[cols].copy()
    extra = []
    for cat, sub in base.groupby("category", sort=True):
        shares = sub.loc[~sub["too_few_probes"], "negative"]
        parts: dict[str, Any] = {"spread": float(shares.max() - shares.min()) if len(shares) >= 2 else np.nan}
        pc = probes[probes["category"] == cat]
        parts.update(variance_parts(pc[["group", "template", "share"]]))
        matrix = pc.pivot_table(index="group", columns="template", values="share", aggfunc="mean")
        rho, lo, hi = rank_stability(matrix.to_numpy(), n_boot, seed, level)
        parts.update(rank_stability=rho, rank_stability_ci_low=lo, rank_stability_ci_high=hi)
        parts["jaccard"] = jac.get(cat, np.nan)
        parts["sentence"] = _sentence(cat, parts, level)
        extra.append({"category": cat, **parts})
    return base.merge(pd.DataFrame(extra, columns=["category", *CATEGORY_COLUMNS]), on="category", how="left")
