"""Erasure on request: DELETE /users/{user_id} and DELETE /sessions/{session_id}."""

from __future__ import annotations

import json
import threading
import time
import uuid

import pytest
from django.core.cache import cache
from rest_framework.test import APIClient

from extraction.models import ExtractionJob
from memories.models import (
    AgentSession,
    DeletionRecord,
    EndUser,
    ErasureRecord,
    Memory,
    MemoryVersion,
    ReviewItem,
)
from memories.services.erasure import ReviewSnapshot, end_user_erase, session_erasure_plan
from memories.signals import erasure_started
from recall import index as recall_index
from tests.factories import TenantFactory, api_key_for
from tests.scripted_llm import ScriptedLLM, fact

pytestmark = pytest.mark.django_db

RECEIPT_KINDS = {"memories", "versions", "jobs", "sessions", "reviews"}
# What the user says in each scripted conversation: the marker the stub answers to, and the
# facts it answers with in the user's own words (the grounding check keeps only those).
BERLIN = "berlin: I live in Berlin"
MUNICH = "munich: I live in Munich"
MITTE = "mitte: I live in Berlin, in Mitte"
HOBBIES = "hobbies: I play the cello, and I prefer dark mode in every editor"


@pytest.fixture
def llm(llm_settings) -> ScriptedLLM:
    scripted = ScriptedLLM(llm_settings)
    scripted.learn("berlin", fact("User lives in Berlin"))
    scripted.learn("munich", fact("User lives in Munich"))
    scripted.learn("mitte", fact("User lives in Berlin", full_text="User lives in Berlin, Mitte"))
    scripted.learn(
        "hobbies",
        fact("User plays the cello", "personal"),
        fact("User prefers dark mode in every editor", "preference"),
    )
    scripted.contradict("User lives in Berlin", "User lives in Munich")
    scripted.contradict("User lives in Berlin, Mitte", "User lives in Munich")
    scripted.same("User lives in Berlin", "User lives in Berlin, Mitte")
    return scripted


@pytest.fixture(autouse=True)
def cold_index(settings):
    settings.RECALL_ACCESS_FLUSH_SECONDS = 0  # access statistics written inline, not at exit
    recall_index.local_index_clear()
    yield
    recall_index.local_index_clear()


def client_for(tenant) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {api_key_for(tenant)}")
    return client


@pytest.fixture
def api(tenant) -> APIClient:
    return client_for(tenant)


def extract(api: APIClient, user_id, text: str, session_id: str | None = None) -> dict:
    body = {
        "user_id": str(user_id),
        "conversation": [
            {"role": "user", "content": text},
            {"role": "assistant", "content": "Got it."},
        ],
    }
    if session_id is not None:
        body["session_id"] = session_id
    response = api.post("/memories/extract", body, format="json")
    assert response.status_code in (201, 502), response.content
    return response.json()


def saved_ids(body: dict) -> list[str]:
    return [m["id"] for m in body["memories_saved"]]


def held_by(external_id, tenant=None) -> dict[str, int]:
    """How many rows of each kind the service holds about the user (of one tenant, or all)."""
    users = EndUser.objects.filter(external_id=external_id)
    if tenant is not None:
        users = users.filter(tenant=tenant)
    return {
        "users": users.count(),
        "memories": Memory.objects.filter(end_user__in=users).count(),
        "versions": MemoryVersion.objects.filter(memory__end_user__in=users).count(),
        "jobs": ExtractionJob.objects.filter(end_user__in=users).count(),
        "sessions": AgentSession.objects.filter(end_user__in=users).count(),
        "reviews": ReviewItem.objects.filter(end_user__in=users).count(),
        "deletions": DeletionRecord.objects.filter(end_user__in=users).count(),
    }


def a_full_user(api: APIClient, llm: ScriptedLLM, user_id) -> None:
    """Memories from two sessions and none, a merge, a pending conflict, a failed job and a
    deleted memory: a row in every table that holds something about the user."""
    extract(api, user_id, BERLIN, session_id="chat-1")
    extract(api, user_id, MITTE, session_id="chat-1")
    extract(api, user_id, MUNICH, session_id="chat-2")
    hobbies = saved_ids(extract(api, user_id, HOBBIES))
    assert api.delete(f"/memories/{hobbies[0]}?user_id={user_id}").status_code == 204
    llm.stub.fail(500, times=3)
    assert "job_id" in extract(api, user_id, "a conversation the LLM never saw")["error"]


