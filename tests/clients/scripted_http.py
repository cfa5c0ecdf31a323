"""A local HTTP server outside the client that answers from a script and records requests."""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

# (status, headers, body): a str body is sent as HTML, None as nothing, anything else as JSON.
Reply = tuple[int, dict[str, str], Any]


@dataclass(frozen=True)
class Seen:
    """One request the server received."""

    method: str
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]
    body: Any


class ScriptedServer:
    """Answers the n-th request with the n-th reply (a 500 once the script is over)."""

    def __init__(self, replies: list[Reply]) -> None:
        self.replies = replies
        self.seen: list[Seen] = []
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()

    @property
    def url(self) -> str:
        """The server's base URL."""
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def stop(self) -> None:
        """Stop serving and free the port."""
        self._server.shutdown()
        self._server.server_close()

    def _next(self, seen: Seen) -> Reply:
        with self._lock:
            index = len(self.seen)
            self.seen.append(seen)
        if index < len(self.replies):
            return self.replies[index]
        return 500, {}, {"error": {"code": "script_over", "message": "Unexpected request."}}

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def _answer(self) -> None:
                raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                parts = urlsplit(self.path)
                status, headers, body = server._next(
                    Seen(
                        method=self.command,
                        path=parts.path,
                        query=parse_qs(parts.query),
                        headers=dict(self.headers),
                        body=json.loads(raw) if raw else None,
                    )
                )
                if body is None:
                    payload = b""
                else:
                    payload = body.encode() if isinstance(body, str) else json.dumps(body).encode()
                self.send_response(status)
                content_type = "text/html" if isinstance(body, str) else "application/json"
                self.send_header("Content-Type", content_type)
                for name, value in headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            do_GET = do_POST = do_DELETE = _answer

            def log_message(self, format: str, *args: Any) -> None:
                pass  # the test reads `seen`, not a log

        return Handler
