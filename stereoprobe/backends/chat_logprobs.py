"""Log-probabilities that chat models return with a reply, read once for every study.

OpenAI-style Chat Completions return, when asked (``logprobs: true, top_logprobs: k``),
``choices[0].logprobs.content``: one entry per reply token, ``{"token", "logprob",
"top_logprobs": [{"token", "logprob"}, ...]}``. Endpoints that do not offer them return
nothing (or refuse the parameters); then nothing is recorded and nothing else changes.

- ``reply_logprobs(choice)``: the choice's logprobs as stored in a record
  (``Completion.logprobs``): ``{"content": [...]}`` with plain floats, or None.
- ``word_probabilities(reply, words, logprobs)``: the fill-in study's per-word
  probability: for each parsed word, the product of the probabilities of the reply
  tokens that spell it (where the word's text is made of whole tokens, give or take
  spaces and punctuation at their edges); None for a word that cannot be read so.
- ``first_token_alternatives(logprobs)``: the first reply token's alternatives, as the
  jobs study's ``first-token`` estimate reads them (``ChatScorer.first_token``).
- ``option_probabilities(logprobs, options)``: a hook for studies whose answer is one of
  a few options (the coreference study's "The nurse" / "The doctor"): each option's
  probability at the first reply token where the options part, given the reply so far.
"""

from __future__ import annotations

import math
import re
from typing import Any, Mapping, Sequence

Logprobs = Mapping[str, Any]


def _get(obj: Any, name: str) -> Any:
    return obj.get(name) if isinstance(obj, Mapping) else getattr(obj, name, None)


def reply_logprobs(choice: Any) -> dict[str, Any] | None:
    """The choice's ``logprobs`` as plain data, or None when the endpoint returned none.

    >>> reply_logprobs({"logprobs": {"content": [{"token": "Wise", "logprob": -0.1,
    ...                 "top_logprobs": [{"token": "Wise", "logprob": -0.1, "bytes": [87]}]}]}})
    {'content': [{'token': 'Wise', 'logprob': -0.1, 'top_logprobs': [{'token': 'Wise', 'logprob': -0.1}]}]}
    >>> reply_logprobs({"logprobs": None}) is None
    True
    """
    content = _get(_get(choice, "logprobs"), "content")
    if not content:
        return None
    out = []
    for entry in content:
        token, value = _get(entry, "token"), _get(entry, "logprob")
        if not isinstance(token, str) or not isinstance(value, (int, float)):
            return None
        top = [{"token": _get(t, "token"), "logprob": float(_get(t, "logprob"))}
               for t in (_get(entry, "top_logprobs") or [])
               if isinstance(_get(t, "token"), str) and isinstance(_get(t, "logprob"), (int, float))]
        out.append({"token": token, "logprob": float(value), "top_logprobs": top})
    return {"content": out}


def _edge_ok(text: str) -> bool:
    """Characters a token may carry beyond a word's edge: spaces and punctuation, no letters or digits."""
    return not any(ch.isalnum() for ch in text)