# --- a whole user ------------------------------------------------------------------------------


def test_erasing_a_user_deletes_every_row_about_them_and_answers_a_receipt(api, llm):
    user_id = uuid.uuid4()
    a_full_user(api, llm, user_id)
    before = held_by(user_id)
    assert all(before.values()), before  # a row of every kind, a failed job's conversation too

    response = api.delete(f"/users/{user_id}")

    assert response.status_code == 200
    assert response.json() == {
        "user_id": str(user_id),
        "deleted": {
            "memories": before["memories"],
            "versions": before["versions"],
            "jobs": before["jobs"],
            "sessions": before["sessions"],
            "reviews": before["reviews"],
        },
    }
    assert set(held_by(user_id).values()) == {0}  # the EndUser row and deletion records too
    assert not ExtractionJob.objects.exclude(conversation=[]).exists()


def test_a_user_erasure_leaves_one_content_free_record(api, llm):
    user_id = uuid.uuid4()
    a_full_user(api, llm, user_id)

    receipt = api.delete(f"/users/{user_id}").json()

    record = ErasureRecord.objects.get()
    assert (record.external_id, record.scope, record.session_external_id) == (
        str(user_id),
        "user",
        "",
    )
    assert record.deleted == receipt["deleted"]
    assert record.actor_type == "api" and record.actor.startswith("tenant ")
    stored = json.dumps([str(v) for v in ErasureRecord.objects.values().get().values()])
    for text in ("Berlin", "Munich", "cello", "dark mode", "never saw"):
        assert text not in stored
    assert not DeletionRecord.objects.exists()


def test_erasing_a_user_leaves_other_users_and_other_tenants_untouched(api, llm):
    user_id, neighbour = uuid.uuid4(), uuid.uuid4()
    second_tenant = TenantFactory()
    other_tenant = client_for(second_tenant)
    for client, user in [(api, user_id), (api, neighbour), (other_tenant, user_id)]:
        extract(client, user, BERLIN, session_id="chat-1")
        extract(client, user, MUNICH, session_id="chat-2")
    kept_neighbour = held_by(neighbour)
    kept_other_tenant = held_by(user_id, second_tenant)
    assert kept_neighbour["memories"] and kept_neighbour["reviews"] and kept_other_tenant["jobs"]

    assert api.delete(f"/users/{user_id}").status_code == 200

    assert held_by(neighbour) == kept_neighbour
    assert held_by(user_id) == kept_other_tenant
    listed = other_tenant.get("/memories/list", {"user_id": user_id}).json()
    assert listed["total"] == 2


def test_another_tenants_user_is_404_and_keeps_everything(api, llm):
    user_id = uuid.uuid4()
    extract(api, user_id, BERLIN, session_id="chat-1")
    before = held_by(user_id)
    other_tenant = client_for(TenantFactory())

    response = other_tenant.delete(f"/users/{user_id}")
    unknown = other_tenant.delete(f"/users/{uuid.uuid4()}")

    assert response.status_code == unknown.status_code == 404
    assert response.json() == unknown.json()
    assert response.json()["error"]["code"] == "not_found"
    assert held_by(user_id) == before
    assert not ErasureRecord.objects.exists()


def test_an_erased_user_is_404_the_second_time_and_reads_as_never_seen(api, llm):
    user_id = uuid.uuid4()
    extract(api, user_id, BERLIN)
    assert api.delete(f"/users/{user_id}").status_code == 200

    assert api.delete(f"/users/{user_id}").status_code == 404
    assert api.get("/memories/list", {"user_id": user_id}).json()["total"] == 0
    relevant = api.get("/memories/relevant", {"user_id": user_id, "prompt": "where do I live"})
    assert relevant.json() == {"memories": []}


def test_a_malformed_user_id_is_400(api):
    response = api.delete("/users/" + "x" * 129)

    assert response.status_code == 400
    assert response.json()["error"]["code"] == "invalid_request"


