"""One MCP server definition for a tenant: the tools of `agents.tools`, listed and called.

The lowlevel SDK server is used (not MCPServer) so that each tool is listed with the explicit
JSON schema of `agents.tools.TOOLS`, the one the OpenAI door hands out too.
"""

from __future__ import annotations

import importlib.metadata
import json
import logging
from typing import Any

import mcp_types as types
from asgiref.sync import sync_to_async
from django.db import DatabaseError, close_old_connections
from mcp.server import Server
from mcp.server.context import ServerRequestContext

from agents.tools import TOOLS, tool_call
from core.exceptions import ApplicationError, RateLimited, ServiceUnavailable
from tenants.models import Tenant
from tenants.rls import tenant_scope
from tenants.throttling import end_user_rate_wait

logger = logging.getLogger(__name__)

SERVER_NAME = "memory-platform"
INSTRUCTIONS = (
    "Long-term memory about the end users you talk to. Every tool acts for one user, named by "
    "user_id (any id you keep per user, 1-128 characters). Call context (or recall) before "
    "answering a user, remember when they tell you something durable about themselves, and "
    "forget a memory when they ask you to or it is wrong."
)


def _version() -> str:
    """The installed package's version, shown to MCP hosts as the server's."""
    try:
        return importlib.metadata.version("memory-platform")
    except importlib.metadata.PackageNotFoundError:  # run from a checkout that is not installed
        return ""


# Read once: the lookup parses the package metadata, and a server is made per HTTP request.
VERSION = _version()


_TOOL_LIST = types.ListToolsResult(
    tools=[
        types.Tool(
            name=tool.name,
            description=tool.description,
            input_schema=tool.parameters,
            # A host may run a reading tool without asking; a read-only key may call only those.
            annotations=types.ToolAnnotations(
                read_only_hint=not tool.writes, destructive_hint=tool.name == "forget"
            ),
        )
        for tool in TOOLS.values()
    ]
)


def _json_result(payload: dict[str, Any], *, is_error: bool = False) -> types.CallToolResult:
    """A tool result carrying `payload` twice: as JSON text and as structured content."""
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=json.dumps(payload, ensure_ascii=False))],
        structured_content=payload,
        is_error=is_error,
    )


def _error_result(error: ApplicationError) -> types.CallToolResult:
    """An ApplicationError as a tool error: the model reads the code and message and retries."""
    return _json_result(
        {"error": {"code": error.code, "message": error.message, **error.extra}}, is_error=True
    )


def tool_result(
    *,
    tenant: Tenant,
    name: str,
    arguments: dict[str, Any] | None,
    close_connections: bool,
    may_write: bool = True,
) -> types.CallToolResult:
    """Run one tool call (synchronously, in a thread that may use the ORM) as an MCP result.

    may_write: False for a read-only API key; a writing tool then answers `read_only_key`."""
    if close_connections:
        # Outside a request cycle nothing else drops a connection past CONN_MAX_AGE or broken
        # by a database restart; Django does exactly this around each request.
        close_old_connections()
    try:
        # MCP allows a call without arguments; the serializer then names the missing ones.
        arguments = {} if arguments is None else arguments
        # The same per-user count as every API request (POST /tools/call is throttled by DRF);
        # an invalid user_id is not counted, and the tool's validation answers it.
        wait = end_user_rate_wait(tenant_id=tenant.pk, user_id=arguments.get("user_id"))
        if wait is not None:
            raise RateLimited(extra={"retry_after": wait})
        # Behind the tenant's walls in whatever thread runs the call (stdio has no request).
        with tenant_scope([tenant.pk]):
            result = tool_call(tenant=tenant, name=name, arguments=arguments, may_write=may_write)
    except ApplicationError as exc:
        return _error_result(exc)
    except DatabaseError:
        logger.exception("database error while running the MCP tool %r", name)
        return _error_result(ServiceUnavailable())
    finally:
        if close_connections:
            close_old_connections()
    return _json_result(result)


def memory_server(
    tenant: Tenant, *, may_write: bool = True, close_connections: bool = False
) -> Server[Any]:
    """The MCP server of `tenant`'s memory tools.

    may_write: False for a read-only API key: remember and forget then answer a tool error
    `read_only_key` (stdio, run by an operator with the tenant's name, may write).
    close_connections: drop stale database connections around each call, for a long-lived
    process outside Django's request cycle (stdio); under a request Django does it already.
    """

    async def list_tools(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return _TOOL_LIST

    async def call_tool(
        ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        # thread_sensitive: under the HTTP view's async_to_sync this is the request's own
        # thread (its connection, closed by Django at the end of the request); under stdio,
        # asgiref's one shared thread, so every call reuses one connection.
        return await sync_to_async(tool_result, thread_sensitive=True)(
            tenant=tenant,
            name=params.name,
            arguments=params.arguments,
            close_connections=close_connections,
            may_write=may_write,
        )

    return Server(
        SERVER_NAME,
        version=VERSION,
        instructions=INSTRUCTIONS,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
        # The 2026-07-28 HTTP path validates Mcp-Param-* headers against a tool's schema;
        # this gives it the schema without running the tools/list handler.
        get_tool_input_schema=lambda name: TOOLS[name].parameters if name in TOOLS else None,
    )
