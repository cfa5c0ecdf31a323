"""The MCP snippets of README.md and docs/agents.md, run as written against a live server.

Each Python snippet runs as its own script: the HTTP ones against gunicorn (the address they
name, `make run`'s, swapped for the test server's), the stdio ones starting `manage.py
mcp_server` from the checkout. Each `mcpServers` JSON entry is started as a desktop app would:
a command from the app's own directory, or a URL with its headers. All on one fresh install
whose tenant `local` has a key, as `make run` leaves it.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import urllib.request
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

from memory_platform.embedded import stop_embedded_postgres
from tests.processes import ROOT, clean_env, free_port, gunicorn, manage

DOCUMENTS = ("README.md", "docs/agents.md")
# What the snippets and the JSON name: `make run`'s address, the key it printed (the README's
# example), the checkout as a path the reader replaces.
DOCUMENTED_BASE = "http://127.0.0.1:8000"
DOCUMENTED_KEY = "AbCdEf12.S3cr3t..."
CHECKOUT = "/path/to/memory-platform"
# What the snippets remember and then recall for "alice" (the stdio ones only recall: the
# install's tenant `local` has it already).
USER = "alice"
FACT = "allergic to penicillin"
# A fresh install's first steps (a new cluster, Django's import) on a loaded two-core machine:
# these bound a hang, not how fast a step must be.
STEP_SECONDS = 300

_FENCED = re.compile(r"^```(python|json)\n(.*?)^```", re.MULTILINE | re.DOTALL)


def fenced(language: str, marker: str) -> list[tuple[str, str]]:
    """(where, text) of each block in `language` of the DOCUMENTS that contains `marker`."""
    found = []
    for document in DOCUMENTS:
        blocks = [
            b for lang, b in _FENCED.findall((ROOT / document).read_text()) if lang == language
        ]
        found += [(f"{document}#{i}", b) for i, b in enumerate(blocks) if marker in b]
    return found


SNIPPETS = fenced("python", "from mcp")
SERVERS = [
    (f"{where}:{name}", entry)
    for where, text in fenced("json", "mcpServers")
    for name, entry in json.loads(text)["mcpServers"].items()
]


def test_the_readme_and_the_agents_page_show_each_way_in():
    # Else the tests below would pass on nothing.
    wheres = {where.split("#")[0] for where, _ in SNIPPETS}
    assert wheres == set(DOCUMENTS)
    assert any("streamable_http_client(" in code for _, code in SNIPPETS)
    assert any("StdioServerParameters(" in code for _, code in SNIPPETS)
    assert {"url" in entry for _, entry in SERVERS} == {True, False}


@dataclass(frozen=True)
class Live:
    env: dict[str, str]
    key: str
    base: str


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Live]:
    """A fresh install with the tenant `local` and its key, served by gunicorn; alice has
    said the FACT (so that a snippet that only recalls has something to find)."""
    data_dir = tmp_path_factory.mktemp("mcp-snippets") / "data"
    env = clean_env(MEMORY_DATA_DIR=str(data_dir))
    try:
        try:
            manage("migrate", "--noinput", env=env, timeout=STEP_SECONDS)
            created = manage("create_api_key", "--tenant", "local", env=env, timeout=STEP_SECONDS)
        except subprocess.CalledProcessError as exc:
            pytest.fail(f"{' '.join(exc.cmd[1:])} failed:\n{exc.stderr[-3000:]}")
        key = created.stdout.strip().splitlines()[-1]
        port = free_port()
        with gunicorn(port, env):
            base = f"http://127.0.0.1:{port}"
            said = {"name": "remember", "arguments": {"user_id": USER, "text": f"I am {FACT}"}}
            request = urllib.request.Request(
                f"{base}/tools/call",
                data=json.dumps(said).encode(),
                headers={"Authorization": f"Bearer {key}", "Content-Type": "application/json"},
            )
            urllib.request.urlopen(request, timeout=STEP_SECONDS).close()
            yield Live(env, key, base)
    finally:
        stop_embedded_postgres(data_dir / "pg")


@pytest.mark.parametrize(("where", "code"), SNIPPETS, ids=[where for where, _ in SNIPPETS])
def test_the_python_snippet_runs_as_written(live, tmp_path, where, code):
    key = live.key
    if "streamable_http_client(" in code:
        assert DOCUMENTED_BASE in code, f"{where} does not connect to {DOCUMENTED_BASE}"
        code = code.replace(DOCUMENTED_BASE, live.base)
        # A tenant of its own, where alice has said nothing: what it recalls, it remembered.
        tenant = f"snippet-{uuid.uuid4().hex[:12]}"
        created = manage("create_api_key", "--tenant", tenant, env=live.env, timeout=STEP_SECONDS)
        key = created.stdout.strip().splitlines()[-1]
    script = tmp_path / "snippet.py"
    script.write_text(code)

    # From the checkout, with the key in the variable the snippets (and the client) read.
    ran = subprocess.run(
        [sys.executable, str(script)],
        cwd=ROOT, env={**live.env, "MEMORY_PLATFORM_API_KEY": key},
        capture_output=True, text=True, timeout=STEP_SECONDS,
    )  # fmt: skip

    assert ran.returncode == 0, f"{where} failed:\n{ran.stderr[-3000:]}"
    assert FACT in ran.stdout, ran.stdout


async def _recall_through(transport: Any) -> str:
    async with Client(transport) as memory:
        names = [tool.name for tool in (await memory.list_tools()).tools]
        assert names == ["remember", "recall", "forget", "context"]
        found = await memory.call_tool("recall", {"user_id": USER, "query": "antibiotics?"})
        assert not found.is_error, found
        return json.dumps(found.structured_content)


@pytest.mark.parametrize(("where", "entry"), SERVERS, ids=[where for where, _ in SERVERS])
def test_the_mcp_servers_json_starts_a_server_with_the_tools(live, tmp_path, where, entry):
    if "url" in entry:
        assert entry["url"] == f"{DOCUMENTED_BASE}/mcp"
        headers = {k: v.replace(DOCUMENTED_KEY, live.key) for k, v in entry["headers"].items()}

        async def over_http() -> str:
            async with httpx2.AsyncClient(headers=headers, timeout=STEP_SECONDS) as http:
                url = entry["url"].replace(DOCUMENTED_BASE, live.base)
                return await _recall_through(streamable_http_client(url, http_client=http))

        recalled = anyio.run(over_http)
    else:
        # As the app starts it: absolute paths, from a directory of its own, with only the
        # entry's environment (here, where the test's database is).
        command, *args = (
            part.replace(CHECKOUT, str(ROOT)) for part in [entry["command"], *entry["args"]]
        )
        assert Path(command).is_absolute() and Path(args[0]).is_absolute()
        server = StdioServerParameters(
            command=command,
            args=args,
            env={**entry.get("env", {}), "MEMORY_DATA_DIR": live.env["MEMORY_DATA_DIR"]},
            cwd=tmp_path,
        )
        recalled = anyio.run(_recall_through, server)

    assert FACT in recalled
