"""`explain=true` on GET /memories/relevant returns what the user said for each memory
(issue 34); the default answer stays as it was."""

from __future__ import annotations

import datetime

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from memories.models import MemoryEvidence
from tests.factories import AgentSessionFactory, MemoryEvidenceFactory

pytestmark = pytest.mark.django_db

SAID = datetime.datetime(2026, 11, 2, 9, 30, tzinfo=datetime.UTC)


@pytest.fixture
def violin(end_user, remember):
    (memory,) = remember(end_user, "User plays the violin in an orchestra")
    session = AgentSessionFactory(end_user=end_user, external_id="chat-3")
    MemoryEvidenceFactory(
        memory=memory,
        session=session,
        position=4,
        said_at=SAID,
        quote="I play the violin in an orchestra",
    )
    MemoryEvidenceFactory(
        memory=memory,
        source=MemoryEvidence.Source.AGENT,
        position=None,
        said_at=SAID + datetime.timedelta(days=1),
        quote="User plays violin",
    )
    return memory


def _relevant(api, end_user, **params):
    query = {"user_id": end_user.external_id, "prompt": "which instrument do I play", **params}
    response = api.get("/memories/relevant", query)
    assert response.status_code == 200, response.json()
    return response.json()["memories"]


def test_explain_returns_what_the_user_said_for_each_memory(api, end_user, violin):
    [found] = _relevant(api, end_user, explain="true")

    assert found["id"] == violin.id
    assert found["evidence"] == [
        {
            "quote": "I play the violin in an orchestra",
            "source": "user",
            "session_id": "chat-3",
            "position": 4,
            "said_at": "2026-11-02T09:30:00Z",
        },
        {
            "quote": "User plays violin",
            "source": "agent",
            "session_id": None,
            "position": None,
            "said_at": "2026-11-03T09:30:00Z",
        },
    ]


def test_explain_gives_a_memory_without_quotes_an_empty_list(api, end_user, remember):
    remember(end_user, "User plays the violin in an orchestra")

    [found] = _relevant(api, end_user, explain="true")

    assert found["evidence"] == []


def test_without_explain_the_answer_and_its_queries_are_as_before(api, end_user, violin):
    _relevant(api, end_user)  # warm: the index is built once

    with CaptureQueriesContext(connection) as queries:
        [found] = _relevant(api, end_user)

    assert set(found) == {"id", "caption", "score"}
    assert not any("memories_memoryevidence" in q["sql"] for q in queries.captured_queries)
