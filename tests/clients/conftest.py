"""Client fixtures: the client package on the path, and scripted servers."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator

import pytest

from tests.clients.scripted_http import Reply, ScriptedServer
from tests.processes import ROOT

# The client is its own distribution (clients/python); the tests use its source tree, so that
# they need no install step and always test the code beside them.
_CLIENT_SRC = str(ROOT / "clients" / "python" / "src")
if _CLIENT_SRC not in sys.path:
    sys.path.insert(0, _CLIENT_SRC)


@pytest.fixture
def scripted() -> Iterator[Callable[..., ScriptedServer]]:
    """Start scripted servers (`scripted(reply, ...)`) that stop when the test ends."""
    servers: list[ScriptedServer] = []

    def start(*replies: Reply) -> ScriptedServer:
        server = ScriptedServer(list(replies))
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.stop()
