"""A rate's interval from a logistic model with crossed normal member effects (coreference pairs of jobs).

Units (pairs of jobs) each join two members (jobs), each member on a side (women- or
men-dominated). Unit ``u`` has ``k_u`` of ``n_u`` events (wrong answers) and

    logit P(event) = beta + a_{first(u)} + a_{second(u)} + c_u,
    a_m ~ N(0, s_side(m)^2),  c_u ~ N(0, s_unit^2),

so a member's effect is normal on the logit and its spread, estimated from the members a
run drew, does not shrink with a run that drew no difficult member the way the two-way
cluster-robust variance does (docs/statistics.md, "Overall rates where jobs differ
strongly"). The rate of "members like these" is the expectation of the observed rate
``R = sum k / sum n`` over members, units and answers drawn afresh.

Fit: Laplace's approximation to the likelihood with the random effects and ``beta``
(flat prior) integrated out, so the variances are REML-like (less biased with 10 members
a side than maximum likelihood); the standard deviations by L-BFGS-B (at least 0.001), the inner mode
by Newton steps whose unit effects are eliminated first (their block is diagonal), so a
step costs one (1 + members) solve. BLAS on one thread (small matrices).

:func:`mixed_rate` returns the fit and ``se_observed``: the model's standard deviation of
``logit R``, from the variance of ``R`` under the fitted model with the design held
(:func:`_observed_variance`: each member's shared part, each unit's own, the answers'
binomial; Gauss-Hermite quadrature), carried to the logit at the model's rate. It is the
standard error of the observed rate, not of ``beta``: a job's rate is skewed (log-normal
like), so the mean of 10 jobs' rates varies more on the log scale than the mean of their
logits (by ``exp(s^2) - 1`` against ``s^2`` for a rare rate: 1.72 against 1 at ``s = 1``).
:func:`rate_interval` is the interval the coreference study gives Table 3's overall rates
(:func:`stereoprobe.studies.coreference.inference.overall_interval`): ``logistic(logit R
+- t(df) se)``, the members of the smaller side minus 1 as degrees of freedom. The model's
own rate (``pct``) is not the centre: it extrapolates the normal tail and lands well above
the truth where the rates are a mixture (tests/coref_synth.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

_NODES = 40  # Gauss-Hermite nodes for the moments of a unit's rate
_SD = (1e-3, 20.0)  # bounds of each standard deviation (logit scale)


@dataclass(frozen=True)
class MixedRate:
    pct: float  # the model's expected rate of these units, % (at the fitted beta; extrapolates the normal tail)
    se_observed: float  # the model's standard deviation of logit R, R the observed rate (members drawn afresh)
    se_beta: float
    beta: float
    sd: tuple[float, ...]  # per side (in the order the sides first appear), then the units'
    df: float  # members of the smaller side minus 1
    parts: tuple[float, ...] = ()  # the observed rate's variance: the members' part, the units' own, the answers'


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


def _observed_variance(beta: float, log_sd: Any, pairs: Any, side: Any, n: Any) -> tuple[float, Any]:
    """(the model's expected rate of the units, the variance of the observed rate in three parts: the members', the
    units' own and the answers'), with the design held and the members, the units' effects and the answers drawn
    afresh: ``Var(sum_u k_u) / N^2`` by the Hoeffding decomposition of ``p_u``.

    Member ``j``'s part is ``Var_a sum_(u joins j) n_u g_u(a)``, ``g_u(a) = E[p_u | a_j = a]`` the unit's mean
    given that member's effect (its other member and its own effect integrated out); a unit's own part is what its
    ``Var p_u`` holds beyond its two members' parts (its own effect, and how the two combine on the logit); the
    answers' is the binomial ``sum_u n_u E p_u (1 - p_u)``. Moments by Gauss-Hermite quadrature."""
    import numpy as np

    sd = np.exp(np.asarray(log_sd, dtype=np.float64))
    s_member, s_unit = sd[:-1][side], sd[-1]
    nodes, weights = np.polynomial.hermite_e.hermegauss(_NODES)
    weights = weights / weights.sum()
    tau = np.sqrt(s_member[pairs[:, 0]] ** 2 + s_member[pairs[:, 1]] ** 2 + s_unit**2)
    p = 1 / (1 + np.exp(-(beta + tau[:, None] * nodes)))  # (units, nodes)
    mean, second = p @ weights, p**2 @ weights
    per_member = np.zeros((len(side), _NODES))  # sum over a member's units of n_u (g_u(s x_i) - m_u)
    main = np.zeros(len(n))  # each unit's Var g_u(a) + Var g_u(b)
    for pos in (0, 1):
        s = s_member[pairs[:, pos]]
        rest = np.sqrt(np.maximum(tau**2 - s**2, 0.0))
        eta = beta + s[:, None, None] * nodes[None, :, None] + rest[:, None, None] * nodes[None, None, :]
        g = (1 / (1 + np.exp(-eta))) @ weights - mean[:, None]  # (units, nodes)
        np.add.at(per_member, pairs[:, pos], n[:, None] * g)
        main += g**2 @ weights
    total = float(n.sum())
    parts = np.array([float(np.sum(per_member**2 @ weights)),
                      float(np.sum(n**2 * np.maximum(second - mean**2 - main, 0.0))),
                      float(np.sum(n * (mean - second)))]) / total**2
    return float(np.dot(n, mean)) / total, parts


