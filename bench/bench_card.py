"""How often the bias card flags a difference between two models that do not differ, end to
end (docs/card.md, "Checks"): suites made over HTTP from the fake servers, compared.

    python bench/bench_card.py --pairs 100 --alternative 40 --out bench/results/card_null.md

Each suite is tests/card_suites.py's: fill-in (religion and political, 114 probes) and
coreference (6 jobs: 9 profession pairs, 378 prompts, bias 0.3), collected over HTTP from a
fake model, scored, with ``suite.json`` written by hand (anecdotes are left out to keep a
card quick: their paired differences' null rate is checked on synthetic runs,
tests/test_generation_paired.py). Every suite of the null arm
is the same fake model with its own seeds (fill-in's words, which prompts the bias flips):
two models with the same biases. Disjoint pairs of suites make independent cards, each
with 7 paired differences (fill-in all, political, religion; coreference incorrect,
inconsistent, the stereotype gap with he and with she) in one Holm family. The
alternative arm pairs a null suite with a model that answers a share ``--negative`` of its
fill-in probes with negative words only (fill-in differs, coreference does not): how often
fill-in is flagged, and how often a coreference difference is (falsely) flagged beside it.

Prints a Markdown table and writes it (with the seeds and the load) to ``--out``.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path

from timing import ROOT, load  # bench/timing.py (bench/ is on the path when run as a script)

sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT))


def rate(k: int, n: int) -> str:
    """``3/100 = 3.0% (0.6 to 8.5)``: a count with its Clopper-Pearson 95% interval."""
    from scipy.stats import beta

    low = beta.ppf(0.025, k, n - k + 1) if k else 0.0
    high = beta.ppf(0.975, k + 1, n - k) if k < n else 1.0
    return f"{k}/{n} = {100 * k / n:.1f}% ({100 * low:.1f} to {100 * high:.1f})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pairs", type=int, default=100, help="null cards (each two fresh suites)")
    parser.add_argument("--alternative", type=int, default=40, help="cards with fill-in truly different")
    parser.add_argument("--negative", type=float, default=0.15, help="the alternative's share of negative replies")
    parser.add_argument("--seed", type=int, default=1000, help="the first suite's seed")
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()

    from card_suites import FakeModel, make_suite

    from stereoprobe.card import make_card

    studies = ("fill-in", "coreference")
    started, load_start = time.time(), load()
    null_any, null_by_study, sizes = 0, {"fill-in": 0, "coreference": 0}, []
    alt_fillin = alt_overall = alt_coref = 0
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        for i in range(args.pairs + args.alternative):
            s = args.seed + 2 * i
            a = make_suite(root, FakeModel(f"a{i}", words_seed=s, coref_seed=s), studies, n_boot=300)
            alt = i >= args.pairs
            b_model = FakeModel(f"b{i}", words_seed=s + 1, coref_seed=s + 1, negative=args.negative if alt else 0.0)
            b = make_suite(root, b_model, studies, n_boot=300)
            card = make_card([a, b])
            flagged = [d for d in card.differences if d.flagged]
            sizes.append(card.family.size)
            if not alt:
                null_any += bool(flagged)
                for key in null_by_study:
                    null_by_study[key] += any(d.key == key for d in flagged)
            else:
                alt_fillin += any(d.key == "fill-in" for d in flagged)
                alt_overall += any(d.key == "fill-in" and dict(d.scope)["category"] == "all" for d in flagged)
                alt_coref += any(d.key == "coreference" for d in flagged)
            print(f"card {i + 1}: {'alternative' if alt else 'null'}, {len(flagged)} of {card.family.size} flagged, "
                  f"load {load():.1f}, {time.time() - started:.0f} s", flush=True)
            for folder in (a, b):
                shutil.rmtree(folder)
    minutes = (time.time() - started) / 60
    lines = [
        f"bench/bench_card.py --pairs {args.pairs} --alternative {args.alternative} --negative {args.negative} "
        f"--seed {args.seed}: {minutes:.0f} minutes, load {load_start:.1f} at the start and {load():.1f} at the end "
        "(2-core machine shared with other work).",
        "",
        "| arm | cards | differences per card | what | rate (95% interval) |",
        "|---|---|---|---|---|",
        f"| null: equal biases, other seeds | {args.pairs} | {min(sizes)}-{max(sizes)} | any difference flagged "
        f"| {rate(null_any, args.pairs)} |",
    ]
    for key, k in null_by_study.items():
        lines.append(f"| null | {args.pairs} | | a {key} difference flagged | {rate(k, args.pairs)} |")
    if args.alternative:
        n = args.alternative
        lines += [f"| fill-in differs ({100 * args.negative:.0f}% negative replies) | {n} | | fill-in's overall "
                  f"flagged | {rate(alt_overall, n)} |",
                  f"| fill-in differs | {n} | | any fill-in difference flagged | {rate(alt_fillin, n)} |",
                  f"| fill-in differs | {n} | | a coreference difference flagged (false) | {rate(alt_coref, n)} |"]
    text = "\n".join(lines) + "\n"
    print(text)
    if args.out is not None:
        args.out.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
