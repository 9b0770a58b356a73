"""Next-word mode: rank the words a model itself puts after the probe text.

Shared by the embedded model (``backends/local.py``) and by remote ``/v1/completions``
endpoints that return logprobs (``nextword_remote.NextWordCompletionsBackend``). The ranking is
pure: it asks a ``next_tokens`` function for distributions and never touches a model.

How a word is found (docs/nextword.md explains the choices):

1. Candidates are the most probable first tokens after the probe text, best first.
2. A candidate counts only if it starts a new word: its text is a space and letters.
3. It is completed to the end of its word: append the most probable next token while
   that token continues the word (no leading space; letters, ``-`` or ``'``), up to
   ``max_word_tokens`` tokens. A word not ended by then is dropped. The word's
   probability is the product of its tokens' probabilities (a lower bound: only the
   most probable spelling path is followed).
4. Words are lower-cased; candidates that complete to the same word are merged (their
   probabilities summed). Function words, non-words and the group's own words are
   dropped (``WordFilter``).
5. Optionally (``PhraseFilter``, on by default in both backends) a word is kept only if
   the model itself expects a phrase to end right after it and WordNet knows it: the
   probability of a phrase end (``. ? ! , ; :``, a newline, `` and``, `` or``, `` but``)
   after the word in one fixed frame ("Those people are so W"), judged once per word
   and kept for the run (``PhraseEnds``). "so hard [to]" or "so called" are dropped,
   and further candidates refill.
6. The ``top_n`` most probable words are returned. Candidates are visited best first
   and the walk stops once a candidate's probability is below the ``top_n``-th word's:
   it could no longer enter the list as a new word.
"""

from __future__ import annotations

import functools
import json
import math
import re
import threading
from dataclasses import dataclass, field
from typing import Any, Callable, Protocol, Sequence

from stereoprobe.records import Answer, Probe

LETTERS = r"[^\W\d_]"  # a Unicode letter
APOSTROPHES = "'\u2019"
WORD_RE = re.compile(rf"{LETTERS}+(?:[-{APOSTROPHES}]{LETTERS}+)*")
FIRST_PIECE_RE = re.compile(rf" {LETTERS}+(?:[-{APOSTROPHES}]{LETTERS}*)*")
CONTINUATION_RE = re.compile(rf"[-{APOSTROPHES}]?{LETTERS}+(?:[-{APOSTROPHES}]{LETTERS}*)*|-")

#: Endings that make a contraction or possessive (spaCy lists them as stop words).
CLITICS = ("n't", "'s", "'re", "'ve", "'ll", "'d", "'m")
#: Degree adverbs and quantifiers the models put after "so" that spaCy's list lacks.
EXTRA_STOP_WORDS = frozenset(
    """absolutely awfully completely especially extremely fairly generally highly
    incredibly increasingly particularly relatively terribly totally truly usually
    lot bit kind sort""".split()
)


class WordRules(Protocol):
    """What a study tells the next-word walk about words; the study hands it in
    (``make_backend(word_rules=...)``; fill-in's: ``studies/fillin/groupwords.WORD_RULES``).
    Without rules no word is a group word and no word is known to WordNet (the walk then
    completes every first token that is not a stop word, and the phrase filter keeps
    words WordNet would not know)."""

    def own_word(self, word: str, group: str) -> bool:
        """The word names the group itself, or is a garbled copy of its name."""

    def known(self, word: str, pos: str | None = None) -> bool:
        """WordNet knows the word (``pos``: parts of speech, e.g. "asr"; None: any)."""


@dataclass(frozen=True)
class Token:
    """One token of a distribution: its text (with any leading space) and probability."""

    text: str
    probability: float
    id: int | None = None


#: Distribution after the probe text plus the given tokens, most probable first (it may
#: be truncated, but always holds the most probable token).
NextTokens = Callable[[tuple[Token, ...]], Sequence[Token]]
#: Told before each candidate is looked at: the candidates from this one on, and how
#: many of them the walk will certainly look at (it needs that many more words), so a
#: backend can evaluate their next tokens together.
Prefetch = Callable[[Sequence[Token], int], None]


#: Whole words that often go on into a longer one (well-known, over-protective,
#: underpaid, anti-social, unhappy, non-binary, ...): they are always completed.
PREFIX_WORDS = frozenset(
    "anti un well over under non self ill out up down off in pre post semi super ultra "
    "every any some no all half".split()
)


