"""A real HTTP server speaking the OpenAI protocol on 127.0.0.1, with scripted replies.

The one LLM stand-in of the project: the tests (through the fixtures in tests/llm_stub.py) and
the benches (`bench_latency` answers extractions with the offline rules) both serve it. It
imports nothing of the project (tests/test_architecture.py): a reply that needs the project,
such as the offline extractor's, is handed in (`extracting_chat_reply`).

The `openai` client under test talks to it over real sockets, so its timeouts, retries and
response parsing are exercised exactly as in production. Script replies in order::

    def test_retries(llm_stub, llm_settings):
        llm_stub.fail(503).reply('[{"caption": "User likes tea", ...}]')
        ...
        assert len(llm_stub.calls) == 2

When the chat queue is empty the stub answers with `default` (a callable of the request).
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import json
import struct
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, cast

CHAT_PATH = "/v1/chat/completions"
EMBEDDINGS_PATH = "/v1/embeddings"

# The openai client honours `retry-after-ms`; a few milliseconds keeps retry tests fast.
FAST_RETRY_MS = "5"

_ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    429: "rate_limit_exceeded",
    500: "server_error",
    502: "server_error",
    503: "server_error",
}


@dataclass(frozen=True)
class StubRequest:
    """One request the stub received."""

    method: str
    path: str
    headers: dict[str, str]
    body: Any
    raw: bytes

    @property
    def messages(self) -> list[dict]:
        """The chat messages of a chat-completions request (empty for anything else)."""
        return self.body.get("messages", []) if isinstance(self.body, dict) else []

    @property
    def prompt_text(self) -> str:
        """Every message content of the request joined, for substring assertions."""
        return "\n".join(str(m.get("content", "")) for m in self.messages)


@dataclass(frozen=True)
class StubReply:
    """What the stub sends back: status, body (JSON-encoded unless bytes), headers, delay."""

    status: int = 200
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0


Replyable = StubReply | str
DefaultReply = Callable[[StubRequest], Replyable]


def completion_body(
    content: str | None,
    *,
    model: str = "stub-model",
    prompt_tokens: int = 12,
    completion_tokens: int = 7,
    finish_reason: str = "stop",
) -> dict:
    """A chat.completion object with one choice, as the OpenAI API returns it."""
    return {
        "id": "chatcmpl-stub",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": content},
                "finish_reason": finish_reason,
                "logprobs": None,
            }
        ],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
        },
    }


def content(
    text: str | None,
    *,
    prompt_tokens: int = 12,
    completion_tokens: int = 7,
    finish_reason: str = "stop",
    model: str = "stub-model",
    delay: float = 0.0,
) -> StubReply:
    """A successful completion whose assistant message is `text`."""
    body = completion_body(
        text,
        model=model,
        prompt_tokens=prompt_tokens,
        completion_tokens=completion_tokens,
        finish_reason=finish_reason,
    )
    return StubReply(200, body, delay=delay)


def error(
    status: int,
    message: str | None = None,
    *,
    retry_after: str | None = None,
    retry_after_ms: str | None = FAST_RETRY_MS,
    code: str | None = None,
    param: str | None = None,
) -> StubReply:
    """An HTTP error with an OpenAI-style error body; retry hints are small by default."""
    headers = {}
    if retry_after is not None:
        headers["Retry-After"] = retry_after
    if retry_after_ms is not None:
        headers["retry-after-ms"] = retry_after_ms
    body = {
        "error": {
            "message": message or f"stub error {status}",
            "type": _ERROR_TYPES.get(status, "api_error"),
            "param": param,
            "code": code,
        }
    }
    return StubReply(status, body, headers)


def slow(seconds: float, text: str = "[]") -> StubReply:
    """A successful completion sent only after `seconds`, to trip client timeouts."""
    return content(text, delay=seconds)


def malformed(raw: bytes = b"<html>502 upstream glitch</html>", status: int = 200) -> StubReply:
    """A body that is not JSON although the content type says it is."""
    return StubReply(status, raw, {"Content-Type": "application/json"})


def empty_choices() -> StubReply:
    """A well-formed completion object with no choices at all."""
    body = completion_body(None)
    body["choices"] = []
    return StubReply(200, body)


def fenced(payload: Any, lang: str = "json") -> str:
    """`payload` as JSON inside a Markdown code fence, as chatty models reply."""
    return f"```{lang}\n{json.dumps(payload, indent=2)}\n```"


def with_prose(payload: Any) -> str:
    """`payload` as JSON with prose before and after it."""
    return f"Sure! Here are the memories I found:\n{json.dumps(payload)}\nLet me know if..."


def truncated(payload: Any, drop_chars: int = 15) -> str:
    """`payload` as JSON cut `drop_chars` before its end, as when max_tokens runs out."""
    text = json.dumps(payload)
    return text[: len(text) - drop_chars]


def default_chat_reply(request: StubRequest) -> Replyable:
    """An empty extraction: valid JSON that yields no memories."""
    return content("[]")


def extracting_chat_reply(
    extract: Callable[[list[dict]], Iterable[Any]],
) -> Callable[[StubRequest], Replyable]:
    """A reply that answers like an extracting LLM, instantly: `extract`'s facts as JSON.

    `extract` takes the conversation's messages and returns candidates with a caption,
    full_text, category and confidence (as `extraction.reader.offline_candidates` does: the
    caller hands it in, so the stub stays free of the project). Decision prompts (questions
    quoted between <pairs> tags) get no usable answer, so the offline judge decides.
    """

    def reply(request: StubRequest) -> Replyable:
        text = str(request.messages[-1].get("content", "")) if request.messages else ""
        if "<pairs>" in text:
            return content("No answer.")
        conversation = text.split("<conversation>", 1)[-1].split("</conversation>", 1)[0]
        messages = []
        for line in conversation.strip().splitlines():
            with contextlib.suppress(ValueError):
                messages.append(json.loads(line))
        candidates = extract([m for m in messages if isinstance(m, dict)])
        facts = [
            {
                "caption": c.caption,
                "full_text": c.full_text,
                "category": c.category,
                "confidence": c.confidence,
            }
            for c in candidates
        ]
        return content(json.dumps(facts), prompt_tokens=100, completion_tokens=50)

    return reply


def embedding_vector(text: str, dimensions: int) -> list[float]:
    """A deterministic unit vector derived from the text's hash."""
    seed = hashlib.sha256(text.encode("utf-8")).digest()
    values: list[float] = []
    counter = 0
    while len(values) < dimensions:
        block = hashlib.sha256(seed + counter.to_bytes(4, "little")).digest()
        values.extend((b - 127.5) / 127.5 for b in block)
        counter += 1
    values = values[:dimensions]
    norm = sum(v * v for v in values) ** 0.5 or 1.0
    return [v / norm for v in values]


