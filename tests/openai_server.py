"""A small OpenAI-compatible chat server on 127.0.0.1 for tests (threaded, stdlib only, Pillow to decode images).

    with OpenAIServer(respond=lambda request, images: "Your option: B") as server:
        client = openai.OpenAI(base_url=server.url, api_key="x")
        ...
        assert server.count == 1 and len(server.images[0]) == 3

- ``respond(request, images)`` returns the text of one choice (called once per choice); ``images`` are the decoded
  images of the request, in the order of their ``image_url`` parts (``Decoded``: size, mode, sha256 of the pixels
  and of the encoded bytes). A fixed string or a list of strings (cycled) also works.
- ``honour_n``: return n choices when the request asks for n (vLLM does), else always one (llama.cpp does).
- ``fail(*faults)``: the next requests fail in order, one fault each: an HTTP status (500, 429, 503 ...) or
  ``"timeout"`` (the reply is delayed by ``timeout_delay`` seconds, past the client's timeout). A failed status
  carries ``Retry-After: retry_after`` seconds (the openai client waits that long before it retries).
- ``always``: a fault every request gets once the ``fail`` queue is empty (an endpoint that is down: 500, or hangs:
  ``"timeout"`` with a long ``timeout_delay``); None (the default) answers.
- ``requests`` (parsed bodies), ``images`` (per request), ``count`` (all requests, faults included).
- ``refuse_schema``: answer a request with a ``response_format`` of type ``json_schema`` with HTTP 400 naming
  ``response_format``, as servers without structured outputs do.
- :class:`Liar` answers the rewriter's requests with its own steps back, each with one planted lie.
"""

from __future__ import annotations

import base64
import hashlib
import io
import json
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from PIL import Image


@dataclass(frozen=True)
class Decoded:
    size: tuple[int, int]
    mode: str
    pixels_sha256: str
    bytes_sha256: str


def decode_data_url(url: str) -> Decoded:
    if not url.startswith("data:") or ";base64," not in url:
        raise ValueError(f"not a base64 data URL: {url[:40]!r}")
    raw = base64.b64decode(url.split(";base64,", 1)[1], validate=True)
    with Image.open(io.BytesIO(raw)) as im:
        im.load()
        return Decoded(im.size, im.mode, hashlib.sha256(im.tobytes()).hexdigest(), hashlib.sha256(raw).hexdigest())


Responder = Callable[[dict[str, Any], list[Decoded]], str]


