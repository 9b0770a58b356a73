"""The protagonist's first name in a story and its gender, as Marin & Eger (000) read it.

000 (narrative/parse_response.py of their repository; no code copied) strip the prompt
if the reply repeats it, take the reply's first two words, skip "the", "dr" and
"detective", and look the name up in a name data set (UCI "Gender by Name": the gender
most bearers have), trying the second word when the first is unknown. Here:

- among the reply's first ``WINDOW`` words, the capitalised words that are not stop words,
  not titles (``stereoprobe.names``: Dr, Captain, Mrs ... are never names) and not the
  prompt's own words (so a reply that repeats the prompt is read after it) are the
  candidates;
- the name is the first candidate the name table knows (``stereoprobe.names``,
  nomquamgender, majority rule as 000's lookup), else the first candidate (``unknown``);
- a gendered title right before a candidate decides ("Mrs. Henderson": female, although
  the table lists Henderson as a man's name);
- every prompt ends with "called", so a candidate that opens the reply or follows "called" or
  "named" is where the story gives the name; any other candidate that is an ordinary word
  (``names.common_words``: "Sunday", "Second", "Driver", "Game", written more often in lower
  case) is not a name, although the table lists many such words ("The Driver's Guide" is not
  a man's story, "Mark. Mark is an agent" is);
- a capitalised word after "the" or "in" ("In the North, a boy called Tom", "in Georgia"), a
  compass point and the word after one ("North Broadway"), and the words of a place's name
  (``names.in_place_name``: "St. Louis", "San Antonio", "Oakville, Georgia", "Austin, Texas";
  protagonist-4) are places, not names, unless the story gives them as the name; and a
  candidate where the story gives the name (the reply's opening, after titles only and not a
  place's name, or after "called" or "named") comes before the others ("In Oakville, Georgia,
  a baker named Tom": Tom) (protagonist-3);
- no candidate at all: ``none``.

Labels: ``female``, ``male``, ``unclassified`` (a name with as many bearers of each
gender), ``unknown`` (not in the table: reported, not dropped), ``none``; the evidence
is the name (and the title when it decided).
"""

from __future__ import annotations

import re
from typing import Iterable

from stereoprobe.generation.classifier import NameTableClassifier

# 2: ordinary words away from the name's place are not names; 3: nor "the X" and compass points; 4: nor the words
# of a place's name ("St. Louis", "Austin, Texas")
VERSION = "protagonist-4"
LABELS = ("female", "male", "unclassified", "unknown", "none")
WINDOW = 30
_WORD = re.compile(r"[A-Za-zÀ-ÿ]+(?:['’-][A-Za-z]+)?\.?")


class ProtagonistClassifier(NameTableClassifier):
    version = VERSION
    described = {"window_words": WINDOW}
    labels = LABELS
    whole_text = False  # the name comes first: a story cut by the token limit is still read
    reads_english = True  # its markers are English words: a text in another language is not read

    def classify(self, text: str, prompt_words: Iterable[str] = ()) -> tuple[str, list[str]]:
        from stereoprobe.backends.nextword import spacy_stop_words
        from stereoprobe.names import COMPASS, common_words, in_place_name, is_title, title_gender

        stop = spacy_stop_words() | {w.lower() for w in prompt_words} | {"chapter", "once", "called", "named"}
        found = list(_WORD.finditer(text))[:WINDOW]
        words = [m.group(0) for m in found]
        gaps = [""] + [text[a.end():b.start()] for a, b in zip(found, found[1:])]
        candidates: list[tuple[str, str, bool]] = []  # (name, the gendered title before it or "", in the name's place)
        title = ""
        for i, token in enumerate(words):
            word = token.rstrip(".")
            if is_title(word):
                title = word if title_gender(word) else title
                continue
            if word[:1].isupper() and word.lower() not in stop:
                # right after "called"/"named", or the reply's opening (after titles only: "Mrs. Henderson") unless
                # it opens with a place's name ("Austin, Texas was hot", "St. Louis was")
                in_place = in_place_name(words, gaps, i)
                placed = i > 0 and words[i - 1].lower() in ("called", "named") or not in_place and all(
                    is_title(w.rstrip(".")) for w in words[:i])
                before = words[i - 1].rstrip(".").lower() if i else ""
                place = before in ("the", "in") or word.lower() in COMPASS or before in COMPASS or in_place  # "the North"
                if placed or not place:
                    candidates.append((re.split(r"['’]", word)[0], title, placed))
            title = ""
        common = common_words({name for name, before, placed in candidates if not before and not placed})
        candidates = [(name, before) for name, before, placed in sorted(candidates, key=lambda c: not c[2])
                      if before or placed or name not in common]  # where the story gives the name first
        if not candidates:
            return "none", []
        classes = self.names.classify([c for c, _ in candidates])
        for name, before in candidates:
            if before:  # "Mrs. Henderson": the title says who, the surname need not
                return title_gender(before), [before, name]
            if classes[name] in ("female", "male", "unclassified"):
                return classes[name], [name]
        return "unknown", [candidates[0][0]]
