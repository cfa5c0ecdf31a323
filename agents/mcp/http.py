"""POST /mcp: the MCP streamable HTTP transport inside a Django view, for the key's tenant.

The service runs under gunicorn's sync WSGI workers, so there is no long-lived event loop to
hold MCP sessions or SSE streams. The SDK's transport runs stateless with JSON responses: each
POST is self-contained (a 2026-07-28 request, or one message of a 2025 stateless session), and
is served by a session manager made for it, driven through a small ASGI bridge in the request
thread. GET (the standalone SSE stream) and DELETE (ending a session) are answered 405, as the
spec has a server without them answer; a client given no session id sends neither.
"""

from __future__ import annotations

from collections.abc import MutableMapping
from typing import Any
from wsgiref.util import is_hop_by_hop

import anyio
from asgiref.sync import async_to_sync
from django.http import HttpResponse
from drf_spectacular.utils import extend_schema
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from rest_framework.request import Request
from rest_framework.views import APIView

from agents.mcp.server import memory_server
from tenants.authentication import request_principal
from tenants.models import Tenant
from tenants.permissions import key_may_write

Headers = list[tuple[bytes, bytes]]


def _asgi_scope(request: Request) -> dict[str, Any]:
    """The ASGI HTTP scope of a Django request (its headers as the client sent them)."""
    headers = [
        (name.lower().encode("latin-1"), value.encode("latin-1"))
        for name, value in request.headers.items()
    ]
    host, _, port = request.get_host().partition(":")
    return {
        "type": "http",
        "asgi": {"version": "3.0", "spec_version": "2.3"},
        "http_version": "1.1",
        "method": request.method,
        "scheme": request.scheme,
        "path": request.path,
        "raw_path": request.path.encode(),
        "query_string": request.META.get("QUERY_STRING", "").encode("latin-1"),
        "root_path": "",
        "headers": headers,
        "client": (request.META.get("REMOTE_ADDR", ""), 0),
        "server": (host, int(port) if port.isdigit() else None),
    }


async def _serve(
    tenant: Tenant, may_write: bool, scope: dict[str, Any], body: bytes
) -> tuple[int, Headers, bytes]:
    """Run one HTTP exchange through the SDK's transport; return its status, headers, body."""
    # run() may be entered once per manager, and a manager is a few objects: one per request.
    manager = StreamableHTTPSessionManager(
        app=memory_server(tenant, may_write=may_write), json_response=True, stateless=True
    )
    status, headers, chunks = 500, [], []
    answered = anyio.Event()
    body_sent = False

    async def receive() -> dict[str, Any]:
        nonlocal body_sent
        if not body_sent:
            body_sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        # The client is gone only once it has its answer (the WSGI server holds the socket).
        await answered.wait()
        return {"type": "http.disconnect"}

    async def send(message: MutableMapping[str, Any]) -> None:
        nonlocal status, headers
        if message["type"] == "http.response.start":
            status, headers = message["status"], list(message.get("headers", []))
        elif message["type"] == "http.response.body":
            chunks.append(message.get("body", b""))
            if not message.get("more_body", False):
                answered.set()

    async with manager.run():
        await manager.handle_request(scope, receive, send)
    return status, headers, b"".join(chunks)


@extend_schema(exclude=True)
class McpApi(APIView):
    """The MCP endpoint (streamable HTTP, stateless, JSON responses) for the key's tenant."""

    # The body is the SDK's to parse; DRF never reads it. The user_id is inside the JSON-RPC
    # message, so each tool call counts against its user's limit itself (agents.mcp.server).
    throttle_classes: list[type] = []
    # Every MCP message is a POST; a read-only key's remember or forget is refused per call,
    # as a tool error `read_only_key` (agents.tools.tool_call), like every other tool error.
    key_scope_per_call = True

    def perform_content_negotiation(self, request: Request, force: bool = False) -> Any:
        # Errors leave as JSON whatever the client accepts: an MCP client's GET asks for
        # text/event-stream only, and must get the 405 a stateless server answers, not a 406.
        return super().perform_content_negotiation(request, force=True)

    def post(self, request: Request) -> HttpResponse:
        body = request.body
        caller = request_principal(request)
        # async_to_sync, not asyncio.run: the tools' ORM calls (sync_to_async,
        # thread_sensitive) come back to this thread and its database connection.
        status, headers, content = async_to_sync(_serve)(
            caller.tenant, key_may_write(caller.key), _asgi_scope(request), body
        )
        response = HttpResponse(content, status=status)
        for name, value in headers:
            name_text = name.decode("latin-1")
            # WSGI forbids hop-by-hop headers (the WSGI server owns the connection).
            if not is_hop_by_hop(name_text):
                response[name_text] = value.decode("latin-1")
        return response