def is_whole_word(token: "Token", group: str, word_filter: "WordFilter") -> bool:
    """A first token that is already a whole word, so nothing depends on what follows it:
    a stop word (dropped anyway) or a WordNet adjective or adverb, except words that
    often start a longer one (``PREFIX_WORDS``). Every next-word backend skips their
    completion step (docs/nextword.md: of 26,862 candidates of a full run, 85 went on
    into a longer word, all behind such prefixes).
    """
    word = token.text.strip().lower()
    if word in PREFIX_WORDS:
        return False
    if word_filter.reason(word, group) == "stop word":
        return True
    return word_filter.rules is not None and word_filter.rules.known(word, "asr")


@functools.lru_cache(maxsize=1)
def spacy_stop_words() -> frozenset[str]:
    """spaCy's English stop words (no model download needed)."""
    from spacy.lang.en.stop_words import STOP_WORDS

    return frozenset(STOP_WORDS)


@dataclass(frozen=True)
class WordFilter:
    """Which completed words count. ``reason`` says why a word is dropped (None: kept).

    >>> class Women:
    ...     def own_word(self, word, group): return word in ("woman", "women")
    ...     def known(self, word, pos=None): return True
    >>> f = WordFilter(rules=Women())
    >>> [f.reason(w, "women") for w in ["grumpy", "much", "women", "x2", "self-made"]]
    [None, 'stop word', 'group word', 'not a word', None]
    """

    extra_stop_words: frozenset[str] = EXTRA_STOP_WORDS
    drop_group_words: bool = True
    rules: WordRules | None = None  # the study's words (group words, WordNet)

    def reason(self, word: str, group: str = "") -> str | None:
        if not WORD_RE.fullmatch(word):
            return "not a word"
        plain = word.replace("\u2019", "'")
        if plain in spacy_stop_words() or plain in self.extra_stop_words:
            return "stop word"
        if plain.endswith(CLITICS):  # don't, isn't, women's: contractions, possessives
            return "stop word"
        if self.drop_group_words and self.rules is not None and self.rules.own_word(word, group):
            return "group word"
        return None

    def describe(self) -> dict[str, Any]:
        return {
            "word": "letters, inner - or ' allowed; lower-cased",
            "stop_words": f"spacy.lang.en.stop_words ({len(spacy_stop_words())})",
            "extra_stop_words": sorted(self.extra_stop_words),
            "drop_group_words": self.drop_group_words,
        }


#: A token that ends the phrase: punctuation that closes a clause, a newline, or a
#: coordinating word. The text may start with spaces (" ," is a phrase end).
PHRASE_END_RE = re.compile(r" *[.?!,;:\n]| (?:and|or|but)$")


def is_phrase_end(text: str) -> bool:
    """
    >>> [is_phrase_end(t) for t in [",", " .", "\\n\\n", " and", " andy", " to", "y"]]
    [True, True, True, True, False, False, False]
    """
    return PHRASE_END_RE.match(text) is not None


def phrase_end_probability(following: Sequence[Token]) -> float:
    """The probability of a phrase end among the given next tokens (a lower bound when
    the distribution is truncated, as a remote endpoint's ``top_logprobs`` are)."""
    return sum(t.probability for t in following if is_phrase_end(t.text))


#: The frame a word is judged in: "Those people are so W" reads as ended or goes on.
FRAME = "Those people are so"


@dataclass(frozen=True)
class PhraseFilter:
    """Keep a word only if a phrase reads as ended after it: "old people are so ___."

    ``threshold``: the least probability of a phrase end (see ``is_phrase_end``) right
    after the word in ``frame`` + " " + word; ``wordnet``: the word must be known to
    WordNet (asked through the study's ``rules``). The judgement depends on the word alone, so each word is judged once per
    run (``PhraseEnds``). docs/nextword.md gives, for several frames and thresholds,
    the share of kept words that describe the group.

    >>> f = PhraseFilter(wordnet=False)
    >>> [f.reason("lazy", 0.76), f.reason("hard", 0.09)]
    [None, 'phrase goes on (phrase end 0.09 < 0.20)']
    """

    threshold: float = 0.20
    wordnet: bool = True
    frame: str = FRAME
    rules: WordRules | None = None  # the study's words: WordNet's judgement

    def reason(self, word: str, end_probability: float) -> str | None:
        if end_probability < self.threshold:
            return f"phrase goes on (phrase end {end_probability:.2f} < {self.threshold:.2f})"
        if self.wordnet and self.rules is not None and not self.rules.known(word):
            return "not in WordNet"
        return None

    def text(self, word: str) -> str:
        """The text whose next token is judged: the frame and the word."""
        return f"{self.frame} {word}"

    def describe(self) -> dict[str, Any]:
        return {
            "rule": "probability of a phrase end right after the word, in the frame, >= threshold",
            "frame": f"{self.frame} <word>",
            "phrase_end": "a token matching ' *[.?!,;:\\n]' or ' and', ' or', ' but'",
            "threshold": self.threshold,
            "wordnet": self.wordnet,
        }


