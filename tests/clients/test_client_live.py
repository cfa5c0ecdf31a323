"""The Python client against the real service: a fresh install under gunicorn."""

from __future__ import annotations

import asyncio
import subprocess
import time
import uuid
from collections.abc import Iterator

import pytest
from memory_platform_client import (
    AsyncMemoryClient,
    AuthenticationError,
    Extraction,
    MemoryClient,
    NotFoundError,
    QueuedJob,
    RateLimitError,
    ValidationError,
)

from memory_platform.embedded import stop_embedded_postgres
from tests.processes import REQUEST_SECONDS, clean_env, free_port, gunicorn, manage

CONVERSATION = [
    {"role": "user", "content": "I live in Lisbon and my cat is called Miso."},
    {"role": "assistant", "content": "Lovely!"},
]
CAPTIONS = {"User lives in Lisbon", "User's cat is called Miso"}

# Small enough for the rate limit test to reach quickly, large enough for each main-path test.
RATE_LIMIT = 10


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str]]:
    """A fresh install served by two gunicorn workers: (base URL, API key).

    No REDIS_URL: `?async=1` jobs then run in the web process after commit (the job is done by
    the time the 202 is sent), and the rate limit is counted in files both workers share.
    """
    data_dir = tmp_path_factory.mktemp("client") / "data"
    env = clean_env(MEMORY_DATA_DIR=str(data_dir), MEMORY_RATE_LIMIT=str(RATE_LIMIT))
    try:
        manage("migrate", "--noinput", env=env)
        created = manage("create_api_key", "--tenant", "client", env=env)
    except subprocess.CalledProcessError as exc:
        raise AssertionError(f"{exc.cmd[2:]} failed:\n{exc.stderr[-3000:]}") from exc
    key = created.stdout.strip().splitlines()[-1]
    port = free_port()
    try:
        with gunicorn(port, env, workers=2):
            yield f"http://127.0.0.1:{port}", key
    finally:
        stop_embedded_postgres(data_dir / "pg")


@pytest.fixture
def client(service):
    base, key = service
    with MemoryClient(base, key, timeout=REQUEST_SECONDS) as client:
        yield client


def test_extract_then_recall_list_read_and_delete(client):
    user_id = uuid.uuid4()

    saved = client.extract(user_id, CONVERSATION, session_id="chat-1")
    again = client.extract(user_id, CONVERSATION)
    relevant = client.relevant(user_id, "what is my cat called", limit=5, explain=True)
    page = client.list_memories(user_id)
    ids = [memory.id for memory in saved.memories_saved]
    full = client.full(user_id, reversed(ids))
    client.delete(user_id, ids[0])
    after = client.list_memories(user_id)
    with pytest.raises(NotFoundError) as gone:
        client.delete(user_id, ids[0])

    assert isinstance(saved, Extraction) and not saved.replayed
    assert {memory.caption for memory in saved.memories_saved} == CAPTIONS
    assert saved.total_user_memories == 2
    assert again.replayed and again.memories_saved == saved.memories_saved
    assert relevant.memories[0].caption == "User's cat is called Miso"
    assert isinstance(relevant.memories[0].score, float)
    assert relevant.memories[0].signals and relevant.explain is not None
    assert (page.total, page.limit, page.offset) == (2, 50, 0)
    assert {memory.id for memory in page.memories} == set(ids)
    assert [memory.id for memory in full.memories] == ids[::-1]
    assert all(memory.full_text for memory in full.memories)
    assert [memory.id for memory in after.memories] == ids[1:]
    assert (gone.value.status, gone.value.code) == (404, "not_found")


def test_an_async_extraction_is_a_job_that_polling_sees_succeed(client):
    user_id = uuid.uuid4()

    queued = client.extract(user_id, CONVERSATION, wait=False)
    job = client.wait_for_job(queued.job_id, timeout=60)
    polled = client.job(queued.job_id)

    assert isinstance(queued, QueuedJob)
    assert job.status == "succeeded" and job.done and job.finished_at is not None
    assert {memory.caption for memory in job.memories_saved} == CAPTIONS
    assert polled == job
    with pytest.raises(NotFoundError) as unknown:
        client.job(uuid.uuid4())
    assert unknown.value.code == "not_found"


def test_bad_input_is_a_validation_error_with_the_service_code(client):
    user_id = uuid.uuid4()

    with pytest.raises(ValidationError) as empty:
        client.extract(user_id, [])
    with pytest.raises(ValidationError) as limit:
        client.relevant(user_id, "anything", limit=0)
    with pytest.raises(ValidationError) as bad_id:
        client.delete(user_id, "not-a-memory-id")

    assert (empty.value.status, empty.value.code) == (400, "invalid_request")
    assert "conversation" in empty.value.details["fields"]
    assert limit.value.code == bad_id.value.code == "invalid_request"


