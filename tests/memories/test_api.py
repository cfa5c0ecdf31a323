"""Contract tests of the memory API: paths, shapes, auth, isolation, limits and errors."""

from __future__ import annotations

import json
import random
import uuid

import pytest
from rest_framework.test import APIClient

from extraction.decisions import NEAR_DUPLICATE_SIMILARITY
from extraction.models import ExtractionJob
from integrations.embeddings import embed_texts
from memories.models import DeletionRecord, EndUser, Memory, ReviewItem
from tenants.models import TenantAPIKey
from testing.llm_stub import empty_choices, truncated
from tests.factories import TenantFactory, api_key_for
from tests.scripted_llm import ScriptedLLM, fact

pytestmark = pytest.mark.django_db

ISO = "%Y-%m-%dT"
# What the user says in each scripted conversation: the marker the stub answers to, and the
# facts it answers with in the user's own words (the grounding check keeps only those).
BERLIN = "berlin: I live in Berlin"
HOBBIES = "hobbies: I play the cello, and I prefer dark mode in every editor"


@pytest.fixture
def llm(llm_settings) -> ScriptedLLM:
    scripted = ScriptedLLM(llm_settings)
    scripted.learn("berlin", fact("User lives in Berlin"))
    scripted.learn(
        "hobbies",
        fact("User plays the cello", "personal"),
        fact("User prefers dark mode in every editor", "preference"),
    )
    return scripted


def conversation(text: str) -> list[dict[str, str]]:
    return [{"role": "user", "content": text}, {"role": "assistant", "content": "Got it."}]


def extract(api: APIClient, user_id, text: str, **extra):
    body = {"user_id": str(user_id), "conversation": conversation(text), **extra}
    return api.post("/memories/extract", body, format="json")


# --- shapes ------------------------------------------------------------------------------


def test_extract_answers_the_contract_shape(api, llm):
    user_id = uuid.uuid4()

    response = extract(api, user_id, HOBBIES)

    assert response.status_code == 201
    body = response.json()
    assert set(body) == {"memories_saved", "total_user_memories"}
    assert body["total_user_memories"] == 2
    for item in body["memories_saved"]:
        assert set(item) == {"id", "caption", "created_at"}
        assert item["id"].startswith("mem_") and len(item["id"]) == 20


def test_relevant_full_and_list_answer_the_contract_shapes(api, llm):
    user_id = uuid.uuid4()
    saved = extract(api, user_id, HOBBIES).json()["memories_saved"]
    ids = [item["id"] for item in saved]

    prompt = "do I prefer dark mode in my editor?"
    relevant = api.get("/memories/relevant", {"user_id": user_id, "prompt": prompt})
    full = api.get("/memories/full", {"user_id": user_id, "ids": ",".join(ids)})
    listed = api.get("/memories/list", {"user_id": user_id})

    assert relevant.status_code == full.status_code == listed.status_code == 200
    assert set(relevant.json()) == {"memories"}
    for item in relevant.json()["memories"]:
        assert set(item) == {"id", "caption", "score"}  # no trace unless asked for
    assert relevant.json()["memories"][0]["caption"] == "User prefers dark mode in every editor"
    assert [m["id"] for m in full.json()["memories"]] == ids
    for item in full.json()["memories"]:
        # The contract's fields, and the evidence added beside them (issue 34).
        assert set(item) == {"id", "caption", "full_text", "created_at", "evidence"}
    page = listed.json()
    assert set(page) == {"memories", "total", "limit", "offset"}
    assert (page["total"], page["limit"], page["offset"]) == (2, 50, 0)
    assert {m["id"] for m in page["memories"]} == set(ids)


