"""How a coreference probe is asked of a model, and the record its answer becomes.

Two methods (the record and the manifest say which):

- ``logprob`` (the embedded model; ``--mode next-word``: a ``/v1/completions`` endpoint
  that echoes prompt log-probabilities): nothing is generated. The two replies the answer
  format asks for, " The <A>" and " The <B>" (``CorefProbe.continuations``), are scored
  after the prompt as full token products (backends/scoring.py, scoring_remote.py); the
  answer is the more probable one (``answers.decide``) and both log-probabilities are
  stored.
- ``chat`` (``--model M``, 000's method): the prompt is the user message, exactly the
  probe's text (000's answer-format instruction, the sentence, the question); the reply
  is stored and parsed with 000's rule (``answers.parse_answer``), store-side, so that
  ``stereoprobe reparse`` can parse it again; a refusal is recorded as one. Sterlie et
  al.'s prompts (``--templates sterlie``) are read by their reading (``--reading``,
  reading.py), which the manifest records.
"""

from __future__ import annotations

import time
from typing import Any, Mapping

from stereoprobe.errors import BackendError, DataError
from stereoprobe.studies.coreference.answers import PARSER_VERSION, decide
from stereoprobe.studies.coreference.probes import CorefProbe
from stereoprobe.studies.coreference.records import CorefRecord

#: What chat mode's user message is: the probe's text as it stands (stored in the manifest).
MESSAGE = "{probe}"
LOGPROB_ONLY = ("samples", "temperature", "max_tokens", "top_p", "baseline_samples", "reading")
_DEFAULTS = {"samples": 1, "temperature": 0.0, "max_tokens": 300, "top_p": 1.0, "baseline_samples": None,
             "reading": None}


class CorefBackend:
    """What collect drives for the coreference study: a scorer (logprob) or a chat backend."""

    def __init__(self, inner: Any, method: str, reading: str | None = None, baseline_samples: int | None = None
                 ) -> None:
        self.inner = inner
        self.method = method
        self.reading = reading  # chat, --templates sterlie: reading.READINGS; None: 000's rule
        self.baseline_samples = baseline_samples
        self.mode = inner.mode
        self.max_concurrency = inner.max_concurrency

    def describe(self) -> dict[str, Any]:
        from stereoprobe.studies.coreference.templates import load_instruction

        out = {**self.inner.describe(), "method": self.method}
        if self.method == "chat":
            out.update(instruction=load_instruction(), parser_version=PARSER_VERSION,
                       message="the probe's text, as one user message")
            if self.reading is not None:  # a --templates sterlie run: how its replies are read
                from stereoprobe.studies.coreference.reading import VERSION

                out.update(reading=self.reading, reading_version=VERSION)
            if self.baseline_samples is not None:
                out["baseline_samples"] = self.baseline_samples
        else:
            out["replies"] = "' The <A>' and ' The <B>' after the prompt, each a full product of token probabilities"
        return out

    def attempts_of_last_ask(self) -> int:
        return self.inner.attempts_of_last_ask() if hasattr(self.inner, "attempts_of_last_ask") else 1

    def close(self) -> None:
        self.inner.close()


def method_of(options: Mapping[str, Any]) -> str:
    """``logprob`` (the embedded model, ``--mode next-word``) or ``chat``; options that do not
    fit the method are refused in one line."""
    model, base_url, mode = options.get("model"), options.get("base_url"), options.get("mode")
    embedded = model is None and base_url is None
    if options.get("model_file") is not None and mode == "chat":  # a GGUF file with its own chat template
        return "chat"
    if embedded and mode == "chat":
        raise DataError("The embedded model is a base model and cannot chat; drop --mode chat (logprob mode), "
                        "or give --model (and --base-url) for a chat model.")
    if embedded or mode == "next-word":
        given = [k for k in LOGPROB_ONLY if options.get(k) not in (None, _DEFAULTS[k])]
        if given:
            flags = ", ".join("--" + k.replace("_", "-") for k in given)
            design = options.get("design")
            if design not in (None, "default"):  # the design set them, not the user
                raise DataError(f"The {design} design samples a chat model's replies ({flags}); logprob mode (the "
                                f"embedded model, --mode next-word) has none: give --model for a chat model, or drop "
                                f"--design {design}.")
            raise DataError(f"{flags} apply to chat mode; logprob mode (the embedded model, --mode next-word) scores "
                            "both replies exactly: drop them, or give --model for a chat model.")
        return "logprob"
    if options.get("workers") is not None:
        raise DataError("--workers applies to the embedded model; a chat model takes --concurrency.")
    return "chat"


