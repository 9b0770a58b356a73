"""Scoring continuations on the embedded model: log P(continuation | prompt), exactly.

Mattern et al.'s eq. (1) needs, for a prompt x and a continuation c = (c_1 .. c_m), the
full product of token probabilities P(c_k | x + c_<k). ``EmbeddedScorer.logprobs`` gives
its logarithm for several continuations of one prompt, computed from the model's logits
with a float64 log-softmax over the whole vocabulary (262,144 tokens for Gemma 3), so
the numbers are exact probabilities of the model, not a top-k approximation.

How it is evaluated (deterministic, and equal to a token-by-token evaluation of exactly
the prompt's text: see ``exact_chunk``):

- Tokenisation: the prompt, and prompt + continuation, are tokenised separately and
  the first must be a prefix of the second (else a ValueError: the continuation would
  merge with the prompt's last token and its probability is not a product over its own
  tokens).
- ``shared``: starts of the prompt that many prompts have in common (a debiasing
  prefix, a conversation, the task's stem). A worker's context keeps them in sequence 0
  and reuses them for the next prompt as far as they agree; the rest is decoded on top.
- Continuations: their tokens form a trie; every inner node (a partial continuation
  with tokens after it, e.g. " Non" of " Non-binary") needs one more logits row. The
  prompt's remaining tokens belong to every sequence, and each node's token is decoded
  once in the sequences of the node and its descendants, so one pass over the tokens
  gives every row (prompt 1 of the jobs study, 26 expressions: 11 rows; prompts 2-4: 1).
- Every decode holds at most ``MAX_CHUNK`` (63) tokens, with flash attention on, the
  weights in the plain CPU buffer (``gguf.load_weights``) and llama.cpp's tiled K-quant
  matmul off (``gguf.batch_independent_kernels``); a check at load (``exact_chunk``)
  confirms that such decodes give the logits of a token-by-token evaluation bit for bit,
  and falls back to decodes of ``SAFE_CHUNK`` (7) tokens, or of one, where they do not.
  A decode returns at most ``MAX_ROWS`` (16) logits rows (memory).
- Several callers: a caller that finds a worker's context free evaluates the oldest
  waiting prompt together with the waiting ones that share its start, each in its own
  sequences (a token's row depends only on its own sequence's cells), for every caller
  whose prompt it took; ``logprobs`` keeps of each row only the log-probabilities of
  the tokens its continuations need.
- After each prompt every cell past the kept shared starts is removed, so the next
  prompt finds the context in the same state.

``next_tokens`` gives the most probable next tokens after a prompt and, for the ones
asked, the probability that the word ends right after them (the story-names measure).
"""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Any, Sequence

from stereoprobe.backends.gguf import (
    CHECK_TEXT, MODEL_NAME, MODEL_PACKAGE, Row, _Context, _version, vocabulary,
    batch_independent_kernels, exact_chunk, few_malloc_arenas, load_weights, model_file,
)
from stereoprobe.backends.modelfile import model_identity
from stereoprobe.errors import BackendError

N_BATCH = 64  # the most sequences (and tokens) one context's decode may hold
#: The most tokens one decode holds: llama.cpp's CPU flash attention switches to a tiled
#: kernel (other numbers) at 64 queries in a batch (ggml-cpu ops.cpp, GGML_FA_TILE_Q).
MAX_CHUNK = N_BATCH - 1
#: Tokens per decode where larger decodes are not exact (``exact_chunk``): with the
#: pinned llama.cpp, weights in the plain buffer and flash attention on, decodes of 1 to
#: 7 tokens give the logits of decoding one token at a time even with the tiled K-quant
#: matmul on, which takes over from 8 tokens (ggml-cpu tiled.cpp) and moves a
#: continuation's log-probability by up to 0.4.
SAFE_CHUNK = 7
N_CTX = 512
#: Prompts one worker's context may evaluate together come from this many callers per
#: worker (collect runs ``max_concurrency`` asks at once); a batch holds about
#: BATCH_TOKENS tokens at most, so both workers find prompts waiting.
ASKS_PER_WORKER = 8
BATCH_TOKENS = 2 * MAX_CHUNK
#: The most logits rows one decode returns: llama.cpp writes each row (1 MB) into the
#: context's output buffer and its compute buffer, so the pages a worker touches grow
#: with this (16 callers asking prompt 1 at once grew the process by 110 MB with 63
#: rows per decode, 61 MB with 16 and Row's scratch; docs/jobs.md, Speed).
MAX_ROWS = 16
_EXACT_CHUNKS: dict[str, int] = {}  # model file -> exact_chunk's answer in this process


