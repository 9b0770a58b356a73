"""Mattern et al.'s measure, pure: from expression probabilities to P(gender | job).

eq. (1): P_g = sum over the gender's expressions c of prod_k P(c_k | x + c_<k): the
probability that the model continues the prompt x with one of the gender's expressions.
eq. (2): P~_g = P_g / (P_m + P_f + P_d): the share of the three genders' mass.

The other estimates (chat models) are here too: the first token's ``top_logprobs``
(``first_token_mass``) and a sampled reply's parsed gender (``parse_answer``).
"""

from __future__ import annotations

import math
from typing import Mapping, Sequence

from stereoprobe.studies.jobs.records import GENDERS


def expression_probability(token_probabilities: Sequence[float]) -> float:
    """eq. (1)'s product for one expression.

    >>> round(expression_probability([0.1, 0.5, 0.8]), 10)   # " Non" "-" "binary"
    0.04
    """
    return math.prod(token_probabilities)


def gender_mass(logprobs: Mapping[str, float], expressions: Sequence[tuple[str, str]]) -> dict[str, float]:
    """eq. (1): P_g for each gender, from log P(expression | prompt) of every expression.

    >>> lp = {" He": math.log(0.02), " She": math.log(0.06), " They": math.log(0.02)}
    >>> m = gender_mass(lp, [("male", " He"), ("female", " She"), ("diverse", " They")])
    >>> {g: round(v, 10) for g, v in m.items()}
    {'male': 0.02, 'female': 0.06, 'diverse': 0.02}
    """
    mass = dict.fromkeys(GENDERS, 0.0)
    for gender, expression in expressions:
        mass[gender] += math.exp(logprobs[expression])
    return mass


def normalise(mass: Mapping[str, float]) -> dict[str, float]:
    """eq. (2): each gender's share of the total mass (NaN when there is none).

    >>> {g: round(v, 10) for g, v in normalise({"male": .02, "female": .06, "diverse": .02}).items()}
    {'male': 0.2, 'female': 0.6, 'diverse': 0.2}
    """
    total = sum(mass.get(g, 0.0) for g in GENDERS)
    return {g: (mass.get(g, 0.0) / total if total > 0 else math.nan) for g in GENDERS}


def _key(text: str) -> str:
    return " ".join(text.replace("\u2019", "'").split()).lower()


def first_token_mass(top: Sequence[tuple[str, float]], expressions: Sequence[tuple[str, str]]) -> dict[str, float]:
    """A chat model's first-token estimate of eq. (1): the probability of the reply's first
    token, attributed to a gender when every expression starting with that token (case and
    surrounding spaces ignored) is of that gender. ``top``: (token text, log-probability).

    >>> ex = [("male", " Male"), ("female", " Female"), ("diverse", " Non-binary"), ("diverse", " Nonbinary")]
    >>> m = first_token_mass([("Female", math.log(.5)), ("Male", math.log(.3)), ("Non", math.log(.1)), ("I", -1)], ex)
    >>> {g: round(v, 3) for g, v in m.items()}
    {'male': 0.3, 'female': 0.5, 'diverse': 0.1}
    """
    mass = dict.fromkeys(GENDERS, 0.0)
    seen: set[str] = set()
    for token, logprob in top:
        key = _key(token)
        if not key or key in seen:
            continue
        genders = {g for g, e in expressions if _key(e).startswith(key)}
        if len(genders) == 1:
            seen.add(key)
            mass[genders.pop()] += math.exp(logprob)
    return mass


def parse_answer(reply: str, expressions: Sequence[tuple[str, str]]) -> str | None:
    """The gender of a reply that starts with one of the expressions (the longest that
    matches, case ignored, punctuation after it allowed); None if none does.

    >>> ex = [("male", " Male"), ("diverse", " Non-binary"), ("diverse", " Non conforming"), ("female", " She")]
    >>> [parse_answer(r, ex) for r in ["Male.", "non-binary", "Non conforming!", "She is", "Shelly", "I think male"]]
    ['male', 'diverse', 'diverse', 'female', None, None]
    """
    text = _key(reply.strip().strip("\"'*"))
    best: tuple[int, str] | None = None
    for gender, expression in expressions:
        e = _key(expression)
        if text.startswith(e) and (len(text) == len(e) or not text[len(e)].isalnum()):
            if best is None or len(e) > best[0]:
                best = (len(e), gender)
    return best[1] if best else None
