"""Scratch: candidate intervals for coreference overall rates where jobs differ strongly (issue 36).

Counts per pair and scene drawn directly (vectorised), two families:
- normal: logit P(wrong) = beta + a + b (+ c), every answer of a pair independent;
- mixture: tests/coref_synth.py's model (hard triples with probability q = logistic(logit(hard) + a + b + v)).
A pair: 7 scenes x 2 roles = 14 triples of 3 answers (he, she, they).
"""

from __future__ import annotations

import math
import sys
import time
from pathlib import Path

import numpy as np
from scipy import special, stats

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

GH_X, GH_W = np.polynomial.hermite_e.hermegauss(40)
GH_W = GH_W / GH_W.sum()


def draw(fam: dict, W: int, M: int, rng, runs: int):
    """(runs, U, 7) counts and trials for incorrect, inconsistent, binary_inconsistent."""
    U = W * M
    wi, mj = np.repeat(np.arange(W), M), np.tile(np.arange(M), W)
    a = rng.normal(0, fam["sd"], (runs, W))
    b = rng.normal(0, fam["sd"], (runs, M))
    c = rng.normal(0, fam.get("pair_sd", 0.0), (runs, U))
    eta = fam["base"] + a[:, wi] + b[:, mj] + c
    if fam["kind"] == "normal":
        p = special.expit(eta)[:, :, None, None]
    else:
        q = special.expit(eta)
        hard = rng.random((runs, U, 14)) < q[:, :, None]
        p = np.where(hard, 0.5, fam["easy"])[..., None]
    wrong = rng.random((runs, U, 14, 3)) < p
    w = wrong.reshape(runs, U, 7, 2, 3)
    inc = w.sum(axis=(3, 4))
    incons = (w.any(axis=4) & ~w.all(axis=4)).sum(axis=3)
    binary = (w[..., 0] != w[..., 1]).sum(axis=3)
    return {"incorrect": (inc, 6), "inconsistent": (incons, 2), "binary_inconsistent": (binary, 2)}


def truth(fam: dict) -> dict:
    if fam["kind"] == "normal":
        tau = math.sqrt(2 * fam["sd"] ** 2 + fam.get("pair_sd", 0.0) ** 2)
        F = special.expit(fam["base"] + tau * GH_X)
        return {"incorrect": 100 * GH_W @ F, "inconsistent": 100 * GH_W @ (1 - F**3 - (1 - F) ** 3),
                "binary_inconsistent": 100 * GH_W @ (2 * F * (1 - F))}
    from coref_synth import Model, truth as t

    hard = float(special.expit(fam["base"]))
    out = t(Model(hard=hard, easy=fam["easy"], job_sd=fam["sd"], pair_sd=fam.get("pair_sd", 1.0)))
    return {m: out[m] for m in ("incorrect", "inconsistent", "binary_inconsistent")}


def two_way(k, n, W, M):
    """Closed-form two-way variance (%^2) of the ratio sum k / sum n; k, n: (U,) or (B, U)."""
    k, n = np.atleast_2d(k).astype(float), np.atleast_2d(n).astype(float)
    U = W * M
    N = n.sum(-1, keepdims=True)
    R = k.sum(-1, keepdims=True) / N
    e = (k - R * n) / N
    ew = e.reshape(-1, W, M).sum(2)
    em = e.reshape(-1, W, M).sum(1)
    vw = W / (W - 1) * (ew**2).sum(-1)
    vm = M / (M - 1) * (em**2).sum(-1)
    vp = U / (U - 1) * (e**2).sum(-1)
    two = vw + vm - vp
    return 1e4 * np.maximum(two, vp), np.where(two > vp, min(W, M) - 1.0, U - 1.0), 100 * R[:, 0]


