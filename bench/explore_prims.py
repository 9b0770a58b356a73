"""Scratch v2: per-run primitives for candidate intervals (stored as .npz; formulas evaluated offline)."""
from __future__ import annotations

import math
import sys
import time
from pathlib import Path

import numpy as np
from scipy import special

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests"), str(ROOT / "bench")]
from explore_rare_ci import (draw, match_beta, mixture_family, model_var, normal_family, truth,  # noqa: E402
                             two_way)

LEVELS = np.array([0.005, 0.01, 0.025, 0.05, 0.1, 0.5, 0.9, 0.95, 0.975, 0.99, 0.995])


def _old_se(fit):
    from explore_rare_ci import GH_W, GH_X
    tau = math.sqrt(sum(s * s for s in fit.sd))
    F = special.expit(fit.beta + tau * GH_X)
    m = GH_W @ F
    return float((GH_W @ (F * (1 - F))) / (m * (1 - m)) * fit.se_beta)


def pivots(R, sds, W, M, n_pair, rng, B, fiducial=None, beta=None):
    s_w, s_m, s_c = sds
    U = W * M
    zw, zm, zc = rng.standard_normal((B, W)), rng.standard_normal((B, M)), rng.standard_normal((B, U))
    if fiducial is not None:
        dw, dm, dc = fiducial
        s_w = s_w * np.sqrt(dw / rng.chisquare(dw, B))
        s_m = s_m * np.sqrt(dm / rng.chisquare(dm, B))
        s_c = s_c * np.sqrt(dc / rng.chisquare(dc, B))
    else:
        s_w, s_m, s_c = (np.full(B, s) for s in (s_w, s_m, s_c))
    if beta is None:
        b = match_beta(np.full(B, R / 100), s_w, s_m, s_c)
        m = np.full(B, R / 100)
    else:
        b = np.full(B, beta)
        tau = np.sqrt(s_w**2 + s_m**2 + s_c**2)
        from explore_rare_ci import GH_W, GH_X
        m = (special.expit(b[:, None] + tau[:, None] * GH_X) * GH_W).sum(1)
    wi, mj = np.repeat(np.arange(W), M), np.tile(np.arange(M), W)
    eta = b[:, None] + (zw * s_w[:, None])[:, wi] + (zm * s_m[:, None])[:, mj] + zc * s_c[:, None]
    k = rng.binomial(n_pair, special.expit(eta))
    Rs = k.sum(1) / (U * n_pair)
    ok = (Rs > 0) & (Rs < 1)
    Q = np.where(ok, special.logit(np.where(ok, Rs, 0.5)) - special.logit(m), -50.0)
    v, _, _ = two_way(k, np.full_like(k, n_pair), W, M)
    se = np.sqrt(v) / 1e2 / np.where(ok, Rs * (1 - Rs), 1)
    T = np.where(ok & (se > 0), Q / np.where(se > 0, se, 1), -50.0)
    return np.quantile(Q, LEVELS), np.quantile(T, LEVELS), float(Q.std()), float(np.mean(~ok))


