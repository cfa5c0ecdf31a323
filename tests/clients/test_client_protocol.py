"""The client's retries, errors and requests, against a scripted local HTTP server.

The service's own failures (a database down, a proxy's 504) are hard to cause on demand, so a
small server outside the client plays them. The endpoints still being built (context, user and
session erasure, tools) are checked here too, against the shapes they are specified to have.
"""

from __future__ import annotations

import asyncio
import time
import uuid

import pytest
from memory_platform_client import (
    APIConnectionError,
    AsyncMemoryClient,
    MemoryClient,
    NotFoundError,
    RateLimitError,
    ServerError,
)

from tests.processes import free_port

USER = "3f1c2d4e-0000-4000-8000-000000000001"
EMPTY_PAGE = {"memories": [], "total": 0, "limit": 50, "offset": 0}
DOWN = {"error": {"code": "service_unavailable", "message": "The database is unavailable."}}
SAVED = {"id": "mem_AbCdEfGhIjKlMnOp", "caption": "User lives in Lisbon",
         "created_at": "2025-01-02T03:04:05Z"}  # fmt: skip


def test_a_503_is_retried_after_its_retry_after(scripted):
    server = scripted((503, {"Retry-After": "0"}, DOWN), (200, {}, EMPTY_PAGE))

    with MemoryClient(server.url, "key") as client:
        page = client.list_memories(USER, limit=50)

    assert page.total == 0
    assert [seen.path for seen in server.seen] == ["/memories/list"] * 2
    assert server.seen[1].query == {"user_id": [USER], "limit": ["50"]}
    assert server.seen[1].headers["Authorization"] == "Bearer key"


def test_retries_back_off_and_end_with_the_last_error_and_its_request_id(scripted):
    down = (503, {"X-Request-ID": "req-1"}, DOWN)
    server = scripted(down, down, down)

    started = time.monotonic()
    with MemoryClient(server.url, "key", max_retries=2) as client, pytest.raises(ServerError) as e:
        client.relevant(USER, "where do I live")

    assert len(server.seen) == 3
    assert time.monotonic() - started >= 0.25 + 0.5  # at least half of each backoff ceiling
    assert (e.value.status, e.value.code) == (503, "service_unavailable")
    assert e.value.request_id == "req-1"


def test_a_retry_after_over_the_maximum_wait_is_raised_at_once(scripted):
    limited = {"error": {"code": "rate_limited", "message": "Too many requests."}}
    server = scripted((429, {"Retry-After": "120"}, limited))

    with MemoryClient(server.url, "key") as client, pytest.raises(RateLimitError) as refused:
        client.list_memories(USER)

    assert len(server.seen) == 1
    assert (refused.value.code, refused.value.retry_after) == ("rate_limited", 120.0)


def test_an_error_page_that_is_not_json_still_raises_with_its_status(scripted):
    server = scripted((502, {}, "<html>Bad Gateway</html>"))

    with (
        MemoryClient(server.url, "key", max_retries=0) as client,
        pytest.raises(ServerError) as error,
    ):
        client.list_memories(USER)

    assert (error.value.status, error.value.code) == (502, "http_502")
    assert "Bad Gateway" in error.value.message


def test_an_unreachable_service_is_a_connection_error_after_the_retries():
    with (
        MemoryClient(f"http://127.0.0.1:{free_port()}", "key", max_retries=1) as client,
        pytest.raises(APIConnectionError) as error,
    ):
        client.health()

    assert error.value.code == "connection_error" and error.value.status is None


def test_a_404_to_a_retried_deletion_that_may_have_gone_through_is_a_success(scripted):
    gateway = (504, {"Retry-After": "0"}, {"error": {"code": "timeout", "message": "Timed out."}})
    missing = (404, {}, {"error": {"code": "not_found", "message": "Not found."}})
    server = scripted(gateway, missing, gateway, missing, missing)

    with MemoryClient(server.url, "key") as client:
        client.delete(USER, "mem_AbCdEfGhIjKlMnOp")
        receipt = client.erase_user(USER)
        with pytest.raises(NotFoundError):  # a first attempt's 404 is the answer
            client.delete(USER, "mem_AbCdEfGhIjKlMnOp")

    assert [seen.method for seen in server.seen] == ["DELETE"] * 5
    assert server.seen[0].path == "/memories/mem_AbCdEfGhIjKlMnOp"
    assert (receipt.user_id, receipt.deleted) == (USER, {})  # erased, its receipt lost