def test_list_pages_with_limit_and_offset(api, llm):
    user_id = uuid.uuid4()
    extract(api, user_id, HOBBIES)
    extract(api, user_id, BERLIN)

    first = api.get("/memories/list", {"user_id": user_id, "limit": 2, "offset": 0}).json()
    second = api.get("/memories/list", {"user_id": user_id, "limit": 2, "offset": 2}).json()

    assert first["total"] == second["total"] == 3
    assert len(first["memories"]) == 2 and len(second["memories"]) == 1
    assert first["memories"][0]["caption"] == "User lives in Berlin"  # newest first


def test_paths_are_served_without_trailing_slash_redirects(api, llm):
    response = api.get("/memories/list/", {"user_id": uuid.uuid4()})

    assert response.status_code == 404
    assert response.json()["error"]["code"] == "not_found"


# --- authentication and isolation --------------------------------------------------------


@pytest.mark.parametrize("header", [None, "Bearer", "Bearer nope.nope", "Token abc", "Api-Key abc"])
def test_requests_without_a_valid_bearer_key_are_401(header):
    client = APIClient()
    if header:
        client.credentials(HTTP_AUTHORIZATION=header)

    response = client.get("/memories/list", {"user_id": uuid.uuid4()})

    assert response.status_code == 401
    assert response.json()["error"]["code"] == "unauthorized"
    assert response["WWW-Authenticate"] == "Bearer"


def test_a_revoked_key_is_401(tenant):
    raw_key = api_key_for(tenant)
    TenantAPIKey.objects.update(revoked=True)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {raw_key}")

    assert client.get("/memories/list", {"user_id": uuid.uuid4()}).status_code == 401


def test_health_needs_no_key():
    assert APIClient().get("/health").status_code == 200


def _reads(api: APIClient, user_id: uuid.UUID, memory_id: str) -> dict[str, tuple[int, dict]]:
    responses = {
        path: api.get(path, {"user_id": user_id, **params})
        for path, params in [
            ("/memories/list", {}),
            ("/memories/relevant", {"prompt": "where do I live"}),
            ("/memories/full", {"ids": memory_id}),
        ]
    }
    return {path: (r.status_code, r.json()) for path, r in responses.items()}


def test_reads_for_a_user_never_seen_answer_nothing_and_create_no_user(api, llm):
    stranger = uuid.uuid4()

    reads = _reads(api, stranger, "mem_0000000000000000")

    assert reads == {
        "/memories/list": (200, {"memories": [], "total": 0, "limit": 50, "offset": 0}),
        "/memories/relevant": (200, {"memories": []}),
        "/memories/full": (200, {"memories": []}),
    }
    assert not EndUser.objects.filter(external_id=stranger).exists()
    assert api.delete(f"/memories/mem_0000000000000000?user_id={stranger}").status_code == 404


def test_another_tenants_user_reads_exactly_like_a_user_never_seen(api, llm):
    user_id = uuid.uuid4()
    memory_id = extract(api, user_id, BERLIN).json()["memories_saved"][0]["id"]
    other = APIClient()
    other.credentials(HTTP_AUTHORIZATION=f"Bearer {api_key_for(TenantFactory())}")

    seen_by_other = _reads(other, user_id, memory_id)

    assert seen_by_other == _reads(other, uuid.uuid4(), memory_id)
    assert "Berlin" not in str(seen_by_other)
    assert other.delete(f"/memories/{memory_id}?user_id={user_id}").status_code == 404
    assert Memory.objects.filter(id=memory_id).exists()


def test_another_users_memory_is_not_returned_or_deletable(api, llm):
    owner, intruder = uuid.uuid4(), uuid.uuid4()
    memory_id = extract(api, owner, BERLIN).json()["memories_saved"][0]["id"]
    extract(api, intruder, HOBBIES)

    full = api.get("/memories/full", {"user_id": intruder, "ids": memory_id})

    assert full.status_code == 200 and full.json() == {"memories": []}
    assert api.delete(f"/memories/{memory_id}?user_id={intruder}").status_code == 404


# --- limits ------------------------------------------------------------------------------