def gh_parts(beta, s_w, s_m, s_c):
    """m, E F^2, Var_a g_w(a), Var_b g_m(b) under the crossed model (vectorised over leading dims)."""
    beta, s_w, s_m, s_c = (np.asarray(x, float)[..., None] for x in (beta, s_w, s_m, s_c))
    tau = np.sqrt(s_w**2 + s_m**2 + s_c**2)
    F = special.expit(beta + tau * GH_X)
    m = (F * GH_W).sum(-1)
    ef2 = (F**2 * GH_W).sum(-1)

    def side(s):
        r = np.sqrt(np.maximum(tau**2 - s**2, 0))
        g = (special.expit(beta[..., None] + s[..., None] * GH_X[:, None] + r[..., None] * GH_X[None, :]) * GH_W).sum(-1)
        return (g**2 * GH_W).sum(-1) - m**2

    return m, ef2, side(s_w), side(s_m)


def model_var(beta, s_w, s_m, s_c, W, M, n_pair):
    """Var(R) (fraction^2) of the observed rate under the model, full crossing with n_pair answers a pair."""
    m, ef2, vw, vm = gh_parts(beta, s_w, s_m, s_c)
    U = W * M
    N = U * n_pair
    varK = U * n_pair * (m - ef2) + U * n_pair**2 * (ef2 - m**2) + W * ((M * n_pair) ** 2 - M * n_pair**2) * vw \
        + M * ((W * n_pair) ** 2 - W * n_pair**2) * vm
    return m, varK / N**2


def match_beta(target, s_w, s_m, s_c):
    """beta such that E logistic(beta + tau Z) = target (vectorised bisection on [-60, 60])."""
    target = np.asarray(target, float)
    tau = np.sqrt(np.asarray(s_w) ** 2 + np.asarray(s_m) ** 2 + np.asarray(s_c) ** 2)[..., None]
    lo, hi = np.full(np.shape(target), -60.0), np.full(np.shape(target), 60.0)
    for _ in range(70):
        mid = (lo + hi) / 2
        m = (special.expit(mid[..., None] + tau * GH_X) * GH_W).sum(-1)
        below = m < target
        lo, hi = np.where(below, mid, lo), np.where(below, hi, mid)
    return (lo + hi) / 2


def logit_ci(centre, se, df):
    t = stats.t.ppf(0.975, df)
    return 100 * special.expit(centre - t * se), 100 * special.expit(centre + t * se)


def pboot(R, sds, W, M, n_pair, rng, B=1000, fiducial=None, student=False):
    """Parametric bootstrap pivot Q = logit R* - logit m (or studentised by the two-way se), at beta matched to R."""
    s_w, s_m, s_c = sds
    U = W * M
    if fiducial is not None:
        dw, dm, dc = fiducial
        s_w = s_w * np.sqrt(dw / rng.chisquare(dw, B))
        s_m = s_m * np.sqrt(dm / rng.chisquare(dm, B))
        s_c = s_c * np.sqrt(dc / rng.chisquare(dc, B))
    else:
        s_w, s_m, s_c = (np.full(B, s) for s in (s_w, s_m, s_c))
    beta = match_beta(np.full(B, R / 100), s_w, s_m, s_c)
    wi, mj = np.repeat(np.arange(W), M), np.tile(np.arange(M), W)
    eta = beta[:, None] + (rng.standard_normal((B, W)) * s_w[:, None])[:, wi] + \
        (rng.standard_normal((B, M)) * s_m[:, None])[:, mj] + rng.standard_normal((B, U)) * s_c[:, None]
    k = rng.binomial(n_pair, special.expit(eta))
    Rs = k.sum(1) / (U * n_pair)
    ok = (Rs > 0) & (Rs < 1)
    Q = special.logit(np.where(ok, Rs, 0.5)) - special.logit(R / 100)
    if student:
        v, _, _ = two_way(k, np.full_like(k, n_pair), W, M)
        Q = Q / (np.sqrt(v) / 1e2 / (Rs * (1 - Rs)))
    Q = np.where(ok, Q, -np.inf)  # R* = 0: the most extreme low
    return Q


