"""Benchmark the embedded next-word backend (Gemma 3 270M via llama-cpp-python).

    python bench/bench_local_model.py -n 150              # all three paths on 150 probes
    python bench/bench_local_model.py --paths new --all   # the new path on all 2,292

Asks backends directly (no collect, no store) over the first N probes of the catalog and
reports, in one run on the same probes:

- ``reference``: the algorithm of stereoprobe 0.1.0, kept here (not in the package) as
  the yardstick: one context with all cores' threads, every token decoded alone
  (n_batch=1), each candidate's completion steps one decode each, no phrase filter;
- ``new``: ``LocalModelBackend`` as collect runs it (``--workers`` contexts of one
  thread, asked from a thread pool of the same size), with the phrase filter (each
  word judged once in its frame), and ``new-nofilter`` (``--no-phrase-filter``: the
  reference's words);
- ``floor``: one evaluation of each probe's text (one context per worker, no candidate
  steps): no next-word tool can cost less.

Each path's wall and CPU seconds, seconds per probe, the ratio to the reference, words
identical to the reference, the 1-minute load average before and after, and the peak
RSS of the process (the paths run one after another in one process, so the RSS row is a
running maximum). Prints Markdown tables for docs/nextword.md.
"""

from __future__ import annotations

import argparse
import os
import platform
import resource
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import stereoprobe  # noqa: E402
from stereoprobe.backends.local import LocalModelBackend, _Context  # noqa: E402
from stereoprobe.backends.nextword import Token, WordFilter, ranked_answer  # noqa: E402
from stereoprobe.records import Answer, Probe  # noqa: E402
from stereoprobe.studies.fillin.groupwords import WORD_RULES  # noqa: E402


class ReferenceBackend:
    """stereoprobe 0.1.0's embedded path, verbatim in what it computes (bench only)."""

    def __init__(self, n_threads: int | None = None, candidates: int = 200) -> None:
        from llama_cpp import Llama

        from stereoprobe.backends.local import _only_llama_errors, default_model

        _only_llama_errors()
        self.llm = Llama(
            model_path=str(default_model()[0]),
            n_ctx=256,
            n_threads=n_threads or os.cpu_count() or 2,
            logits_all=False,
            n_batch=1,
            n_ubatch=1,
            seed=0,
            verbose=False,
        )
        self.candidates = candidates
        self.texts: dict[int, str] = {}
        self.word_filter = WordFilter(rules=WORD_RULES)

    def _text(self, token_id: int) -> str:
        if token_id not in self.texts:
            self.texts[token_id] = self.llm.detokenize([token_id]).decode("utf-8", errors="replace")
        return self.texts[token_id]

    def _eval_to(self, ids: list[int]) -> Any:
        import llama_cpp
        import numpy as np

        llm = self.llm
        done = llm.input_ids[: llm.n_tokens].tolist()
        keep = 0
        while keep < min(len(done), len(ids) - 1) and done[keep] == ids[keep]:
            keep += 1
        llm.n_tokens = keep
        llm.eval(ids[keep:])
        pointer = llama_cpp.llama_get_logits_ith(llm.ctx, -1)
        return np.ctypeslib.as_array(pointer, shape=(llm.n_vocab(),)).astype(np.float64)

    def ask(self, probe: Probe) -> Answer:
        import numpy as np

        prompt_ids = self.llm.tokenize(probe.prefix.encode("utf-8"), add_bos=True, special=False)
        logits = self._eval_to(prompt_ids)
        probs = np.exp(logits - logits.max())
        probs /= probs.sum()
        k = min(self.candidates, len(probs))
        top = np.argpartition(-logits, k - 1)[:k]
        top = top[np.argsort(-logits[top], kind="stable")]
        candidates = [Token(self._text(int(i)), float(probs[i]), int(i)) for i in top]

        def next_tokens(tokens: tuple[Token, ...]) -> list[Token]:
            following = self._eval_to(prompt_ids + [t.id for t in tokens])
            best = int(following.argmax())
            p = 1.0 / float(np.exp(following - following[best]).sum())
            return [Token(self._text(best), p, best)]

        return ranked_answer(
            probe, candidates, next_tokens, top_n=10, max_word_tokens=4,
            word_filter=self.word_filter, phrase_filter=None, usage=None,
        )

    def close(self) -> None:
        self.llm.close()


