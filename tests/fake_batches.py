"""Fake batch APIs on 127.0.0.1 for tests: OpenAI's Files and Batches, Anthropic's Message Batches.

Every request in a batch is answered by a :class:`fake_openai.FakeOpenAI` (``answers``),
over HTTP, exactly as that server answers a live request: the answer rule of a live run
and of a batch run is one and the same, so their records can be compared probe by probe.

OpenAI (``/v1/files``, ``/v1/files/{id}/content``, ``/v1/batches``, ``/v1/batches/{id}``,
``/v1/batches/{id}/cancel``): a batch is ``validating`` when created; each retrieve after
``in_progress_polls`` retrieves (default 0) ends it, unless ``hold`` holds it (True: every
batch, or a set of batch ids; it stays ``in_progress`` until :meth:`release`). Anthropic (``/v1/messages/batches`` and the same
paths): the requests' params become a chat request to ``answers``, the reply a message.
A live ``/v1/chat/completions`` request is passed to ``answers`` too (one endpoint for both,
as OpenAI's).

Faults: ``fail_uploads`` (the next N uploads get HTTP 500), ``errored`` (custom_ids whose
line errors: HTTP 500 in OpenAI's error file, ``errored`` in Anthropic's results),
``expire`` (a batch ends ``expired`` after answering only its first ``expire_after``
requests: OpenAI writes the rest as ``batch_expired`` errors, Anthropic as ``expired``).
A cancelled batch answers nothing more: OpenAI's has no line for the requests it did not
run, Anthropic's a ``canceled`` result for each.
"""

from __future__ import annotations

import json
import re
import threading
import time
import urllib.error
import urllib.request
from email.parser import BytesParser
from email.policy import HTTP
from http.server import BaseHTTPRequestHandler
from typing import Any

from fake_openai import FakeOpenAI, Loopback


