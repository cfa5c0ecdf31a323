"""Issue 33: POST /memories/extract takes an ISO 8601 `timestamp` on each message and on the
conversation; each memory is stated when its message was sent (else the conversation's time,
else the request's). Callers that send none get the requests and answers of before."""

from __future__ import annotations

import datetime
import hashlib
import json

import pytest

from extraction.candidates import Candidate
from extraction.jobs import conversation_hash
from extraction.stated import candidates_dated, messages_timed
from memories.models import Memory

pytestmark = pytest.mark.django_db

NOW = datetime.datetime(2026, 11, 26, 12, 0, tzinfo=datetime.UTC)
JAN = datetime.datetime(2025, 1, 14, 9, 30, tzinfo=datetime.UTC)
JUN = datetime.datetime(2025, 6, 2, 18, 5, tzinfo=datetime.UTC)


def _candidate(caption: str, said: str = "") -> Candidate:
    return Candidate(caption=caption, full_text=f"{caption}.", said=said)


def test_each_candidate_takes_the_time_of_the_message_it_was_read_from():
    messages = [
        {"role": "user", "content": "I keep bees on my roof.", "timestamp": JAN.isoformat()},
        {"role": "assistant", "content": "Lovely."},
        {"role": "user", "content": "My sister Ana teaches maths.", "timestamp": JUN.isoformat()},
    ]
    candidates = [
        _candidate("User's sister Ana teaches maths", said="my sister ana teaches maths"),
        _candidate("User keeps bees on their roof"),  # no clause: the words decide
    ]

    dated = candidates_dated(candidates, messages, default=NOW)

    assert [c.said_at for c in dated] == [JUN, JAN]


def test_without_timestamps_every_candidate_is_said_at_the_request_time():
    messages = [{"role": "user", "content": "I keep bees."}]

    dated = candidates_dated([_candidate("User keeps bees")], messages, default=NOW)

    assert dated[0].said_at == NOW


def test_the_conversation_timestamp_dates_the_messages_without_their_own():
    timed = messages_timed(
        [
            {"role": "user", "content": "a", "timestamp": JAN},
            {"role": "user", "content": "b"},
        ],
        JUN,
    )

    assert [m["timestamp"] for m in timed] == [JAN.isoformat(), JUN.isoformat()]


def test_a_conversation_without_timestamps_hashes_as_before():
    messages = [{"role": "user", "content": "I keep bees."}]
    # The canonical form of before issue 33 (role and content only): old callers' repeats
    # still find their first job.
    before = json.dumps(
        {"user": "u", "conversation": messages},
        sort_keys=True,
        separators=(",", ":"),
        ensure_ascii=False,
    )

    assert messages_timed(messages) == messages
    assert conversation_hash(external_id="u", messages=messages_timed(messages)) == (
        hashlib.sha256(before.encode()).hexdigest()
    )
    timed = messages_timed(messages, JAN)
    assert (
        conversation_hash(external_id="u", messages=timed)
        != hashlib.sha256(before.encode()).hexdigest()
    )


@pytest.fixture
def offline(settings):
    settings.MEMORY_EXTRACTOR = "rules"
    settings.MEMORY_EMBEDDER = "hashing"


def test_the_api_stores_when_each_fact_was_said(api, offline):
    body = {
        "user_id": "alice",
        "timestamp": "2025-01-14T09:30:00Z",
        "conversation": [
            {"role": "user", "content": "I keep bees on my roof."},
            {"role": "assistant", "content": "Lovely."},
            {
                "role": "user",
                "content": "My sister Ana teaches maths.",
                "timestamp": "2025-06-02T18:05:00+00:00",
            },
        ],
    }

    response = api.post("/memories/extract", body, format="json")

    assert response.status_code == 201, response.json()
    stated = dict(Memory.objects.values_list("caption", "stated_at"))
    assert stated["User keeps bees on their roof"] == JAN
    assert stated["User's sister Ana teaches maths"] == JUN
    assert set(response.json()) == {"memories_saved", "total_user_memories"}


def test_without_timestamps_a_fact_is_said_at_the_request_time(api, offline):
    before = datetime.datetime.now(datetime.UTC)

    response = api.post(
        "/memories/extract",
        {"user_id": "bob", "conversation": [{"role": "user", "content": "I keep bees."}]},
        format="json",
    )

    assert response.status_code == 201
    memory = Memory.objects.get()
    assert memory.stated_at >= before and memory.last_stated_at == memory.stated_at


@pytest.mark.parametrize("bad", ["last tuesday", "2025-13-01T00:00:00Z", 1736847000, ""])
@pytest.mark.parametrize("where", ["message", "conversation"])
def test_a_bad_timestamp_is_a_400_in_the_error_shape_and_stores_nothing(api, offline, bad, where):
    message = {"role": "user", "content": "I keep bees."}
    body = {"user_id": "carol", "conversation": [message]}
    (message if where == "message" else body)["timestamp"] = bad

    response = api.post("/memories/extract", body, format="json")

    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] and "timestamp" in error["message"]
    assert not Memory.objects.exists()


def test_saying_a_fact_again_later_moves_last_stated_at_forward(api, offline):
    def say(timestamp):
        body = {
            "user_id": "dora",
            "timestamp": timestamp,
            "conversation": [{"role": "user", "content": "I keep bees on my roof."}],
        }
        assert api.post("/memories/extract", body, format="json").status_code in (200, 201)

    say("2025-01-14T09:30:00Z")
    say("2025-06-02T18:05:00Z")

    memory = Memory.objects.get()
    assert (memory.stated_at, memory.last_stated_at) == (JAN, JUN)


def test_a_chat_resent_with_its_timestamps_is_read_once(api, offline):
    first = {"role": "user", "content": "I keep bees on my roof.", "timestamp": JAN.isoformat()}
    later = {
        "role": "user",
        "content": "My sister Ana teaches maths.",
        "timestamp": JUN.isoformat(),
    }
    api.post("/memories/extract", {"user_id": "erin", "conversation": [first]}, format="json")

    api.post(
        "/memories/extract", {"user_id": "erin", "conversation": [first, later]}, format="json"
    )

    bees = Memory.objects.get(caption="User keeps bees on their roof")
    assert bees.last_stated_at == JAN  # the resent message was context, not said again
    assert Memory.objects.filter(caption="User's sister Ana teaches maths").exists()
