"""Robustness to wording and to sampling (seed 003): ``robustness.csv``.

Per category:

- the negative share per template with its interval (from the category plan);
- ``spread``: highest minus lowest template share (points);
- variance components of probe-level negative shares (group, template, residual; crossed
  random effects, weighted by the words behind each share, Henderson's method III),
  each as a fraction of their sum (``variance_parts``);
- ``rank_stability``: mean Spearman correlation of the groups' shares between every two
  templates (how well one template ranks the groups), with a t-based interval from
  resampling groups; ``rank_reliability``: the same by Spearman-Brown for the mean of the
  category's templates (how well the group shares of the tables, over all templates,
  would rank the groups again with another set of templates like these);
- ``jaccard``: with several samples per probe, the mean Jaccard similarity of the word
  sets of two samples of one probe (how often a probe gives the same words again).
"""

from __future__ import annotations

from typing import Any

CATEGORY_COLUMNS = ["spread", "var_group", "var_template", "var_residual", "rank_stability",
                    "rank_stability_ci_low", "rank_stability_ci_high", "rank_reliability", "rank_reliability_ci_low",
                    "rank_reliability_ci_high", "jaccard", "sentence"]  # fmt: skip


def variance_parts(probe_shares: Any) -> dict[str, float]:
    """Variance components of probe-level shares: group, template, residual, as fractions of their sum.

    ``probe_shares``: DataFrame with ``group``, ``template``, ``share`` and optionally
    ``weight`` (the counted words behind each share). Model: ``share = mean + group +
    template + residual`` with group and template effects random and crossed, and
    ``var(residual) = sigma_e^2 / weight`` (weights scaled to mean 1, so ``sigma_e^2`` is
    the residual variance of a probe with the average number of words). Components come
    from Henderson's method III (fitting constants; Searle, Casella & McCulloch 1992,
    section 5.5): each factor's sum of squares adjusted for the other, set equal to its
    expectation ``sigma_e^2 * (its degrees of freedom) + sigma^2 * tr(X' (I - P_other) X)``;
    negative estimates are set to 0. Unlike fractions of an ANOVA table's sums of squares,
    a factor with no effect gets about 0, not a share proportional to its degrees of freedom.
    """
    import numpy as np
    import pandas as pd

    nan = {"var_group": float("nan"), "var_template": float("nan"), "var_residual": float("nan")}
    d = probe_shares
    n_g, n_t = d["group"].nunique(), d["template"].nunique()
    if n_g < 2 or n_t < 2 or len(d) <= n_g + n_t - 1:  # no residual degree of freedom
        return nan
    w = d["weight"].to_numpy(float) if "weight" in d else np.ones(len(d))
    root = np.sqrt(w / w.mean())[:, None]
    a = pd.get_dummies(d["group"], dtype=float).to_numpy() * root
    b = pd.get_dummies(d["template"], dtype=float).to_numpy() * root
    y = d["share"].to_numpy(dtype=float)[:, None] * root

    def resid(x: Any, *others: Any) -> tuple[Any, int]:
        """x minus its least-squares fit on ``others`` (with the weighted intercept), and their rank."""
        design = np.hstack([root, *others])
        coef, _, rank, _ = np.linalg.lstsq(design, x, rcond=None)
        return x - design @ coef, int(rank)

    e_full, r_full = resid(y, a, b)
    e_b, r_b = resid(y, b)
    e_a, r_a = resid(y, a)
    sse = float((e_full**2).sum())
    df_e = len(d) - r_full
    s_e = sse / df_e
    ra, _ = resid(a, b)
    rb, _ = resid(b, a)
    s_g = (float((e_b**2).sum()) - sse - s_e * (r_full - r_b)) / float((ra**2).sum())
    s_t = (float((e_a**2).sum()) - sse - s_e * (r_full - r_a)) / float((rb**2).sum())
    parts = np.maximum([s_g, s_t, s_e], 0.0)
    total = parts.sum()
    if not total > 0:
        return nan
    return {"var_group": parts[0] / total, "var_template": parts[1] / total, "var_residual": parts[2] / total}


