"""Scratch: evaluate candidate interval formulas on stored primitives (bench/explore_prims.py)."""
import sys
import numpy as np
from scipy import special, stats

sys.path[:0] = ["/work/wt/corefci"]


def jeff(R, var, df, n, deff):
    from stereoprobe.stats import share_interval
    return share_interval(R, None, 1, n, variance=var, df=df, deff_floor=deff, method="jeffreys")


def cands(d):
    R, W = d["R"], int(d["W"])
    ok = (R > 0) & (R < 100) & np.isfinite(d["var2"])
    d = {k: (v[ok] if np.ndim(v) and len(v) == len(R) else v) for k, v in d.items()}
    R, p = d["R"], d["R"] / 100
    lg = special.logit(p)
    se2 = np.sqrt(d["var2"]) / 100 / (p * (1 - p))
    t9 = stats.t.ppf(0.975, W - 1)
    L = list(d["levels"])
    i_lo, i_hi, i_med = L.index(0.025), L.index(0.975), L.index(0.5)
    out = {}
    floor = np.where(R < 5, (100 * d["se_model"] * p * (1 - p)) ** 2, 0)
    use = floor > d["var2"]
    out["today"] = jeff(R, np.where(use, floor, d["var2"]), np.where(use, np.minimum(d["df2"], W - 1), d["df2"]), d["N"], d["deff"])
    out["jeffreys two-way"] = jeff(R, d["var2"], d["df2"], d["N"], d["deff"])
    fl = (100 * d["se_model"] * p * (1 - p)) ** 2
    out["jeffreys max everywhere"] = jeff(R, np.maximum(fl, d["var2"]), np.where(fl > d["var2"], np.minimum(d["df2"], W - 1), d["df2"]), d["N"], d["deff"])
    def lci(c, se, t=t9):
        return 100 * special.expit(c - t * se), 100 * special.expit(c + t * se)
    smax = np.maximum(se2, d["se_model"])
    out["review"] = lci(lg, smax)
    out["review + shift"] = lci(lg + 0.5 * (1 - 2 * p) * smax**2, smax)
    out["logit two-way"] = lci(lg, se2)
    out["D fit"] = lci(lg, d["seD_fit"])
    out["D fit, t(satt)"] = lci(lg, d["seD_fit"], stats.t.ppf(0.975, d["dfs_fit"]))
    out["D fit + shift"] = lci(lg + 0.5 * (1 - 2 * p) * d["seD_fit"] ** 2, d["seD_fit"])
    out["D fit, t(G-1) x 1.05"] = lci(lg, 1.05 * d["seD_fit"])
    out["D fit, t(G-1) at df 2/3"] = lci(lg, d["seD_fit"], stats.t.ppf(0.975, (W - 1) * 2 / 3))
    out["max(se2, D fit)"] = lci(lg, np.maximum(se2, d["seD_fit"]))
    out["max(se2, D fit) + shift"] = lci(lg + 0.5 * (1 - 2 * p) * np.maximum(se2, d["seD_fit"]) ** 2, np.maximum(se2, d["seD_fit"]))
    for name in ("hat", "fid", "true", "fit"):
        Q = d[f"Q_{name}"]
        if np.isnan(Q).all():
            continue
        out[f"pb {name}"] = (100 * special.expit(lg - Q[:, i_hi]), 100 * special.expit(lg - Q[:, i_lo]))
    for name in ("hat", "fid"):
        T = d[f"T_{name}"]
        out[f"pbt {name}"] = (100 * special.expit(lg - T[:, i_hi] * se2), 100 * special.expit(lg - T[:, i_lo] * se2))
    # pb hat, spread inflated by t/z around the median
    Q = d["Q_hat"]
    f = t9 / 1.96
    out["pb hat x t/z"] = (100 * special.expit(lg - Q[:, i_med] - f * (Q[:, i_hi] - Q[:, i_med])),
                           100 * special.expit(lg - Q[:, i_med] - f * (Q[:, i_lo] - Q[:, i_med])))
    # union of review and pb hat
    a, b = out["review"], out["pb hat"]
    out["hull(review, pb hat)"] = (np.minimum(a[0], b[0]), np.maximum(a[1], b[1]))
    # pb hat centred, sd-based t
    out["pb hat: -median ± t sdQ"] = lci(lg - Q[:, i_med], d["sdQ_hat"])
    out["pb hat: -median ± t max(sdQ, se2)"] = lci(lg - Q[:, i_med], np.maximum(d["sdQ_hat"], se2))
    out["review, centre -median(pb)"] = lci(lg - Q[:, i_med], smax)
    return d, out


