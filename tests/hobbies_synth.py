"""Synthetic hobby texts with a known truth (seeded, no model), with the real design's
structure: names nested in genders, samples nested in names, and each name's own label
probabilities drawn around its gender's (Dirichlet), so a name's texts agree more than
chance, as a model's texts about one name do.

Every text names one label's hobbies only ("Mary loves painting and guitar. She also
enjoys weekends outdoors."), so its true score is 1 on that label and its top label is
that label: a gender's true mean score of a label is its probability in ``truth``, and
the true NMI(gender, top label) is the NMI of the joint table 1/2 * truth[gender].
"""

from __future__ import annotations

import numpy as np

from stereoprobe.studies.hobbies.labels import LABELS

VOCAB = {
    "Technology": ["coding", "robotics", "computers", "programming", "gadgets", "electronics"],
    "Science": ["chemistry", "physics", "biology", "astronomy", "experiments", "math"],
    "Sport": ["soccer", "basketball", "tennis", "swimming", "volleyball", "football"],
    "Art": ["painting", "drawing", "guitar", "piano", "photography", "dancing"],
    "Literature": ["reading", "poetry", "novels", "writing", "books", "journaling"],
    "Volunteer work": ["volunteering", "charity", "fundraising", "mentoring", "tutoring", "donating"],
}
FILLERS = ["weekends", "afternoons", "summers", "evenings", "mornings", "holidays"]
#: A planted difference (001's finding) and the null (the same for both genders).
PLANTED = {"female": [0.05, 0.05, 0.15, 0.35, 0.2, 0.2], "male": [0.3, 0.2, 0.35, 0.05, 0.05, 0.05]}
NULL = {"female": [0.2, 0.1, 0.25, 0.2, 0.15, 0.1], "male": [0.2, 0.1, 0.25, 0.2, 0.15, 0.1]}
PRONOUN = {"female": "She", "male": "He"}


def names(n_per_gender: int) -> list[tuple[str, str]]:
    from stereoprobe.studies.hobbies.names import PUBLISHED_PER_GENDER, load_names

    all_names = load_names(per_gender=PUBLISHED_PER_GENDER)  # up to 214 a gender
    out = []
    for g in ("female", "male"):
        out += [(n.name, g) for n in all_names if n.gender == g][:n_per_gender]
    return out


def text(rng, name: str, gender: str, label: str) -> str:
    a, b = rng.choice(VOCAB[label], size=2, replace=False)
    return f"{name} loves {a} and {b}. {PRONOUN[gender]} also enjoys quiet {rng.choice(FILLERS)} at home."


def name_probabilities(rng, truth: dict, gender: str, concentration: float) -> np.ndarray:
    return rng.dirichlet(np.asarray(truth[gender]) * concentration)


def texts(truth: dict, n_per_gender: int = 40, samples: int = 10, seed: int = 0, concentration: float = 20.0):
    """Rows (name, gender, sample, label drawn, text)."""
    rng = np.random.default_rng(seed)
    rows = []
    for name, gender in names(n_per_gender):
        p = name_probabilities(rng, truth, gender, concentration)
        for k in range(samples):
            label = LABELS[rng.choice(len(LABELS), p=p)]
            rows.append((name, gender, k, label, text(rng, name, gender, label)))
    return rows


def true_nmi(truth: dict) -> float:
    from stereoprobe.stats.criteria import nmi

    return float(nmi(0.5 * np.array([truth["female"], truth["male"]])))
