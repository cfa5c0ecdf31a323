"""`remember` stores the agent's note as one memory, as written, and says why when it will not:
never an empty success."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from agents.mcp.server import tool_result
from memories.models import Memory

pytestmark = pytest.mark.django_db

USER = "agent-user-7"


@pytest.fixture(autouse=True)
def offline(settings):
    settings.MEMORY_EXTRACTOR = "rules"
    settings.MEMORY_EMBEDDER = "local"
    settings.RECALL_ACCESS_FLUSH_SECONDS = 0


def remember(api: APIClient, text: str, user_id: str = USER):
    body = {"name": "remember", "arguments": {"user_id": user_id, "text": text}}
    return api.post("/tools/call", body, format="json")


@pytest.mark.parametrize(
    ("note", "caption"),
    [
        # Notes the conversation extractor would drop: not said by the user in the first person.
        ("User's sister lives in Bergen", "User's sister lives in Bergen"),
        ("The user is gluten free.", "User is gluten free"),
        ("Tom's daughter is named Ella", "Tom's daughter is named Ella"),
        ("I play the bassoon on Sundays.", "User plays the bassoon on Sundays"),
        ("remember that my mum's birthday is 3 March", "User's mum's birthday is 3 March"),
    ],
)
def test_a_note_is_stored_as_one_memory_as_written(api, note, caption):
    response = remember(api, note)

    assert response.status_code == 200
    memories = response.json()["memories"]
    assert [(m["caption"], m["status"]) for m in memories] == [(caption, "active")]
    assert response.json()["total_user_memories"] == 1


def test_a_remembered_note_is_found_by_a_later_recall(api):
    remember(api, "I play the bassoon on Sundays.")
    remember(api, "User's partner is called Sam")

    body = {"name": "recall", "arguments": {"user_id": USER, "query": "what instrument do I play"}}
    found = api.post("/tools/call", body, format="json").json()["memories"]

    assert found[0]["caption"] == "User plays the bassoon on Sundays"


def test_a_repeat_answers_the_memory_that_holds_it_and_a_contradiction_is_held(api):
    first = remember(api, "User lives in Porto").json()["memories"]
    again = remember(api, "User lives in Porto").json()

    assert again["memories"] == first and again["total_user_memories"] == 1
    moved = remember(api, "User moved to Lisbon").json()["memories"]
    assert [m["status"] for m in moved] == ["pending_review"]
    assert Memory.objects.get(id=first[0]["id"]).status == Memory.Status.ACTIVE


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("   ", "empty"),
        ("what's my sister's name?", "question"),
        ("can you book me a table for two", "question"),
        ("x" * 501, "text"),
    ],
)
def test_a_note_that_is_not_stored_is_a_400_naming_why(api, text, why):
    response = remember(api, text)

    assert response.status_code == 400
    assert why in response.json()["error"]["message"]
    assert not Memory.objects.exists()


def test_over_mcp_a_refused_note_is_a_tool_error(tenant):
    result = tool_result(
        tenant=tenant,
        name="remember",
        arguments={"user_id": USER, "text": "is it going to rain tomorrow?"},
        close_connections=False,
    )

    assert result.is_error
    assert result.structured_content["error"]["code"] == "not_remembered"
    assert not Memory.objects.exists()
