"""A fake OpenAI chat server whose hobby texts follow a known truth (stdlib only).

``POST /v1/chat/completions``: the user message is Template Prompt 4.2 for a name ("...
in 20 words. Mary."); the server answers ``n`` choices (the request's ``n``, default 1),
each a text of tests/hobbies_synth.py ("Mary loves painting and guitar. She also
enjoys quiet weekends at home.") whose label is drawn from the name's own probabilities:
a Dirichlet draw around ``truth[gender]`` seeded by the name, so a name's texts agree
more than chance. The name's gender is read from the study's names file. Draws are
seeded by the name and a per-name request counter: a run repeats its texts when its
requests arrive in the same order. A name in ``refuse`` gets a refusal; any other
message a 400. ``python tests/hobbies_fake.py [planted|null]`` serves until killed,
printing its base URL.

    with HobbiesFake(synth.PLANTED) as server:
        ... collect --study hobbies --base-url server.base_url --model fake-chat ...
"""

from __future__ import annotations

import json
import re
import socket
import sys
import threading
import time
import zlib
from http.server import BaseHTTPRequestHandler
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import hobbies_synth as synth  # noqa: E402
from fake_openai import Loopback  # noqa: E402

_NAME = re.compile(r"in 20 words\.\s*([A-Z][A-Za-z'-]+)\.?\s*$")
REFUSAL = "I'm sorry, but I can't describe a person from their name."


class HobbiesFake(Loopback):
    def __init__(self, truth: dict, concentration: float = 20.0, refuse: tuple[str, ...] = ()) -> None:
        from stereoprobe.studies.hobbies.names import PUBLISHED_PER_GENDER, load_names

        self.truth = truth
        self.concentration = concentration
        self.refuse = set(refuse)
        self.genders = {n.name: n.gender for n in load_names(per_gender=PUBLISHED_PER_GENDER)}
        self.requests = 0
        self._counts: dict[str, int] = {}
        self._lock = threading.Lock()

    def texts(self, name: str, n: int) -> list[str]:
        gender = self.genders[name]
        with self._lock:
            k = self._counts.get(name, 0)
            self._counts[name] = k + 1
            self.requests += 1
        p = synth.name_probabilities(np.random.default_rng(zlib.crc32(name.encode())), self.truth, gender,
                                     self.concentration)
        rng = np.random.default_rng([zlib.crc32(name.encode()), k])
        return [synth.text(rng, name, gender, synth.LABELS[rng.choice(len(p), p=p)]) for _ in range(n)]



class _Handler(BaseHTTPRequestHandler):
    fake: HobbiesFake
    protocol_version = "HTTP/1.1"

    def setup(self) -> None:
        super().setup()
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)  # no 40 ms Nagle wait per reply

    def log_message(self, format: str, *args: object) -> None:
        pass

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")
        users = [m.get("content") for m in body.get("messages", []) if m.get("role") == "user"]
        found = _NAME.search(str(users[-1] if users else ""))
        if self.path.rstrip("/") != "/v1/chat/completions" or not found or found.group(1) not in self.fake.genders:
            return self._send(400, {"error": {"message": "not a hobbies prompt", "type": "invalid_request_error"}})
        name, n = found.group(1), int(body.get("n") or 1)
        texts = [REFUSAL] * n if name in self.fake.refuse else self.fake.texts(name, n)
        choices = [{"index": i, "message": {"role": "assistant", "content": t}, "finish_reason": "stop",
                    "logprobs": None} for i, t in enumerate(texts)]
        tokens = sum(len(t.split()) for t in texts)
        self._send(200, {"id": f"chatcmpl-h{self.fake.requests}", "object": "chat.completion",
                         "created": int(time.time()), "model": body.get("model", "fake-chat"), "choices": choices,
                         "usage": {"prompt_tokens": 30, "completion_tokens": tokens, "total_tokens": 30 + tokens}})

    def _send(self, status: int, payload: dict) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


HobbiesFake.handler = _Handler


if __name__ == "__main__":
    server = HobbiesFake(synth.NULL if sys.argv[1:] == ["null"] else synth.PLANTED).start()
    print(server.base_url, flush=True)
    threading.Event().wait()