def word_probabilities(reply: str, words: Sequence[str], logprobs: Logprobs | None) -> list[float | None] | None:
    """P(each parsed word as written in the reply), from the reply tokens that spell it.

    Words are looked for in order, case-insensitively, as whole words. A word is read
    when the tokens overlapping it carry nothing else but spaces and punctuation; its
    probability is the product of theirs (e.g. "1." "\\n" "2." " Grumpy": " Grumpy").
    None for the whole list when the tokens do not spell the reply.

    >>> lp = {"content": [{"token": t, "logprob": math.log(p)} for t, p in
    ...       [("1", 1.0), (".", 1.0), (" Wise", 0.5), ("\\n", 1.0), ("2", 1.0), (".", 1.0), (" grump", 0.4), ("y", 0.5)]]}
    >>> [round(p, 6) for p in word_probabilities("1. Wise\\n2. grumpy", ["wise", "grumpy"], lp)]
    [0.5, 0.2]
    >>> word_probabilities("1. Wise", ["wise", "kind"], {"content": [{"token": "1. Wise", "logprob": 0.0}]})
    [None, None]
    """
    content = (logprobs or {}).get("content") if isinstance(logprobs, Mapping) else None
    if not content:
        return None
    texts = [str(e.get("token", "")) for e in content]
    if "".join(texts) != reply:
        return None
    starts, pos = [], 0
    for t in texts:
        starts.append(pos)
        pos += len(t)
    out: list[float | None] = []
    cursor = 0
    folded = reply.replace("\u2019", "'").lower()
    for word in words:
        pattern = re.compile(rf"(?<![^\W_]){re.escape(word.lower())}(?![^\W_])")
        found = pattern.search(folded, cursor)
        if not found:
            out.append(None)
            continue
        a, b = found.span()
        cursor = b
        inside = [i for i, s in enumerate(starts) if s < b and s + len(texts[i]) > a]
        first, last = inside[0], inside[-1]
        if _edge_ok(reply[starts[first]:a]) and _edge_ok(reply[b:starts[last] + len(texts[last])]):
            out.append(math.exp(sum(float(content[i]["logprob"]) for i in inside)))
        else:
            out.append(None)
    return out


def first_token_alternatives(logprobs: Logprobs | None) -> list[tuple[str, float]]:
    """The first reply token's ``top_logprobs`` as (token, logprob), the token itself
    included; [] when there are none."""
    content = (logprobs or {}).get("content") if isinstance(logprobs, Mapping) else None
    if not content or not content[0].get("top_logprobs"):
        return []
    first = content[0]
    top = [(t["token"], float(t["logprob"])) for t in first["top_logprobs"]]
    if first["token"] not in dict(top):
        top.append((first["token"], float(first["logprob"])))
    return top


def option_probabilities(logprobs: Logprobs | None, options: Sequence[str]) -> dict[str, float] | None:
    """Each option's probability at the reply token where the options part (a hook for
    studies whose answer is one of a few texts).

    The reply is followed while all options agree with it; at the first token whose
    alternatives tell the options apart, an option's probability is the sum of the
    alternatives that start its remaining text (case and leading spaces ignored), times
    the probability of the reply so far. None when the reply leaves the options before
    they part, or the endpoint gave no alternatives there.

    >>> lp = {"content": [{"token": "The", "logprob": 0.0, "top_logprobs": [{"token": "The", "logprob": 0.0}]},
    ...                   {"token": " nurse", "logprob": math.log(0.7),
    ...                    "top_logprobs": [{"token": " nurse", "logprob": math.log(0.7)},
    ...                                     {"token": " doctor", "logprob": math.log(0.2)}]}]}
    >>> {k: round(v, 6) for k, v in option_probabilities(lp, ["The nurse", "The doctor"]).items()}
    {'The nurse': 0.7, 'The doctor': 0.2}
    """
    content = (logprobs or {}).get("content") if isinstance(logprobs, Mapping) else None
    if not content or not options:
        return None

    def fits(rest: str, piece: str) -> bool:
        rest, piece = rest.lower(), piece.lower()
        return bool(piece) and (rest.startswith(piece) or (piece.startswith(rest) and _edge_ok(piece[len(rest):])))

    said, prior = "", 0.0
    for entry in content:
        live = [o for o in options if o.lower().startswith(said.lower()) and len(o) > len(said)]
        if not live:
            return None
        token = str(entry["token"])
        if len(live) == len(options) and all(fits(o[len(said):], token) for o in live) \
                and all(o[len(said):].lower().startswith(token.lower()) for o in live):
            said, prior = said + token, prior + float(entry["logprob"])
            continue
        alternatives = entry.get("top_logprobs") or []
        if not alternatives:
            return None
        scores = {o: 0.0 for o in options}
        for alt in alternatives:
            for o in live:
                if fits(o[len(said):], str(alt["token"])):
                    scores[o] += math.exp(float(alt["logprob"]))
        return {o: math.exp(prior) * scores[o] for o in options}
    return None