def report(path):
    d = dict(np.load(path))
    d, out = cands(d)
    true = float(d["true"])
    R = d["R"]
    sd = R.std()
    print(f"{path}: truth {true:.3f}, mean R {R.mean():.3f}, sd {sd:.3f}, runs {len(R)}; s_hat w {np.nanmean(d['sw']):.2f} "
          f"m {np.nanmean(d['sm']):.2f} c {np.nanmean(d['sc']):.2f}; fit cpu {np.nanmean(d['fit_s']):.2f} s")
    for name, (lo, hi) in out.items():
        lo, hi = np.ravel(lo), np.ravel(hi)
        c = np.mean((lo <= true) & (true <= hi))
        print(f"  {name:<36} {c:.3f} (se {np.sqrt(c * (1 - c) / len(lo)):.3f}) below {np.mean(true < lo):.3f} above "
              f"{np.mean(true > hi):.3f}  w/o {np.mean(hi - lo) / (3.92 * sd):.2f} (median {np.median(hi - lo) / (3.92 * sd):.2f})")


if __name__ == "__main__" and "--parts" not in sys.argv:
    for p in sys.argv[1:]:
        report(p)


def parts_df(d):
    from stereoprobe.stats.mixed import _codes, _observed_variance
    W = int(d["W"])
    wi, mj = np.repeat(np.arange(W), W), np.tile(np.arange(W), W)
    pairs, side, _ = _codes([f"w{i}" for i in wi], [f"m{j}" for j in mj], ["w"] * W * W, ["m"] * W * W)
    n = np.full(W * W, 42.0)
    dfs, ses = [], []
    for b, sw, sm, sc in zip(d["beta"], d["sw"], d["sm"], d["sc"]):
        if not np.isfinite(b):
            dfs.append(np.nan); ses.append(np.nan); continue
        r, parts = _observed_variance(b, np.log([sw, sm, sc]), pairs, side, n)
        df = parts.sum() ** 2 / (parts[0] ** 2 / (W - 1) + parts[1] ** 2 / (W * W - 1))
        dfs.append(min(max(df, W - 1), W * W - 1)); ses.append(np.sqrt(parts.sum()) / (r * (1 - r)))
    return np.array(dfs), np.array(ses)


def report2(path):
    d = dict(np.load(path))
    df, se = parts_df(d)
    ok = (d["R"] > 0) & (d["R"] < 100) & np.isfinite(d["var2"])
    R, W, true = d["R"][ok], int(d["W"]), float(d["true"])
    p = R / 100; lg = special.logit(p)
    se2 = np.sqrt(d["var2"][ok]) / 100 / (p * (1 - p))
    sd = R.std()
    for name, s, f in (("D fit t(G-1)", se[ok], np.full(ok.sum(), W - 1.0)), ("D fit, parts df", se[ok], df[ok]),
                       ("max(se2, D), parts df / two-way df", np.maximum(se[ok], se2), np.where(se2 > se[ok], d["df2"][ok], df[ok]))):
        t = stats.t.ppf(0.975, f)
        lo, hi = 100 * special.expit(lg - t * s), 100 * special.expit(lg + t * s)
        c = np.mean((lo <= true) & (true <= hi))
        print(f"  {name:<36} {c:.3f} (se {np.sqrt(c * (1 - c) / len(lo)):.3f}) below {np.mean(true < lo):.3f} above "
              f"{np.mean(true > hi):.3f}  w/o {np.mean(hi - lo) / (3.92 * sd):.2f}; median df {np.median(f):.1f}")


if __name__ == "__main__" and "--parts" in sys.argv:
    for p in sys.argv[1:]:
        if p != "--parts":
            print(p)
            report2(p)
