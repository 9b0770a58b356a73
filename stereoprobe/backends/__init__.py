"""Model backends behind one small interface (base.Backend), and how to pick one.

An OpenAI-compatible endpoint is data (model, base URL, key variable), not a class per
vendor: chat mode uses Chat Completions, next-word mode uses /v1/completions with
logprobs. With no model and no base URL, the embedded local model runs offline.
"""

from __future__ import annotations

import contextlib
import contextvars
import os
from typing import Any, Iterator
from urllib.parse import urlparse

from stereoprobe.errors import BackendError, DataError

EMBEDDED_MODEL = "gemma-3-270m"
MODES = ("chat", "next-word")


def _is_loopback(url: str) -> bool:
    host = (urlparse(url).hostname or "").lower()
    return host in ("localhost", "::1") or host.startswith("127.")


def resolve_api_key(base_url: str | None, api_key_env: str | None) -> str:
    """The key from the environment; a loopback server may go without one.

    The key is returned, never logged or stored.
    """
    name = api_key_env or "OPENAI_API_KEY"
    key = os.environ.get(name, "").strip()
    if key:
        return key
    if _NO_KEY.get():
        return "not-needed"  # a batch step: the requests are written, not sent (stereoprobe/batch)
    if base_url and _is_loopback(base_url) and not api_key_env:
        return "not-needed"  # local servers (llama.cpp, vLLM, Ollama) ignore the key
    raise BackendError(f"No API key: set {name} in the environment, or pass --api-key-env NAME.")


_NO_KEY: contextvars.ContextVar[bool] = contextvars.ContextVar("stereoprobe_no_key", default=False)


@contextlib.contextmanager
def no_key_needed() -> Iterator[None]:
    """Backends made inside send nothing (a batch file is written, replies read back): no key needed."""
    token = _NO_KEY.set(True)
    try:
        yield
    finally:
        _NO_KEY.reset(token)


def check_base_url(base_url: str | None) -> None:
    if base_url is None:
        return
    parsed = urlparse(base_url)
    if parsed.scheme not in ("http", "https") or not parsed.hostname:
        raise DataError(f"--base-url {base_url!r} is not an http(s) URL; e.g. http://127.0.0.1:8000/v1")


def make_backend(
    model: str | None = None,
    base_url: str | None = None,
    mode: str | None = None,
    api_key_env: str | None = None,
    **options: Any,
) -> Any:
    """Pick and build the backend a collect run asks.

    - no model and no base URL: the embedded Gemma 3 270M, next-word mode;
    - ``model_file``: a GGUF file of the user's, run in-process like the embedded model:
      next-word mode, or with mode="chat" through the file's own chat template;
    - otherwise an OpenAI-compatible endpoint, chat mode (the paper's) unless
      mode="next-word". Options are passed to the backend (temperature, max_tokens,
      top_p, instruction, timeout, max_retries, concurrency, top_logprobs; next-word:
      phrase_filter (default True), word_rules (the study's group words and WordNet,
      backends/nextword.WordRules); embedded: workers).
    """
    if mode is not None and mode not in MODES:
        raise DataError(f"Unknown mode {mode!r}: use --mode chat or --mode next-word.")
    check_base_url(base_url)
    model_file = options.pop("model_file", None)
    if model_file is not None:
        return _file_backend(model_file, model, base_url, mode, options)
    next_word = mode == "next-word" or (model is None and base_url is None)
    if next_word:
        reject_chat_only(options)
    if model is None and base_url is None:
        if mode == "chat":
            raise DataError(
                "The embedded model is a base model and cannot chat; use --mode next-word, "
                "or give --model (and --base-url) for a chat model."
            )
        from stereoprobe.backends.local import LocalModelBackend

        return LocalModelBackend(workers=options.get("workers"), **_phrase_filter(options))
    if model is None:
        raise DataError("--base-url needs --model NAME (the model name the endpoint serves).")
    key = resolve_api_key(base_url, api_key_env)
    if mode == "next-word":
        from stereoprobe.backends.nextword_remote import NextWordCompletionsBackend

        keep = {k: v for k, v in options.items() if k in ("timeout", "max_retries", "top_logprobs")}
        if options.get("concurrency") is not None:  # --concurrency applies here too, no hidden cap
            keep["max_concurrency"] = options["concurrency"]
        return NextWordCompletionsBackend(model=model, base_url=base_url, api_key=key, **keep, **_phrase_filter(options))
    from stereoprobe.backends.chat import ChatBackend

    keep = {
        k: v
        for k, v in options.items()
        if k in ("instruction", "temperature", "max_tokens", "top_p", "timeout", "max_retries", "concurrency", "debias")
        and v is not None
    }
    return ChatBackend(model=model, api_key=key, base_url=base_url, **keep)


