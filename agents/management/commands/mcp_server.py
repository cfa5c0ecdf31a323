"""Serve the memory tools of one tenant as an MCP server over stdio (for a local MCP host)."""

from __future__ import annotations

import logging
import shlex
import sys
from typing import Any

import anyio
from django.core.management.base import BaseCommand, CommandError, CommandParser
from mcp.server.stdio import stdio_server

from agents.mcp.server import memory_server
from tenants.models import Tenant


async def _serve_stdio(tenant: Tenant) -> None:
    """Serve the tenant's tools on stdin/stdout until the host closes stdin."""
    server = memory_server(tenant, close_connections=True)
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


class Command(BaseCommand):
    help = (
        "Serve the memory tools (remember, recall, forget, context) of a tenant as an MCP "
        "server over stdin/stdout, for an MCP host that starts it as a subprocess."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--tenant", required=True, help="Name of an existing tenant.")

    def handle(self, *args: Any, tenant: str, **options: Any) -> None:
        found = Tenant.objects.filter(name=tenant.strip()).first()
        if found is None:
            raise CommandError(
                f"No tenant named {tenant!r}; create it with "
                f"`manage.py create_api_key --tenant {shlex.quote(tenant)}`."
            )
        if not found.is_active:
            raise CommandError(f"The tenant {found.name!r} is deactivated.")
        # stdout carries the protocol: every log line goes to stderr (the settings' console
        # handler already does; this holds even for a handler configured otherwise).
        for handler in logging.getLogger().handlers:
            if isinstance(handler, logging.StreamHandler) and handler.stream is sys.stdout:
                handler.setStream(sys.stderr)
        self.stderr.write(f"Serving the memory tools of tenant {found.name!r} over stdio (MCP).")
        anyio.run(_serve_stdio, found)