def test_erasing_a_user_drops_their_index_from_this_process(
    api, llm, django_capture_on_commit_callbacks
):
    user_id = uuid.uuid4()
    extract(api, user_id, BERLIN)
    found = api.get("/memories/relevant", {"user_id": user_id, "prompt": "where do I live"})
    assert found.json()["memories"]
    end_user_id = EndUser.objects.get(external_id=user_id).pk
    assert end_user_id in recall_index._local

    with django_capture_on_commit_callbacks(execute=True):
        assert api.delete(f"/users/{user_id}").status_code == 200

    assert end_user_id not in recall_index._local
    again = api.get("/memories/relevant", {"user_id": user_id, "prompt": "where do I live"})
    assert again.json() == {"memories": []}
    assert end_user_id not in recall_index._local  # nothing rebuilt for a user who is gone


@pytest.fixture
def redis_cache(settings, redis_url):
    """Django's cache on a real Redis-protocol server, as in production."""
    settings.CACHES = {
        **settings.CACHES,
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": redis_url,
            "KEY_PREFIX": "erasure-tests",
        },
    }
    cache.clear()
    yield cache
    cache.clear()


def test_erasing_a_user_deletes_their_cached_index_from_redis(
    api, llm, redis_cache, django_capture_on_commit_callbacks
):
    user_id = uuid.uuid4()
    extract(api, user_id, BERLIN)
    api.get("/memories/relevant", {"user_id": user_id, "prompt": "where do I live"})
    end_user_id = EndUser.objects.get(external_id=user_id).pk
    version_key = recall_index._VERSION_KEY.format(end_user_id=end_user_id)
    stamp = redis_cache.get(version_key)
    index_key = recall_index._INDEX_KEY.format(end_user_id=end_user_id, stamp=stamp)
    assert "Berlin" in str(redis_cache.get(index_key).captions)

    with django_capture_on_commit_callbacks(execute=True):
        assert api.delete(f"/users/{user_id}").status_code == 200

    assert redis_cache.get(index_key) is None
    assert redis_cache.get(version_key) != stamp
    assert end_user_id not in recall_index._local
    relevant = api.get("/memories/relevant", {"user_id": user_id, "prompt": "where do I live"})
    assert relevant.json() == {"memories": []}


def test_a_failing_part_of_an_erasure_rolls_the_whole_erasure_back(api, llm, tenant):
    user_id = uuid.uuid4()
    a_full_user(api, llm, user_id)
    before = held_by(user_id)

    def fail(**kwargs):
        raise RuntimeError("disk on fire")

    erasure_started.connect(fail, dispatch_uid="test.fail")
    try:
        with pytest.raises(RuntimeError):
            end_user_erase(tenant=tenant, external_id=user_id)
    finally:
        erasure_started.disconnect(dispatch_uid="test.fail")

    assert held_by(user_id) == before
    assert not ErasureRecord.objects.exists()


def test_erasing_a_user_counts_against_their_rate_limit(api, llm, settings):
    settings.MEMORY_RATE_LIMIT = 2
    user_id = uuid.uuid4()
    extract(api, user_id, BERLIN)  # 1
    api.get("/memories/list", {"user_id": user_id})  # 2

    response = api.delete(f"/users/{user_id}")

    assert response.status_code == 429
    assert response.json()["error"]["code"] == "rate_limited"
    assert int(response["Retry-After"]) >= 1
    assert Memory.objects.filter(end_user__external_id=user_id).exists()
    assert api.delete(f"/users/{uuid.uuid4()}").status_code == 404  # another user's count


# --- one session -------------------------------------------------------------------------------


def test_erasing_a_session_deletes_its_memories_jobs_and_itself_only(api, llm):
    user_id = uuid.uuid4()
    from_session = saved_ids(extract(api, user_id, HOBBIES, session_id="chat-1"))
    other_session = saved_ids(extract(api, user_id, BERLIN, session_id="chat-2"))
    sessionless = saved_ids(extract(api, user_id, MUNICH))  # held for review against Berlin
    versions = MemoryVersion.objects.filter(memory_id__in=from_session).count()

    response = api.delete(f"/sessions/chat-1?user_id={user_id}")

    assert response.status_code == 200
    assert response.json() == {
        "user_id": str(user_id),
        "deleted": {"memories": 2, "versions": versions, "jobs": 1, "sessions": 1, "reviews": 0},
    }
    assert not Memory.objects.filter(id__in=from_session).exists()
    assert not MemoryVersion.objects.filter(memory_id__in=from_session).exists()
    assert not AgentSession.objects.filter(external_id="chat-1").exists()
    kept = set(Memory.objects.values_list("id", flat=True))
    assert kept == set(other_session + sessionless)
    assert ExtractionJob.objects.count() == 2 and ReviewItem.objects.count() == 1
    records = DeletionRecord.objects.filter(reason="erased")
    assert sorted(records.values_list("memory_id", flat=True)) == sorted(from_session)
    record = ErasureRecord.objects.get()
    assert (record.scope, record.session_external_id) == ("session", "chat-1")
    assert record.deleted == response.json()["deleted"]