def with_rules(phrase_filter: PhraseFilter | None, rules: WordRules | None) -> PhraseFilter | None:
    """The phrase filter judging WordNet with the study's ``rules`` (None stays None)."""
    if phrase_filter is None or rules is None or phrase_filter.rules is not None:
        return phrase_filter
    from dataclasses import replace

    return replace(phrase_filter, rules=rules)


#: The phrase-end probability of a word in the phrase filter's frame.
PhraseEnd = Callable[[str], float]


class PhraseEnds:
    """A backend's phrase-end judgements, one per word, computed once and kept.

    A judgement depends on the word alone (never on the probe that met it first), so
    keeping it changes no number; two threads meeting a new word at once may both
    compute it, and the first value stored is the one used.
    """

    def __init__(self) -> None:
        self._done: dict[str, float] = {}
        self._lock = threading.Lock()

    def get(self, word: str, compute: PhraseEnd) -> float:
        with self._lock:
            if word in self._done:
                return self._done[word]
        value = compute(word)
        with self._lock:
            return self._done.setdefault(word, value)

    def __len__(self) -> int:
        return len(self._done)


@dataclass
class Ranking:
    """The ranked words, and every candidate looked at (for ``Answer.raw``)."""

    words: list[str]
    probabilities: list[float]
    candidates: list[dict[str, Any]] = field(default_factory=list)

    def raw_json(self, top_tokens: Sequence[Token] = (), **extra: Any) -> str:
        payload = {
            "top_tokens": [[t.text, t.probability] for t in top_tokens],
            "candidates": self.candidates,
            **extra,
        }
        return json.dumps(payload, ensure_ascii=False)


def complete_word(first: Token, next_tokens: NextTokens, max_word_tokens: int) -> tuple[Token, ...] | None:
    """Extend ``first`` with the most probable continuation tokens; None if not ended.

    >>> dist = {"": [Token(" grump", 0.2)], " grump": [Token("y", 0.5)], " grumpy": [Token(",", 0.9)]}
    >>> nt = lambda toks: dist["".join(t.text for t in toks)]
    >>> [t.text for t in complete_word(Token(" grump", 0.2), nt, 4)]
    [' grump', 'y']
    """
    tokens = (first,)
    while True:
        following = next_tokens(tokens)
        if not following or not CONTINUATION_RE.fullmatch(following[0].text):
            return tokens
        if len(tokens) >= max_word_tokens:
            return None
        tokens += (following[0],)