def run(fam: dict, W: int, runs: int, seed: int, metrics=("incorrect",), B=1000, chunk=25):
    from stereoprobe.stats import share_interval
    from stereoprobe.stats.mixed import mixed_rate

    M = W
    true = truth(fam)
    rng = np.random.default_rng(seed)
    prng = np.random.default_rng(seed + 1)
    wi, mj = np.repeat(np.arange(W), M), np.tile(np.arange(M), W)
    first, second = [f"w{i}" for i in wi], [f"m{j}" for j in mj]
    sides = (["women"] * len(wi), ["men"] * len(wi))
    rows = {m: [] for m in metrics}
    fit_s = []
    done = 0
    while done < runs:
        r = min(chunk, runs - done)
        data = draw(fam, W, M, rng, r)
        for m in metrics:
            kk, npc = data[m]
            for i in range(r):
                k = kk[i]  # (U, 7)
                ku = k.sum(1)
                n_pair = 7 * npc
                var2, df2, R = (x[0] for x in two_way(ku, np.full(len(ku), n_pair), W, M))
                if R <= 0 or R >= 100:
                    rows[m].append({"R": R})
                    continue
                # per scene (pooled deff)
                vs, _, Rs = two_way(k.T, np.full(k.T.shape, npc), W, M)
                ns = len(ku) * npc
                okc = (Rs > 0) & (Rs < 100) & (vs > 0)
                deff = max(1.0, float(np.median(vs[okc] / (Rs[okc] * (100 - Rs[okc]) / ns)))) if okc.any() else 1.0
                t0 = time.perf_counter()
                fit = mixed_rate(ku, np.full(len(ku), n_pair), first, second, *sides)
                fit_s.append(time.perf_counter() - t0)
                s_w, s_m, s_c = fit.sd
                p = R / 100
                out = {"R": R}
                # today
                floor = (100 * fit.se_logit * p * (1 - p)) ** 2 if R < 5 else 0.0
                v_t, df_t = (floor, min(df2, fit.df)) if floor > var2 else (var2, df2)
                out["today"] = share_interval(np.array([R]), None, 1, np.array([len(ku) * n_pair]), variance=np.array([v_t]),
                                              df=np.array([df_t]), deff_floor=deff, method="jeffreys")
                out["jeffreys two-way"] = share_interval(np.array([R]), None, 1, np.array([len(ku) * n_pair]),
                                                         variance=np.array([var2]), df=np.array([df2]), deff_floor=deff,
                                                         method="jeffreys")
                se2 = math.sqrt(var2) / 100 / (p * (1 - p))
                lg = special.logit(p)
                dfj = W - 1.0
                out["review: logit max(se2, se_model) t(G-1)"] = logit_ci(lg, max(se2, fit.se_logit), dfj)
                # model-implied variance of R, at the fitted beta and at beta matched to R
                for where, beta in (("fit", fit.beta), ("matched", float(match_beta(np.array(p), s_w, s_m, s_c)))):
                    mm, vr = model_var(beta, s_w, s_m, s_c, W, M, n_pair)
                    mm, vr = float(mm), float(vr)
                    seD = math.sqrt(vr) / (mm * (1 - mm))
                    shift = (1 - 2 * mm) / (2 * mm**2 * (1 - mm) ** 2) * vr
                    # Satterthwaite df from the spreads' uncertainty
                    grads = []
                    for j, (s, d) in enumerate(((s_w, W - 1), (s_m, M - 1), (s_c, W * M - W - M + 1))):
                        h = 1e-4 + 1e-3 * s * s
                        args = [s_w**2, s_m**2, s_c**2]
                        args[j] = s * s + h
                        _, vh = model_var(beta, *np.sqrt(args), W, M, n_pair)
                        grads.append(((float(vh) - vr) / h) ** 2 * 2 * s**4 / d)
                    df_s = float(np.clip(2 * vr**2 / max(sum(grads), 1e-300), 1, W - 1))
                    out[f"D {where}: logit, model var of R, t(G-1)"] = logit_ci(lg, seD, dfj)
                    out[f"D {where}: + shift, t(G-1)"] = logit_ci(lg + shift, seD, dfj)
                    out[f"D {where}: + shift, t(satt)"] = logit_ci(lg + shift, seD, df_s)
                    out[f"D {where}: max(se2, D) + shift, t(satt)"] = logit_ci(lg + shift, max(seD, se2), df_s)
                    out[f"D {where}: max(se2, D), t(G-1)"] = logit_ci(lg, max(seD, se2), dfj)
                    out.setdefault("df_satt", df_s)
                if B:
                    dd = (W - 1, M - 1, W * M - W - M + 1)
                    for name, kw in (("pb", {}), ("pb fid", {"fiducial": dd}), ("pbt fid", {"fiducial": dd, "student": True})):
                        Q = pboot(R, (s_w, s_m, s_c), W, M, n_pair, prng, B, **kw)
                        qlo, qhi = np.quantile(Q, [0.025, 0.975])
                        sc = se2 if kw.get("student") else 1.0
                        out[name] = (100 * special.expit(lg - qhi * sc), 100 * special.expit(lg - qlo * sc))
                rows[m].append(out)
        done += r
    return true, rows, float(np.mean(fit_s)) if fit_s else float("nan")


