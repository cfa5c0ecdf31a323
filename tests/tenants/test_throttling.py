"""The per-user rate limit's counter: exact, expiring, one round trip, django-ratelimit's keys."""

from __future__ import annotations

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
from tenants.throttling import RATE_LIMIT_GROUP, counter_increment
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
        key=lambda group, request: f"{tenant.pk}:{user_id}",
        rate="3/m",
        increment=False,
    )
    assert usage["count"] == 4 and usage["should_limit"]
