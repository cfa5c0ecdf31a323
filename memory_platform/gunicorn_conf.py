"""Gunicorn settings for `make run`, the container and the tests (`-c python:<this module>`).

Gunicorn refuses some requests itself, before Django sees them (a request line over
`limit_request_line`, too many or too large headers, a malformed request); its answer is an
HTML page. Callers parse one error shape, so those refusals are written as JSON too.
"""

from __future__ import annotations

import json
import os
from typing import Any

from gunicorn import util

# Gunicorn's largest request line (a URL of about 8 KB): a 4,000-character prompt fits when
# mostly ASCII; `/memories/relevant` documents the bound.
limit_request_line = 8190

_CODES = {
    400: "bad_request",
    403: "forbidden",
    414: "uri_too_long",
    417: "expectation_failed",
    431: "headers_too_large",
    500: "server_error",
    501: "not_implemented",
}


def _json_error(sock, status_int: int, reason: str, mesg: str) -> None:
    """gunicorn.util.write_error, in the service's JSON error shape."""
    message = f"{reason}: {mesg}" if mesg else reason
    body = json.dumps(
        {"error": {"code": _CODES.get(status_int, "bad_request"), "message": message}}
    ).encode()
    head = (
        f"HTTP/1.1 {status_int} {reason}\r\nConnection: close\r\n"
        f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n"
    )
    util.write_nonblock(sock, head.encode("latin-1") + body)


# The workers call util.write_error by attribute, so this one module-level swap covers them.
util.write_error = _json_error


def on_starting(server: Any) -> None:
    """In the master, before any worker loads Django: the local install's servers and files,
    then the request timeout that the LLM's budget needs (unless --timeout was given)."""
    from memory_platform import local

    local.prepare()
    # After `prepare`: the settings read what it found (a Valkey that could not start).
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memory_platform.settings")
    from django.conf import settings

    option = server.cfg.settings["timeout"]
    if option.value == option.default:
        server.cfg.set("timeout", settings.WEB_TIMEOUT)
        server.timeout = settings.WEB_TIMEOUT
