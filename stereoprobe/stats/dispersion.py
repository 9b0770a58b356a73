"""How much more the words of one reply agree than independent words: a pooled dispersion.

A group has six probes (three per format): too few to estimate its own variance well
(a t interval with 5 or 2 degrees of freedom is 25% to 120% wider than it needs to be,
and a group whose probes are all 0% negative has no variance at all). The groups of a
category are asked the same templates, so they share what the variance depends on:
how strongly words of one reply agree. ``dispersion`` fits, per block (a category), the
logit-additive model ``logit P(negative) = group + template`` (``templates=None``: group
only) to the probes' word counts and returns the quasi-binomial dispersion

    phi = Pearson X^2 / (probes - groups - templates + 1)

(McCullagh & Nelder 1989, section 4.5): 1 when words are independent, ``1 + (m-1) rho``
for replies of ``m`` words with intra-reply correlation ``rho``. A cell's variance is
then ``phi * sum(polar * mu * (1 - mu)) / polar_total^2`` with ``mu`` the fitted rates.

Groups whose probes are all negative or all positive sit on the boundary of the model
(their rate is 0 or 1): they carry no information about ``phi`` and are left out of the
fit and of its degrees of freedom (conditional on a group's total, their residuals are
fixed at 0). Blocks with no degrees of freedom left borrow the pooled value of all
blocks; with none anywhere, ``phi = 1`` (binomial).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

ITERATIONS = 30


@dataclass(frozen=True)
class Dispersion:
    """Per block: ``phi`` and its degrees of freedom; per row: the fitted rate ``mu``."""

    phi: Any  # (n_blocks,)
    df: Any  # (n_blocks,) float, inf where phi is assumed
    mu: Any  # (n_rows,)


def _fit(neg: Any, polar: Any, g: Any, t: Any | None, n_g: int, n_t: int) -> Any:
    """Fitted rates of logit(mu) = alpha_g (+ beta_t): backfitting Newton steps, vectorised."""
    import numpy as np
    from scipy.special import expit, logit

    tot_n, tot_p = np.bincount(g, neg, n_g), np.bincount(g, polar, n_g)
    alpha = logit(np.clip((tot_n + 0.5) / (tot_p + 1.0), 1e-6, 1 - 1e-6))
    beta = np.zeros(max(n_t, 1))
    if t is None:  # groups only: the fit is each group's own rate (the start above only keeps logit finite)
        return np.clip(tot_n / np.maximum(tot_p, 1e-12), 1e-6, 1 - 1e-6)[g]
    for _ in range(ITERATIONS):
        for which in ("alpha", "beta"):
            mu = expit(alpha[g] + beta[t])
            r, w = neg - polar * mu, polar * mu * (1 - mu)
            if which == "alpha":
                alpha += np.bincount(g, r, n_g) / np.maximum(np.bincount(g, w, n_g), 1e-12)
            else:
                beta += np.bincount(t, r, n_t) / np.maximum(np.bincount(t, w, n_t), 1e-12)
    return expit(alpha[g] + beta[t])


def dispersion(neg: Any, polar: Any, groups: Any, blocks: Any, templates: Any = None) -> Dispersion:
    """Quasi-binomial dispersion per block of the group (+ template) logit model; see the module docstring.

    ``groups``, ``templates``: labels per row (a template label is taken within its block);
    ``blocks``: integer block codes per row, 0 to n_blocks - 1 (categories). Rows with no counted words are ignored.
    """
    import numpy as np
    import pandas as pd

    neg, polar = np.asarray(neg, np.float64), np.asarray(polar, np.float64)
    b = np.asarray(blocks, np.int64)
    n_b = int(b.max()) + 1 if len(b) else 0
    g = pd.factorize(pd.Series(np.asarray(b).astype(str)) + "\x1f" + pd.Series(np.asarray(groups).astype(str)))[0]
    n_g = int(g.max()) + 1 if len(g) else 0
    tot_n, tot_p = np.bincount(g, neg, n_g), np.bincount(g, polar, n_g)
    boundary = (tot_n == 0) | (tot_n == tot_p)
    mu = np.where(tot_p[g] > 0, tot_n[g] / np.where(tot_p[g] > 0, tot_p[g], 1), 0.0)  # boundary groups: 0 or 1
    fit = (polar > 0) & ~boundary[g]
    x2 = np.zeros(n_b)
    df = np.zeros(n_b)
    if fit.any():
        gf = pd.factorize(g[fit])[0]
        tf = None
        n_t = 0
        if templates is not None:
            tl = pd.Series(np.asarray(b)[fit].astype(str)) + "\x1f" + pd.Series(np.asarray(templates)[fit].astype(str))
            tf = pd.factorize(tl)[0]
            n_t = int(tf.max()) + 1
        m = _fit(neg[fit], polar[fit], gf, tf, int(gf.max()) + 1, n_t)
        mu[fit] = m
        v = polar[fit] * m * (1 - m)
        bf = b[fit]
        x2 = np.bincount(bf, (neg[fit] - polar[fit] * m) ** 2 / np.maximum(v, 1e-12), n_b)
        rows = np.bincount(bf, minlength=n_b)
        n_groups = np.bincount(bf[np.unique(gf, return_index=True)[1]], minlength=n_b)
        n_templates = np.bincount(bf[np.unique(tf, return_index=True)[1]], minlength=n_b) if tf is not None else 0
        df = (rows - n_groups - np.maximum(np.asarray(n_templates) - 1, 0)).astype(np.float64)
    ok = df >= 1
    pooled_df = df[ok].sum()
    pooled = x2[ok].sum() / pooled_df if pooled_df > 0 else 1.0
    phi = np.where(ok, x2 / np.where(ok, df, 1), pooled)
    dfs = np.where(ok, df, pooled_df if pooled_df > 0 else np.inf)
    return Dispersion(phi=phi, df=dfs, mu=mu)