def make_coref_backend(options: Mapping[str, Any]) -> CorefBackend:
    """Logprob mode for the embedded model and ``--mode next-word``; chat mode otherwise."""
    from stereoprobe.backends import make_backend, make_scorer
    from stereoprobe.studies.coreference.reading import STERLIE
    from stereoprobe.studies.coreference.sterlie import SET

    model, base_url, mode = options.get("model"), options.get("base_url"), options.get("mode")
    timeout, retries, concurrency = options.get("timeout") or 60.0, options.get("max_retries", 4), options.get("concurrency") or 8
    if method_of(options) == "logprob":
        scorer = make_scorer(model, base_url, mode, options.get("api_key_env"), timeout=timeout, max_retries=retries,
                             concurrency=concurrency, workers=options.get("workers"), model_file=options.get("model_file"))
        return CorefBackend(scorer, "logprob")
    chat = make_backend(model, base_url, "chat", options.get("api_key_env"), instruction=MESSAGE,
                        temperature=options.get("temperature") or 0.0, max_tokens=options.get("max_tokens") or 300,
                        top_p=options.get("top_p") if options.get("top_p") is not None else 1.0,
                        timeout=timeout, max_retries=retries, concurrency=concurrency,
                        **({"model_file": options["model_file"], "workers": options.get("workers")}
                           if options.get("model_file") is not None else {}))
    sterlie = options.get("templates") == SET
    return CorefBackend(chat, "chat", reading=(options.get("reading") or STERLIE) if sterlie else None,
                        baseline_samples=options.get("baseline_samples"))


def _logprob(backend: CorefBackend, probe: CorefProbe) -> dict[str, Any]:
    la, lb = backend.inner.logprobs(probe.text, list(probe.continuations), shared=probe.shared)
    return {"answer": decide(la, lb), "logprob_a": float(la), "logprob_b": float(lb)}


def _chat(backend: CorefBackend, probe: CorefProbe) -> dict[str, Any]:
    answer = backend.inner.ask(probe)
    about = {"raw": answer.raw, "usage": answer.usage, "response": answer.response}
    if answer.refused:  # the API's own refusal (message.refusal)
        return {"answer": "U", "refused": True, **about}
    from stereoprobe.studies.coreference.reading import read

    parsed = read(answer.raw, probe, backend.reading)
    if answer.logprobs:  # the reply's probability of naming each profession, where it can be read
        from stereoprobe.backends.chat_logprobs import option_probabilities

        options = [f"The {probe.profession_a}", f"The {probe.profession_b}"]
        p = option_probabilities(answer.logprobs, options) or {}
        about.update(p_a=p.get(options[0]), p_b=p.get(options[1]), logprobs=answer.logprobs)
    return {"answer": parsed.answer, "refused": parsed.refused, **about}


def ask(backend: CorefBackend, probe: CorefProbe, sample: int, preflight: bool = False) -> tuple[CorefRecord, bool]:
    """One probe's record, and whether its request timed out (collect's ``StudyRun.ask``)."""
    start = time.perf_counter()
    try:
        found = _logprob(backend, probe) if backend.method == "logprob" else _chat(backend, probe)
    except BackendError:
        raise
    except Exception as exc:  # stored as this probe's error; the run goes on
        if preflight and isinstance(exc, ConnectionError):
            raise BackendError(f"Cannot reach the endpoint ({exc}); check --base-url and that the server is running.") from None
        record = CorefRecord.of(probe, sample, backend.method, error=str(exc) or type(exc).__name__,
                                attempts=backend.attempts_of_last_ask(), latency_s=round(time.perf_counter() - start, 4))
        return record, "Timeout" in type(exc).__name__ or isinstance(exc, TimeoutError)
    return CorefRecord.of(probe, sample, backend.method, **found, attempts=backend.attempts_of_last_ask(),
                          latency_s=round(time.perf_counter() - start, 4)), False
