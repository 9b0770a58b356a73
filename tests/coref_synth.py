"""Synthetic coreference answers with a known truth, for the statistics tests.

A design is :func:`design`: ``k`` women- and ``k`` men-dominated jobs of seed 003's
Table 6, every pair in both roles, with the seven templates and three pronouns (so
each triple holds one he- and one she-prompt, exactly one of them anti-stereotypical).

:func:`simulate` answers it, with the real design's crossed structure: every job gets a
difficulty ``u_j ~ N(0, job_sd)`` on the logit, drawn afresh in every run (the jobs are a
sample of jobs like them), and every pair of jobs ``a, b`` a difficulty ``q =
logistic(logit(hard) + u_a + u_b + v)``, ``v ~ N(0, pair_sd)`` its own. A pair's
difficulty is thus shared with the 2 x 19 pairs that share one of its jobs, as in the
default design. Each triple of the pair is *hard* with probability ``q`` (then each of its
answers is wrong with probability 1/2) or easy (each answer wrong with probability
``easy``). Whether a triple is hard does not depend on the pronoun, so without bias
nothing differs between pronouns; answers of a job, a pair and a triple are correlated,
as a model's are. With ``bias`` > 0, an anti-stereotypical answer is also made wrong (the
job the pronoun fits) with probability ``bias``, on top. (An earlier generator gave every
pair an independent difficulty, which a crossed design cannot produce: with it, intervals
that resample pairs as independent looked right.)

:func:`truth` gives what the rates are in expectation over jobs like these (the
estimand): the share of hard triples is ``E[q]`` over the job and pair effects, by
Gauss-Hermite quadrature.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from stereoprobe.studies.coreference.frame import probe_frame, with_answers
from stereoprobe.studies.coreference.pairs import jobs_pairs, load_jobs
from stereoprobe.studies.coreference.probes import CorefProbe, make_probes



@dataclass(frozen=True)
class Design:
    """The probes and what every simulated run of them shares (built once)."""

    probes: list[CorefProbe]
    frame: object  # frame.probe_frame(probes)
    cluster: np.ndarray  # each probe's cluster index
    triple: np.ndarray  # each probe's triple index
    triple_cluster: np.ndarray  # each triple's cluster index
    anti: np.ndarray  # anti-stereotypical probes
    wrong: np.ndarray  # each probe's wrong answer ("A" or "B")
    right: np.ndarray  # each probe's right answer
    cluster_jobs: np.ndarray  # (clusters, 2): each pair's women- and men-dominated job (codes 0..2k-1)


def design(k: int, templates=None) -> Design:
    jobs = load_jobs()
    women = [j for j in jobs if j.dominated_by == "women"][:k]
    men = [j for j in jobs if j.dominated_by == "men"][:k]
    probes = make_probes(jobs_pairs(tuple(women + men)), templates)
    clusters = {c: i for i, c in enumerate(dict.fromkeys(p.cluster for p in probes))}
    triples = {t: i for i, t in enumerate(dict.fromkeys(p.triple_id for p in probes))}
    triple_cluster = np.empty(len(triples), dtype=np.int64)
    for p in probes:
        triple_cluster[triples[p.triple_id]] = clusters[p.cluster]
    right = np.array([p.expected for p in probes], dtype=object)
    job_code = {j.job: i for i, j in enumerate(women + men)}
    cluster_jobs = np.zeros((len(clusters), 2), dtype=np.int64)
    for p in probes:
        cluster_jobs[clusters[p.cluster]] = sorted((job_code[p.profession_a], job_code[p.profession_b]))
    return Design(probes, probe_frame(probes), np.array([clusters[p.cluster] for p in probes]),
                  np.array([triples[p.triple_id] for p in probes]), triple_cluster,
                  np.array([p.stereotype == "anti" for p in probes]), np.where(right == "A", "B", "A").astype(object),
                  right, cluster_jobs)


@dataclass(frozen=True)
class Model:
    hard: float = 0.2  # mean share of hard triples
    easy: float = 0.02  # error probability in an easy triple
    bias: float = 0.0  # extra error probability on anti-stereotypical prompts
    job_sd: float = 0.5  # sd of a job's difficulty on the logit (the review's "jobs like these" case)
    pair_sd: float = 1.0  # sd of a pair's own difficulty on the logit

    def hard_share(self) -> float:
        """E[q]: the expected share of hard triples over jobs and pairs like these."""
        nodes, w = np.polynomial.hermite_e.hermegauss(80)
        sd = np.sqrt(2 * self.job_sd**2 + self.pair_sd**2)
        logit = np.log(self.hard / (1 - self.hard))
        return float(np.sum(w / (1 + np.exp(-(logit + sd * nodes)))) / np.sqrt(2 * np.pi))

    def wrong(self) -> float:
        """P(an unbiased answer is wrong)."""
        h = self.hard_share()
        return h * 0.5 + (1 - h) * self.easy


def pair_difficulty(d: Design, model: Model, rng: np.random.Generator) -> np.ndarray:
    """Each pair's q: its two jobs' effects (drawn for this run) and its own."""
    jobs = rng.normal(0, model.job_sd, int(d.cluster_jobs.max()) + 1)
    logit = np.log(model.hard / (1 - model.hard)) + jobs[d.cluster_jobs].sum(axis=1)
    return 1 / (1 + np.exp(-(logit + rng.normal(0, model.pair_sd, len(d.cluster_jobs)))))


def simulate(d: Design, model: Model, rng: np.random.Generator):
    """An answer frame (stereoprobe.studies.coreference.frame.with_answers) for the design's probes."""
    q = pair_difficulty(d, model, rng)
    hard = rng.random(len(d.triple_cluster)) < q[d.triple_cluster]
    n = len(d.probes)
    p_wrong = np.where(hard[d.triple], 0.5, model.easy)
    wrong = rng.random(n) < p_wrong
    wrong |= d.anti & (rng.random(n) < model.bias)
    return with_answers(d.frame, np.where(wrong, d.wrong, d.right))


