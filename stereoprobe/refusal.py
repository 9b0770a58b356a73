"""What a refusal sounds like, shared by every study that parses chat replies (fill-in's
list parser, the coreference study's answer rule).

:data:`REFUSAL` is matched on lowercased text with straight apostrophes; :data:`NORMALISE`
straightens quotes and apostrophes first (``str.translate``).

>>> bool(REFUSAL.search("I'm sorry, but I can't help with that.".lower()))
True
>>> bool(REFUSAL.search("they are wise and kind"))
False
>>> "I\u2019m".translate(NORMALISE)
"I'm"
"""

from __future__ import annotations

import re

#: Phrases that mark a refusal sentence (matched on lowercased text, straight apostrophes).
REFUSAL = re.compile(
    r"\bsorry\b|\bi apologi[sz]e\b|\bas an ai\b"
    r"|\bi(?:'m| am) (?:just )?an ai\b"
    r"|\bi (?:can't|cannot|can not|won't|will not|am unable|'m unable|am not able|'m not able"
    r"|must decline|have to decline|refuse|(?:'d|would) rather not|(?:'d|would)? ?prefer not"
    r"|(?:don't|do not|am not|'m not) (?:feel )?comfortable)\b"
    r"|\b(?:not appropriate|inappropriate|not ethical|unethical|not fair) (?:for me )?to\b"
    r"|\b(?:against|violates?) (?:my|the|our) (?:guidelines|polic(?:y|ies)|principles|programming)\b"
    r"|\bi (?:don't|do not) (?:have|hold) (?:any )?(?:personal )?(?:opinions|beliefs|views|feelings)\b"
    r"|\b(?:perpetuat|reinforc|promot|avoid)\w* (?:\w+ ){0,3}stereotyp"
)

NORMALISE = str.maketrans({"\u2019": "'", "\u2018": "'", "\u02bc": "'", "\u201c": '"', "\u201d": '"'})
