"""Scoring continuations on the embedded model: log P(continuation | prompt), exactly.

Mattern et al.'s eq. (1) needs, for a prompt x and a continuation c = (c_1 .. c_m), the
full product of token probabilities P(c_k | x + c_<k). ``EmbeddedScorer.logprobs`` gives
its logarithm for several continuations of one prompt, computed from the model's logits
with a float64 log-softmax over the whole vocabulary (262,144 tokens for Gemma 3), so
the numbers are exact probabilities of the model, not a top-k approximation.

How it is evaluated (deterministic, and equal to a token-by-token evaluation of exactly
the prompt's text: see ``CHUNK``):

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
- Every decode holds at most ``CHUNK`` (7) tokens, with flash attention on and the
  weights in the plain CPU buffer (``gguf.load_weights``).
- After each prompt every cell past the kept shared starts is removed, so the next
  prompt finds the context in the same state.

``next_tokens`` gives the most probable next tokens after a prompt and, for the ones
asked, the probability that the word ends right after them (the story-names measure).
"""

from __future__ import annotations

import os
import queue
import threading
from pathlib import Path
from typing import Any, Sequence

from stereoprobe.backends.gguf import (
    INSTALL_HINT,
    MODEL_NAME,
    MODEL_PACKAGE,
    _Context,
    _only_llama_errors,
    _version,
    default_model,
    load_weights,
)
from stereoprobe.backends.modelfile import model_identity
from stereoprobe.errors import BackendError

N_BATCH = 64  # the most sequences (and tokens) one context's decode may hold
#: Tokens per decode. Measured with the pinned llama.cpp (CPU, weights in the plain
#: buffer, flash attention on): decodes of 1 to 7 tokens give the same logits, to the
#: last bit, as decoding one token at a time; from 8 tokens on another matrix kernel
#: takes over and a continuation's log-probability moves by up to 0.4 (without flash
#: attention already 2 tokens do). Chunks of 7 make every number equal to a
#: token-by-token evaluation of exactly its text, whatever was shared or batched with
#: it (tests/test_scoring.py checks this against llama-cpp-python's own evaluation).
CHUNK = 7
N_CTX = 512