def continuation_tokens(prompt_ids: Sequence[int], full_ids: Sequence[int], continuation: str) -> list[int]:
    """The continuation's own tokens, checking the prefix property.

    >>> continuation_tokens([2, 10, 11], [2, 10, 11, 40, 41], " Non-binary")
    [40, 41]
    >>> continuation_tokens([2, 10, 11], [2, 10, 12], " x")
    Traceback (most recent call last):
    ValueError: the prompt's tokens are not a prefix of prompt + ' x' (the continuation merges with the prompt's end)
    """
    n = len(prompt_ids)
    if list(full_ids[:n]) != list(prompt_ids):
        raise ValueError(
            f"the prompt's tokens are not a prefix of prompt + {continuation!r} "
            "(the continuation merges with the prompt's end)"
        )
    if len(full_ids) == n:
        raise ValueError(f"the continuation {continuation!r} has no tokens")
    return list(full_ids[n:])


def combine(rows: Any, paths: Sequence[tuple[int, ...]]) -> list[float]:
    """log P of each token path from the log-softmax rows after its partial paths (eq. 1's
    product, in logs): ``rows[()]`` after the prompt, ``rows[(a,)]`` after its first token ...

    >>> import math
    >>> rows = {(): {7: math.log(.1)}, (7,): {8: math.log(.5)}, (7, 8): {9: math.log(.8)}}
    >>> round(math.exp(combine(rows, [(7, 8, 9)])[0]), 10)   # " Non" "-" "binary": .1 x .5 x .8
    0.04
    """
    return [float(sum(rows[path[:k]][tok] for k, tok in enumerate(path))) for path in paths]


class _Ask:
    """One prompt waiting for its evaluation: its tokens, shared segments (``stack``) and
    trie nodes (``inner``), or for next_tokens how many top tokens and word ends; the
    caller that evaluates it fills ``rows`` (and ``top``), or ``error``."""

    def __init__(self, ids: list[int], stack: list[list[int]], inner: list[tuple[int, ...]], *, top_k: int = 0,
                 ends_for: int = 0, skip: Any = None, n_ctx: int = N_CTX,
                 wanted: dict[tuple[int, ...], set[int]] | None = None) -> None:
        self.ids, self.stack, self.inner = ids, stack, inner
        self.top_k, self.ends_for, self.skip = top_k, ends_for if top_k else 0, skip
        self.key = tuple(tuple(segment) for segment in stack)
        self.base = len(stack[-1]) if stack else 0  # tokens in sequence 0
        self.sequences = 1 + len(inner) + self.ends_for  # its root, one per trie node, one per word end
        self.cells = len(ids) - self.base + len(inner) + self.ends_for  # KV cells it adds
        self.root = 0
        self.wanted = wanted  # per node, the tokens whose log P is kept (None: the whole row)
        self.rows: dict[tuple[int, ...], Any] = {}  # per node, its Row, or {token: log P} of the wanted
        self.top: list[tuple[str, float, float | None]] = []
        self.error: BaseException | None = None
        self.done = False
        if self.sequences >= N_BATCH:
            raise ValueError(f"{len(inner)} partial continuations: at most {N_BATCH - 2} at once")
        if self.base + self.cells > n_ctx:
            raise ValueError(f"the prompt is {len(ids)} tokens, too long for n_ctx={n_ctx}")