def main(fam, W, runs, seed, metric, B, out, true_sds=None):
    from stereoprobe.stats.mixed import mixed_rate

    M = W
    true = truth(fam)[metric]
    rng, prng = np.random.default_rng(seed), np.random.default_rng(seed + 10_000)
    wi, mj = np.repeat(np.arange(W), M), np.tile(np.arange(M), W)
    first, second = [f"w{i}" for i in wi], [f"m{j}" for j in mj]
    sides = (["women"] * len(wi), ["men"] * len(wi))
    rec = {k: [] for k in ("R", "var2", "df2", "vw", "vm", "vp", "deff", "beta", "sw", "sm", "sc", "se_beta", "se_model",
                           "fit_pct", "seD_fit", "seD_m", "dfs_fit", "Q_hat", "T_hat", "Q_fid", "T_fid", "Q_true",
                           "Q_fit", "sdQ_hat", "sdQ_fid", "sdQ_true", "fit_s", "N")}
    done, t0 = 0, time.time()
    while done < runs:
        r = min(20, runs - done)
        data = draw(fam, W, M, rng, r)
        kk, npc = data[metric]
        n_pair = 7 * npc
        for i in range(r):
            k = kk[i]
            ku = k.sum(1)
            nu = np.full(len(ku), n_pair)
            var2, df2, R = (x[0] for x in two_way(ku, nu, W, M))
            N = ku.size * n_pair
            if not 0 < R < 100:
                for key in rec:
                    rec[key].append(np.nan if key not in ("R",) else R)
                continue
            # parts
            e = (ku - R / 100 * nu) / N
            vw = W / (W - 1) * (e.reshape(W, M).sum(1) ** 2).sum() * 1e4
            vm = M / (M - 1) * (e.reshape(W, M).sum(0) ** 2).sum() * 1e4
            vp = W * M / (W * M - 1) * (e**2).sum() * 1e4
            vs, _, Rs = two_way(k.T, np.full(k.T.shape, npc), W, M)
            ns = ku.size * npc
            okc = (Rs > 0) & (Rs < 100) & (vs > 0)
            deff = max(1.0, float(np.median(vs[okc] / (Rs[okc] * (100 - Rs[okc]) / ns)))) if okc.any() else 1.0
            ts = time.process_time()
            fit = mixed_rate(ku, nu, first, second, *sides)
            fs = time.process_time() - ts
            sw, sm, sc = fit.sd
            p = R / 100
            seD = []
            for beta in (fit.beta, float(match_beta(np.array(p), sw, sm, sc))):
                mm, vr = model_var(beta, sw, sm, sc, W, M, n_pair)
                seD.append(math.sqrt(float(vr)) / (float(mm) * (1 - float(mm))))
                if len(seD) == 1:
                    grads = []
                    vr = float(vr)
                    for j, (s, d) in enumerate(((sw, W - 1), (sm, M - 1), (sc, W * M - W - M + 1))):
                        h = 1e-4 + 1e-3 * s * s
                        args = [sw**2, sm**2, sc**2]
                        args[j] = s * s + h
                        _, vh = model_var(beta, *np.sqrt(args), W, M, n_pair)
                        grads.append(((float(vh) - vr) / h) ** 2 * 2 * s**4 / d)
                    dfs = float(np.clip(2 * vr**2 / max(sum(grads), 1e-300), 1, W - 1))
            dd = (W - 1, M - 1, W * M - W - M + 1)
            qh, th, sdh, _ = pivots(R, (sw, sm, sc), W, M, n_pair, prng, B)
            qf, tf, sdf, _ = pivots(R, (sw, sm, sc), W, M, n_pair, prng, B, fiducial=dd)
            qfit, _, _, _ = pivots(R, (sw, sm, sc), W, M, n_pair, prng, B, beta=fit.beta)
            if true_sds is not None:
                qt, _, sdt, _ = pivots(R, true_sds, W, M, n_pair, prng, B)
            else:
                qt, sdt = np.full(len(LEVELS), np.nan), np.nan
            vals = dict(R=R, var2=var2, df2=df2, vw=vw, vm=vm, vp=vp, deff=deff, beta=fit.beta, sw=sw, sm=sm, sc=sc,
                        se_beta=fit.se_beta, se_model=_old_se(fit), fit_pct=fit.pct, seD_fit=seD[0], seD_m=seD[1],
                        dfs_fit=dfs, Q_hat=qh, T_hat=th, Q_fid=qf, T_fid=tf, Q_true=qt, Q_fit=qfit, sdQ_hat=sdh,
                        sdQ_fid=sdf, sdQ_true=sdt, fit_s=fs, N=N)
            for key in rec:
                rec[key].append(vals[key])
        done += r
        np.savez(out, true=true, W=W, levels=LEVELS, **{k: np.array(v, dtype=float) if k[0] not in "QT" else
                                                       np.array([np.full(len(LEVELS), np.nan) if np.ndim(x) == 0 else x
                                                                 for x in v]) for k, v in rec.items()})
        print(f"{done} runs, {time.time() - t0:.0f} s", flush=True)


if __name__ == "__main__":
    import argparse

    ap = argparse.ArgumentParser()
    ap.add_argument("--family", default="normal")
    ap.add_argument("--rate", type=float, default=2.0)
    ap.add_argument("--hard", type=float, default=0.01)
    ap.add_argument("--easy", type=float, default=0.002)
    ap.add_argument("--sd", type=float, default=1.0)
    ap.add_argument("--jobs", type=int, default=10)
    ap.add_argument("--runs", type=int, default=400)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--boot", type=int, default=1000)
    ap.add_argument("--metric", default="incorrect")
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    if a.family == "normal":
        fam, tsd = normal_family(a.rate, a.sd), (a.sd, a.sd, 0.0)
    else:
        fam, tsd = mixture_family(a.hard, a.easy, a.sd), None
    main(fam, a.jobs, a.runs, a.seed, a.metric, a.boot, a.out, tsd)