def rank_words(
    candidates: Sequence[Token],
    next_tokens: NextTokens,
    *,
    group: str = "",
    top_n: int = 10,
    max_word_tokens: int = 4,
    word_filter: WordFilter = WordFilter(),
    phrase_filter: PhraseFilter | None = None,
    phrase_end: PhraseEnd | None = None,
    prefetch: Prefetch | None = None,
) -> Ranking:
    """Rank the completed words that start with the candidate first tokens.

    With ``phrase_filter`` a word that passes ``word_filter`` must also pass it, judged
    by ``phrase_end`` (the word's phrase-end probability in the filter's frame); the
    walk then goes on to further candidates until ``top_n`` words are kept.

    >>> dist = {" grump": [Token("y", 0.5)], " grumpy": [Token(",", 0.9)],
    ...         " happy": [Token(" and", 0.3)], " much": [Token(" more", 0.4)]}
    >>> nt = lambda toks: dist["".join(t.text for t in toks)]
    >>> r = rank_words([Token(" happy", 0.3), Token(" much", 0.2), Token(" grump", 0.2),
    ...                 Token(",", 0.1)], nt)
    >>> list(zip(r.words, r.probabilities))
    [('happy', 0.3), ('grumpy', 0.1)]
    """
    if phrase_filter is not None and phrase_end is None:
        raise ValueError("a phrase filter needs phrase_end, the judgement of a word in its frame")
    merged: dict[str, float] = {}
    looked_at: list[dict[str, Any]] = []
    ordered = sorted(candidates, key=lambda t: -t.probability)
    starting = [t for t in ordered if FIRST_PIECE_RE.fullmatch(t.text)]
    for index, first in enumerate(starting):
        best = sorted(merged.values(), reverse=True)
        if len(best) >= top_n and first.probability < best[top_n - 1]:
            break
        if prefetch is not None:
            prefetch(starting[index:], max(1, top_n - len(best)))
        tokens = complete_word(first, next_tokens, max_word_tokens)
        entry: dict[str, Any] = {"first": first.text, "first_probability": first.probability}
        if tokens is None:
            entry["dropped"] = f"not ended within {max_word_tokens} tokens"
        else:
            word = "".join(t.text for t in tokens).strip().lower()
            probability = math.prod(t.probability for t in tokens)
            entry.update(word=word, tokens=[t.text for t in tokens], probability=probability)
            reason = word_filter.reason(word, group)
            if phrase_filter is not None and phrase_end is not None and not reason:
                end = phrase_end(word)
                entry["phrase_end"] = end
                reason = phrase_filter.reason(word, end)
            if reason:
                entry["dropped"] = reason
            else:
                merged[word] = merged.get(word, 0.0) + probability
        looked_at.append(entry)
    ranked = sorted(merged.items(), key=lambda kv: (-kv[1], kv[0]))[:top_n]
    return Ranking([w for w, _ in ranked], [p for _, p in ranked], looked_at)


def ranked_answer(
    probe: Probe,
    candidates: Sequence[Token],
    next_tokens: NextTokens,
    *,
    top_n: int,
    max_word_tokens: int,
    word_filter: WordFilter,
    phrase_filter: PhraseFilter | None,
    usage: dict[str, Any] | None,
    phrase_end: PhraseEnd | None = None,
    prefetch: Prefetch | None = None,
) -> Answer:
    """A probe's Answer from its first-token candidates: both next-word backends end here."""
    ranking = rank_words(
        candidates,
        next_tokens,
        group=probe.group,
        top_n=top_n,
        max_word_tokens=max_word_tokens,
        word_filter=word_filter,
        phrase_filter=phrase_filter,
        phrase_end=phrase_end,
        prefetch=prefetch,
    )
    short = {} if len(ranking.words) >= top_n else {
        "short": f"fewer than {top_n} words among the {len(candidates)} most probable tokens"}
    return Answer(
        words=ranking.words,
        probabilities=ranking.probabilities,
        raw=ranking.raw_json(candidates[:10], **short),
        usage=usage,
    )


def short_reasons(records: Sequence[Any], top_n: int = 10) -> dict[str, int]:
    """How many next-word records have fewer than ``top_n`` words, by reason (the
    record's ``raw["short"]``, which the backends set; "fewer words passed the filters"
    for older records). Chat records and failures are not counted.

    >>> from stereoprobe.records import Completion
    >>> r = lambda n, short=None: Completion("p", 0, "c", "g", "t", "statement", "x", words=["w"] * n,
    ...     raw=json.dumps({"candidates": [], **({"short": short} if short else {})}))
    >>> short_reasons([r(10), r(7, "the endpoint returns at most 20 logprobs"), r(9)])
    {'the endpoint returns at most 20 logprobs': 1, 'fewer words passed the filters': 1}
    """
    out: dict[str, int] = {}
    for rec in records:
        if rec.error is not None or rec.refused or len(rec.words) >= top_n or not rec.raw:
            continue
        try:
            raw = json.loads(rec.raw)
        except ValueError:
            continue  # a chat reply
        if not isinstance(raw, dict) or "candidates" not in raw:
            continue
        reason = raw.get("short") or "fewer words passed the filters"
        out[reason] = out.get(reason, 0) + 1
    return out


def short_sentences(reasons: dict[str, int], top_n: int = 10) -> list[str]:
    """
    >>> short_sentences({"the endpoint returns at most 10 logprobs": 12})
    ['12 probes have fewer than ten words: the endpoint returns at most 10 logprobs.']
    """
    number = {10: "ten"}.get(top_n, str(top_n))
    return [f"{n} probe{'s have' if n != 1 else ' has'} fewer than {number} words: {why}."
            for why, n in sorted(reasons.items(), key=lambda kv: -kv[1])]
