"""OpenAI's batch file formats: request lines written, output lines read.

Input (one JSON object a line, OpenAI's Batch API, ``vllm run-batch -i``, Azure OpenAI
batches)::

    {"custom_id": "55ca1ffe4e01-0", "method": "POST", "url": "/v1/chat/completions", "body": {...}}

Output (OpenAI's output and error files, ``vllm run-batch -o``)::

    {"id": "batch_req_...", "custom_id": "55ca1ffe4e01-0",
     "response": {"status_code": 200, "request_id": "...", "body": {<a chat.completion>}},
     "error": null}

A line whose ``response.status_code`` is 200 with a body is a reply; any other (an HTTP
error, ``error`` set: OpenAI's ``batch_expired``, vLLM's error text) is that request's
failure, with the message kept. ``read_results`` checks a file whole before anything is
stored: every line JSON with a ``custom_id`` this run asked, none twice, every reply's
``model`` the run's; the first wrong line is one error with its number.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator, Mapping

from stereoprobe.errors import DataError


def request_line(cid: str, url: str, body: Mapping[str, Any]) -> str:
    """One line of a batch input file (with its newline).

    >>> request_line("a-0", "/v1/chat/completions", {"model": "m"})
    '{"custom_id": "a-0", "method": "POST", "url": "/v1/chat/completions", "body": {"model": "m"}}\\n'
    """
    return json.dumps({"custom_id": cid, "method": "POST", "url": url, "body": body}, ensure_ascii=False) + "\n"


@dataclass(frozen=True)
class Result:
    """One output line: the reply's body, or the failure's message."""

    line: int
    custom_id: str
    body: dict[str, Any] | None
    error: str | None


def same_model(replied: str, asked: str) -> bool:
    """A reply of the model asked: the same name, or the provider's dated snapshot of it.

    >>> same_model("gpt-4o-mini-2024-07-18", "gpt-4o-mini"), same_model("gpt-4o", "gpt-4o-mini")
    (True, False)
    """
    return replied == asked or replied.startswith(asked + "-")


def _error_text(obj: Mapping[str, Any]) -> str:
    """The message of a failed line (OpenAI: ``error`` {code, message} or an HTTP error body;
    vLLM: ``error`` a string)."""
    error, response = obj.get("error"), obj.get("response") or {}
    if isinstance(error, Mapping):
        code, message = error.get("code"), error.get("message")
        return f"batch: {code}: {message}" if code else f"batch: {message}"
    if error:
        return f"batch: {error}"
    body = response.get("body") if isinstance(response, Mapping) else None
    detail = body.get("error", {}).get("message") if isinstance(body, Mapping) and isinstance(body.get("error"), Mapping) else None
    status = response.get("status_code") if isinstance(response, Mapping) else None
    return f"batch: HTTP {status}: {detail or 'no reply'}"


def parse_line(obj: Any, number: int, where: str) -> Result:
    """One output line read (``DataError`` naming the line when it is not one)."""
    if not isinstance(obj, dict) or not isinstance(obj.get("custom_id"), str):
        raise DataError(f"{where} line {number}: not a batch output line (no custom_id); give the output file "
                        "the batch wrote, OpenAI or vllm run-batch format (nothing was stored).")
    if "response" not in obj and "error" not in obj and "body" in obj:
        raise DataError(f"{where} line {number}: a request line (custom_id, method, url, body), not a result; give "
                        "the output file the batch wrote from it, not the request file (nothing was stored).")
    response = obj.get("response")
    body = response.get("body") if isinstance(response, dict) else None
    if isinstance(response, dict) and response.get("status_code") == 200 and isinstance(body, dict) \
            and not obj.get("error"):
        return Result(number, obj["custom_id"], body, None)
    return Result(number, obj["custom_id"], None, _error_text(obj))


def iter_results(path: Path) -> Iterator[Result]:
    where = str(path)
    try:
        with path.open(encoding="utf-8") as f:
            for number, text in enumerate(f, 1):
                if not text.strip():
                    continue
                try:
                    obj = json.loads(text)
                except json.JSONDecodeError as exc:
                    raise DataError(f"{where} line {number}: not JSON ({exc.msg}); give the batch's output file "
                                    "as it was written (nothing was stored).") from None
                yield parse_line(obj, number, where)
    except OSError as exc:
        raise DataError(f"Cannot read {where} ({exc.strerror}); give the batch's output file.") from None
    except UnicodeDecodeError:
        raise DataError(f"{where}: not UTF-8 text; give the batch's output file (JSON lines).") from None


class NotARequest(DataError):
    """A results line whose custom_id the run's requests (as the options given build them) do not have."""


def check_results(path: Path, asked: Mapping[str, Any] | set[str], model: str | None,
                  reply_model: str | None = None) -> int:
    """Check a whole output file before anything is stored; the number of lines. A reply must be of
    ``model`` (the run's), or of ``reply_model`` when given: the name an Azure OpenAI deployment's
    replies carry (the model's own, not the deployment's)."""
    seen: dict[str, int] = {}
    for result in iter_results(path):
        cid = result.custom_id
        if cid not in asked:
            raise NotARequest(f"{path} line {result.line}: custom_id {cid!r} is not a request of this run; "
                            "give the results of this run's request file (nothing was stored).")
        if cid in seen:
            raise DataError(f"{path} line {result.line}: custom_id {cid!r} again (first on line {seen[cid]}); "
                            "give each request's result once (nothing was stored).")
        seen[cid] = result.line
        replied = result.body.get("model") if result.body else None
        if model and isinstance(replied, str) and not any(same_model(replied, m) for m in (model, reply_model) if m):
            azure = (f"or, if {model!r} names an Azure OpenAI deployment (its replies carry the model's own name), "
                     f"pass --reply-model {replied}" if reply_model is None else
                     f"--reply-model is {reply_model!r}: give one file's lines of one model")
            raise DataError(f"{path} line {result.line}: a reply of model {replied!r}, but this run asks {model!r}; "
                            f"ingest it into a run of that model, {azure} (nothing was stored).")
    return len(seen)
