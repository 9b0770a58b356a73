"""A second family of synthetic hobby texts, made unlike tests/hobbies_synth.py on purpose:
topic mixtures instead of one label's words in a fixed sentence.

hobbies_synth writes "Mary loves chess and hiking. She also enjoys quiet weekends at
home.": one label per text, two of its six words, the same frame every time. Here a text
is a bag of words of varied length drawn from a mixture of eight overlapping topics
(each a Zipf-weighted list of made-up words that leaks a little into the others), with
common words shared by every topic, stop words, and the name and "she"/"he" at random
places. Each name has its own topic mixture, drawn around its gender's (Dirichlet), so a
name's texts agree more than chance. A null truth gives both genders one mixture; a
planted one moves weight between topics. Nothing here knows the labels: the comparison
sees only which words sit near which pronoun.
"""

from __future__ import annotations

import numpy as np

TOPICS = 8
WORDS_PER_TOPIC = 30
_SYLLABLES = ["ba", "ko", "ri", "tu", "me", "sa", "lo", "ni", "ve", "du", "pa", "zo", "ki", "ra", "fe", "mo", "gu",
              "ti", "no", "le", "shu", "ya", "be", "qua"]
STOP = ["and", "the", "in", "with", "of", "to", "a", "at", "on", "for"]


def _vocabulary() -> tuple[list[list[str]], list[str]]:
    rng = np.random.default_rng(12345)  # fixed: the same words in every process
    seen: set[str] = set()
    words: list[str] = []
    while len(words) < TOPICS * WORDS_PER_TOPIC + 40:
        w = "".join(rng.choice(_SYLLABLES, size=rng.integers(2, 4)))
        if w not in seen:
            seen.add(w)
            words.append(w)
    topics = [words[k * WORDS_PER_TOPIC:(k + 1) * WORDS_PER_TOPIC] for k in range(TOPICS)]
    return topics, words[TOPICS * WORDS_PER_TOPIC:]


TOPIC_WORDS, COMMON = _vocabulary()
NULL = {"female": [0.2, 0.15, 0.15, 0.1, 0.1, 0.1, 0.1, 0.1], "male": [0.2, 0.15, 0.15, 0.1, 0.1, 0.1, 0.1, 0.1]}
#: Female-name texts lean to topics 3 and 4, male-name texts to 0 and 1 (each 0.02 from the null's; 0.04 apart).
PLANTED = {"female": [0.18, 0.13, 0.15, 0.12, 0.12, 0.1, 0.1, 0.1],
           "male": [0.22, 0.17, 0.15, 0.08, 0.08, 0.1, 0.1, 0.1]}


def _topic_weights() -> np.ndarray:
    """Per topic, a distribution over all topic words: Zipf over its own words, 10% leaked to the rest."""
    n = TOPICS * WORDS_PER_TOPIC
    out = np.full((TOPICS, n), 0.1 / (n - WORDS_PER_TOPIC))
    zipf = 1 / np.arange(1, WORDS_PER_TOPIC + 1)
    for k in range(TOPICS):
        out[k, k * WORDS_PER_TOPIC:(k + 1) * WORDS_PER_TOPIC] = 0.9 * zipf / zipf.sum()
    return out


_PHI = _topic_weights()
_FLAT = [w for ws in TOPIC_WORDS for w in ws]


_CUM = np.cumsum(_PHI, axis=1)


def text(rng, name: str, gender: str, theta: np.ndarray) -> str:
    """The name, then 6 + Poisson(10) words: 12% the pronoun, 18% stop words, 12% common words, the rest
    topic words (a topic drawn from ``theta``, a word from the topic); the pronoun at least once."""
    pronoun = "she" if gender == "female" else "he"
    u = rng.random(6 + rng.poisson(10))
    topic = rng.choice(TOPICS, size=len(u), p=theta)
    pick = np.minimum((_CUM[topic] < rng.random(len(u))[:, None]).sum(axis=1), len(_FLAT) - 1)
    stop, common = rng.integers(len(STOP), size=len(u)), rng.integers(len(COMMON), size=len(u))
    out = [name] + [pronoun if x < 0.12 else STOP[a] if x < 0.3 else COMMON[b] if x < 0.42 else _FLAT[w]
                    for x, a, b, w in zip(u, stop, common, pick)]
    if pronoun not in out:
        out.insert(1 + int(rng.integers(len(out))), pronoun)
    return " ".join(out) + "."


def texts(truth: dict, n_per_gender: int = 40, samples: int = 10, seed: int = 0, concentration: float = 20.0):
    """Rows (name, gender, sample, topic mixture's top topic, text), as hobbies_synth.texts."""
    import hobbies_synth

    rng = np.random.default_rng(seed)
    rows = []
    for name, gender in hobbies_synth.names(n_per_gender):
        theta = rng.dirichlet(np.asarray(truth[gender]) * concentration)
        for k in range(samples):
            rows.append((name, gender, k, int(theta.argmax()), text(rng, name, gender, theta)))
    return rows
