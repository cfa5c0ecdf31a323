"""The MCP server, driven by the official SDK's own client: over stdio and over HTTP at /mcp.

Both transports run as real processes (`manage.py mcp_server`, gunicorn) on one fresh data
directory, so they share its database with the commands that create the tenant and its key.
"""

from __future__ import annotations

import contextlib
import json
import subprocess
import sys
import tempfile
import urllib.error
import urllib.request
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from dataclasses import dataclass
from typing import Any

import anyio
import httpx2
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

from agents.tools import TOOLS
from memory_platform.embedded import stop_embedded_postgres
from tests.processes import REQUEST_SECONDS, ROOT, clean_env, free_port, gunicorn, manage

TENANT = "mcp-agent"
OTHER_TENANT = "mcp-other"
# What `Client(mode=...)` negotiates: the 2026-07-28 per-request protocol (the SDK's
# default), or the 2025 initialize handshake that most MCP hosts still speak.
MODES = {"auto": "2026-07-28", "legacy": "2025-11-25"}


@dataclass(frozen=True)
class Install:
    env: dict[str, str]
    key: str
    other_key: str


def _created_key(tenant: str, env: dict[str, str]) -> str:
    return manage("create_api_key", "--tenant", tenant, env=env).stdout.strip().splitlines()[-1]


@pytest.fixture(scope="module")
def install(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Install]:
    """A fresh install (migrated, two tenants with a key each), shared by this module."""
    data_dir = tmp_path_factory.mktemp("mcp") / "data"
    env = clean_env(MEMORY_DATA_DIR=str(data_dir))
    try:
        try:
            manage("migrate", "--noinput", env=env)
            keys = _created_key(TENANT, env), _created_key(OTHER_TENANT, env)
        except subprocess.CalledProcessError as exc:
            pytest.fail(f"{' '.join(exc.cmd[1:])} failed:\n{exc.stderr[-3000:]}")
        yield Install(env, *keys)
    finally:
        stop_embedded_postgres(data_dir / "pg")


@pytest.fixture(scope="module")
def mcp_url(install: Install) -> Iterator[str]:
    port = free_port()
    with gunicorn(port, install.env):
        yield f"http://127.0.0.1:{port}/mcp"


def run(scenario: Callable[[Client], Awaitable[Any]], transport: Any, mode: str) -> Any:
    """Connect the SDK's client over `transport` in `mode` and run `scenario` with it."""

    async def main() -> Any:
        async with Client(transport, mode=mode) as client:
            assert client.protocol_version == MODES[mode]
            return await scenario(client)

    return anyio.run(main)


def stdio(install: Install, errlog: Any, tenant: str = TENANT) -> Any:
    """The SDK's stdio transport, starting `manage.py mcp_server` as its subprocess."""
    command = StdioServerParameters(
        command=sys.executable,
        args=["manage.py", "mcp_server", "--tenant", tenant],
        env=install.env,
        cwd=ROOT,
    )
    return stdio_client(command, errlog=errlog)


@contextlib.asynccontextmanager
async def http(url: str, key: str | None, statuses: list[int] | None = None) -> AsyncIterator[Any]:
    """The SDK's streamable HTTP transport with the key as a Bearer header."""
    headers = {"Authorization": f"Bearer {key}"} if key is not None else {}

    async def record(response: httpx2.Response) -> None:
        if statuses is not None:
            statuses.append(response.status_code)

    async with (
        httpx2.AsyncClient(
            headers=headers, event_hooks={"response": [record]}, timeout=REQUEST_SECONDS
        ) as client,
        streamable_http_client(url, http_client=client) as streams,
    ):
        yield streams


async def remember_recall_context_forget(client: Client) -> dict[str, Any]:
    """Every tool once, in the order an agent uses them; each call's structured result."""
    user = str(uuid.uuid4())
    seen: dict[str, Any] = {"tools": (await client.list_tools()).tools}
    for name, arguments in [
        ("remember", {"user_id": user, "text": "I am allergic to penicillin"}),
        ("recall", {"user_id": user, "query": "Which antibiotics should I avoid?"}),
        ("context", {"user_id": user, "prompt": "Is amoxicillin fine for me?", "max_tokens": 200}),
    ]:
        result = await client.call_tool(name, arguments)
        assert not result.is_error, result
        assert json.loads(result.content[0].text) == result.structured_content
        seen[name] = result.structured_content
    memory_id = seen["remember"]["memories"][0]["id"]
    seen["forget"] = await client.call_tool("forget", {"user_id": user, "memory_id": memory_id})
    seen["recall_after"] = (
        await client.call_tool("recall", {"user_id": user, "query": "antibiotics"})
    ).structured_content
    seen["invalid"] = await client.call_tool("forget", {"user_id": user, "memory_id": "nope"})
    seen["unknown_user"] = await client.call_tool(
        "forget", {"user_id": str(uuid.uuid4()), "memory_id": memory_id}
    )
    return seen