def test_the_61st_request_of_a_user_in_a_minute_is_429_with_retry_after(api, llm, settings):
    settings.MEMORY_RATE_LIMIT = 60
    user_id, other_user = uuid.uuid4(), uuid.uuid4()
    extract(api, user_id, BERLIN)

    statuses = [api.get("/memories/list", {"user_id": user_id}).status_code for _ in range(60)]

    assert statuses.count(200) == 59 and statuses[-1] == 429
    limited = api.get("/memories/list", {"user_id": user_id})
    assert limited.status_code == 429
    assert limited.json()["error"]["code"] == "rate_limited"
    assert 1 <= int(limited["Retry-After"]) <= 60
    assert api.get("/memories/list", {"user_id": other_user}).status_code == 200  # not limited


def _distinct_facts(count: int) -> list[str]:
    """`count` facts no two of which are near duplicates, so that none merges into another."""
    rng = random.Random(7)
    verbs = ["collects", "repairs", "paints", "photographs", "restores", "sketches", "sells"]
    adjectives = ["antique", "turquoise", "rusty", "miniature", "vintage", "handmade", "fragile"]
    nouns = ["clocks", "bicycles", "teapots", "lanterns", "typewriters", "violins", "kites"]
    places = ["Lisbon", "Oslo", "Nairobi", "Quito", "Hanoi", "Tbilisi", "Reykjavik", "Kyoto"]
    chosen: list[str] = []
    vectors: list = []
    while len(chosen) < count:
        words = [rng.choice(verbs), rng.choice(adjectives), rng.choice(nouns), "from"]
        text = " ".join(["User", *words, rng.choice(places)])
        vector = embed_texts([text])[0]
        if all(float(vector @ other) < NEAR_DUPLICATE_SIMILARITY - 0.02 for other in vectors):
            chosen.append(text)
            vectors.append(vector)
    return chosen


def _said(text: str) -> str:
    """The fact in the user's words: "User sketches rusty kites from Oslo" -> "I sketch ..."."""
    verb, rest = text.removeprefix("User ").split(" ", 1)
    return f"I {verb[:-2] if verb.endswith('ches') else verb[:-1]} {rest}"


def test_the_cap_keeps_total_user_memories_at_100_after_120_facts(api, llm, settings):
    settings.MEMORY_USER_CAP = 100
    settings.MEMORY_RATE_LIMIT = 1000
    user_id = uuid.uuid4()
    facts = _distinct_facts(120)
    for batch in range(4):
        llm.learn(f"batch {batch}", *(fact(text, "other") for text in facts[batch::4]))
    said = {
        batch: f"batch {batch}: " + ". ".join(map(_said, facts[batch::4])) for batch in range(4)
    }

    totals = [
        extract(api, user_id, said[batch]).json()["total_user_memories"] for batch in range(4)
    ]

    assert totals == [30, 60, 90, 100]
    listed = api.get("/memories/list", {"user_id": user_id, "limit": 500}).json()
    assert listed["total"] == 100 and len(listed["memories"]) == 100
    assert Memory.objects.count() == 100
    assert DeletionRecord.objects.filter(reason="evicted").count() == 20


def test_the_same_conversation_twice_returns_the_first_result_without_an_llm_call(api, llm):
    user_id = uuid.uuid4()

    first = extract(api, user_id, HOBBIES)
    calls = len(llm.extraction_calls)
    second = extract(api, user_id, HOBBIES)

    assert (first.status_code, second.status_code) == (201, 200)
    assert second.json()["memories_saved"] == first.json()["memories_saved"]
    assert len(llm.extraction_calls) == calls == 1


# --- deletion and jobs -------------------------------------------------------------------


