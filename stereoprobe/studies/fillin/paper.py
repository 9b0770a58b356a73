"""Busker et al.'s own Table 4 beside a fill-in run's: which figures, and whether.

004's Table 4 (``data/paper_figures.csv``: gpt-3.5-turbo-0301, per category the shares of
negative and positive words, over all probes, questions and statements) is printed on the
briefing's index beside the run's shares only where :func:`stereoprobe.papers.comparable`
allows: the run asked the ``published`` design (004's probes and settings) in chat mode, and
was scored as 004 labelled words: the official NRC EmoLex file (``--lexicon FILE``, the
user's copy) with the WordNet synonym fallback. The bundled nrclex subset holds only
EmoLex's words with an association, so a word EmoLex has as neutral is looked up by its
synonyms there, not in 004's; another lexicon, no synonyms or next-word candidates count
something else. (The lemma step, which 004 does not describe, is the same in every run.)

>>> print(unit_of("chat", {"name": "nrclex-emolex-subset"}, True))
percent of the words labelled positive or negative, nrclex's subset of NRC EmoLex (its neutral words looked up by \
synonyms) with WordNet synonyms (majority)
"""

from __future__ import annotations

from typing import Any

UNIT = "percent of the words labelled positive or negative, the NRC EmoLex file with WordNet synonyms (majority)"


def figures() -> list[Any]:
    from stereoprobe.studies.fillin import FillInStudy

    return FillInStudy().paper_figures()


def unit_of(mode: Any, lexicon: Any, synonyms: Any) -> str:
    """What the run's shares count (``mode``: the run's; ``lexicon``: meta.json's lexicon record;
    ``synonyms``: whether the fallback was on), as comparable sets it against 004's."""
    from stereoprobe.studies.fillin.lexicon import BUNDLED_NAME, OFFICIAL_NAME

    name = (lexicon or {}).get("name") if isinstance(lexicon, dict) else lexicon
    if mode not in (None, "chat"):
        return f"percent of the labelled words among a model's {mode} candidates, not a chat reply's ten"
    if name == OFFICIAL_NAME:
        words = "the NRC EmoLex file"
    elif name == BUNDLED_NAME:
        words = "nrclex's subset of NRC EmoLex (its neutral words looked up by synonyms)"
    else:
        words = f"the lexicon {name}"
    return (f"percent of the words labelled positive or negative, {words} "
            + ("with WordNet synonyms (majority)" if synonyms else "without WordNet synonyms"))


def reason(design: Any, mode: Any, lexicon: Any, synonyms: Any) -> str | None:
    """None when 004's Table 4 may stand beside this run's shares; else the one line why not."""
    from stereoprobe.papers import comparable

    fig = figures()[0]
    return comparable(fig, design, unit_of(mode, lexicon, synonyms), figures=f"its figures ({fig.model})")


def negative(design: Any, mode: Any, lexicon: Any, synonyms: Any) -> dict[str, dict[str, float]]:
    """category -> {"all", "question", "statement": 004's negative share (percent)}, where they
    may be shown; else {}."""
    if reason(design, mode, lexicon, synonyms) is not None:
        return {}
    out: dict[str, dict[str, float]] = {}
    for f in figures():
        if f.metric == "negative_share":
            s = dict(f.scope)
            out.setdefault(s["category"], {})[s["format"]] = f.value
    return out