def test_a_memory_another_session_restated_survives_the_sessions_erasure(api, llm):
    user_id = uuid.uuid4()
    (berlin,) = saved_ids(extract(api, user_id, BERLIN, session_id="chat-1"))
    assert saved_ids(extract(api, user_id, MITTE, session_id="chat-2")) == [berlin]  # merged

    response = api.delete(f"/sessions/chat-1?user_id={user_id}")

    assert response.json()["deleted"] == {
        "memories": 0,
        "versions": 0,
        "jobs": 1,
        "sessions": 1,
        "reviews": 0,
    }
    memory = Memory.objects.get(id=berlin)
    assert memory.full_text == "User lives in Berlin, Mitte"
    assert memory.source_session is None  # the erased session is no longer named
    assert ExtractionJob.objects.get().session.external_id == "chat-2"


def test_a_memory_restated_without_a_session_survives_the_sessions_erasure(api, llm):
    user_id = uuid.uuid4()
    (berlin,) = saved_ids(extract(api, user_id, BERLIN, session_id="chat-1"))
    extract(api, user_id, MITTE)

    api.delete(f"/sessions/chat-1?user_id={user_id}")

    assert Memory.objects.filter(id=berlin).exists()


def test_a_memory_restated_only_within_the_session_is_erased(api, llm):
    user_id = uuid.uuid4()
    (berlin,) = saved_ids(extract(api, user_id, BERLIN, session_id="chat-1"))
    extract(api, user_id, MITTE, session_id="chat-1")

    response = api.delete(f"/sessions/chat-1?user_id={user_id}")

    assert response.json()["deleted"] == {
        "memories": 1,
        "versions": 2,
        "jobs": 2,
        "sessions": 1,
        "reviews": 0,
    }
    assert not Memory.objects.filter(id=berlin).exists()


def test_erasing_the_session_a_held_memory_contradicted_makes_it_active(api, llm):
    user_id = uuid.uuid4()
    (berlin,) = saved_ids(extract(api, user_id, BERLIN, session_id="chat-1"))
    (munich,) = saved_ids(extract(api, user_id, MUNICH, session_id="chat-2"))
    assert Memory.objects.get(id=munich).status == "pending_review"

    response = api.delete(f"/sessions/chat-1?user_id={user_id}")

    assert response.json()["deleted"]["reviews"] == 1
    assert not ReviewItem.objects.exists()
    memory = Memory.objects.get(id=munich)
    assert memory.status == "active"
    assert memory.versions.last().action == "resolved"
    assert not Memory.objects.filter(id=berlin).exists()


def test_erasing_the_session_of_a_held_memory_closes_its_review(api, llm):
    user_id = uuid.uuid4()
    (berlin,) = saved_ids(extract(api, user_id, BERLIN, session_id="chat-1"))
    (munich,) = saved_ids(extract(api, user_id, MUNICH, session_id="chat-2"))

    response = api.delete(f"/sessions/chat-2?user_id={user_id}")

    assert response.json()["deleted"]["reviews"] == 1
    assert not ReviewItem.objects.exists() and not Memory.objects.filter(id=munich).exists()
    assert Memory.objects.get(id=berlin).status == "active"


def test_a_session_id_is_matched_as_extract_stored_it(api, llm):
    user_id = uuid.uuid4()
    extract(api, user_id, BERLIN, session_id="team/chat 1")

    response = api.delete(f"/sessions/team/chat%201?user_id={user_id}")

    assert response.status_code == 200
    assert response.json()["deleted"]["memories"] == 1