def test_a_user_the_service_has_never_seen_reads_as_empty(client):
    user_id = uuid.uuid4()

    assert client.relevant(user_id, "where do I live").memories == ()
    assert client.list_memories(user_id).total == 0
    assert client.full(user_id, ["mem_AbCdEfGhIjKlMnOp"]).memories == ()


def test_health_needs_no_key_and_a_wrong_key_is_an_authentication_error(service):
    base, _ = service

    with MemoryClient(base, api_key="") as anonymous, MemoryClient(base, "nope.nope") as wrong:
        health = anonymous.health()
        with pytest.raises(AuthenticationError) as refused:
            wrong.list_memories(uuid.uuid4())

    assert health.ok and health.checks["database"]["status"] == "ok"
    assert (refused.value.status, refused.value.code) == (401, "unauthorized")


def _rate_limited_user(client: MemoryClient, low: float, high: float) -> uuid.UUID:
    """A user just over the limit whose window resets in `low` to `high` seconds.

    Each user's one-minute window starts at an offset of its own, so a few fresh users are
    enough to find one that the test does not have to wait long for.
    """
    for _ in range(200):
        user_id = uuid.uuid4()
        for _ in range(RATE_LIMIT):
            client.list_memories(user_id)
        try:
            client.list_memories(user_id)
        except RateLimitError as exc:
            if low <= exc.retry_after <= high:
                return user_id
    raise AssertionError("no user with a short wait was found")


def test_a_429_is_retried_after_the_retry_after_the_service_gives(service):
    base, key = service
    with (
        MemoryClient(base, key, max_retries=0) as probe,
        MemoryClient(base, key, max_retry_wait=0.5) as impatient,
        MemoryClient(base, key, max_retries=2, max_retry_wait=10) as patient,
    ):
        user_id = _rate_limited_user(probe, low=3, high=6)

        started = time.monotonic()
        with pytest.raises(RateLimitError) as refused:
            impatient.list_memories(user_id)
        refused_after = time.monotonic() - started
        started = time.monotonic()
        page = patient.list_memories(user_id)
        served_after = time.monotonic() - started

    assert (refused.value.status, refused.value.code) == (429, "rate_limited")
    assert refused_after < 0.5  # longer than max_retry_wait: raised at once, not retried
    assert refused.value.retry_after >= 2
    assert page.total == 0
    assert served_after >= refused.value.retry_after - 1.5  # waited for the window to reset


def test_the_async_client_drives_the_same_service(service):
    base, key = service
    user_id = uuid.uuid4()

    async def scenario():
        async with AsyncMemoryClient(base, key, timeout=REQUEST_SECONDS) as client:
            saved = await client.extract(user_id, CONVERSATION)
            queued = await client.extract(user_id, [*CONVERSATION[:1]], wait=False)
            job = await client.wait_for_job(queued.job_id)
            relevant, page = await asyncio.gather(
                client.relevant(user_id, "where do I live"), client.list_memories(user_id)
            )
            try:
                await client.delete(user_id, "mem_AbCdEfGhIjKlMnOp")
            except NotFoundError as exc:
                missing = exc
            return saved, job, relevant, page, missing

    saved, job, relevant, page, missing = asyncio.run(scenario())

    assert {memory.caption for memory in saved.memories_saved} == CAPTIONS
    assert job.status == "succeeded"
    assert relevant.memories[0].caption == "User lives in Lisbon"
    assert page.total == 2
    assert missing.code == "not_found"


def test_context_tools_and_erasure_over_the_client(client):
    user_id = uuid.uuid4()
    client.extract(user_id, CONVERSATION, session_id="chat-ctx")
    extra = [{"role": "user", "content": "I'm allergic to penicillin."}]
    client.extract(user_id, extra, session_id="chat-other")

    context = client.context(user_id, "is it ok to feed my cat tuna?", max_tokens=200)
    names = [tool["function"]["name"] for tool in client.tools()]
    recalled = client.call_tool("recall", {"user_id": str(user_id), "query": "my pet's name"})
    with pytest.raises(ValidationError) as refused:
        client.call_tool("recall", {"user_id": str(user_id), "prompt": "wrong argument"})
    session_receipt = client.erase_session(user_id, "chat-other")
    remaining = {m.caption for m in client.list_memories(user_id).memories}
    user_receipt = client.erase_user(user_id)
    with pytest.raises(NotFoundError):
        client.erase_user(user_id)

    assert 0 < context.tokens <= 200 and "Miso" in context.context
    assert {m.tier for m in context.memories} <= {"profile", "relevant", "session"}
    assert names == ["remember", "recall", "forget", "context"]
    assert any("Miso" in m["caption"] for m in recalled["memories"])
    assert refused.value.code == "invalid_request"
    assert session_receipt.deleted["memories"] == 1
    assert remaining == CAPTIONS
    assert user_receipt.deleted["memories"] == len(CAPTIONS)
    assert client.list_memories(user_id).memories == ()
