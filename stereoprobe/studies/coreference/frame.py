"""Probes and their answers as one table, and the pronoun triples built from it.

:func:`answer_frame` gives one row per answered probe: the probe's fields, ``answer``
(A, B or U), ``refused``, ``correct`` (the answer is the expected one: U and refusals are
incorrect, as in 000), and Sterlie et al.'s classes ``truth`` and ``said``
(:func:`stereoprobe.studies.coreference.criteria.add_classes`). Probes without an
answer (failed requests) are simply absent: every share counts answers.

:func:`triple_table` gives one row per template and ordered pair with each pronoun's
answer; a triple is *inconsistent* when its three answers are not all the same (U is an
answer like A and B: three U are consistent, as in the authors' code), *binary
inconsistent* when he and she differ. Only complete triples (binary: he and she both
answered) count.
"""

from __future__ import annotations

from typing import Any, Iterable, Sequence

from stereoprobe.errors import DataError
from stereoprobe.studies.coreference.answers import ANSWERS, CorefAnswer
from stereoprobe.studies.coreference.probes import CorefProbe

PROBE_COLUMNS = ["probe_id", "triple_id", "cluster", "template", "profession_a", "profession_b", "gender_a",
                 "gender_b", "pronoun", "expected", "referent", "stereotype", "debias"]
BINARY = ("he", "she")


def probe_frame(probes: Iterable[CorefProbe]) -> Any:
    """The probes' fields (``PROBE_COLUMNS``), one row per probe, in order."""
    import pandas as pd

    probes = list(probes)
    return pd.DataFrame({c: [getattr(p, c) for p in probes] for c in PROBE_COLUMNS}, columns=PROBE_COLUMNS)


def with_answers(probes: Any, answers: Any, refused: Any = None) -> Any:
    """A probe frame with each row's ``answer`` (A, B or U) and ``refused``, ``correct`` and
    Sterlie et al.'s classes added (a new frame; ``probes`` is not changed)."""
    import numpy as np

    from stereoprobe.studies.coreference.criteria import add_classes

    frame = probes.copy()
    frame["answer"] = np.asarray(answers, dtype=object)
    frame["refused"] = np.zeros(len(frame), bool) if refused is None else np.asarray(refused, dtype=bool)
    frame["correct"] = frame["answer"].to_numpy() == frame["expected"].to_numpy()
    return add_classes(frame)


def answer_frame(probes: Iterable[CorefProbe], answers: Iterable[CorefAnswer]) -> Any:
    """One row per answered probe (probe order). One answer per probe; an answer to an
    unknown probe or a second answer to one probe is a DataError."""
    probes = list(probes)
    known = {p.probe_id for p in probes}
    got: dict[str, CorefAnswer] = {}
    for a in answers:
        if a.probe_id not in known:
            raise DataError(f"answer for unknown probe {a.probe_id}; score a run against the probes it was asked.")
        if a.probe_id in got:
            raise DataError(f"probe {a.probe_id} has two answers; the coreference metrics take one per probe.")
        if a.answer not in ANSWERS:
            raise DataError(f"probe {a.probe_id}: answer {a.answer!r} is not A, B or U; reparse the run.")
        got[a.probe_id] = a
    answered = [p for p in probes if p.probe_id in got]
    return with_answers(probe_frame(answered), [got[p.probe_id].answer for p in answered],
                        [got[p.probe_id].refused for p in answered])


def triple_table(frame: Any, pronouns: Sequence[str] = ("he", "she", "they")) -> Any:
    """One row per triple: its keys, ``answer_<pronoun>``, complete / inconsistent and the binary pair's."""
    import numpy as np
    import pandas as pd

    keys = ["cluster", "template", "profession_a", "profession_b", "debias"]
    codes, triples = pd.factorize(frame["triple_id"])
    first = np.unique(codes, return_index=True)[1]
    out = frame.iloc[first][["triple_id", *keys]].reset_index(drop=True)
    col = pd.Index(list(pronouns)).get_indexer(frame["pronoun"])
    wide = np.full((len(triples), len(pronouns)), None, dtype=object)
    keep = col >= 0
    wide[codes[keep], col[keep]] = frame["answer"].to_numpy(object)[keep]  # one answer per probe
    for j, p in enumerate(pronouns):
        out[f"answer_{p}"] = wide[:, j]
    have = wide != None  # noqa: E711 (elementwise)
    out["complete"] = have.all(axis=1)
    out["inconsistent"] = out["complete"].to_numpy() & (wide != wide[:, :1]).any(axis=1)
    if all(p in pronouns for p in BINARY):
        he, she = wide[:, list(pronouns).index("he")], wide[:, list(pronouns).index("she")]
        both = (he != None) & (she != None)  # noqa: E711
        out["binary_complete"] = both
        out["binary_inconsistent"] = both & (he != she)
    else:
        out["binary_complete"] = out["binary_inconsistent"] = False
    return out