class FloorBackend(LocalModelBackend):
    """One evaluation of the probe text per probe (the new path's probe step alone)."""

    def ask(self, probe: Probe) -> Answer:
        llm = self._load()
        ids = llm.tokenize(probe.prefix.encode("utf-8"), add_bos=True, special=False)
        context: _Context = self._free.get()
        try:
            self._eval_probe(context, ids)
        finally:
            self._free.put(context)
        return Answer(words=[], probabilities=[], raw="", usage=None)


def run(backend: Any, probes: list[Probe], workers: int) -> dict[str, Any]:
    backend.ask(probes[0])  # load outside the timing
    load_before = os.getloadavg()[0]
    cpu0, t0 = time.process_time(), time.perf_counter()
    with ThreadPoolExecutor(max_workers=workers) as pool:
        answers = list(pool.map(backend.ask, probes))
    wall, cpu = time.perf_counter() - t0, time.process_time() - cpu0
    judged = len(getattr(backend, "_phrase_ends", ()))
    backend.close()
    return {
        "judged": judged,
        "answers": answers, "wall": wall, "cpu": cpu,
        "load": f"{load_before:.1f} / {os.getloadavg()[0]:.1f}",
        "rss": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", "--probes", type=int, default=150, help="first N probes (default 150)")
    parser.add_argument("--all", action="store_true", help="all probes of the catalog")
    parser.add_argument("--workers", type=int, default=None, help="contexts of the new path (default: cores)")
    parser.add_argument("--paths", default="reference,new,new-nofilter,floor", help="comma-separated paths to run")
    args = parser.parse_args()

    catalog = stereoprobe.load_probes()
    probes = catalog if args.all else catalog[: args.probes]
    workers = args.workers or os.cpu_count() or 2
    makers = {
        "reference": lambda: (ReferenceBackend(), 1),
        "new": lambda: (LocalModelBackend(workers=workers, word_rules=WORD_RULES), workers),
        "new-nofilter": lambda: (LocalModelBackend(workers=workers, phrase_filter=None, word_rules=WORD_RULES), workers),
        "floor": lambda: (FloorBackend(workers=workers), workers),
    }
    results = {}
    for name in args.paths.split(","):
        backend, pool = makers[name]()
        results[name] = run(backend, probes, pool)
        print(f"  {name}: {results[name]['wall']:.1f} s", file=sys.stderr)

    base = results.get("reference")
    print(f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}; "
          f"{len(probes)} of {len(catalog)} probes; new path: {workers} workers x 1 thread\n")
    print("| path | wall s | s/probe | CPU s/probe | vs reference | words as reference | load before / after | peak RSS MB |")
    print("|---|---|---|---|---|---|---|---|")
    for name, r in results.items():
        ratio = f"{base['wall'] / r['wall']:.2f}x" if base else "-"
        same = "-"
        if base and name != "floor":
            same = f"{sum(a.words == b.words for a, b in zip(r['answers'], base['answers']))}/{len(probes)}"
        print(f"| {name} | {r['wall']:.1f} | {r['wall'] / len(probes):.3f} | {r['cpu'] / len(probes):.3f} | "
              f"{ratio} | {same} | {r['load']} | {r['rss']:.0f} |")
    if "floor" in results:
        print()
        for name, r in results.items():
            print(f"- {name}: {r['wall'] / results['floor']['wall']:.2f} x the floor")
    if "new" in results:
        print(f"- new: {results['new']['judged']} distinct words judged in the phrase filter's frame "
              "(one decode each)")
        total = len(catalog)
        per = results["new"]["wall"] / len(probes)
        kind = "measured" if len(probes) == total else "projected"
        print(f"- new path, full {total}-probe run ({kind}): {per * total:.0f} s")


if __name__ == "__main__":
    main()
