"""stereoprobe's WordNet reader against NLTK's, on every lemma of WordNet 3.0.

    PYTHONPATH=. python bench/wordnet_reader.py [--sample N] [--out bench/results/wordnet-reader.md]

Every lemma of the four index files (or ``--sample N`` of them, seed 0) and every form of the
three exception lists, each as is, with -s, -es, -ed, -ing, -er, -est and in upper case, is
looked up in each part of speech (none, n, v, a, s, r and "asr", as ``has_synsets`` asks) by
both readers over the same files: the synsets' offsets in order, their lemma names in order,
and ``morphy`` in each part of speech must be equal. Prints (and writes) the counts and the
differences found. tests/test_wordnet.py checks a sample of 700 lemmas the same way.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

SUFFIXES = ("", "s", "es", "ed", "ing", "er", "est")
POS = (None, "n", "v", "a", "s", "r", "asr")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sample", type=int, help="this many lemmas (seed 0) instead of all")
    ap.add_argument("--out", type=Path)
    args = ap.parse_args()

    import nltk
    from nltk.corpus.reader.wordnet import WordNetCorpusReader

    from stereoprobe.studies.fillin.wordnet import load_wordnet

    ours = load_wordnet()
    nltk.data.path.append(str(ours.root.parent.parent))  # NLTK reads only below its data path
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = WordNetCorpusReader(nltk.data.find("corpora/wordnet"), None)
    lemmas = sorted(theirs._lemma_pos_offset_map)
    if args.sample:
        lemmas = random.Random(0).sample(lemmas, args.sample)
    exceptions = sorted({f for pos in "nvar" for f in theirs._exception_map[pos]})
    started, lookups, differences = time.perf_counter(), 0, []
    for word in [*lemmas, *exceptions]:
        for form in [word + s for s in SUFFIXES] + [word.upper()]:
            for pos in POS:
                synsets = theirs.synsets(form, pos=pos)
                mine = ours.synsets(form, pos)
                lookups += 1
                if [o for _, o in mine] != [s.offset() for s in synsets] or [
                        n for p, o in mine for n in ours.lemma_names(p, o)] != [n for s in synsets for n in s.lemma_names()]:
                    differences.append(f"{form!r} {pos}")
        for pos in "nvasr":
            if ours.morphy(word.lower(), pos) != theirs._morphy(word.lower(), pos):
                differences.append(f"morphy {word!r} {pos}")
    seconds = time.perf_counter() - started
    text = (f"WordNet {ours.version()} at {ours.root}, NLTK {nltk.__version__}: {len(lemmas):,} lemmas and "
            f"{len(exceptions):,} exception-list forms, {lookups:,} look-ups (and morphy in 5 parts of speech "
            f"each): {len(differences)} differences ({seconds:.0f} s)\n")
    text += "".join(f"- {d}\n" for d in differences[:50])
    print(text, end="")
    if args.out:
        args.out.write_text(text)


if __name__ == "__main__":
    main()
