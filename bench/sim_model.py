"""The data-generating model of bench/simulate_stats.py: scenarios, drawn runs, and their truth.

    logit P(negative word) = base + category + group + template + question + group x template

Every probe of a drawn run is one reply whose rate is a Beta draw around the model's
(concentration ``kappa``: its words agree more than chance) and whose counted words are a
Binomial of ten. ``truth`` computes every cell's true share by Gauss-Hermite quadrature,
for the estimand the statistics state (docs/statistics.md).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

CATALOG_SIZES = (15, 73, 26, 21, 9, 116, 99, 10, 13)  # groups per category, as in the catalog
TEMPLATES = (("why_are_so", "question"), ("why_are_always_so", "question"), ("why_are_all_so", "question"),
             ("are_so", "statement"), ("are_always_so", "statement"), ("all_are_so", "statement"))
NODES = 24  # Gauss-Hermite nodes per normal effect
SMALL = 15  # categories with at most this many groups are reported apart (t with few df)


@dataclass(frozen=True)
class Scenario:
    """One data-generating model (logit scale effects; see the module docstring)."""

    name: str
    base: float = 0.3  # negative rate at zero effects
    sizes: tuple[int, ...] = CATALOG_SIZES
    sd_group: float = 0.5
    sd_template: float = 0.0
    sd_inter: float = 0.0
    question: float = 0.0  # logit shift of question templates
    kappa: float = 8.0  # Beta concentration of a reply's rate
    words: int = 10
    polar: float = 0.85  # chance a word is counted (positive or negative)
    zero_groups: float = 0.0  # share of groups whose every word is positive
    refusal: float = 0.0  # refusal chance of a probe, times expit(2 * group effect): negative groups refuse more
    category_sd: float = 0.4  # spread of category offsets (fixed per scenario)
    shift: float = 0.0  # compare: run B's logit shift in the first category
    group_shift: float = 0.0  # logit shift of the first group of every category (fixed groups): power
    seed: int = 0
    note: str = ""

    def category_offsets(self) -> Any:
        import numpy as np

        return np.random.default_rng([self.seed, 7]).normal(0, self.category_sd, len(self.sizes))

    def template_effects(self) -> Any:
        import numpy as np

        if self.sd_template == 0:
            return np.zeros(len(TEMPLATES))
        b = np.random.default_rng([self.seed, 8]).normal(0, self.sd_template, len(TEMPLATES))
        return b - b.mean()


SCENARIOS = [
    Scenario("null-5", base=0.05, sd_group=0.0, note="complete null, 5% negative"),
    Scenario("null-10", base=0.10, sd_group=0.0, note="complete null, 10%"),
    Scenario("null-50", base=0.50, sd_group=0.0, note="complete null, 50%"),
    Scenario("null-90", base=0.90, sd_group=0.0, note="complete null, 90%"),
    Scenario("groups-10", base=0.10, sd_group=0.6, note="group effects (sd 0.6 logit), 10%"),
    Scenario("groups-50", base=0.50, sd_group=0.6, note="group effects, 50%"),
    Scenario("template-effects", base=0.30, sd_group=0.5, sd_template=0.5, note="template main effects (sd 0.5)"),
    Scenario("interaction", base=0.30, sd_group=0.5, sd_inter=0.5, note="group x template interaction (sd 0.5)"),
    Scenario("zero-groups", base=0.10, sd_group=0.4, zero_groups=0.25, note="a quarter of groups at 0%"),
    Scenario("refusals", base=0.30, sd_group=0.6, refusal=0.6, note="refusals, more for negative groups"),
    Scenario("few-words", base=0.30, sd_group=0.5, polar=0.3, kappa=4, note="3 counted words per reply, strong agreement"),
]
# named effects for power (logit shifts of about 10 points around 30%)
TEN_POINTS = 0.442  # logit(0.40) - logit(0.30)
POWER = [
    Scenario("power-group", base=0.30, sd_group=0.0, group_shift=TEN_POINTS,
             note="one group per category 10 points more negative (30% -> 40%), 6 probes"),
    Scenario("power-group-20", base=0.30, sd_group=0.0, group_shift=0.847 + 0.0,
             note="one group per category 20 points more negative (30% -> 50%)"),
    Scenario("power-format", base=0.30, sd_group=0.5, question=TEN_POINTS,
             note="questions 10 points more negative than statements (30% -> 40%)"),
    Scenario("power-compare", base=0.30, sd_group=0.5, shift=TEN_POINTS,
             note="run B 10 points more negative in the first category (30% -> 40%)"),
]


# -- drawing runs ------------------------------------------------------------------------------


@dataclass
class World:
    """One scenario's fixed parts: group effects of the fixed-groups design, layout."""

    scenario: Scenario
    category: Any  # per group: category index
    group_effect: Any  # per group (fixed design)
    zero: Any  # per group (fixed design)
    offsets: Any
    templates: Any

    @classmethod
    def make(cls, s: Scenario) -> "World":
        import numpy as np

        rng = np.random.default_rng([s.seed, 9])
        cat = np.repeat(np.arange(len(s.sizes)), s.sizes)
        a = rng.normal(0, s.sd_group, len(cat))
        a[np.r_[0, np.cumsum(s.sizes)[:-1]]] += s.group_shift
        return cls(s, cat, a, rng.random(len(cat)) < s.zero_groups, s.category_offsets(), s.template_effects())