class _Server(ThreadingHTTPServer):
    # The stdlib backlog of 5 drops bursts of concurrent connects (a 1 s SYN retry each).
    request_queue_size = 128
    daemon_threads = True
    block_on_close = False


class LLMStub:
    """The server, its reply queues and the log of requests it received."""

    def __init__(self) -> None:
        self.requests: list[StubRequest] = []
        # Seconds spent building replies (without scripted delays), so a bench can report
        # the LLM's share of a request apart from the service's.
        self.handling_seconds = 0.0
        self.default: DefaultReply = default_chat_reply
        self.embedding_dimensions = 1536
        self._queues: dict[str, deque[StubReply]] = {
            CHAT_PATH: deque(),
            EMBEDDINGS_PATH: deque(),
        }
        self._lock = threading.Lock()
        # Set on shutdown so handlers sleeping for a slow reply stop at once.
        self._closing = threading.Event()
        self._server = _Server(("127.0.0.1", 0), self._handler_class())
        self._thread = threading.Thread(
            target=self._server.serve_forever, args=(0.05,), daemon=True
        )

    @property
    def base_url(self) -> str:
        """The URL to give the openai client, ending in /v1."""
        # An IPv4 server's address (typeshed types it for every socket family).
        host, port = cast(tuple[str, int], self._server.server_address[:2])
        return f"http://{host}:{port}/v1"

    @property
    def calls(self) -> list[StubRequest]:
        """The chat-completions requests received, oldest first."""
        with self._lock:
            return [r for r in self.requests if r.path == CHAT_PATH]

    @property
    def embedding_calls(self) -> list[StubRequest]:
        """The embeddings requests received, oldest first."""
        with self._lock:
            return [r for r in self.requests if r.path == EMBEDDINGS_PATH]

    @property
    def pending(self) -> int:
        """How many scripted chat replies have not been served yet."""
        with self._lock:
            return len(self._queues[CHAT_PATH])

    def script(self, *replies: Replyable, endpoint: str = "chat") -> LLMStub:
        """Queue replies (a str is a successful completion with that content)."""
        path = EMBEDDINGS_PATH if endpoint == "embeddings" else CHAT_PATH
        with self._lock:
            self._queues[path].extend(_as_reply(r) for r in replies)
        return self

    def reply(self, text: str | None, **usage: Any) -> LLMStub:
        """Queue a successful completion (usage: prompt_tokens, completion_tokens, ...)."""
        return self.script(content(text, **usage))

    def fail(self, status: int, times: int = 1, **kwargs: Any) -> LLMStub:
        """Queue `times` HTTP errors with status `status`."""
        return self.script(*(error(status, **kwargs) for _ in range(times)))

    def slow(self, seconds: float, text: str = "[]", times: int = 1) -> LLMStub:
        """Queue `times` replies delayed by `seconds`."""
        return self.script(*(slow(seconds, text) for _ in range(times)))

    def malformed(self, raw: bytes = b"<html>oops</html>", times: int = 1) -> LLMStub:
        """Queue `times` bodies that are not JSON."""
        return self.script(*(malformed(raw) for _ in range(times)))

    def always(self, reply: Replyable | DefaultReply) -> LLMStub:
        """Answer every unscripted chat request with `reply` (or what the callable returns)."""
        self.default = reply if callable(reply) else (lambda request: reply)
        return self

    def start(self) -> LLMStub:
        """Serve in a background thread."""
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving and release any handler still sleeping on a slow reply."""
        self._closing.set()
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    def _next_reply(self, request: StubRequest) -> StubReply:
        with self._lock:
            queue = self._queues.get(request.path)
            if queue:
                return queue.popleft()
        if request.path == CHAT_PATH:
            return _as_reply(self.default(request))
        if request.path == EMBEDDINGS_PATH:
            return self._embeddings(request)
        return error(404, f"no route {request.path}", retry_after_ms=None)

    def _embeddings(self, request: StubRequest) -> StubReply:
        body = request.body if isinstance(request.body, dict) else {}
        inputs = body.get("input", [])
        inputs = [inputs] if isinstance(inputs, str) else list(inputs)
        dimensions = int(body.get("dimensions") or self.embedding_dimensions)
        as_base64 = body.get("encoding_format") == "base64"
        data = []
        for index, text in enumerate(inputs):
            vector = embedding_vector(str(text), dimensions)
            if as_base64:
                packed = struct.pack(f"<{dimensions}f", *vector)
                embedding: Any = base64.b64encode(packed).decode("ascii")
            else:
                embedding = vector
            data.append({"object": "embedding", "index": index, "embedding": embedding})
        tokens = sum(len(str(t).split()) for t in inputs)
        usage = {"prompt_tokens": tokens, "total_tokens": tokens}
        model = body.get("model", "stub-embedding")
        return StubReply(200, {"object": "list", "data": data, "model": model, "usage": usage})

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        stub = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            # Headers and body go out in separate writes; without this, delayed ACKs add 40 ms.
            disable_nagle_algorithm = True

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                try:
                    body = json.loads(raw) if raw else None
                except ValueError:
                    body = None
                path = self.path.split("?", 1)[0]
                request = StubRequest(
                    method="POST",
                    path=path,
                    headers={k.lower(): v for k, v in self.headers.items()},
                    body=body,
                    raw=raw,
                )
                started = time.perf_counter()
                with stub._lock:
                    stub.requests.append(request)
                reply = stub._next_reply(request)
                with stub._lock:
                    stub.handling_seconds += time.perf_counter() - started
                if reply.delay and stub._closing.wait(reply.delay):
                    return
                self._send(reply)

            def do_GET(self) -> None:
                self._send(error(404, f"no route {self.path}", retry_after_ms=None))

            def _send(self, reply: StubReply) -> None:
                payload = (
                    reply.body
                    if isinstance(reply.body, bytes)
                    else json.dumps(reply.body).encode("utf-8")
                )
                try:
                    self.send_response(reply.status)
                    # One request per connection: a pooled connection must never outlive this
                    # stub and reach a later one that happens to get the same port.
                    headers = {
                        "Content-Type": "application/json",
                        "Connection": "close",
                        **reply.headers,
                    }
                    self.close_connection = True
                    for name, value in headers.items():
                        self.send_header(name, value)
                    self.send_header("Content-Length", str(len(payload)))
                    self.end_headers()
                    self.wfile.write(payload)
                except (BrokenPipeError, ConnectionResetError):
                    # The client gave up (a timeout test); nothing to answer.
                    pass

            def log_message(self, format: str, *args: Any) -> None:
                # Keep pytest output clean: tests read `stub.requests` instead.
                pass

        return Handler


def _as_reply(reply: Replyable) -> StubReply:
    return content(reply) if isinstance(reply, str) else reply