class OpenAIServer:
    def __init__(
        self,
        respond: Responder | str | list[str] = "Your option: A",
        *,
        honour_n: bool = True,
        model: str = "test-model",
        timeout_delay: float = 2.0,
        retry_after: float = 0.01,
        refuse_schema: bool = False,
    ) -> None:
        if isinstance(respond, str):
            text = respond
            respond = lambda request, images: text  # noqa: E731
        elif isinstance(respond, list):
            texts, counter = list(respond), iter(range(10**9))
            respond = lambda request, images: texts[next(counter) % len(texts)]  # noqa: E731
        self.respond: Responder = respond
        self.honour_n = honour_n
        self.model = model
        self.timeout_delay = timeout_delay
        self.retry_after = retry_after
        self.refuse_schema = refuse_schema
        self.refused = 0  # requests refused for their response_format
        self.requests: list[dict[str, Any]] = []
        self.images: list[list[Decoded]] = []
        self.count = 0
        self.faults: list[int | str] = []
        self.always: int | str | None = None
        self.lock = threading.Lock()
        self.httpd: ThreadingHTTPServer | None = None
        self.thread: threading.Thread | None = None

    # -- lifecycle
    def start(self) -> OpenAIServer:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:  # noqa: N802
                if self.path.rstrip("/").endswith("/models"):
                    self._send(200, {"object": "list", "data": [{"id": server.model, "object": "model"}]})
                else:
                    self._send(404, {"error": {"message": "not found"}})

            def do_POST(self) -> None:  # noqa: N802
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                status, payload = server.handle(self.path, body)
                try:
                    self._send(status, payload)
                except (BrokenPipeError, ConnectionResetError):
                    pass

            def _send(self, status: int, payload: dict[str, Any]) -> None:
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                if status == 429 or status >= 500:
                    self.send_header("Retry-After", f"{server.retry_after:g}")
                self.end_headers()
                self.wfile.write(data)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()
        return self

    def stop(self) -> None:
        if self.httpd is not None:
            self.httpd.shutdown()
            self.httpd.server_close()
            self.httpd = None

    def __enter__(self) -> OpenAIServer:
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    @property
    def url(self) -> str:
        assert self.httpd is not None, "start the server first"
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def fail(self, *faults: int | str) -> None:
        with self.lock:
            self.faults += list(faults)

    # -- requests
    def handle(self, path: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        with self.lock:
            self.count += 1
            fault = self.faults.pop(0) if self.faults else self.always
        if fault == "timeout":
            time.sleep(self.timeout_delay)
            return 503, {"error": {"message": "slow"}}
        if isinstance(fault, int):
            return fault, {"error": {"message": f"scripted {fault}", "type": "server_error", "code": fault}}
        if not path.rstrip("/").endswith("/chat/completions"):
            return 404, {"error": {"message": f"no route {path}"}}
        if self.refuse_schema and (body.get("response_format") or {}).get("type") == "json_schema":
            with self.lock:
                self.refused += 1
            message = "Invalid parameter: 'response_format' of type 'json_schema' is not supported with this model."
            return 400, {"error": {"message": message, "type": "invalid_request_error", "param": "response_format"}}
        images = []
        for message in body.get("messages", []):
            content = message.get("content")
            if isinstance(content, list):
                for part in content:
                    if part.get("type") == "image_url":
                        images.append(decode_data_url(part["image_url"]["url"]))
        with self.lock:
            self.requests.append(body)
            self.images.append(images)
        n = int(body.get("n") or 1) if self.honour_n else 1
        choices = [
            {
                "index": i,
                "message": {"role": "assistant", "content": self.respond(body, images)},
                "finish_reason": "stop",
            }
            for i in range(n)
        ]
        return 200, {
            "id": f"chatcmpl-{self.count}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": body.get("model", self.model),
            "choices": choices,
            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
        }


# ------------------------------------------------------------------------------------------------- a lying model

REQUEST_RE = re.compile(r"Correct answer: ([A-Z])\n\nOriginal steps \(JSON\):\n(.*)\Z", re.DOTALL)
ANSWER_IS_RE = re.compile(r"\b(the answer is) ([A-Z])\b", re.IGNORECASE)
LETTER_REF_RE = re.compile(r"\b((?:[Oo]ption|[Cc]andidate|[Cc]hoice)\s+)([A-Z])\b")
IMAGE_RE = re.compile(r"\b(Images?\s+)(\d+)\b")
SIDES = {"left": "right", "right": "left", "Left": "Right", "Right": "Left", "leftmost": "rightmost"}
SIDES |= {v: k for k, v in SIDES.items()}
SIDES_RE = re.compile(r"\b(" + "|".join(SIDES) + r")\b")


def swap(text: str, pattern: re.Pattern[str], a: str, b: str) -> str:
    """``text`` with the values ``a`` and ``b`` of ``pattern``'s second group traded wherever they stand."""
    return pattern.sub(lambda m: m.group(1) + {a: b, b: a}.get(m.group(2), m.group(2)), text)


def append_option(steps: dict[str, Any], answer: str, letters: list[str]) -> bool:
    """Adds "option Y is the best match" for another letter Y after "the answer is X"."""
    other = next(letter for letter in letters if letter != answer)
    claim = f"option {other} is the best match"
    text = steps["conclusion"]
    if ANSWER_IS_RE.search(text):
        steps["conclusion"] = ANSWER_IS_RE.sub(lambda m: f"{m.group(0)}, and {claim}", text, count=1)
    else:
        steps["conclusion"] = f"{text} Note that {claim}."
    return True


def swap_candidates(steps: dict[str, Any], answer: str, letters: list[str]) -> bool:
    """Trades two candidates in img2img: two option letters where it names letters, else two images."""
    text = steps["img2img"]
    named = list(dict.fromkeys(m.group(2) for m in LETTER_REF_RE.finditer(text)))
    pattern = LETTER_REF_RE if len(named) >= 2 else IMAGE_RE
    if pattern is IMAGE_RE:
        named = list(dict.fromkeys(m.group(2) for m in IMAGE_RE.finditer(text)))
    if len(named) < 2:
        return False
    steps["img2img"] = swap(text, pattern, named[-2], named[-1])
    return True


def swap_sides(steps: dict[str, Any], answer: str, letters: list[str]) -> bool:
    """Trades left and right in the captions and the conclusion."""
    flip = lambda text: SIDES_RE.sub(lambda m: SIDES[m.group(1)], text)  # noqa: E731
    before = [*steps["caption"], steps["conclusion"]]
    steps["caption"] = [flip(c) for c in steps["caption"]]
    steps["conclusion"] = flip(steps["conclusion"])
    return [*steps["caption"], steps["conclusion"]] != before


LIES: dict[str, Callable[[dict[str, Any], str, list[str]], bool]] = {
    "append_option": append_option,
    "swap_candidates": swap_candidates,
    "swap_sides": swap_sides,
}


class Liar:
    """A responder for the rewriter's requests: the request's own steps as JSON, with one lie planted.

    Each instance (a request's seed) is given the next mode in turn when the liar first sees it, so a retry tells the
    same lie and any three instances hear all three; where that mode does not apply to its steps (a text without
    "left" or "right" cannot have them swapped) the next one that does is told. ``told`` lists, per request, the lie
    told, or None where no mode applied (then the steps come back unchanged).
    """

    def __init__(self, *modes: str) -> None:
        unknown = set(modes) - set(LIES)
        if not modes or unknown:
            raise ValueError(f"Liar: modes must be some of {', '.join(LIES)}, got {modes}")
        self.modes = modes
        self.told: list[str | None] = []
        self.turns: dict[int, int] = {}  # seed -> the index of its mode
        self.lock = threading.Lock()

    def __call__(self, request: dict[str, Any], images: list[Decoded]) -> str:
        match = REQUEST_RE.search(request["messages"][1]["content"])
        if match is None:
            raise ValueError("Liar: not a rewriter request")
        answer, steps = match.group(1), json.loads(match.group(2))
        letters = re.findall(r"^([A-Z])\. ", request["messages"][1]["content"], re.MULTILINE)
        with self.lock:
            start = self.turns.setdefault(int(request.get("seed") or 0), len(self.turns) % len(self.modes))
        told = None
        for mode in self.modes[start:] + self.modes[:start]:
            if LIES[mode](steps, answer, letters):
                told = mode
                break
        with self.lock:
            self.told.append(told)
        return json.dumps(steps)