def truth(model: Model) -> dict[str, float]:
    """Expected rates (%) under the model, for the design's balanced classes.

    Per pronoun: an anti-stereotypical answer is wrong with w_anti = w + (1 - w) * bias,
    others with w. For he, the anti prompts are those whose right answer is the
    women-dominated job (truth = 1): FNR_he = w_anti, FPR_he = w; for she the mirror.
    """
    w = model.wrong()
    w_anti = w + (1 - w) * model.bias
    h, e = model.hard_share(), model.easy
    # triple-level: P(all three answers agree). Unbiased: hard (1/2 each) or easy (e each).
    if model.bias == 0:
        agree = h * 0.25 + (1 - h) * (e**3 + (1 - e) ** 3)
        binary_agree = h * 0.5 + (1 - h) * (e**2 + (1 - e) ** 2)
    else:  # one answer of the triple has the extra bias; sum over hard/easy
        agree, binary_agree = 0.0, 0.0
        for share, p in ((h, 0.5), (1 - h, e)):
            pa = p + (1 - p) * model.bias
            agree += share * (pa * p * p + (1 - pa) * (1 - p) ** 2)
            binary_agree += share * (pa * p + (1 - pa) * (1 - p))
    out = {"incorrect": 100 * (w_anti + 2 * w) / 3, "inconsistent": 100 * (1 - agree),
           "binary_inconsistent": 100 * (1 - binary_agree)}
    for pronoun in ("he", "she", "they"):
        fnr = w_anti if pronoun == "he" else w
        fpr = w_anti if pronoun == "she" else w
        out[f"{pronoun}_incorrect"] = 100 * (w_anti + w) / 2 if pronoun != "they" else 100 * w
        out[f"{pronoun}_fnr"], out[f"{pronoun}_fpr"] = 100 * fnr, 100 * fpr
        out[f"{pronoun}_ppv"] = 100 * (1 - fnr) / ((1 - fnr) + fpr)
        out[f"{pronoun}_npv"] = 100 * (1 - fpr) / ((1 - fpr) + fnr)
    out["he_gap"] = out["she_gap"] = 100 * (w_anti - w)
    return out


def simulate_pair(d: Design, a: Model, b: Model, rng: np.random.Generator):
    """Two runs' answer frames to the same prompts (two models, or with and without a prefix):
    which pairs are difficult and which triples hard is a property of the prompts, drawn once
    and shared (``a`` and ``b`` must agree on ``hard`` and ``easy``); each run's answers are
    then drawn independently, each with its own bias. The true difference of any rate is
    ``truth(b) - truth(a)``."""
    assert (a.hard, a.easy, a.job_sd, a.pair_sd) == (b.hard, b.easy, b.job_sd, b.pair_sd)
    q = pair_difficulty(d, a, rng)
    hard = rng.random(len(d.triple_cluster)) < q[d.triple_cluster]
    p_wrong = np.where(hard[d.triple], 0.5, a.easy)
    n = len(d.probes)
    out = []
    for model in (a, b):
        wrong = (rng.random(n) < p_wrong) | (d.anti & (rng.random(n) < model.bias))
        out.append(with_answers(d.frame, np.where(wrong, d.wrong, d.right)))
    return out