def _file_backend(path: Any, model: str | None, base_url: str | None, mode: str | None,
                  options: dict[str, Any]) -> Any:
    """A user's GGUF file in-process: next-word mode (default) or chat (its own template)."""
    from stereoprobe.backends.modelfile import check_model_file

    refuse_with_model_file(model, base_url)
    checked = check_model_file(path, workers=options.get("workers"), chat=mode == "chat")
    if mode != "chat":
        reject_chat_only(options)
        from stereoprobe.backends.local import LocalModelBackend

        return LocalModelBackend(checked.path, workers=options.get("workers"), **_phrase_filter(options))
    if options.get("temperature"):
        raise DataError("A model file chats greedily (temperature 0), so an answer depends only on its probe; "
                        "drop --temperature.")
    if options.get("phrase_filter", True) is False:
        raise DataError("--no-phrase-filter applies to next-word mode; drop it with --mode chat.")
    from stereoprobe.backends.local_chat import EmbeddedChatBackend

    keep = {k: v for k, v in options.items() if k in ("instruction", "max_tokens", "debias", "workers") and v is not None}
    return EmbeddedChatBackend(checked.path, **keep)


def refuse_with_model_file(model: str | None, base_url: str | None) -> None:
    if model is not None or base_url is not None:
        given = " and ".join(f for f, v in (("--model", model), ("--base-url", base_url)) if v is not None)
        raise DataError(f"--model-file runs a model file in-process; {given} name a served model. Give one or the other.")


def _phrase_filter(options: dict[str, Any]) -> dict[str, Any]:
    """phrase_filter=False (--no-phrase-filter): no phrase filter; else the backend's default;
    and the study's ``word_rules`` (backends/nextword.WordRules) for the next-word walk."""
    out: dict[str, Any] = {"word_rules": options.get("word_rules")}
    return {**out, "phrase_filter": None} if options.get("phrase_filter", True) is False else out


CHAT_ONLY = {"temperature": 0.0, "top_p": 1.0, "max_tokens": 300, "instruction": None, "debias": None}


def reject_chat_only(options: dict[str, Any]) -> None:
    """Next-word mode reads the model's distribution: chat sampling settings don't apply."""
    given = [k for k, default in CHAT_ONLY.items() if options.get(k, default) != default]
    if given:
        flags = ", ".join("--" + k.replace("_", "-") for k in given)
        verb = "applies" if len(given) == 1 else "apply"
        raise DataError(
            f"{flags} only {verb} to chat mode; next-word mode (the embedded model, --mode next-word) "
            "ranks the model's own next words. Drop them, or give --model for a chat model."
        )


#: A study that scores continuations reads a model file's probabilities, never its chat.
FILE_SCORED_NOT_CHAT = "This study reads a model file's exact probabilities in-process; drop --mode chat."


def make_scorer(
    model: str | None = None,
    base_url: str | None = None,
    mode: str | None = None,
    api_key_env: str | None = None,
    *,
    samples: int = 1,
    temperature: float = 0.0,
    timeout: float = 60.0,
    max_retries: int = 4,
    concurrency: int = 8,
    workers: int | None = None,
    model_file: str | None = None,
) -> Any:
    """The scorer a study that measures continuation probabilities asks (the jobs study).

    - no model and no base URL: the embedded model, exact (backends/scoring.py); with
      ``model_file`` a user's GGUF file the same way (checked first: ``modelfile.py``);
    - ``mode="next-word"``: a ``/v1/completions`` endpoint with echoed logprobs, exact;
    - otherwise chat: the first token's top_logprobs, or with ``samples`` > 1 at a
      temperature > 0, the shares of sampled replies (backends/scoring_remote.py).
    """
    if mode is not None and mode not in MODES:
        raise DataError(f"Unknown mode {mode!r}: use --mode chat or --mode next-word.")
    check_base_url(base_url)
    sampled = samples > 1
    if model_file is not None:
        from stereoprobe.backends.modelfile import check_model_file

        refuse_with_model_file(model, base_url)
        if mode == "chat":
            raise DataError(FILE_SCORED_NOT_CHAT)
        model_file = str(check_model_file(model_file, workers=workers).path)
    if model is None and base_url is None:
        if mode == "chat":
            raise DataError("The embedded model is a base model and cannot chat; drop --mode chat, "
                            "or give --model (and --base-url) for a chat model.")
        if sampled or temperature:
            raise DataError("--samples and --temperature apply only to chat models without logprobs; the embedded "
                            "model's probabilities are exact (drop them).")
        from stereoprobe.backends.scoring import EmbeddedScorer

        return EmbeddedScorer(model_file, workers=workers)
    if model is None:
        raise DataError("--base-url needs --model NAME (the model name the endpoint serves).")
    key = resolve_api_key(base_url, api_key_env)
    if mode == "next-word":
        if sampled or temperature:
            raise DataError("--samples and --temperature apply only to chat mode; --mode next-word reads exact "
                            "log-probabilities (drop them).")
        from stereoprobe.backends.scoring_remote import CompletionsScorer

        return CompletionsScorer(model, base_url, key, timeout=timeout, max_retries=max_retries, concurrency=concurrency)
    if sampled and not temperature:
        raise DataError("--samples K estimates shares from sampled replies: give a --temperature above 0 "
                        "(e.g. --temperature 1).")
    if temperature and not sampled:
        raise DataError("--temperature applies to the sampled estimate: add --samples K (K > 1), or drop it "
                        "for the first-token estimate.")
    from stereoprobe.backends.scoring_remote import ChatScorer

    return ChatScorer(model, base_url, key, estimate="sampled" if sampled else "first-token", temperature=temperature,
                      timeout=timeout, max_retries=max_retries, concurrency=concurrency)
