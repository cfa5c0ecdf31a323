import uuid

import numpy as np
import pytest
from django.core.cache import cache
from django.db import connection
from django.test.utils import CaptureQueriesContext

from memories.models import Memory
from recall import index as recall_index
from recall.index import (
    local_index_clear,
    user_index_find,
    user_index_get,
    user_index_invalidate,
)
from tests.factories import TenantFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def redis_cache(settings, redis_url):
    """Django's cache on a real Redis-protocol server, as in production."""
    settings.CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": redis_url,
            "KEY_PREFIX": "recall-tests",
        }
    }
    cache.clear()
    yield cache
    cache.clear()


def test_a_warm_index_is_served_without_rebuilding(end_user, remember, monkeypatch):
    remember(end_user, "User likes tea")
    first = user_index_get(end_user_id=end_user.pk)
    monkeypatch.setattr(recall_index, "fetch_records", pytest.fail)

    assert user_index_get(end_user_id=end_user.pk) is first


def test_without_a_shared_cache_a_write_by_another_process_is_seen(end_user, remember):
    # LocMemCache is per process: another worker's write reaches us through the database.
    (tea,) = remember(end_user, "User likes tea")
    assert user_index_get(end_user_id=end_user.pk).captions == ("User likes tea",)

    Memory.objects.filter(pk=tea.pk).update(status=Memory.Status.SUPERSEDED)
    (coffee,) = remember(end_user, "User likes coffee")  # no invalidation call in this process

    assert user_index_get(end_user_id=end_user.pk).ids == (coffee.id,)


def test_an_edit_that_keeps_the_row_count_still_refreshes_the_index(end_user, remember):
    (tea,) = remember(end_user, "User likes tea")
    user_index_get(end_user_id=end_user.pk)

    Memory.objects.filter(pk=tea.pk).update(caption="User likes green tea", content_hash="x" * 64)

    assert user_index_get(end_user_id=end_user.pk).captions == ("User likes green tea",)


def test_the_index_scores_words_of_the_caption_and_the_full_text(end_user, remember):
    (memory,) = remember(end_user, "User has a cat")
    Memory.objects.filter(pk=memory.pk).update(full_text="The cat is called Miso")
    user_index_invalidate(end_user_id=end_user.pk)

    index = user_index_get(end_user_id=end_user.pk)

    assert index.bm25(["miso"])[0] > 0
    assert index.bm25(["cat"])[0] > 0
    assert index.bm25(["dog"])[0] == 0


def test_memories_of_one_session_are_neighbours_in_creation_order(end_user, remember):
    from memories.models import AgentSession

    session = AgentSession.objects.create(end_user=end_user, external_id="chat-1")
    remember(end_user, "First fact", source_session=session)
    remember(end_user, "Unrelated fact")
    remember(end_user, "Second fact", source_session=session)

    index = user_index_get(end_user_id=end_user.pk)

    assert index.previous.tolist() == [-1, -1, 0]
    assert index.following.tolist() == [2, -1, -1]
    assert index.groups[0] == index.groups[2] != index.groups[1]


def test_with_redis_another_process_reuses_the_shared_index(end_user, remember, redis_cache):
    remember(end_user, "User likes tea")
    built = user_index_get(end_user_id=end_user.pk)
    local_index_clear()  # a second worker: nothing in its own memory

    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as queries:
        shared = user_index_get(end_user_id=end_user.pk)

    assert shared.ids == built.ids and shared.stamp == built.stamp
    assert len(queries) == 0  # served by Redis, not rebuilt from PostgreSQL


def test_with_redis_a_write_elsewhere_retires_this_process_copy(end_user, remember, redis_cache):
    remember(end_user, "User likes tea")
    stale = user_index_get(end_user_id=end_user.pk)

    (coffee,) = remember(end_user, "User likes coffee")
    # Another process commits the write and invalidates: only the shared version moves.
    user_index_invalidate(end_user_id=end_user.pk)
    recall_index._local_put(stale)  # this process still holds the old copy

    fresh = user_index_get(end_user_id=end_user.pk)
    assert coffee.id in fresh.ids
    assert fresh.stamp != stale.stamp


def test_with_redis_invalidation_removes_the_cached_text(end_user, remember, redis_cache):
    remember(end_user, "User's secret is 42")
    index = user_index_get(end_user_id=end_user.pk)
    key = recall_index._INDEX_KEY.format(end_user_id=end_user.pk, stamp=index.stamp)
    assert redis_cache.get(key) is not None

    user_index_invalidate(end_user_id=end_user.pk)

    assert redis_cache.get(key) is None


def test_a_down_cache_falls_back_to_database_stamps(end_user, remember, settings):
    settings.CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": "redis://127.0.0.1:1/0",
            "OPTIONS": {"socket_connect_timeout": 0.2, "socket_timeout": 0.2},
        }
    }
    (tea,) = remember(end_user, "User likes tea")

    assert user_index_get(end_user_id=end_user.pk).ids == (tea.id,)
    user_index_invalidate(end_user_id=end_user.pk)  # logs, never raises


def test_the_index_holds_the_stored_vectors_exactly(end_user, remember):
    tea, chess = remember(end_user, "User likes tea", "User plays chess")

    index = user_index_get(end_user_id=end_user.pk)

    stored = [Memory.objects.get(pk=m.pk).embedding for m in (tea, chess)]
    assert index.ids == (tea.id, chess.id)
    assert index.vectors.dtype == np.float32
    assert np.array_equal(index.vectors, np.array(stored, dtype=np.float32))


# --- the read path's lookup: the user and its index together -------------------------------


def test_a_warm_lookup_by_user_id_is_one_query(end_user, remember):
    (tea,) = remember(end_user, "User likes tea")
    user_index_find(tenant_id=end_user.tenant_id, external_id=end_user.external_id)

    with CaptureQueriesContext(connection) as queries:
        index = user_index_find(tenant_id=end_user.tenant_id, external_id=end_user.external_id)

    assert index.ids == (tea.id,) and index.end_user_id == end_user.pk
    assert len(queries) == 1


def test_the_lookup_sees_only_the_tenants_own_users(end_user, remember):
    remember(end_user, "User likes tea")
    other_tenant = TenantFactory()

    assert user_index_find(tenant_id=other_tenant.pk, external_id=end_user.external_id) is None
    assert user_index_find(tenant_id=end_user.tenant_id, external_id=uuid.uuid4()) is None


def test_the_lookup_sees_a_write_by_another_process(end_user, remember):
    (tea,) = remember(end_user, "User likes tea")
    found = user_index_find(tenant_id=end_user.tenant_id, external_id=end_user.external_id)
    assert found.ids == (tea.id,)

    Memory.objects.filter(pk=tea.pk).update(caption="User likes green tea", content_hash="x" * 64)

    again = user_index_find(tenant_id=end_user.tenant_id, external_id=end_user.external_id)
    assert again.captions == ("User likes green tea",)
    assert again.stamp == user_index_get(end_user_id=end_user.pk).stamp


def test_with_redis_the_lookup_uses_the_shared_index(end_user, remember, redis_cache, monkeypatch):
    (tea,) = remember(end_user, "User likes tea")
    built = user_index_get(end_user_id=end_user.pk)
    local_index_clear()  # a second worker
    monkeypatch.setattr(recall_index, "fetch_records", pytest.fail)

    found = user_index_find(tenant_id=end_user.tenant_id, external_id=end_user.external_id)

    assert found.ids == (tea.id,) and found.stamp == built.stamp
    assert user_index_find(tenant_id=TenantFactory().pk, external_id=end_user.external_id) is None