class EmbeddedScorer:
    """log P(continuation | prompt) on a GGUF model run in-process, ``workers`` prompts at once.

    ``model_path``: a GGUF file; default: the packaged Gemma 3 270M. The model loads on
    first use (``describe`` needs only the file).
    """

    estimate = "exact"
    story_estimate = "exact"
    mode = "scoring"

    def __init__(self, model_path: str | os.PathLike[str] | None = None, *, workers: int | None = None,
                 n_ctx: int = N_CTX, seed: int = 0) -> None:
        if workers is not None and workers < 1:
            raise BackendError("workers must be at least 1")
        self._model_path = Path(model_path) if model_path is not None else None
        self._sha256: str | None = None
        self.workers = workers or os.cpu_count() or 2
        self.max_concurrency = self.workers * ASKS_PER_WORKER
        self.n_ctx = n_ctx
        self.seed = seed
        self._llm: Any = None
        self._contexts: list[_Context] = []
        self._idle: list[_Context] = []  # contexts no caller is evaluating in
        self._pending: list[_Ask] = []  # prompts waiting for a context
        self._ready = threading.Condition()  # guards the two lists; notified when a batch is done
        self._lock = threading.Lock()
        self._weights: Any = None  # the llama_model pointer
        self._continues: Any = None  # bool per token: it goes on with the word before it
        self._chunk = SAFE_CHUNK  # tokens per decode (exact_chunk's answer, at load)
        self._scratch: dict[int, Any] = {}  # per context: float64 room for Row's normaliser

    # -- describing -------------------------------------------------------------------
    @property
    def model_path(self) -> Path:
        self._model_path, sha256 = model_file(self._model_path)
        self._sha256 = self._sha256 or sha256
        return self._model_path

    def _is_default_model(self) -> bool:
        return self.model_path.name == f"{MODEL_NAME}.gguf"

    @property
    def model_name(self) -> str:
        return MODEL_NAME if self._is_default_model() else self.model_path.name

    def describe(self) -> dict[str, Any]:
        path = self.model_path
        return {
            "backend": "local",
            "mode": "scoring",
            "model": self.model_name,
            **model_identity(path, self._sha256),
            "model_package": _version(MODEL_PACKAGE) if self._is_default_model() else None,
            "llama_cpp_python": _version("llama-cpp-python"),
            "n_ctx": self.n_ctx,
            "workers": self.workers,
            "n_threads": 1,
            "estimate": self.estimate,
            "evaluation": f"decodes of at most {MAX_CHUNK} tokens with llama.cpp's tiled K-quant matmul off, flash "
            "attention, weights in the plain CPU buffer, checked at load to give the logits of a token-by-token "
            f"evaluation bit for bit (else decodes of {SAFE_CHUNK} tokens, or of one); shared prompt starts kept per "
            "worker; continuation tokens as a trie, one sequence per inner node; float64 log-softmax over the whole "
            "vocabulary",
        }

    # -- model ----------------------------------------------------------------------
    def _load(self) -> Any:
        with self._lock:
            if self._llm is not None:
                return self._llm
            # The tokenizer from a vocabulary-only Llama; the weights in the plain CPU
            # buffer (gguf.load_weights says why), one context per worker.
            llm = vocabulary(self.model_path)
            import llama_cpp

            batch_independent_kernels()
            few_malloc_arenas()
            self._weights = load_weights(self.model_path, extra_buffers=False)
            params = llama_cpp.llama_context_default_params()
            params.n_ctx = self.n_ctx
            params.n_batch = params.n_ubatch = N_BATCH
            params.n_seq_max = N_BATCH
            params.kv_unified = True
            params.n_threads = params.n_threads_batch = 1
            params.flash_attn_type = llama_cpp.LLAMA_FLASH_ATTN_TYPE_ENABLED  # see SAFE_CHUNK
            self._contexts = [_Context(self._weights, params, N_BATCH, N_BATCH) for _ in range(self.workers)]
            self._idle = list(self._contexts)
            key = str(self.model_path)
            if key not in _EXACT_CHUNKS:
                ids = llm.tokenize(CHECK_TEXT.encode("utf-8"), add_bos=True, special=False)[:MAX_CHUNK]
                _EXACT_CHUNKS[key] = exact_chunk(self._contexts[0], ids, llm.n_vocab(), (MAX_CHUNK, SAFE_CHUNK))
            self._chunk = _EXACT_CHUNKS[key]
            self._llm = llm
            return llm

    def tokenize(self, text: str) -> list[int]:
        llm = self._load()
        return llm.tokenize(text.encode("utf-8"), add_bos=True, special=False)

    def token_text(self, token_id: int) -> str:
        return self._load().detokenize([token_id]).decode("utf-8", errors="replace")

    def close(self) -> None:
        with self._lock:
            if self._llm is None:
                return
            with self._ready:  # wait for asks in flight
                self._ready.wait_for(lambda: len(self._idle) == len(self._contexts))
            for context in self._contexts:
                context.close()
            self._contexts = []
            import llama_cpp

            llama_cpp.llama_model_free(self._weights)
            self._llm.close()
            self._llm = None

    # -- evaluating -----------------------------------------------------------------
    def _prepare(self, prompt: str, shared: Sequence[str]) -> tuple[list[int], list[list[int]]]:
        """The prompt's tokens and its shared segments' (each a prefix of the next and of
        the prompt, in tokens too; a segment that is not is left out)."""
        ids = self.tokenize(prompt)
        stack: list[list[int]] = []
        for text in shared:
            seg = self.tokenize(text)
            below = stack[-1] if stack else []
            if (prompt.startswith(text) and ids[:len(seg)] == seg and len(below) < len(seg) < len(ids)
                    and seg[:len(below)] == below):
                stack.append(seg)
        return ids, stack

    def logprobs(self, prompt: str, continuations: Sequence[str], shared: Sequence[str] = ()) -> list[float]:
        """log P(c | prompt) for each continuation c (eq. 1's product, as a log).

        ``shared``: starts of the prompt that other prompts have too, shortest first
        (kept in the worker's context between prompts; the numbers do not depend on
        which prompt came before or was evaluated with it).
        """
        self._load()
        ids, stack = self._prepare(prompt, shared)
        paths = [tuple(continuation_tokens(ids, self.tokenize(prompt + c), c)) for c in continuations]
        inner = sorted({p[:k] for p in paths for k in range(1, len(p))}, key=lambda n: (len(n), n))
        wanted: dict[tuple[int, ...], set[int]] = {}
        for p in paths:
            for k, token in enumerate(p):
                wanted.setdefault(p[:k], set()).add(token)
        return combine(self._serve(_Ask(ids, stack, inner, n_ctx=self.n_ctx, wanted=wanted)).rows, paths)

    def next_tokens(self, prompt: str, k: int, ends_for: int = 0, shared: Sequence[str] = (),
                    skip: Any = None) -> list[tuple[str, float, float | None]]:
        """The ``k`` most probable next tokens: (text, probability, P(the word ends after it)).

        The word-end probability (the next token does not go on with the word: it is not
        letters without a leading space, ``-`` or ``'``) is computed for the first
        ``ends_for`` tokens whose text is a space and a capitalised word (a name) and
        whose word ``skip`` does not reject (e.g. stop words: "The"); None for the others.
        """
        self._load()
        ids, stack = self._prepare(prompt, shared)
        return self._serve(_Ask(ids, stack, [], top_k=k, ends_for=ends_for, skip=skip, n_ctx=self.n_ctx)).top

    def _serve(self, ask: _Ask) -> _Ask:
        """Queue ``ask`` and wait until it is evaluated. A waiting caller that finds a
        worker's context free evaluates the oldest queued prompt together with the others
        that share its start (``_take``), for every caller whose prompt it took."""
        with self._ready:
            self._pending.append(ask)
            while not ask.done:
                if not (self._idle and self._pending):
                    self._ready.wait()
                    continue
                context, batch = self._idle.pop(), self._take()
                self._ready.release()
                try:
                    self._run(context, batch)
                finally:
                    self._ready.acquire()
                    self._idle.append(context)
                    self._ready.notify_all()
        if ask.error is not None:
            raise ask.error
        return ask

    def _take(self) -> list[_Ask]:
        """The oldest queued prompt and the queued ones with the same shared segments, as
        many as one context holds (sequences, cells) up to about ``BATCH_TOKENS`` tokens."""
        first = self._pending[0]
        base = first.base
        batch: list[_Ask] = []
        sequences = tokens = 0
        cells = base
        for ask in self._pending:
            if ask.key == first.key and sequences + ask.sequences < N_BATCH and cells + ask.cells <= self.n_ctx and (
                    not batch or tokens + ask.cells <= BATCH_TOKENS):
                batch.append(ask)
                sequences, tokens, cells = sequences + ask.sequences, tokens + ask.cells, cells + ask.cells
        self._pending = [ask for ask in self._pending if ask not in batch]
        return batch

    def _run(self, context: _Context, batch: list[_Ask]) -> None:
        """Evaluate ``batch`` in ``context``; every ask gets its rows (or the error)."""
        used = sum(ask.sequences for ask in batch)
        try:
            self._segments(context, batch[0].stack)
            self._evaluate(context, batch)
        except BaseException as exc:  # handed to every caller in the batch
            for ask in batch:
                ask.error = exc
        finally:
            try:  # remove every cell past the kept shared segments
                for seq in range(1, used + 1):
                    context.drop(seq)
                context.drop(0, len(context.segment[-1]) if context.segment else 0)
            finally:
                for ask in batch:
                    ask.done = True

    def _segments(self, context: _Context, stack: list[list[int]]) -> None:
        """Make sequence 0 hold exactly the shared segments ``stack``: keep the ones the
        context already has (as far as they agree), decode the others."""
        kept = context.segment or []
        keep = 0
        while keep < min(len(kept), len(stack)) and kept[keep] == stack[keep]:
            keep += 1
        if keep == 0:
            context.reset()
        else:
            context.drop(0, len(stack[keep - 1]))
        context.segment = stack[:keep]
        for level in range(keep, len(stack)):
            start = len(stack[level - 1]) if level else 0
            self._decode([(t, start + j, 0, False) for j, t in enumerate(stack[level][start:])], context)
            context.segment = stack[:level + 1]

    def _decode(self, entries: list[tuple[int, int, Any, bool]], context: _Context,
                wants: Sequence[set[int] | None] = ()) -> list[Any]:
        """Decode ``entries`` in order, at most ``self._chunk`` tokens and ``MAX_ROWS``
        logits rows per decode; the rows of the entries that ask for logits, in order: a
        ``Row``, or where ``wants`` (one per row) names tokens, {token: log P} of those
        (read from llama.cpp's buffer, no copy of the row)."""
        import numpy as np

        rows = []
        n_vocab = self._llm.n_vocab()
        scratch = self._scratch.setdefault(id(context), np.empty(n_vocab, dtype=np.float64))
        first = 0
        while first < len(entries):
            chunk: list[tuple[int, int, Any, bool]] = []
            for entry in entries[first:first + self._chunk]:
                if entry[3] and sum(e[3] for e in chunk) == MAX_ROWS:
                    break
                chunk.append(entry)
            context.decode(chunk)
            for i in (i for i, e in enumerate(chunk) if e[3]):
                want = wants[len(rows)] if wants else None
                row = Row(context.logits(i, n_vocab, "float32", copy=want is None), scratch)
                rows.append(row if want is None else {t: row[t] for t in want})
            first += len(chunk)
        return rows

    def _evaluate(self, context: _Context, batch: list[_Ask]) -> None:
        """Rows after each prompt (key ``()``) and after each partial continuation in its
        ``inner`` (token tuples, parents before children); for ``top_k`` asks, the top
        tokens and their word ends.

        Each prompt gets its own sequences, copies of sequence 0's shared segments: its
        tokens past them belong to its root sequence and to one sequence per trie node;
        node n's token sits at its depth in the sequences of n and of its descendants, so
        each node is decoded once and sees exactly the prompt and its own earlier tokens.
        Tokens without logits go first and the rows last, so that the rows of several
        prompts share decodes (each row reads the 262,144-row output matrix).
        """
        base = batch[0].base
        keyed: list[tuple[tuple[int, ...], tuple[int, int, Any, bool], Any]] = []
        root = 1
        for i, ask in enumerate(batch):
            ask.root = root
            seq = {node: root + n for n, node in enumerate(ask.inner, 1)}
            everyone = (root, *seq.values())
            for s in everyone:
                context.share(s)
            last = len(ask.ids) - 1
            keyed += [((base + j == last, 0, i, base + j), (t, base + j, everyone, base + j == last), (ask, ()))
                      for j, t in enumerate(ask.ids[base:])]
            keyed += [((1, len(node), i, 0), (node[-1], last + len(node), tuple(seq[m] for m in ask.inner
                                                                             if m[:len(node)] == node), True),
                       (ask, node)) for node in ask.inner]
            root += ask.sequences
        keyed.sort(key=lambda k: k[0])
        owners = [owner for _, entry, owner in keyed if entry[3]]
        wants = [None if ask.wanted is None else ask.wanted[node] for ask, node in owners]
        for (ask, node), row in zip(owners, self._decode([entry for _, entry, _ in keyed], context, wants)):
            ask.rows[node] = row
        if any(ask.top_k for ask in batch):
            self._word_ends(context, [ask for ask in batch if ask.top_k])

    def _word_ends(self, context: _Context, asks: list[_Ask]) -> None:
        """For next_tokens asks: the top tokens, and for the name tokens among them the
        probability that the word ends there (one more token in a copy of the prompt's
        sequence each)."""
        import numpy as np

        entries, owners = [], []
        for ask in asks:
            probs = ask.rows[()].probs()
            top = np.argpartition(-probs, ask.top_k - 1)[:ask.top_k]
            top = top[np.argsort(-probs[top], kind="stable")]
            ask.top = [(self.token_text(int(t)), float(probs[t]), None) for t in top]
            asked = [i for i, (text, _, _) in enumerate(ask.top)
                     if is_name_token(text) and not (ask.skip and ask.skip(text.strip()))][:ask.ends_for]
            for seq, i in enumerate(asked, ask.root + 1):
                context.share(seq, ask.root)
                entries.append((int(top[i]), len(ask.ids), seq, True))
                owners.append((ask, i))
        if entries:
            continues = self._continuation_mask()
            for (ask, i), row in zip(owners, self._decode(entries, context)):
                text, p, _ = ask.top[i]
                ask.top[i] = (text, p, float(row.probs(~continues).sum()))

    def _continuation_mask(self) -> Any:
        """True for tokens that go on with the word before them (letters with no leading space, - or ')."""
        import numpy as np

        with self._lock:
            if self._continues is None:
                from stereoprobe.backends.nextword import CONTINUATION_RE

                llm = self._llm
                texts = (llm.detokenize([i]).decode("utf-8", errors="replace") for i in range(llm.n_vocab()))
                self._continues = np.fromiter((CONTINUATION_RE.fullmatch(t) is not None for t in texts), bool,
                                              count=llm.n_vocab())
            return self._continues


def is_name_token(text: str) -> bool:
    """A space and a capitalised word of two letters or more: how a first name starts
    after "... called" (single letters are initials).

    >>> [is_name_token(t) for t in [" Sarah", " sarah", " The", "Sarah", " O'Neil", " A1", " M", " Jo"]]
    [True, False, True, False, True, False, False, True]
    """
    word = text[1:]
    return (text.startswith(" ") and len(word) >= 2 and word[:1].isupper()
            and word.replace("'", "").replace("-", "").isalpha())