class FakeBatches(Loopback):
    def __init__(self, answers: FakeOpenAI, api_key: str | None = None) -> None:
        self.answers, self.api_key = answers, api_key
        self.files: dict[str, bytes] = {}
        self.batches: dict[str, dict[str, Any]] = {}  # OpenAI and Anthropic, by id
        self.created: list[str] = []  # batch ids in order of creation
        self.in_progress_polls = 0
        self.hold: bool | set[str] = False  # True: every batch; a set: those batch ids
        self.fail_uploads = 0
        self.errored: set[str] = set()
        self.expire = False
        self.expire_after = 0
        self.polls = 0
        self._lock = threading.Lock()

    # -- life cycle ---------------------------------------------------------------

    @property
    def anthropic_url(self) -> str:
        return self.base_url.removesuffix("/v1")

    def release(self) -> None:
        """Batches held in progress may end at their next retrieve."""
        self.hold = False

    def _held(self, batch_id: str) -> bool:
        return self.hold is True or (isinstance(self.hold, (set, frozenset)) and batch_id in self.hold)

    def requests_of(self, batch_id: str) -> list[str]:
        return [cid for cid, _ in self.batches[batch_id]["lines"]]

    # -- the answer rule: the live fake server's ------------------------------------
    def answer(self, url: str, body: dict) -> tuple[int, dict]:
        request = urllib.request.Request(self.answers.base_url.removesuffix("/v1") + url, data=json.dumps(body).encode(),
                                         headers={"Content-Type": "application/json",
                                                  "Authorization": f"Bearer {self.answers.api_key}"})
        try:
            with urllib.request.urlopen(request, timeout=30) as reply:
                return reply.status, json.loads(reply.read())
        except urllib.error.HTTPError as exc:
            return exc.code, json.loads(exc.read() or b"{}")

    # -- OpenAI ---------------------------------------------------------------------
    def upload(self, content: bytes) -> tuple[int, dict]:
        with self._lock:
            if self.fail_uploads:
                self.fail_uploads -= 1
                return 500, {"error": {"message": "The server had an error while uploading.", "type": "server_error"}}
            file_id = f"file-{len(self.files) + 1}"
            self.files[file_id] = content
        return 200, {"id": file_id, "object": "file", "bytes": len(content), "created_at": int(time.time()),
                     "filename": "input.jsonl", "purpose": "batch", "status": "processed"}

    def create(self, body: dict) -> tuple[int, dict]:
        content = self.files.get(body.get("input_file_id"))
        if content is None:
            return 404, {"error": {"message": "No such file.", "type": "invalid_request_error"}}
        lines = [json.loads(x) for x in content.decode().splitlines() if x.strip()]
        return 200, self._new("openai", [(x["custom_id"], x) for x in lines], body)

    def _new(self, kind: str, lines: list[tuple[str, dict]], body: dict) -> dict:
        with self._lock:
            batch_id = f"{'msgbatch' if kind == 'anthropic' else 'batch'}_{len(self.created) + 1}"
            self.batches[batch_id] = {"id": batch_id, "kind": kind, "lines": lines, "status": "validating",
                                      "polls": 0, "metadata": body.get("metadata"), "output": [], "errors": []}
            self.created.append(batch_id)
        return self.view(batch_id)

    def retrieve(self, batch_id: str) -> dict:
        b = self.batches[batch_id]
        with self._lock:
            self.polls += 1
            b["polls"] += 1
            ended = b["status"] in ("completed", "expired", "cancelled", "ended")
            if b["status"] == "cancelling":
                b["status"] = "cancelled"
                if b["kind"] == "anthropic":  # Anthropic reports each request cancelled before it ran
                    b["errors"] += [(cid, "canceled", None) for cid, _ in b["lines"]]
            elif not ended and (self._held(b["id"]) or b["polls"] <= self.in_progress_polls):
                b["status"] = "in_progress"
            elif not ended:
                self._run(b)
        return self.view(batch_id)

    def _run(self, b: dict) -> None:
        """Answer the batch's lines (the first ``expire_after`` only, when it expires)."""
        for n, (cid, line) in enumerate(b["lines"]):
            if self.expire and n >= self.expire_after:
                b["errors"].append((cid, None, "expired"))
                continue
            if cid in self.errored:
                b["errors"].append((cid, 500, {"error": {"message": "The server had an error.", "type": "server_error"}}))
                continue
            body = line["body"] if b["kind"] == "openai" else _chat_body(line["params"])
            status, reply = self.answer(line.get("url", "/v1/chat/completions"), body)
            (b["output"] if status == 200 else b["errors"]).append((cid, status, reply))
        b["status"] = "expired" if self.expire else "completed"

    def cancel(self, batch_id: str) -> dict:
        b = self.batches[batch_id]
        if b["status"] not in ("completed", "expired", "cancelled"):
            b["status"] = "cancelling"
        return self.view(batch_id)

    def view(self, batch_id: str) -> dict:
        b = self.batches[batch_id]
        if b["kind"] == "anthropic":
            return _anthropic_view(b, self.anthropic_url)
        ended = b["status"] in ("completed", "expired", "cancelled")
        return {"id": batch_id, "object": "batch", "endpoint": "/v1/chat/completions", "errors": None,
                "input_file_id": "file-x", "completion_window": "24h", "status": b["status"],
                "output_file_id": f"{batch_id}-output" if ended and b["output"] else None,
                "error_file_id": f"{batch_id}-errors" if ended and b["errors"] else None,
                "created_at": 0, "metadata": b["metadata"],
                "request_counts": {"total": len(b["lines"]), "completed": len(b["output"]),
                                   "failed": len(b["errors"]) if ended else 0}}

    def file_content(self, file_id: str) -> bytes | None:
        batch_id, _, which = file_id.rpartition("-")
        b = self.batches.get(batch_id)
        if b is None:
            return self.files.get(file_id)
        rows = b["output"] if which == "output" else b["errors"]
        return "".join(json.dumps(_openai_line(n, cid, status, reply)) + "\n"
                       for n, (cid, status, reply) in enumerate(rows, 1)).encode()

    # -- Anthropic --------------------------------------------------------------------
    def create_anthropic(self, body: dict) -> tuple[int, dict]:
        return 200, self._new("anthropic", [(r["custom_id"], r) for r in body.get("requests", [])], body)

    def anthropic_results(self, batch_id: str) -> bytes:
        b = self.batches[batch_id]
        return "".join(json.dumps({"custom_id": cid, "result": _anthropic_result(status, reply)}) + "\n"
                       for cid, status, reply in b["output"] + b["errors"]).encode()


def _chat_body(params: dict) -> dict:
    return {k: v for k, v in params.items() if k in ("model", "messages", "max_tokens", "temperature", "top_p")}


def _openai_line(n: int, cid: str, status: int | None, reply: Any) -> dict:
    if status is None:
        return {"id": f"batch_req_{n}", "custom_id": cid, "response": None,
                "error": {"code": "batch_expired",
                          "message": "This request could not be executed before the completion window expired."}}
    return {"id": f"batch_req_{n}", "custom_id": cid,
            "response": {"status_code": status, "request_id": f"req_{n}", "body": reply}, "error": None}