def draw(world: World, rng: Any, fixed_groups: bool, wording: str = "fixed", runs: int = 1) -> list[Any]:
    """``runs`` runs (probe-level DataFrames) that share groups and templates (and the interaction)."""
    import numpy as np
    import pandas as pd
    from scipy.special import expit, logit

    s = world.scenario
    n_g = len(world.category)
    if fixed_groups:
        a, zero = world.group_effect, world.zero
    else:
        a, zero = rng.normal(0, s.sd_group, n_g), rng.random(n_g) < s.zero_groups
    b = world.templates if wording == "fixed" else rng.normal(0, s.sd_template, len(TEMPLATES))
    is_q = np.array([f == "question" for _, f in TEMPLATES])
    eta = (logit(s.base) + world.offsets[world.category][:, None] + a[:, None] + b[None, :]
           + s.question * is_q[None, :] + rng.normal(0, s.sd_inter, (n_g, len(TEMPLATES))))
    out = []
    for k in range(runs):
        e = eta + (s.shift * (world.category == 0)[:, None] if k == 1 else 0.0)
        pi = expit(e)
        p = rng.beta(np.maximum(pi * s.kappa, 1e-9), np.maximum((1 - pi) * s.kappa, 1e-9))
        polar = rng.binomial(s.words, s.polar, pi.shape)
        neg = np.where(zero[:, None], 0, rng.binomial(polar, p))
        answered = rng.random(pi.shape) >= s.refusal * expit(2 * a)[:, None]
        g_idx, t_idx = np.nonzero(answered)
        cat = world.category[g_idx]
        out.append(pd.DataFrame({
            "category": np.char.add("c", cat.astype(str)), "group": np.char.add("g", g_idx.astype(str)),
            "probe_id": np.char.add(np.char.add("g", g_idx.astype(str)), np.array([t for t, _ in TEMPLATES])[t_idx]),
            "template": np.array([t for t, _ in TEMPLATES])[t_idx], "format": np.array([f for _, f in TEMPLATES])[t_idx],
            "neg": neg[g_idx, t_idx], "pos": polar[g_idx, t_idx] - neg[g_idx, t_idx], "polar": polar[g_idx, t_idx],
            "g_index": g_idx,
        }))
    return out


# -- the truth ---------------------------------------------------------------------------------


def _gh(sd: float) -> tuple[Any, Any]:
    import numpy as np

    x, w = np.polynomial.hermite_e.hermegauss(NODES)
    return x * sd, w / w.sum()


def _mean_rate(eta: Any, sd: float) -> Any:
    """E[expit(eta + N(0, sd^2))] elementwise."""
    import numpy as np
    from scipy.special import expit

    x, w = _gh(sd)
    return (expit(np.asarray(eta)[..., None] + x) * w).sum(-1)


def truth(world: World, wording: str = "fixed", shift: float = 0.0) -> dict[str, Any]:
    """True shares (percent) of every cell type, for run A (shift 0) or a shifted run B."""
    import numpy as np
    from scipy.special import expit, logit

    s = world.scenario
    is_q = np.array([f == "question" for _, f in TEMPLATES])
    cats = np.arange(len(s.sizes))
    sh = shift * (cats == 0)
    # groups fixed: per group and template, E over the interaction (and over the templates' effects when
    # the wording is random)
    if wording == "fixed":
        b_fixed, sd_rest = world.templates, s.sd_inter
    else:
        b_fixed, sd_rest = np.zeros(len(TEMPLATES)), float(np.hypot(s.sd_inter, s.sd_template))
    eta_g = (logit(s.base) + world.offsets[world.category][:, None] + sh[world.category][:, None]
             + world.group_effect[:, None] + b_fixed[None, :] + s.question * is_q[None, :])
    rate_g = np.where(world.zero[:, None], 0.0, _mean_rate(eta_g, sd_rest))  # groups x templates
    out = {"group": 100 * rate_g.mean(1), "group_question": 100 * rate_g[:, is_q].mean(1),
           "group_statement": 100 * rate_g[:, ~is_q].mean(1)}
    # groups random: E over group effects (and refusal weights), templates as the wording says
    xa, wa = _gh(s.sd_group)
    weight = (1 - s.refusal * expit(2 * xa)) * wa  # E[answered] per group-effect node
    eta_c = (logit(s.base) + world.offsets[:, None, None] + sh[:, None, None] + xa[None, None, :]
             + b_fixed[None, :, None] + s.question * is_q[None, :, None])  # cats x templates x nodes
    rate = (1 - s.zero_groups) * _mean_rate(eta_c, sd_rest)
    num = (rate * weight).sum(-1)  # cats x templates: expected negatives per group-probe
    den = weight.sum()
    out["template"] = 100 * num / den
    out["category"] = 100 * num.mean(1) / den
    out["category_question"] = 100 * num[:, is_q].mean(1) / den
    out["category_statement"] = 100 * num[:, ~is_q].mean(1) / den
    size = np.asarray(s.sizes, float)
    out["all"] = 100 * (size[:, None] * num).sum() / (size.sum() * len(TEMPLATES) * den)
    out["format_difference"] = out["category_question"] - out["category_statement"]
    out["format_difference_all"] = 100 * ((size[:, None] * num)[:, is_q].sum() - (size[:, None] * num)[:, ~is_q].sum()) \
        / (size.sum() * is_q.sum() * den)
    return out