def test_explain_shows_the_signals_behind_each_rank_and_why_nothing_came_back(api, llm):
    user_id = uuid.uuid4()
    extract(api, user_id, HOBBIES)

    found = api.get(
        "/memories/relevant",
        {"user_id": user_id, "prompt": "do I prefer dark mode in my editor?", "explain": "true"},
    ).json()
    empty = api.get(
        "/memories/relevant",
        {"user_id": user_id, "prompt": "What is the capital of Australia?", "explain": "true"},
    ).json()

    first = found["memories"][0]
    assert {
        "cosine",
        "lexical",
        "domain",
        "hubness_correction",
        "context_boost",
        "score",
    } <= set(first["signals"])
    assert found["explain"]["mode"] == "hybrid" and found["explain"]["personal_request"]
    assert empty["memories"] == []
    assert empty["explain"]["general_question"] and not empty["explain"]["personal_request"]
    assert empty["explain"]["reason"] and "best_cosine" in empty["explain"]


def test_a_deleted_memory_is_gone_from_list_full_and_relevant(api, llm):
    user_id = uuid.uuid4()
    memory_id = extract(api, user_id, BERLIN).json()["memories_saved"][0]["id"]

    response = api.delete(f"/memories/{memory_id}?user_id={user_id}")

    assert response.status_code == 204
    assert api.get("/memories/list", {"user_id": user_id}).json()["total"] == 0
    full = api.get("/memories/full", {"user_id": user_id, "ids": memory_id}).json()
    assert full == {"memories": []}
    relevant = api.get("/memories/relevant", {"user_id": user_id, "prompt": "Berlin"}).json()
    assert relevant == {"memories": []}
    record = DeletionRecord.objects.get(memory_id=memory_id)
    assert record.reason == "api"
    assert api.delete(f"/memories/{memory_id}?user_id={user_id}").status_code == 404


def test_async_extraction_answers_202_and_the_job_reports_the_result(
    api, llm, django_capture_on_commit_callbacks
):
    user_id = uuid.uuid4()

    with django_capture_on_commit_callbacks(execute=True):
        response = api.post(
            "/memories/extract?async=1",
            {"user_id": str(user_id), "conversation": conversation(BERLIN)},
            format="json",
        )

    assert response.status_code == 202
    assert set(response.json()) == {"job_id"}
    job = api.get(f"/memories/jobs/{response.json()['job_id']}").json()
    assert job["status"] == "succeeded"
    assert [m["caption"] for m in job["memories_saved"]] == ["User lives in Berlin"]


@pytest.mark.parametrize("value", ["", "maybe"])
def test_a_bad_async_parameter_is_400_and_named_as_sent(api, llm, value):
    response = api.post(
        f"/memories/extract?async={value}",
        {"user_id": str(uuid.uuid4()), "conversation": conversation(BERLIN)},
        format="json",
    )

    assert response.status_code == 400
    assert set(response.json()["error"]["fields"]) == {"async"}


def test_another_tenants_job_is_404(api, llm):
    response = api.post(
        "/memories/extract?async=1",
        {"user_id": str(uuid.uuid4()), "conversation": conversation(BERLIN)},
        format="json",
    )
    other = APIClient()
    other.credentials(HTTP_AUTHORIZATION=f"Bearer {api_key_for(TenantFactory())}")

    assert other.get(f"/memories/jobs/{response.json()['job_id']}").status_code == 404