def test_an_unknown_or_another_users_or_tenants_session_is_404(api, llm):
    user_id, neighbour = uuid.uuid4(), uuid.uuid4()
    extract(api, user_id, BERLIN, session_id="chat-1")
    extract(api, neighbour, HOBBIES, session_id="chat-2")
    other_tenant = client_for(TenantFactory())
    before = held_by(user_id)

    answers = [
        api.delete(f"/sessions/chat-9?user_id={user_id}"),
        api.delete(f"/sessions/chat-2?user_id={user_id}"),
        api.delete(f"/sessions/chat-1?user_id={uuid.uuid4()}"),
        other_tenant.delete(f"/sessions/chat-1?user_id={user_id}"),
    ]

    assert [r.status_code for r in answers] == [404] * 4
    assert {r.json()["error"]["code"] for r in answers} == {"not_found"}
    assert held_by(user_id) == before
    assert AgentSession.objects.count() == 2


@pytest.mark.parametrize("query", ["", "?user_id=", "?user_id=%07", "?user_id=" + "x" * 129])
def test_a_session_erasure_without_a_valid_user_id_is_400(api, query):
    assert api.delete(f"/sessions/chat-1{query}").status_code == 400


def test_after_a_sessions_erasure_recall_rebuilds_without_its_memories(
    api, llm, redis_cache, django_capture_on_commit_callbacks
):
    user_id = uuid.uuid4()
    erased = saved_ids(extract(api, user_id, HOBBIES, session_id="chat-1"))
    extract(api, user_id, BERLIN, session_id="chat-2")
    prompt = {"user_id": user_id, "prompt": "do I prefer dark mode in my editor?"}
    assert api.get("/memories/relevant", prompt).json()["memories"][0]["id"] in erased
    end_user_id = EndUser.objects.get(external_id=user_id).pk
    stamp = redis_cache.get(recall_index._VERSION_KEY.format(end_user_id=end_user_id))
    old_key = recall_index._INDEX_KEY.format(end_user_id=end_user_id, stamp=stamp)

    with django_capture_on_commit_callbacks(execute=True):
        assert api.delete(f"/sessions/chat-1?user_id={user_id}").status_code == 200

    assert redis_cache.get(old_key) is None
    found = {m["id"] for m in api.get("/memories/relevant", prompt).json()["memories"]}
    assert not found & set(erased)
    rebuilt = recall_index._local[end_user_id]
    assert rebuilt.stamp != stamp and not set(rebuilt.ids) & set(erased)


# --- operators ---------------------------------------------------------------------------------


def test_deleting_an_end_user_in_the_admin_is_an_erasure(client, api, llm):
    from django.contrib.auth import get_user_model
    from django.urls import reverse

    client.force_login(get_user_model().objects.create_superuser("olga", password="unused"))
    user_id = uuid.uuid4()
    extract(api, user_id, HOBBIES, session_id="chat-1")
    end_user = EndUser.objects.get(external_id=user_id)

    response = client.post(
        reverse("admin:memories_enduser_delete", args=[end_user.pk]), {"post": "yes"}
    )

    assert response.status_code == 302
    assert set(held_by(user_id).values()) == {0}
    record = ErasureRecord.objects.get()
    assert (record.actor_type, record.actor) == ("operator", "olga")
    assert record.deleted["memories"] == 2
    listed = client.get(reverse("admin:memories_erasurerecord_changelist"), {"q": "chat"})
    assert listed.status_code == 200


# --- the plan, pure ----------------------------------------------------------------------------


def review(item_id: int, new: str | None, existing: set[str], **fields) -> ReviewSnapshot:
    defaults = {"pending": True, "new_memory_held": True}
    return ReviewSnapshot(item_id, new_memory_id=new, existing_ids=frozenset(existing),
                          **{**defaults, **fields})  # fmt: skip


def test_the_plan_keeps_what_was_stated_elsewhere_and_reviews_still_in_conflict():
    plan = session_erasure_plan(
        from_session={"a", "b", "c"},
        stated_elsewhere={"c"},
        reviews=[
            review(1, "a", {"x"}),  # the held memory is erased
            review(2, "y", {"a"}),  # everything it contradicted is erased: y becomes active
            review(3, "z", {"b", "x"}),  # still contradicts x, which stays
            review(4, "w", {"b"}, pending=False, new_memory_held=False),  # resolved history
            review(5, "v", {"c"}),  # c stays: untouched
            review(6, "u", {"a"}, new_memory_duplicated=True),  # an active twin: an operator
        ],
    )

    assert plan.memory_ids == {"a", "b"}
    assert plan.review_ids == {1, 2, 4}
    assert plan.activate_ids == {"y"}


# --- the schema --------------------------------------------------------------------------------


