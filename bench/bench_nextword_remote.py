"""A served model against the embedded one: next-word lists probe by probe.

    python bench/bench_nextword_remote.py -n 120            # starts llama-cpp-python's server itself
    python bench/bench_nextword_remote.py -n 120 --url http://127.0.0.1:8000/v1 --model gemma

Samples N probes across the catalog's categories (``random.Random(seed)``, the same
number from each category), asks each of them of the embedded model
(``LocalModelBackend``, the default settings) and of a server holding the same weights
(``NextWordCompletionsBackend`` with its defaults, one probe at a time), and prints for
docs/nextword.md:

- lists identical (the same ten words in the same order), the same words in another
  order, and different lists; the mean Jaccard index of the word sets;
- for every list that is not identical, why: **near ties**, words whose embedded
  probabilities differ by less than ``--tie`` (relative, default 2%) swapping places or
  crossing the tenth place, or a phrase-end judgement within 0.01 of the threshold (the
  two builds' numbers differ in the last digits: docs/nextword.md); anything else is
  listed as a real difference;
- requests per probe (every HTTP request, the phrase filter's first judgements
  included), seconds per probe of each path, lists with fewer than ten words and why,
  and the load average before and after.

The server is started as docs/nextword.md's recipe says (``--n_batch 1``: the prompt
decoded token by token, as the embedded model decodes the probe; on CPUs with AMX any
larger batch crashes that build), through tests/llama_server.py: with the weights in the
buffer the embedded path uses, so both run the same kernels.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import sys
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))  # llama_server.py

from stereoprobe.backends.local import LocalModelBackend  # noqa: E402
from stereoprobe.backends.nextword_remote import NextWordCompletionsBackend  # noqa: E402
from stereoprobe.studies.fillin.catalog import load_catalog  # noqa: E402
from stereoprobe.studies.fillin.groupwords import WORD_RULES  # noqa: E402
from llama_server import serve  # noqa: E402


def sample_probes(n: int, seed: int) -> list:
    probes = load_catalog().probes()
    by_category = defaultdict(list)
    for p in probes:
        by_category[p.category].append(p)
    rng = random.Random(seed)
    per = max(1, n // len(by_category))
    chosen = [p for cat in sorted(by_category) for p in rng.sample(by_category[cat], min(per, len(by_category[cat])))]
    return chosen


def diagnose(local, remote, tie: float, threshold: float) -> str:
    """identical | order | near tie | phrase end | different."""
    if local.words == remote.words:
        return "identical"
    lp = dict(zip(local.words, local.probabilities))
    rp = dict(zip(remote.words, remote.probabilities))
    raw_l = {c.get("word"): c for c in json.loads(local.raw)["candidates"] if c.get("word")}
    raw_r = {c.get("word"): c for c in json.loads(remote.raw)["candidates"] if c.get("word")}
    reasons = set()
    for w in set(local.words) ^ set(remote.words):
        ends = [c.get("phrase_end") for c in (raw_l.get(w), raw_r.get(w)) if c and c.get("phrase_end") is not None]
        if any(abs(e - threshold) < 0.01 for e in ends):
            reasons.add("phrase end")
            continue
        p = lp.get(w) or rp.get(w)
        tenth = min(local.probabilities[-1], remote.probabilities[-1]) if local.probabilities and remote.probabilities else 0
        reasons.add("near tie" if p and tenth and abs(p - tenth) / max(p, tenth) < tie else "different")
    if not reasons:  # same words, another order: are the swapped ones near ties?
        for a, b in zip(local.words, remote.words):
            if a != b and abs(lp[a] - lp[b]) / max(lp[a], lp[b]) >= tie:
                return "order (not a near tie)"
        return "order (near tie)"
    return "different" if "different" in reasons else sorted(reasons)[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-n", type=int, default=120)
    parser.add_argument("--seed", type=int, default=18)
    parser.add_argument("--url", default=None)
    parser.add_argument("--model", default="gemma")
    parser.add_argument("--tie", type=float, default=0.02)
    parser.add_argument("--json", type=Path, default=None, help="write the per-probe comparison here")
    args = parser.parse_args()
    probes = sample_probes(args.n, args.seed)
    load0 = os.getloadavg()[0]
    local = LocalModelBackend(workers=1, word_rules=WORD_RULES)
    t0 = time.perf_counter()
    mine = [local.ask(p) for p in probes]
    t_local = time.perf_counter() - t0
    model_path = str(local.model_path)
    local.close()
    with contextlib.ExitStack() as stack:
        url = args.url
        if url is None:
            log = Path(stack.enter_context(tempfile.TemporaryDirectory())) / "server.log"
            url = stack.enter_context(serve(model_path, log))
        remote = NextWordCompletionsBackend(args.model, url, "not-needed", timeout=300, word_rules=WORD_RULES)
        theirs, requests = [], []
        t0 = time.perf_counter()
        try:
            for p in probes:
                theirs.append(remote.ask(p))
                requests.append(remote.attempts_of_last_ask())
        finally:
            t_remote = time.perf_counter() - t0
            remote.close()
    load1 = os.getloadavg()[0]
    threshold = 0.20
    kinds = Counter()
    rows = []
    for p, a, b, r in zip(probes, mine, theirs, requests):
        kind = diagnose(a, b, args.tie, threshold)
        kinds[kind] += 1
        jac = len(set(a.words) & set(b.words)) / max(1, len(set(a.words) | set(b.words)))
        rows.append({"probe": p.text, "category": p.category, "embedded": a.words, "served": b.words,
                     "kind": kind, "jaccard": jac, "requests": r, "short": json.loads(b.raw).get("short")})
    n = len(probes)
    short = Counter(r["short"] for r in rows if r["short"])
    print(f"{n} probes ({n // 9} per category, seed {args.seed}); load {load0:.1f} before, {load1:.1f} after")
    print("| lists | probes |\n|---|---|")
    for kind, count in kinds.most_common():
        print(f"| {kind} | {count} ({100 * count / n:.0f}%) |")
    print(f"\nmean Jaccard {sum(r['jaccard'] for r in rows) / n:.3f}; requests {sum(requests)} "
          f"({sum(requests) / n:.2f} per probe, the first judgements of {len(remote._phrase_ends)} words included); "
          f"embedded {t_local:.1f} s ({t_local / n:.3f} s/probe), served {t_remote:.1f} s ({t_remote / n:.2f} s/probe)")
    print("short lists:", dict(short) or "none")
    for r in rows:
        if r["kind"] != "identical":
            print(f"- {r['probe']}: {r['kind']}\n    embedded {r['embedded']}\n    served   {r['served']}")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