def mixed_rate(k: Any, n: Any, first: Sequence[Any], second: Sequence[Any], first_side: Any = None,
               second_side: Any = None) -> MixedRate:
    """Fit the model to ``k`` events of ``n`` per unit; ``first``, ``second``: each unit's two
    members; ``first_side``, ``second_side``: their sides (None: one pool). Units with ``n == 0``
    are left out. Needs at least one event and one non-event."""
    import numpy as np
    from scipy import optimize
    from threadpoolctl import threadpool_limits

    k, n = np.asarray(k, dtype=np.float64), np.asarray(n, dtype=np.float64)
    keep = n > 0
    if not 0 < k[keep].sum() < n[keep].sum():
        raise ValueError("a mixed model needs at least one event and one non-event")
    pick = lambda x: None if x is None else list(np.asarray(x, dtype=object)[keep])  # noqa: E731
    pairs, side, sides = _codes(pick(first), pick(second), pick(first_side), pick(second_side))
    model = _Laplace(k[keep], n[keep], pairs, side, sides)
    with threadpool_limits(limits=1, user_api="blas"):  # small matrices: threads only wait for each other
        fit = optimize.minimize(lambda v: -model.loglik(np.log(v)), np.full(sides + 1, 0.5), method="L-BFGS-B",
                                bounds=[_SD] * (sides + 1), options={"eps": 1e-5})
        log_sd = np.log(fit.x)
        _, S, _ = model.mode(log_sd)
        beta, se_beta = float(model.theta[0]), float(np.sqrt(np.linalg.inv(S)[0, 0]))
        rate, parts = _observed_variance(beta, log_sd, pairs, side, n[keep])
    df = float(max(np.bincount(side, minlength=sides).min() - 1, 1))
    return MixedRate(100 * rate, float(np.sqrt(parts.sum())) / (rate * (1 - rate)), se_beta, beta,
                     tuple(fit.x.tolist()), df, tuple(parts.tolist()))


def rate_interval(k: Any, n: Any, first: Sequence[Any], second: Sequence[Any], first_side: Any = None,
                  second_side: Any = None, level: float = 0.95, se_floor: float = 0.0) -> tuple[float, float, MixedRate]:
    """(low %, high %, the fit): the interval of the observed rate ``100 sum k / sum n`` for members like these,
    ``logistic(logit R +- t(df) se)`` with ``se`` the model's (:func:`mixed_rate`) ``se_observed``, at least
    ``se_floor`` (a standard error of logit R from elsewhere, e.g. the two-way one), and ``df`` the members of the
    smaller side minus 1. Raises ValueError where the model cannot be fitted (no event, or no non-event)."""
    import numpy as np
    from scipy import stats

    fit = mixed_rate(k, n, first, second, first_side, second_side)
    k, n = np.asarray(k, dtype=np.float64), np.asarray(n, dtype=np.float64)
    rate = float(k[n > 0].sum() / n[n > 0].sum())
    half = float(stats.t.ppf(0.5 + level / 2, fit.df)) * max(fit.se_observed, se_floor)
    centre = float(np.log(rate / (1 - rate)))
    return 100 / (1 + np.exp(-(centre - half))), 100 / (1 + np.exp(-(centre + half))), fit