def _anthropic_result(status: int | str | None, reply: Any) -> dict:
    if status is None:
        return {"type": "expired"}
    if status == "canceled":
        return {"type": "canceled"}
    if status != 200:
        return {"type": "errored", "error": {"type": "error", "error": {"type": "api_error",
                                                                        "message": reply["error"]["message"]}}}
    message = reply["choices"][0]["message"]
    refused = message.get("refusal") is not None and message.get("content") is None
    usage = reply.get("usage") or {}
    return {"type": "succeeded", "message": {
        "id": reply["id"].replace("chatcmpl", "msg"), "type": "message", "role": "assistant", "model": reply["model"],
        "content": [{"type": "text", "text": message["refusal"] if refused else message["content"]}],
        "stop_reason": "refusal" if refused else "end_turn", "stop_sequence": None,
        "usage": {"input_tokens": usage.get("prompt_tokens", 0), "output_tokens": usage.get("completion_tokens", 0)}}}


def _anthropic_view(b: dict, root: str) -> dict:
    ended = b["status"] in ("completed", "expired", "cancelled")
    expired = sum(1 for _, s, _ in b["errors"] if s is None)
    canceled = sum(1 for _, s, _ in b["errors"] if s == "canceled")
    return {"id": b["id"], "type": "message_batch", "processing_status": "ended" if ended else
            ("canceling" if b["status"] == "cancelling" else "in_progress"),
            "request_counts": {"processing": 0 if ended else len(b["lines"]), "succeeded": len(b["output"]),
                               "errored": len(b["errors"]) - expired - canceled, "canceled": canceled,
                               "expired": expired},
            "created_at": "2026-11-25T00:00:00Z", "expires_at": "2026-11-26T00:00:00Z", "archived_at": None,
            "cancel_initiated_at": None, "ended_at": "2026-11-25T00:00:01Z" if ended else None,
            "results_url": f"{root}/v1/messages/batches/{b['id']}/results" if ended else None}


class _Handler(BaseHTTPRequestHandler):
    fake: FakeBatches
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: object) -> None:
        pass

    def _body(self) -> bytes:
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length else b""

    def _send(self, status: int, payload: Any, raw: bool = False) -> None:
        data = payload if raw else json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/octet-stream" if raw else "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _authorised(self) -> bool:
        key = self.fake.api_key
        if key is None or self.headers.get("Authorization") == f"Bearer {key}" or self.headers.get("x-api-key") == key:
            return True
        self._send(401, {"error": {"message": "Incorrect API key provided.", "type": "authentication_error"}})
        return False

    def do_GET(self) -> None:
        self._body()
        if not self._authorised():
            return
        fake, path = self.fake, self.path.split("?")[0]
        if m := re.fullmatch(r"/v1/files/([^/]+)/content", path):
            content = fake.file_content(m[1])
            return self._send(200, content, raw=True) if content is not None else self._send(404, {})
        if m := re.fullmatch(r"/v1/messages/batches/([^/]+)/results", path):
            return self._send(200, fake.anthropic_results(m[1]), raw=True)
        if m := re.fullmatch(r"/v1/(?:messages/)?batches/([^/]+)", path):
            return self._send(200, fake.retrieve(m[1])) if m[1] in fake.batches else self._send(404, {})
        self._send(404, {"error": {"message": f"Unknown path {path}"}})

    def do_POST(self) -> None:
        raw = self._body()
        if not self._authorised():
            return
        fake, path = self.fake, self.path.split("?")[0]
        if path == "/v1/files":
            return self._send(*fake.upload(_multipart_file(self.headers.get("Content-Type", ""), raw)))
        body = json.loads(raw) if raw else {}
        if path == "/v1/chat/completions":  # a live request at the same endpoint (--retry-failed live)
            return self._send(*fake.answer(path, body))
        if path == "/v1/batches":
            return self._send(*fake.create(body))
        if path == "/v1/messages/batches":
            return self._send(*fake.create_anthropic(body))
        if m := re.fullmatch(r"/v1/(?:messages/)?batches/([^/]+)/cancel", path):
            return self._send(200, fake.cancel(m[1]))
        self._send(404, {"error": {"message": f"Unknown path {path}"}})


def _multipart_file(content_type: str, raw: bytes) -> bytes:
    """The ``file`` part of a multipart/form-data upload (what the openai client sends)."""
    message = BytesParser(policy=HTTP).parsebytes(f"Content-Type: {content_type}\r\n\r\n".encode() + raw)
    for part in message.iter_parts():
        if part.get_param("name", header="content-disposition") == "file":
            return part.get_payload(decode=True)
    return b""


FakeBatches.handler = _Handler