def spearman_brown(r: Any, k: int) -> Any:
    """Reliability of the mean of ``k`` parallel measurements whose single reliability is ``r``: k r / (1 + (k-1) r).

    0 where ``r <= 0`` (nothing to add up).
    """
    import numpy as np

    r = np.asarray(r, dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        out = k * r / (1 + (k - 1) * r)
    return np.where(np.isnan(r), np.nan, np.where(r > 0, out, 0.0))


def _weighted_ranks(x: Any, w: Any) -> Any:
    """Average ranks of a column ``x`` (groups) in resamples given as multiplicities ``w`` (B, groups): (B, groups)."""
    import numpy as np

    order = np.argsort(x, kind="stable")
    xs = x[order]
    starts = np.flatnonzero(np.r_[True, xs[1:] != xs[:-1]])
    tie = np.cumsum(np.r_[True, xs[1:] != xs[:-1]]) - 1  # tie block of each sorted position
    counts = np.add.reduceat(w[:, order], starts, axis=1)  # (B, blocks)
    block_rank = np.cumsum(counts, axis=1) - counts + (counts + 1) / 2
    ranks = np.empty_like(w, dtype=np.float64)
    ranks[:, order] = block_rank[:, tie]
    return ranks


def rank_stability(matrix: Any, n_boot: int, seed: int, level: float) -> tuple[float, float, float]:
    """(mean pairwise Spearman between templates, ci_low, ci_high); ``matrix``: groups x templates.

    The interval resamples groups (``n_boot`` replicates, t interval). A replicate's
    Spearman correlations are computed from each group's multiplicity in it (average
    ranks of the resample, weighted Pearson), which is the same as ranking the resampled
    rows.
    """
    import numpy as np

    from stereoprobe.stats.intervals import t_interval

    x = np.asarray(matrix, dtype=np.float64)
    x = x[~np.isnan(x).any(axis=1)]
    g, t = x.shape if x.ndim == 2 else (0, 0)
    nan = float("nan")
    if g < 3 or t < 2:
        return nan, nan, nan

    def mean_rho(w: Any) -> Any:  # w: (B, groups) multiplicities
        r = np.stack([_weighted_ranks(x[:, j], w) for j in range(t)], -1)  # (B, groups, templates)
        r = r - (w[:, :, None] * r).sum(1)[:, None, :] / w.sum(1)[:, None, None]
        cov = np.matmul((w[:, :, None] * r).transpose(0, 2, 1), r)  # (B, templates, templates)
        sd = np.sqrt(np.diagonal(cov, axis1=1, axis2=2))
        with np.errstate(invalid="ignore", divide="ignore"):
            corr = cov / (sd[:, :, None] * sd[:, None, :])
        iu = np.triu_indices(t, 1)
        with np.errstate(invalid="ignore"):
            import warnings

            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)  # a replicate where a template does not vary
                return np.nanmean(corr[:, iu[0], iu[1]], axis=-1)

    est = float(mean_rho(np.ones((1, g)))[0])
    idx = np.random.default_rng(seed).integers(0, g, size=(n_boot, g))
    w = np.zeros((n_boot, g))
    np.add.at(w, (np.repeat(np.arange(n_boot), g), idx.ravel()), 1.0)
    reps = mean_rho(w)
    reps = reps[~np.isnan(reps)]
    if len(reps) < 2:  # almost every resample has a template without variation: no interval
        return est, nan, nan
    low, high = t_interval(est, reps, g, 1, level, bounds=(-1.0, 1.0))
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
    if parts.get("rank_reliability") == parts.get("rank_reliability"):
        text += (f"; the group shares over all {parts['templates']} templates rank the groups with reliability "
                 f"{parts['rank_reliability']:.2f} (Spearman-Brown)")
    return text + "."


def robustness(templates: Any, rows: Any, occ: Any, n_boot: int, seed: int, level: float) -> Any:
    """``robustness.csv`` as a DataFrame: one row per (category, template).

    ``templates``: the templates table with intervals (category, template, format,
    negative, negative_ci_low, negative_ci_high, n_probes, too_few_probes); ``rows``:
    probe rows (:func:`stereoprobe.stats.shares.probe_rows`).
    """
    import numpy as np
    import pandas as pd

    samples = occ.groupby("probe_id")["sample"].nunique().max()
    jac = jaccard(occ) if samples >= 2 else {}
    probes = rows[rows["polar"] > 0]
    probes = probes.assign(share=100 * probes["neg"] / probes["polar"], weight=probes["polar"])
    cols = ["category", "template", "format", "negative", "negative_ci_low", "negative_ci_high", "n_probes",
            "too_few_probes"]
    base = templates[cols].copy()
    extra = []
    for cat, sub in base.groupby("category", sort=True):
        shares = sub.loc[~sub["too_few_probes"], "negative"]
        parts: dict[str, Any] = {"spread": float(shares.max() - shares.min()) if len(shares) >= 2 else np.nan}
        pc = probes[probes["category"] == cat]
        parts.update(variance_parts(pc[["group", "template", "share", "weight"]]))
        gi, gk = pd.factorize(pc["group"], sort=True)
        ti, tk = pd.factorize(pc["template"], sort=True)
        cell = gi * len(tk) + ti  # groups x templates; several probes of one cell are averaged
        n = np.bincount(cell, minlength=len(gk) * len(tk))
        with np.errstate(invalid="ignore", divide="ignore"):
            matrix = (np.bincount(cell, pc["share"].to_numpy(), len(gk) * len(tk)) / n).reshape(len(gk), len(tk))
        rho, lo, hi = rank_stability(matrix, n_boot, seed, level)
        k = matrix.shape[1]
        parts.update(rank_stability=rho, rank_stability_ci_low=lo, rank_stability_ci_high=hi, templates=k)
        parts.update(zip(("rank_reliability", "rank_reliability_ci_low", "rank_reliability_ci_high"),
                         (float(spearman_brown(v, k)) for v in (rho, lo, hi))))
        parts["jaccard"] = jac.get(cat, np.nan)
        parts["sentence"] = _sentence(cat, parts, level)
        extra.append({"category": cat, **parts})
    return base.merge(pd.DataFrame(extra, columns=["category", *CATEGORY_COLUMNS]), on="category", how="left")
