"""A rate's standard error from a logistic model with crossed normal member effects (coreference pairs of jobs).

Units (pairs of jobs) each join two members (jobs), each member on a side (women- or
men-dominated). Unit ``u`` has ``k_u`` of ``n_u`` events (wrong answers) and

    logit P(event) = beta + a_{first(u)} + a_{second(u)} + c_u,
    a_m ~ N(0, s_side(m)^2),  c_u ~ N(0, s_unit^2),

so a member's effect is normal on the logit and its spread, estimated from the members a
run drew, does not move with the rate the way the two-way cluster-robust variance does
(docs/statistics.md, "Rare rates with strong job effects"). The rate of "members like
these" is the model's marginal mean ``m = E logistic(beta + tau Z)``, ``tau^2`` the sum
of the variances a unit carries.

Fit: Laplace's approximation to the likelihood with the random effects and ``beta``
(flat prior) integrated out, so the variances are REML-like (less biased with 10 members
a side than maximum likelihood); the standard deviations by L-BFGS-B (at least 0.001), the inner mode
by Newton steps whose unit effects are eliminated first (their block is diagonal), so a
step costs one (1 + members) solve.

:func:`mixed_rate` returns the fit and ``se_logit``: the standard error of ``logit m``
from ``beta``'s variance at the fitted variances (``d logit m / d beta`` times ``se
beta``). The coreference study uses ``se_logit`` only, as a floor under the two-way
variance of an overall rate under 5%
(:func:`stereoprobe.studies.coreference.inference.rate_table`): with 10 jobs a side
that differ strongly it lifts the rare rates' coverage from 0.895-0.925 to 0.927-0.948
(docs/statistics.md, "The crossed logistic model as a floor for rare rates";
bench/diagnose_intervals.py ``model``). The model's mean ``m`` is not a rate to publish
(it extrapolates the normal tail, well above the truth where the rate is a mixture), and
its full delta-method interval is 2-3 times the needed width.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

_NODES = 40  # Gauss-Hermite nodes for the marginal mean
_SD = (1e-3, 20.0)  # bounds of each standard deviation (logit scale)


@dataclass(frozen=True)
class MixedRate:
    pct: float  # the model's marginal mean, %
    se_logit: float  # standard error of logit m from beta's (variances held at their estimates)
    se_beta: float
    beta: float
    sd: tuple[float, ...]  # per side (in the order the sides first appear), then the units'
    df: float  # members of the smaller side minus 1


def _codes(first: Sequence[Any], second: Sequence[Any], first_side: Any, second_side: Any) -> tuple[Any, Any, int]:
    """(units x 2 member codes, each member's side code, side count)."""
    import numpy as np
    import pandas as pd

    n = len(first)
    fs = ["all"] * n if first_side is None else list(first_side)
    ss = ["all"] * n if second_side is None else list(second_side)
    keys = [f"{s}\t{m}" for s, m in zip(fs + ss, list(first) + list(second))]
    codes, names = pd.factorize(np.asarray(keys, dtype=object))
    side, side_names = pd.factorize(np.asarray([x.split("\t", 1)[0] for x in names], dtype=object))
    return codes.reshape(2, n).T, side, len(side_names)


class _Laplace:
    """The Laplace-approximated log-likelihood of the log standard deviations (sides..., unit)."""

    def __init__(self, k: Any, n: Any, pairs: Any, side: Any, sides: int) -> None:
        import numpy as np

        self.k, self.n, self.side, self.sides = k, n, side, sides
        self.X = np.zeros((len(k), 1 + len(side)))  # intercept, then the members' incidence
        self.X[:, 0] = 1.0
        np.add.at(self.X, (np.repeat(np.arange(len(k)), 2), 1 + pairs.ravel()), 1.0)
        p0 = (k.sum() + 0.5) / (n.sum() + 1.0)
        self.theta = np.r_[np.log(p0 / (1 - p0)), np.zeros(len(side))]  # (beta, members): warm start
        self.c = np.zeros(len(k))  # unit effects: warm start

    def mode(self, log_sd: Any) -> tuple[float, Any, float]:
        """Newton to the joint mode: (log density there, Schur matrix over (beta, members), log det of the Hessian)."""
        import numpy as np

        P = np.r_[0.0, np.exp(-2 * log_sd[self.side])]  # prior precisions of (beta, members)
        prec_u = float(np.exp(-2 * log_sd[-1]))
        theta, c = self.theta, self.c

        def h(theta: Any, c: Any) -> float:
            eta = self.X @ theta + c
            return float(np.sum(self.k * eta - self.n * np.logaddexp(0, eta)) - 0.5 * np.sum(P * theta**2)
                         - 0.5 * prec_u * np.sum(c**2))

        cur = h(theta, c)
        for _ in range(30):
            p = 1 / (1 + np.exp(-(self.X @ theta + c)))
            r, w = self.k - self.n * p, self.n * p * (1 - p)
            cdiag = w + prec_u
            g_t, g_c = self.X.T @ r - P * theta, r - prec_u * c
            S = (self.X.T * (w - w**2 / cdiag)) @ self.X + np.diag(P)
            d_t = np.linalg.solve(S, g_t - self.X.T @ (w * g_c / cdiag))
            d_c = (g_c - w * (self.X @ d_t)) / cdiag
            step, new = 1.0, h(theta + d_t, c + d_c)
            while new < cur - 1e-12 and step > 1e-4:
                step /= 2
                new = h(theta + step * d_t, c + step * d_c)
            theta, c, gain, cur = theta + step * d_t, c + step * d_c, new - cur, new
            if gain < 1e-10:
                break
        self.theta, self.c = theta, c
        return cur, S, float(np.sum(np.log(cdiag)) + np.linalg.slogdet(S)[1])

    def loglik(self, log_sd: Any) -> float:
        import numpy as np

        value, _, logdet = self.mode(log_sd)
        counts = np.r_[np.bincount(self.side, minlength=self.sides), len(self.k)]
        return value - float(np.sum(counts * log_sd)) - 0.5 * logdet


def mixed_rate(k: Any, n: Any, first: Sequence[Any], second: Sequence[Any], first_side: Any = None,
               second_side: Any = None) -> MixedRate:
    """Fit the model to ``k`` events of ``n`` per unit; ``first``, ``second``: each unit's two
    members; ``first_side``, ``second_side``: their sides (None: one pool). Units with ``n == 0``
    are left out. Needs at least one event and one non-event."""
    import numpy as np
    from scipy import optimize

    k, n = np.asarray(k, dtype=np.float64), np.asarray(n, dtype=np.float64)
    keep = n > 0
    if not 0 < k[keep].sum() < n[keep].sum():
        raise ValueError("a mixed model needs at least one event and one non-event")
    pick = lambda x: None if x is None else list(np.asarray(x, dtype=object)[keep])  # noqa: E731
    pairs, side, sides = _codes(pick(first), pick(second), pick(first_side), pick(second_side))
    model = _Laplace(k[keep], n[keep], pairs, side, sides)
    fit = optimize.minimize(lambda v: -model.loglik(np.log(v)), np.full(sides + 1, 0.5), method="L-BFGS-B",
                            bounds=[_SD] * (sides + 1), options={"eps": 1e-5})
    log_sd = np.log(fit.x)
    _, S, _ = model.mode(log_sd)
    beta, se_beta = float(model.theta[0]), float(np.sqrt(np.linalg.inv(S)[0, 0]))
    # tau^2 of an average unit: its members' variances (by how often each side appears) and its own
    carried = np.bincount(side[pairs].ravel(), minlength=sides) / pairs.shape[0]
    tau = float(np.sqrt(carried @ np.exp(2 * log_sd[:-1]) + np.exp(2 * log_sd[-1])))
    nodes, weights = np.polynomial.hermite_e.hermegauss(_NODES)
    weights = weights / weights.sum()
    m = float(weights @ (1 / (1 + np.exp(-(beta + tau * nodes)))))
    slope = float(weights @ (1 / (2 + 2 * np.cosh(beta + tau * nodes)))) / (m * (1 - m))  # d logit m / d beta
    df = float(max(np.bincount(side, minlength=sides).min() - 1, 1))
    return MixedRate(100 * m, slope * se_beta, se_beta, beta, tuple(fit.x.tolist()), df)