# --- errors ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"user_id": "x" * 129, "conversation": conversation("x")}, "user_id"),
        ({"user_id": "", "conversation": conversation("x")}, "user_id"),
        ({"user_id": "bell\x07", "conversation": conversation("x")}, "user_id"),
        ({"conversation": conversation("x")}, "user_id"),
        ({"user_id": str(uuid.uuid4())}, "conversation"),
        ({"user_id": str(uuid.uuid4()), "conversation": "hello"}, "conversation"),
        ({"user_id": str(uuid.uuid4()), "conversation": []}, "conversation"),
        ({"user_id": str(uuid.uuid4()), "conversation": [{"role": "user"}]}, "conversation"),
        (
            {"user_id": str(uuid.uuid4()), "conversation": [{"role": "robot", "content": "x"}]},
            "conversation",
        ),
        ({"user_id": 42, "conversation": conversation("x")}, "user_id"),
        (
            {"user_id": str(uuid.uuid4()), "conversation": [{"role": "user", "content": ""}]},
            "conversation",
        ),
        (
            {
                "user_id": str(uuid.uuid4()),
                "conversation": [{"role": "user", "content": "x" * 20_001}],
            },
            "conversation",
        ),
        (
            {
                "user_id": str(uuid.uuid4()),
                "conversation": [{"role": "user", "content": "hi"}] * 501,
            },
            "conversation",
        ),
    ],
)
def test_bad_extract_input_is_400_naming_the_field(api, llm, body, field):
    response = api.post("/memories/extract", body, format="json")

    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "invalid_request"
    assert field in error["message"]
    assert not ExtractionJob.objects.exists()


def test_malformed_json_is_400(api):
    response = api.post("/memories/extract", data='{"user_id": ', content_type="application/json")

    assert response.status_code == 400
    assert response.json()["error"]["code"] == "malformed_request"