def test_the_schema_documents_both_erasures_and_every_status():
    schema = APIClient().get("/api/schema/", HTTP_ACCEPT="application/json")
    paths = json.loads(schema.content)["paths"]

    for path, operation_id in [
        ("/users/{user_id}", "users_erase"),
        ("/sessions/{session_id}", "sessions_erase"),
    ]:
        operation = paths[path]["delete"]
        assert operation["operationId"] == operation_id
        assert {"200", "400", "401", "404", "429"} <= set(operation["responses"])
    receipt = json.loads(schema.content)["components"]["schemas"]["ErasureCounts"]
    assert set(receipt["properties"]) == RECEIPT_KINDS


# --- concurrency -------------------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_a_writer_waiting_on_the_users_lock_during_an_erasure_finds_the_user_gone():
    from django.db import connection, transaction

    from memories.services.memories import end_user_lock
    from tests.factories import EndUserFactory, MemoryFactory

    end_user = EndUserFactory()
    MemoryFactory(end_user=end_user)
    waiting, outcome = threading.Event(), {}

    def writer() -> None:
        try:
            with transaction.atomic():
                waiting.set()
                outcome["locked"] = end_user_lock(end_user_id=end_user.pk)
        except Exception as exc:  # a deadlock would surface here or in the erasure
            outcome["error"] = exc
        finally:
            connection.close()

    with transaction.atomic():
        end_user_lock(end_user_id=end_user.pk)  # the erasure's first lock, already held
        thread = threading.Thread(target=writer)
        thread.start()
        waiting.wait(5)
        time.sleep(0.3)  # the writer now waits for the user's row
        receipt = end_user_erase(tenant=end_user.tenant, external_id=end_user.external_id)
    thread.join(10)

    assert receipt.deleted.memories == 1
    assert outcome == {"locked": None}
    assert not EndUser.objects.filter(pk=end_user.pk).exists()


def test_a_memory_an_operator_merged_keeps_both_sessions_through_an_erasure(
    api, llm, django_user_model
):
    from memories.services.reviews import review_item_resolve

    user_id = uuid.uuid4()
    (berlin,) = saved_ids(extract(api, user_id, BERLIN, session_id="chat-1"))
    (munich,) = saved_ids(extract(api, user_id, MUNICH, session_id="chat-2"))
    operator = django_user_model.objects.create_superuser("op", "op@example.com", "pw-long-1")
    review_item_resolve(
        review_item_id=ReviewItem.objects.get().pk,
        resolution=ReviewItem.Resolution.MERGE,
        operator=operator,
        caption="User lives in Munich",
        full_text="User lives in Munich, moved from Berlin",
    )
    assert not Memory.objects.filter(id=munich).exists()  # folded into the Berlin memory

    response = api.delete(f"/sessions/chat-1?user_id={user_id}")

    assert response.json()["deleted"]["memories"] == 0
    memory = Memory.objects.get(id=berlin)
    assert memory.full_text == "User lives in Munich, moved from Berlin"
    last = memory.versions.last()
    assert last.action == MemoryVersion.Action.SOURCE_ERASED
    assert "chat-1" in last.note and "chat-2" in last.note
    relevant = api.get("/memories/relevant", {"user_id": user_id, "prompt": "where do I live?"})
    assert [m["id"] for m in relevant.json()["memories"]][:1] == [berlin]
    # Erasing the other session too leaves nothing that said it.
    api.delete(f"/sessions/chat-2?user_id={user_id}")
    assert not Memory.objects.filter(id=berlin).exists()


@pytest.mark.parametrize("again", ["remember", "chat-2"])
def test_a_fact_said_again_word_for_word_elsewhere_survives_the_first_sessions_erasure(
    api, llm, settings, again
):
    settings.MEMORY_EXTRACTOR = "rules"
    user_id = str(uuid.uuid4())
    (said,) = saved_ids(extract(api, user_id, "I live in Berlin", session_id="chat-1"))
    if again == "remember":
        body = {"name": "remember", "arguments": {"user_id": user_id, "text": "I live in Berlin"}}
        assert api.post("/tools/call", body, format="json").json()["memories"][0]["id"] == said
    else:
        extract(api, user_id, "I live in Berlin!", session_id="chat-2")

    api.delete(f"/sessions/chat-1?user_id={user_id}")

    assert Memory.objects.filter(id=said).exists()