def test_extract_waits_for_the_job_when_the_service_extracts_asynchronously(scripted):
    job_id = str(uuid.uuid4())
    job = {"job_id": job_id, "status": "running", "memories_saved": [], "total_user_memories": 0,
           "error": "", "created_at": "2025-01-02T03:04:05Z", "finished_at": None}  # fmt: skip
    done = {**job, "status": "succeeded", "memories_saved": [SAVED], "total_user_memories": 1,
            "finished_at": "2025-01-02T03:04:06Z"}  # fmt: skip
    server = scripted((202, {}, {"job_id": job_id}), (200, {}, job), (200, {}, done))
    conversation = [{"role": "user", "content": "I live in Lisbon.", "name": "ignored"}]

    with MemoryClient(server.url, "key") as client:
        extraction = client.extract(USER, conversation, session_id="chat-1")

    assert extraction.job_id == job_id and extraction.total_user_memories == 1
    assert extraction.memories_saved[0].caption == "User lives in Lisbon"
    assert server.seen[0].query == {}  # wait=True does not ask for ?async=1
    assert server.seen[0].body == {
        "user_id": USER,
        "conversation": [{"role": "user", "content": "I live in Lisbon."}],
        "session_id": "chat-1",
    }
    assert [seen.path for seen in server.seen[1:]] == [f"/memories/jobs/{job_id}"] * 2


def test_health_reports_a_down_database_without_raising_or_retrying(scripted):
    server = scripted((503, {}, {"status": "down", "database": {"status": "down"}}))

    with MemoryClient(server.url) as client:
        health = client.health()

    assert (health.status, health.ok) == ("down", False)
    assert health.checks == {"database": {"status": "down"}}
    assert len(server.seen) == 1 and "Authorization" not in server.seen[0].headers


# The endpoints below are being built in the service; these check the client's side of them.


def test_context_sends_the_budget_and_parses_the_block(scripted):
    body = {"context": "- User lives in Lisbon", "tokens": 7, "truncated": False,
            "memories": [{"id": SAVED["id"], "caption": SAVED["caption"], "tier": "relevant",
                          "score": 0.8}]}  # fmt: skip
    server = scripted((200, {}, body))

    with MemoryClient(server.url, "key") as client:
        context = client.context(USER, "where do I live?", max_tokens=200, session_id="s-1")

    assert (context.context, context.tokens, context.truncated) == (body["context"], 7, False)
    assert context.memories[0].tier == "relevant"
    assert server.seen[0].path == "/memories/context"
    assert server.seen[0].query == {"user_id": [USER], "prompt": ["where do I live?"],
                                    "max_tokens": ["200"], "session_id": ["s-1"]}  # fmt: skip


def test_erasures_and_tools_send_the_specified_requests(scripted):
    receipt = {"user_id": USER, "deleted": {"memories": 2, "sessions": 1}}
    tools = [{"type": "function", "function": {"name": "recall", "parameters": {}}}]
    server = scripted(
        (200, {}, receipt),
        (200, {}, receipt),
        (200, {}, {"tools": tools}),
        (200, {}, {"memories": []}),
    )

    async def scenario():
        async with AsyncMemoryClient(server.url, "key") as client:
            return (
                await client.erase_user(USER),
                await client.erase_session(USER, "chat/1"),
                await client.tools(),
                await client.call_tool("recall", {"user_id": USER, "prompt": "home"}),
            )

    user, session, listed, result = asyncio.run(scenario())

    assert user.deleted == session.deleted == {"memories": 2, "sessions": 1}
    assert listed == tools and result == {"memories": []}
    assert [(seen.method, seen.path) for seen in server.seen] == [
        ("DELETE", f"/users/{USER}"),
        ("DELETE", "/sessions/chat%2F1"),
        ("GET", "/tools"),
        ("POST", "/tools/call"),
    ]
    assert server.seen[1].query == {"user_id": [USER]}
    assert server.seen[3].body == dict(name="recall", arguments={"user_id": USER, "prompt": "home"})