def test_a_body_over_the_limit_is_413(api, settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 10_000
    body = json.dumps({"user_id": str(uuid.uuid4()), "conversation": conversation("x" * 20_000)})

    response = api.post("/memories/extract", data=body, content_type="application/json")

    assert response.status_code == 413
    assert response.json()["error"]["code"] == "payload_too_large"


@pytest.mark.parametrize(
    ("path", "params"),
    [
        ("/memories/relevant", {"user_id": "x" * 129, "prompt": "x"}),
        ("/memories/relevant", {"prompt": "x"}),
        ("/memories/relevant", {"user_id": str(uuid.uuid4())}),
        ("/memories/relevant", {"user_id": str(uuid.uuid4()), "prompt": "x", "limit": "ten"}),
        ("/memories/relevant", {"user_id": str(uuid.uuid4()), "prompt": "x", "limit": 0}),
        ("/memories/full", {"user_id": str(uuid.uuid4()), "ids": "mem_short,12"}),
        ("/memories/full", {"user_id": str(uuid.uuid4()), "ids": ","}),
        ("/memories/full", {"user_id": str(uuid.uuid4())}),
        ("/memories/list", {"user_id": str(uuid.uuid4()), "offset": -1}),
        ("/memories/list", {"user_id": "line\nbreak"}),
    ],
)
def test_bad_query_parameters_are_400(api, path, params):
    response = api.get(path, params)

    assert response.status_code == 400
    assert response.json()["error"]["code"] == "invalid_request"


@pytest.mark.parametrize("memory_id", ["not-a-memory", "mem_short", "mem_AbCdEfGh1234567!"])
def test_deleting_a_malformed_memory_id_is_400(api, memory_id):
    response = api.delete(f"/memories/{memory_id}?user_id={uuid.uuid4()}")

    assert response.status_code == 400
    assert response.json()["error"]["code"] == "invalid_request"


def test_llm_down_is_502_with_the_job_kept_for_a_retry(api, llm):
    llm.stub.fail(503, times=3)
    user_id = uuid.uuid4()

    response = extract(api, user_id, BERLIN)

    assert response.status_code == 502
    error = response.json()["error"]
    assert error["code"] == "upstream_unavailable"
    job = ExtractionJob.objects.get(pk=error["job_id"])
    assert job.status == "failed" and job.conversation == conversation(BERLIN)


def test_wrong_method_is_405_in_the_error_shape(api):
    response = api.put("/memories/extract", {}, format="json")

    assert response.status_code == 405
    assert response.json()["error"]["code"] == "method_not_allowed"


def test_the_openapi_schema_documents_every_endpoint(api):
    schema = APIClient().get("/api/schema/", HTTP_ACCEPT="application/json")

    assert schema.status_code == 200
    paths = json.loads(schema.content)["paths"]
    for path in [
        "/memories/extract",
        "/memories/relevant",
        "/memories/full",
        "/memories/list",
        "/memories/{memory_id}",
        "/memories/jobs/{job_id}",
        "/health",
    ]:
        assert path in paths, path
    assert "429" in paths["/memories/relevant"]["get"]["responses"]
    assert APIClient().get("/api/docs/").status_code == 200


@pytest.mark.parametrize(
    "failure",
    [
        lambda stub: stub.fail(500, times=3),
        lambda stub: stub.fail(503, times=3),
        lambda stub: stub.fail(429, times=3),
        lambda stub: stub.fail(400),
        lambda stub: stub.fail(401),
        lambda stub: stub.slow(3, times=3),
        lambda stub: stub.malformed(times=3),
        lambda stub: stub.script(*[empty_choices()] * 3),
        lambda stub: stub.script(*["I cannot help with that."] * 6),
    ],
    ids=["500", "503", "429", "400", "401", "timeout", "malformed", "no-choices", "prose"],
)
def test_every_llm_failure_keeps_the_conversation_and_is_never_a_500(api, llm, failure):
    failure(llm.stub)
    user_id = uuid.uuid4()

    response = extract(api, user_id, BERLIN)

    assert response.status_code == 502
    job = ExtractionJob.objects.get(pk=response.json()["error"]["job_id"])
    assert job.status == "failed" and job.conversation == conversation(BERLIN)
    assert not Memory.objects.exists()


def test_a_reply_cut_off_at_the_token_limit_still_stores_the_complete_facts(api, llm):
    facts = [fact("User lives in Berlin"), fact("User plays the cello")]
    llm.stub.reply(truncated(facts, drop_chars=20), finish_reason="length")

    # Said without "I", so the offline reader's safety net adds nothing the reply lost.
    response = extract(api, uuid.uuid4(), "something new: Berlin is home, the cello my joy")

    assert response.status_code == 201
    assert [m["caption"] for m in response.json()["memories_saved"]] == ["User lives in Berlin"]


def test_deleting_a_memory_held_for_review_closes_its_review(api, llm):
    user_id = uuid.uuid4()
    llm.learn("first", fact("User likes coffee", "preference"))
    llm.learn("second", fact("User does not like coffee", "preference"))
    llm.contradict("User likes coffee", "User does not like coffee")
    extract(api, user_id, "first: I like coffee")
    pending = extract(api, user_id, "second: I don't like coffee any more").json()[
        "memories_saved"
    ][0]["id"]

    assert api.delete(f"/memories/{pending}?user_id={user_id}").status_code == 204

    review = ReviewItem.objects.get()
    assert (review.status, review.resolution, review.new_memory) == (
        "resolved",
        "keep_existing",
        None,
    )
    assert Memory.objects.get().full_text == "User likes coffee"


@pytest.mark.parametrize(
    "path", ["/memories/relevant", "/memories/list", "/memories/context", "/memories/full"]
)
def test_a_query_parameter_given_twice_is_a_400_not_a_silent_choice(api, path):
    user_id = uuid.uuid4()
    query = f"user_id={user_id}&user_id={uuid.uuid4()}&prompt=coffee&ids=mem_AbCdEfGhIjKlMnOp"

    response = api.get(f"{path}?{query}")

    assert response.status_code == 400
    assert "given more than once: user_id" in response.json()["error"]["message"]


@pytest.mark.parametrize(
    "path", ["/memories/relevant", "/memories/list", "/memories/context", "/memories/full"]
)
def test_a_query_parameter_with_no_name_is_a_400(api, path):
    query = f"user_id={uuid.uuid4()}&prompt=coffee&ids=mem_AbCdEfGhIjKlMnOp&=null"

    response = api.get(f"{path}?{query}")

    assert response.status_code == 400
    assert "has no name" in response.json()["error"]["message"]
