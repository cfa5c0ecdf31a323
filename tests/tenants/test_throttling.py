"""The per-user rate limit's counter: exact, expiring, one round trip, django-ratelimit's keys."""

from __future__ import annotations

import hashlib
import threading
import uuid
from pathlib import Path

import pytest
from django.core.cache.backends.redis import RedisCache
from django.test import RequestFactory
from django_ratelimit.core import get_usage
from redis.connection import AbstractConnection
from rest_framework.test import APIClient

from core.filecache import LockedFileBasedCache
from tenants.throttling import RATE_LIMIT_GROUP, counter_increment, end_user_rate_key
from tests.factories import api_key_for


@pytest.fixture
def redis_cache(redis_url: str) -> RedisCache:
    cache = RedisCache(redis_url, {"KEY_PREFIX": f"throttle-{uuid.uuid4().hex}"})
    yield cache
    cache.clear()


@pytest.fixture
def file_cache(tmp_path: Path) -> LockedFileBasedCache:
    return LockedFileBasedCache(str(tmp_path / "ratelimit"), {})


def test_a_redis_counter_counts_from_one_and_expires(redis_cache):
    counts = [counter_increment(redis_cache, "user-a", 65) for _ in range(3)]

    assert counts == [1, 2, 3]
    client = redis_cache._cache.get_client(write=True)
    assert 60 < client.ttl(redis_cache.make_and_validate_key("user-a")) <= 65


def test_a_redis_counter_is_one_round_trip(redis_cache, monkeypatch):
    counter_increment(redis_cache, "user-a", 65)
    sends = []
    send = AbstractConnection.send_packed_command
    monkeypatch.setattr(
        AbstractConnection,
        "send_packed_command",
        lambda self, command, *args, **kwargs: (
            sends.append(command) or send(self, command, *args, **kwargs)
        ),
    )

    assert counter_increment(redis_cache, "user-a", 65) == 2
    assert len(sends) == 1  # django-ratelimit: SET NX, then EXISTS, then INCR


@pytest.mark.parametrize("backend", ["redis_cache", "file_cache"])
def test_concurrent_increments_are_all_counted(backend, request):
    cache = request.getfixturevalue(backend)
    counts: list[int] = []

    def hammer() -> None:
        for _ in range(25):
            counts.append(counter_increment(cache, "user-a", 65))

    threads = [threading.Thread(target=hammer) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert sorted(counts) == list(range(1, 101))


@pytest.mark.django_db
def test_the_throttle_counts_in_django_ratelimits_own_counter(tenant, settings):
    settings.MEMORY_RATE_LIMIT = 3
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {api_key_for(tenant)}")
    user_id = str(uuid.uuid4())

    statuses = [client.get("/memories/list", {"user_id": user_id}).status_code for _ in range(4)]

    assert statuses == [200, 200, 200, 429]
    usage = get_usage(
        RequestFactory().get("/"),
        group=RATE_LIMIT_GROUP,
        key=lambda group, request: end_user_rate_key(tenant_id=tenant.pk, user_id=user_id),
        rate="3/m",
        increment=False,
    )
    assert usage["count"] == 4 and usage["should_limit"]


def test_the_counter_key_is_the_exact_id_hashed():
    key = end_user_rate_key(tenant_id=7, user_id="Alice ")

    assert key == f"7:{hashlib.sha256(b'Alice ').hexdigest()}"
    assert end_user_rate_key(tenant_id=7, user_id="x" * 128).startswith("7:")
    assert len(end_user_rate_key(tenant_id=7, user_id="\U0001f600" * 128)) == 2 + 64


@pytest.fixture
def limited(api, settings):
    """The API with a per-user limit of one request a minute."""
    settings.MEMORY_RATE_LIMIT = 1
    return api


def _extract(api: APIClient, user_id: str, query: str = ""):
    body = {"user_id": user_id, "conversation": [{"role": "user", "content": "Hello there."}]}
    return api.post(f"/memories/extract{query}", body, format="json")


def _tool(api: APIClient, body: dict):
    return api.post("/tools/call", body, format="json")


@pytest.mark.django_db
def test_ids_that_differ_in_case_or_spaces_are_different_users_with_their_own_budget(limited):
    base = f"alice-{uuid.uuid4().hex}"
    ids = [base, base.upper(), f"{base} ", f" {base}", " ", "  ", "   "]

    first = [limited.get("/memories/list", {"user_id": i}).status_code for i in ids]
    second = [limited.get("/memories/list", {"user_id": i}).status_code for i in ids]

    assert first == [200] * len(ids)
    assert second == [429] * len(ids)


@pytest.mark.django_db
def test_a_uuid_is_one_user_in_either_case(limited):
    user_id = str(uuid.uuid4())

    assert limited.get("/memories/list", {"user_id": user_id}).status_code == 200
    assert limited.get("/memories/list", {"user_id": user_id.upper()}).status_code == 429


@pytest.mark.django_db
def test_extract_counts_the_body_user_and_refuses_another_user_in_the_query(limited):
    throttled = str(uuid.uuid4())
    assert _extract(limited, throttled).status_code == 201
    assert _extract(limited, throttled).status_code == 429

    stepped_around = _extract(limited, throttled, f"?user_id={uuid.uuid4()}")
    same_user_named_twice = _extract(limited, throttled, f"?user_id={throttled}")

    assert stepped_around.status_code == 400
    assert stepped_around.json()["error"]["code"] == "invalid_request"
    assert "more than one user_id" in stepped_around.json()["error"]["message"]
    assert same_user_named_twice.status_code == 429


@pytest.mark.django_db
def test_a_tool_call_counts_its_arguments_user_and_refuses_another_at_the_top_level(limited):
    throttled = str(uuid.uuid4())
    recall = {"name": "recall", "arguments": {"user_id": throttled, "query": "coffee"}}
    assert _tool(limited, recall).status_code == 200
    assert _tool(limited, recall).status_code == 429

    stepped_around = _tool(limited, {**recall, "user_id": str(uuid.uuid4())})
    in_the_query = limited.post(f"/tools/call?user_id={uuid.uuid4()}", recall, format="json")

    assert stepped_around.status_code == 400
    assert "more than one user_id" in stepped_around.json()["error"]["message"]
    assert in_the_query.status_code == 400


@pytest.mark.django_db
def test_a_path_user_and_a_different_query_user_are_refused(limited):
    response = limited.delete(f"/users/{uuid.uuid4()}?user_id={uuid.uuid4()}")

    assert response.status_code == 400
    assert "more than one user_id" in response.json()["error"]["message"]


@pytest.mark.django_db
@pytest.mark.parametrize(
    "invalid",
    ["x" * 129, "bell\x07", "\x85next-line"],
    ids=["too long", "control character", "C1 control"],
)
def test_an_invalid_user_id_is_not_counted_and_is_answered_by_validation(limited, invalid):
    statuses = [limited.get("/memories/list", {"user_id": invalid}).status_code for _ in range(3)]

    assert statuses == [400, 400, 400]


@pytest.mark.django_db
def test_an_invalid_user_id_does_not_spend_the_budget_of_the_valid_one_it_resembles(limited):
    valid = f"bob-{uuid.uuid4().hex}"
    # \x1f is a control character (refused) that str.strip() takes for a space.
    resembling = f"{valid.upper()}\x1f"

    assert limited.get("/memories/list", {"user_id": resembling}).status_code == 400
    assert limited.get("/memories/list", {"user_id": valid}).status_code == 200
