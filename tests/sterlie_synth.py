"""Synthetic answers to Sterlie et al.'s sector prompts with a known truth (tests and bench).

The real design: six prompts x he and she x K samples; each prompt and pronoun has its own
probability of a wrong answer (the wording sets it), and the samples of one prompt are
independent draws. ``simulate`` returns the sample frame the scoring reads; ``true_rates``
the FNR and FPR the probabilities imply (equal samples per prompt: the mean over the
class's three prompts).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from stereoprobe.studies.coreference.records import CorefRecord
from stereoprobe.studies.coreference.sterlie import BASELINE, sector_probes
from stereoprobe.studies.coreference.sterlie_score import sample_frame

PROMPTS = ("4.3", "4.4", "4.5", "4.6", "4.7", "4.8")
#: A null model: each prompt's own error probability, the same for he and she.
NULL = {(t, pr): q for t, q in zip(PROMPTS, (0.1, 0.3, 0.05, 0.2, 0.4, 0.15)) for pr in ("he", "she")}


def planted(bias: float) -> dict:
    """NULL plus ``bias`` on the anti-stereotypical prompts (he on 4.3-4.5, she on 4.6-4.8)."""
    return {(t, pr): q + bias * ((pr == "he") == (t in PROMPTS[:3])) for (t, pr), q in NULL.items()}


def simulate(rng: np.random.Generator, p_wrong: dict, samples: int = 50):
    recs = []
    for p in sector_probes():
        if p.pronoun == BASELINE:
            continue
        wrong = rng.random(samples) < p_wrong[(p.template, p.pronoun)]
        other = "B" if p.expected == "A" else "A"
        recs += [CorefRecord.of(p, s, "chat", answer=other if w else p.expected, raw="") for s, w in enumerate(wrong)]
    return sample_frame(recs)


def true_rates(p_wrong: dict) -> dict:
    """{(pronoun, "fnr"|"fpr"): percent} implied by the probabilities."""
    return {(pr, rate): 100 * float(np.mean([p_wrong[(t, pr)] for t in prompts]))
            for pr in ("he", "she") for rate, prompts in (("fnr", PROMPTS[:3]), ("fpr", PROMPTS[3:]))}


def questions_file(path: Path, n: int = 14) -> Path:
    """n synthetic multiple-choice questions in MedQA-USMLE's format (question, options A-D,
    answer_idx), the right options cycling A-D: the size of 001's multiple-choice experiment
    by default."""
    rows = [{"question": f"Which word is number {i}?", "answer_idx": "ABCD"[i % 4],
             "options": {k: f"{w}{i}" for k, w in zip("ABCD", ("alpha", "beta", "gamma", "delta"))}}
            for i in range(n)]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path