def assert_the_tools_worked(seen: dict[str, Any]) -> None:
    assert [(t.name, t.description, t.input_schema) for t in seen["tools"]] == [
        (tool.name, tool.description, tool.parameters) for tool in TOOLS.values()
    ]
    (memory,) = seen["remember"]["memories"]
    assert (memory["caption"], memory["status"]) == ("User is allergic to penicillin", "active")
    assert [m["id"] for m in seen["recall"]["memories"]] == [memory["id"]]
    assert memory["id"] in seen["context"]["context"]
    assert seen["context"]["tokens"] <= 200
    assert seen["forget"].structured_content == {"forgotten": memory["id"]}
    assert seen["recall_after"] == {"memories": []}
    # A bad call is a tool error the model can read and correct, not a protocol failure.
    for name, code in [("invalid", "invalid_request"), ("unknown_user", "not_found")]:
        result = seen[name]
        assert result.is_error
        assert result.structured_content["error"]["code"] == code
        assert json.loads(result.content[0].text) == result.structured_content


# --- stdio -----------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
def test_the_stdio_server_lists_the_tools_and_runs_them_for_its_tenant(install, mode):
    with tempfile.TemporaryFile("w+") as errlog:
        seen = run(remember_recall_context_forget, stdio(install, errlog), mode)
        errlog.seek(0)
        log = errlog.read()

    assert_the_tools_worked(seen)
    # stdout carries the protocol, so what the command says goes to stderr.
    assert f"Serving the memory tools of tenant '{TENANT}' over stdio (MCP)." in log


def test_the_stdio_command_refuses_a_tenant_that_does_not_exist(install):
    with pytest.raises(subprocess.CalledProcessError) as refused:
        manage("mcp_server", "--tenant", "nobody", env=install.env)

    assert "No tenant named 'nobody'" in refused.value.stderr
    assert refused.value.stdout == ""


# --- streamable HTTP -------------------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
def test_the_http_endpoint_serves_the_tools_to_the_sdk_client_with_an_api_key(
    install, mcp_url, mode
):
    statuses: list[int] = []
    seen = run(remember_recall_context_forget, http(mcp_url, install.key, statuses), mode)

    assert_the_tools_worked(seen)
    assert set(statuses) <= {200, 202}


def test_the_tenant_is_the_one_of_the_api_key(install, mcp_url):
    user = str(uuid.uuid4())

    async def remember(client: Client) -> None:
        await client.call_tool("remember", {"user_id": user, "text": "I live in Porto"})

    async def recall(client: Client) -> dict[str, Any]:
        result = await client.call_tool("recall", {"user_id": user, "query": "Where do I live?"})
        return result.structured_content

    run(remember, http(mcp_url, install.key), "auto")

    assert run(recall, http(mcp_url, install.other_key), "auto") == {"memories": []}
    assert run(recall, http(mcp_url, install.key), "auto")["memories"]


@pytest.mark.parametrize("key", [None, "unknown.key"], ids=["no key", "wrong key"])
@pytest.mark.parametrize("mode", MODES)
def test_the_http_endpoint_refuses_the_sdk_client_without_a_valid_key(mcp_url, key, mode):
    statuses: list[int] = []

    with pytest.raises(ExceptionGroup) as refused:
        run(remember_recall_context_forget, http(mcp_url, key, statuses), mode)

    assert refused.group_contains(MCPError)
    assert statuses and set(statuses) == {401}


@pytest.mark.parametrize(
    ("method", "key", "status", "code"),
    [
        ("POST", None, 401, "unauthorized"),
        ("POST", "unknown.key", 401, "unauthorized"),
        # A stateless server has no stream to offer: the spec's answer to its GET is 405.
        ("GET", "valid", 405, "method_not_allowed"),
        ("DELETE", "valid", 405, "method_not_allowed"),
    ],
    ids=["no key", "wrong key", "GET", "DELETE"],
)
def test_the_http_endpoint_refuses_in_the_json_error_shape(
    install, mcp_url, method, key, status, code
):
    headers = {"Accept": "application/json, text/event-stream"}
    if key is not None:
        headers["Authorization"] = f"Bearer {install.key if key == 'valid' else key}"
    body = None
    if method == "POST":
        body = b'{"jsonrpc": "2.0", "id": 1, "method": "tools/list"}'
        headers["Content-Type"] = "application/json"
    request = urllib.request.Request(mcp_url, data=body, method=method, headers=headers)

    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(request, timeout=10)

    assert refused.value.code == status
    assert json.loads(refused.value.read())["error"]["code"] == code