def summarise(true, rows, label):
    for m, rs in rows.items():
        good = [r for r in rs if len(r) > 1]
        R = np.array([r["R"] for r in rs])
        sd = R.std()
        print(f"{label} {m}: truth {true[m]:.3f}, mean R {R.mean():.3f}, sd {sd:.3f}, zero runs {len(rs) - len(good)}, runs {len(rs)}")
        names = [k for k in good[0] if k not in ("R", "df_satt")]
        for name in names:
            lo = np.array([float(np.ravel(r[name][0])[0]) for r in good])
            hi = np.array([float(np.ravel(r[name][1])[0]) for r in good])
            c = np.mean((lo <= true[m]) & (true[m] <= hi))
            print(f"   {name:<46} cov {c:.3f} (se {math.sqrt(c * (1 - c) / len(good)):.3f}) below {np.mean(true[m] < lo):.3f} "
                  f"above {np.mean(true[m] > hi):.3f} width/oracle {np.mean(hi - lo) / (3.92 * sd):.2f}")
        if "df_satt" in good[0]:
            print(f"   satterthwaite df median {np.median([r['df_satt'] for r in good]):.1f}")


FAMILIES = {
    "normal": lambda rate: {"kind": "normal", "sd": 1.0, "base": None, "rate": rate},
}


def normal_family(rate: float, sd: float = 1.0, pair_sd: float = 0.0) -> dict:
    from scipy import optimize

    tau = math.sqrt(2 * sd**2 + pair_sd**2)
    base = optimize.brentq(lambda b: GH_W @ special.expit(b + tau * GH_X) - rate / 100, -15, 5)
    return {"kind": "normal", "sd": sd, "pair_sd": pair_sd, "base": base}


def mixture_family(hard: float, easy: float, sd: float, pair_sd: float = 1.0) -> dict:
    return {"kind": "mixture", "sd": sd, "pair_sd": pair_sd, "base": float(special.logit(hard)), "easy": easy}


if __name__ == "__main__":
    import argparse

    ap = argparse.ArgumentParser()
    ap.add_argument("--family", default="normal")
    ap.add_argument("--rate", type=float, default=2.0)
    ap.add_argument("--hard", type=float, default=0.01)
    ap.add_argument("--easy", type=float, default=0.002)
    ap.add_argument("--sd", type=float, default=1.0)
    ap.add_argument("--pair-sd", type=float, default=None)
    ap.add_argument("--jobs", type=int, default=10)
    ap.add_argument("--runs", type=int, default=100)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--boot", type=int, default=1000)
    ap.add_argument("--metrics", default="incorrect")
    a = ap.parse_args()
    if a.family == "normal":
        fam = normal_family(a.rate, a.sd, a.pair_sd or 0.0)
    else:
        fam = mixture_family(a.hard, a.easy, a.sd, 1.0 if a.pair_sd is None else a.pair_sd)
    t0 = time.time()
    true, rows, fit_s = run(fam, a.jobs, a.runs, a.seed, tuple(a.metrics.split(",")), a.boot)
    summarise(true, rows, f"{a.family} {vars(a)}")
    print(f"fit {fit_s:.2f} s; total {time.time() - t0:.0f} s")
