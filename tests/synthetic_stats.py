"""Synthetic runs with a known truth for the statistics tests (seeded, no model).

Every probe answers ``words`` words; its own negative rate is drawn from a Beta
distribution around its group's (and format's) true rate, so the words of one reply
agree more than chance, as real replies do. Words are 'neg<k>' (negative) or 'pos<k>'
(positive); templates follow the paper's default set (three statement/question pairs).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

TEMPLATES = [("are_so", "statement"), ("are_always_so", "statement"), ("all_are_so", "statement"),
             ("why_are_so", "question"), ("why_are_always_so", "question"), ("why_are_all_so", "question")]


def occurrences(truth, seed=0, words=10, concentration=6.0, samples=1):
    """Word occurrences (the sentiment stage's ``occ``) from ``truth``.

    ``truth``: {(category, group): rate} or {(category, group): (question_rate, statement_rate)}.
    """
    rng = np.random.default_rng(seed)
    rows = []
    for (cat, group), rate in truth.items():
        q_rate, s_rate = rate if isinstance(rate, tuple) else (rate, rate)
        for tpl, fmt in TEMPLATES:
            r = q_rate if fmt == "question" else s_rate
            p = rng.beta(r * concentration, (1 - r) * concentration)
            pid = f"{cat}|{group}|{tpl}"
            for sample in range(samples):
                neg = rng.binomial(words, p)
                vocab = rng.integers(0, 4, size=words)
                for k in range(words):
                    label = "negative" if k < neg else "positive"
                    rows.append((pid, sample, cat, group, tpl, fmt, f"{label[:3]}{vocab[k]}", label, "lexicon"))
    cols = ["probe_id", "sample", "category", "group", "template", "format", "word", "label", "source"]
    return pd.DataFrame(rows, columns=cols)


def truth_table(categories=3, groups=20, rate=0.5, different=None):
    """{(category, group): rate}; ``different``: {(category, group): rate} overrides."""
    out = {(f"c{c}", f"g{c}_{g}"): rate for c in range(categories) for g in range(groups)}
    out.update(different or {})
    return out