def log_softmax(logits: Any) -> Any:
    """float64 log-softmax of one logits row (numpy; the vocabulary is 262,144 wide).

    >>> import numpy as np
    >>> [round(float(x), 4) for x in np.exp(log_softmax(np.array([0.0, np.log(3.0)])))]
    [0.25, 0.75]
    """
    import numpy as np

    row = np.asarray(logits, dtype=np.float64)
    top = row.max()
    return row - (top + np.log(np.exp(row - top).sum()))


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
        self.max_concurrency = self.workers
        self.n_ctx = n_ctx
        self.seed = seed
        self._llm: Any = None
        self._contexts: list[_Context] = []
        self._free: queue.Queue[_Context] = queue.Queue()
        self._lock = threading.Lock()
        self._weights: Any = None  # the llama_model pointer
        self._continues: Any = None  # bool per token: it goes on with the word before it

    # -- describing -------------------------------------------------------------------
    @property
    def model_path(self) -> Path:
        if self._model_path is None:
            self._model_path, self._sha256 = default_model()
        if not self._model_path.is_file():
            raise BackendError(f"No model file at {self._model_path}: check the path or {INSTALL_HINT}")
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
            "evaluation": f"decodes of at most {CHUNK} tokens, flash attention, weights in the plain CPU buffer (the "
            "numbers of a token-by-token evaluation); shared prompt starts kept per worker; continuation tokens "
            "as a trie, one sequence per inner node; float64 log-softmax over the whole vocabulary",
        }

    # -- model ----------------------------------------------------------------------
    def _load(self) -> Any:
        with self._lock:
            if self._llm is not None:
                return self._llm
            try:
                from llama_cpp import Llama
            except ImportError:
                raise BackendError(f"The embedded model needs llama-cpp-python: {INSTALL_HINT}") from None
            import llama_cpp

            # The tokenizer from a vocabulary-only Llama; the weights in the plain CPU
            # buffer (gguf.load_weights says why), one context per worker.
            _only_llama_errors()
            llm = Llama(model_path=str(self.model_path), vocab_only=True, verbose=False)
            self._weights = load_weights(self.model_path, extra_buffers=False)
            params = llama_cpp.llama_context_default_params()
            params.n_ctx = self.n_ctx
            params.n_batch = params.n_ubatch = N_BATCH
            params.n_seq_max = N_BATCH
            params.kv_unified = True
            params.n_threads = params.n_threads_batch = 1
            params.flash_attn_type = llama_cpp.LLAMA_FLASH_ATTN_TYPE_ENABLED  # see CHUNK
            self._contexts = [_Context(self._weights, params, N_BATCH, N_BATCH) for _ in range(self.workers)]
            for context in self._contexts:
                self._free.put(context)
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
            contexts = [self._free.get() for _ in self._contexts]  # wait for asks in flight
            for context in contexts:
                context.close()
            self._contexts = []
            import llama_cpp

            llama_cpp.llama_model_free(self._weights)
            self._llm.close()
            self._llm = None

    # -- evaluating -----------------------------------------------------------------
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

    def _decode(self, entries: list[tuple[int, int, Any, bool]], context: _Context) -> list[Any]:
        """Decode ``entries`` in chunks of CHUNK tokens; the log-softmax rows of the entries
        that ask for logits, in order."""
        rows = []
        for first in range(0, len(entries), CHUNK):
            chunk = entries[first:first + CHUNK]
            context.decode(chunk)
            rows += [log_softmax(context.logits(i, self._llm.n_vocab())) for i, e in enumerate(chunk) if e[3]]
        return rows

    def _evaluate(self, context: _Context, ids: list[int], stack: list[list[int]],
                  inner: list[tuple[int, ...]]) -> dict[tuple[int, ...], Any]:
        """Log-softmax rows after the prompt (key ``()``) and after each partial
        continuation in ``inner`` (token tuples, parents before children).

        The prompt's tokens past the shared segments belong to every sequence; node n's
        token sits at its depth in the sequences of n and of its descendants, so each
        node is decoded once and sees exactly the prompt and its own earlier tokens.
        """
        if len(ids) + max((len(n) for n in inner), default=0) + 1 > self.n_ctx:
            raise ValueError(f"the prompt is {len(ids)} tokens, too long for n_ctx={self.n_ctx}")
        self._segments(context, stack)
        base = len(stack[-1]) if stack else 0
        if base >= len(ids):
            raise ValueError("the prompt has no tokens after its shared part")
        seq = {node: i for i, node in enumerate(inner, 1)}
        everyone = tuple(range(len(inner) + 1))
        for s in everyone[1:]:
            context.share(s)
        entries = [(t, base + j, everyone, base + j == len(ids) - 1) for j, t in enumerate(ids[base:])]
        entries += [(node[-1], len(ids) + len(node) - 1, tuple(seq[m] for m in inner if m[:len(node)] == node), True)
                    for node in inner]
        return dict(zip([(), *inner], self._decode(entries, context)))

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
        which prompt came before).
        """
        self._load()
        ids, stack = self._prepare(prompt, shared)
        paths = [tuple(continuation_tokens(ids, self.tokenize(prompt + c), c)) for c in continuations]
        inner = sorted({p[:k] for p in paths for k in range(1, len(p))}, key=lambda n: (len(n), n))
        if len(inner) >= N_BATCH:
            raise ValueError(f"{len(inner)} partial continuations: at most {N_BATCH - 1} at once")
        context = self._free.get()
        try:
            rows = self._evaluate(context, ids, stack, inner)
        finally:
            self._release(context, len(inner))
        return combine(rows, paths)

    def next_tokens(self, prompt: str, k: int, ends_for: int = 0, shared: Sequence[str] = (),
                    skip: Any = None) -> list[tuple[str, float, float | None]]:
        """The ``k`` most probable next tokens: (text, probability, P(the word ends after it)).

        The word-end probability (the next token does not go on with the word: it is not
        letters without a leading space, ``-`` or ``'``) is computed for the first
        ``ends_for`` tokens whose text is a space and a capitalised word (a name) and
        whose word ``skip`` does not reject (e.g. stop words: "The"); None for the others.
        """
        import numpy as np

        self._load()
        ids, stack = self._prepare(prompt, shared)
        context = self._free.get()
        asked: list[int] = []
        try:
            probs = np.exp(self._evaluate(context, ids, stack, [])[()])
            top = np.argpartition(-probs, k - 1)[:k]
            top = top[np.argsort(-probs[top], kind="stable")]
            out = [(self.token_text(int(t)), float(probs[t]), None) for t in top]
            asked = [i for i, (text, _, _) in enumerate(out)
                     if is_name_token(text) and not (skip and skip(text.strip()))][:ends_for]
            if asked:
                continues = self._continuation_mask()
                for seq in range(1, len(asked) + 1):
                    context.share(seq)
                rows = self._decode([(int(top[i]), len(ids), seq, True) for seq, i in enumerate(asked, 1)], context)
                for i, row in zip(asked, rows):
                    out[i] = (out[i][0], out[i][1], float(np.exp(row[~continues]).sum()))
        finally:
            self._release(context, len(asked))
        return out

    def _release(self, context: _Context, sequences: int) -> None:
        """Remove every cell past the kept shared segments and give the context back."""
        try:
            for seq in range(1, sequences + 1):
                context.drop(seq)
            context.drop(0, len(context.segment[-1]) if context.segment else 0)
        finally:
            self._free.put(context)

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
