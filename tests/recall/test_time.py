"""Issue 33, reading with time: `as_of` on list, relevant, context and the recall tool reads
what held on a day (facts replaced since included); without it the answer is today's, and a
fact whose end has passed is not a current one; a prompt about the past also finds past
facts, labelled with their period; an age is shown as today's."""

from __future__ import annotations

import datetime

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from agents.tools import tool_call
from memories.models import Memory
from recall.services import memory_recall
from recall.timeline import asks_about_past

pytestmark = pytest.mark.django_db

JAN = datetime.datetime(2025, 1, 14, 9, 30, tzinfo=datetime.UTC)
MAY = datetime.date(2025, 5, 1)
JUN = datetime.datetime(2025, 6, 2, 18, 5, tzinfo=datetime.UTC)


@pytest.fixture
def moved(end_user, remember):
    """Porto (said in January) replaced by Lisbon (since May, said in June), and a pet."""
    (porto,) = remember(
        end_user,
        "User lives in Porto",
        stated_at=JAN,
        status=Memory.Status.SUPERSEDED,
        valid_to=MAY,
    )
    (lisbon,) = remember(end_user, "User lives in Lisbon", stated_at=JUN, valid_from=MAY)
    (cat,) = remember(end_user, "User has a cat called Miso", stated_at=JAN)
    return porto, lisbon, cat


def _ids(recall) -> list[str]:
    return [m.id for m in recall.memories]


def _relevant(api, end_user, prompt, **params):
    query = {"user_id": end_user.external_id, "prompt": prompt, **params}
    response = api.get("/memories/relevant", query)
    assert response.status_code == 200, response.json()
    return response.json()


def test_today_a_replaced_fact_is_not_recalled_and_the_current_one_is(api, end_user, moved):
    porto, lisbon, _ = moved

    body = _relevant(api, end_user, "which city do I live in")

    ids = [m["id"] for m in body["memories"]]
    assert lisbon.id in ids and porto.id not in ids
    assert set(body["memories"][0]) == {"id", "caption", "score"}


def test_as_of_reads_what_held_that_day_including_facts_replaced_since(api, end_user, moved):
    porto, lisbon, _ = moved

    march = _relevant(api, end_user, "which city do I live in", as_of="2025-03-01", explain=1)
    july = _relevant(api, end_user, "which city do I live in", as_of="2025-07-01T10:00:00Z")

    march_ids = [m["id"] for m in march["memories"]]
    assert porto.id in march_ids and lisbon.id not in march_ids
    assert march["explain"]["time"] == "as of 2025-03-01"
    assert march["explain"]["periods"][porto.id] == "until May 2025"
    july_ids = [m["id"] for m in july["memories"]]
    assert lisbon.id in july_ids and porto.id not in july_ids


def test_a_fact_not_yet_said_or_begun_did_not_hold(end_user, remember, tenant):
    remember(end_user, "User plays the cello", stated_at=JUN)

    before = memory_recall(
        tenant=tenant, external_id=end_user.external_id, prompt="cello", as_of=JAN.date()
    )
    after = memory_recall(
        tenant=tenant, external_id=end_user.external_id, prompt="cello", as_of=JUN.date()
    )

    assert before.memories == [] and len(after.memories) == 1


def test_a_prompt_about_the_past_finds_the_replaced_fact_labelled(api, end_user, moved):
    porto, lisbon, _ = moved

    body = _relevant(api, end_user, "where did I live before I moved", explain=1)

    ids = [m["id"] for m in body["memories"]]
    assert porto.id in ids[:3] and lisbon.id in ids
    assert body["explain"]["time"] == "past"
    assert body["explain"]["past"] == [porto.id]
    assert body["explain"]["periods"][lisbon.id] == "since May 2025"


def test_a_fact_whose_end_has_passed_is_past_not_current(end_user, remember, tenant):
    (paris,) = remember(end_user, "User lives in Paris", valid_to=datetime.date(2019, 1, 1))
    external = end_user.external_id

    now = memory_recall(tenant=tenant, external_id=external, prompt="city I live in Paris")
    then = memory_recall(tenant=tenant, external_id=external, prompt="where did I use to live")

    assert paris.id not in _ids(now)
    assert paris.id in _ids(then)
    assert then.memories[0].past and then.memories[0].period == "until 2019"


def test_the_default_read_makes_no_extra_query(end_user, remember, tenant, moved):
    for warm in ("city", "my old city"):  # both indexes built
        memory_recall(tenant=tenant, external_id=end_user.external_id, prompt=warm)

    with CaptureQueriesContext(connection) as default:
        memory_recall(tenant=tenant, external_id=end_user.external_id, prompt="my city")
    with CaptureQueriesContext(connection) as past:
        memory_recall(tenant=tenant, external_id=end_user.external_id, prompt="my old city")

    # The user and its stamp, then the usage row: the timeline costs one stamp more.
    assert len(past) == len(default) + 1


def test_the_list_reads_as_of_exactly_and_says_when_each_held(api, end_user, moved):
    porto, lisbon, cat = moved
    user = end_user.external_id

    today = api.get("/memories/list", {"user_id": user}).json()
    march = api.get("/memories/list", {"user_id": user, "as_of": "2025-03-01"}).json()
    june = api.get("/memories/list", {"user_id": user, "as_of": "2025-06-02"}).json()

    assert {m["id"] for m in today["memories"]} == {lisbon.id, cat.id}
    assert set(today["memories"][0]) == {"id", "caption", "category", "status", "created_at"}
    assert {m["id"] for m in march["memories"]} == {porto.id, cat.id}
    assert march["total"] == 2
    held = {m["id"]: m for m in march["memories"]}
    assert held[porto.id]["valid_to"] == "2025-05-01" and held[porto.id]["status"] == "superseded"
    assert {m["id"] for m in june["memories"]} == {lisbon.id, cat.id}


@pytest.mark.parametrize("bad", ["yesterday", "2025-02-30", "", "2025-03-01T25:00"])
@pytest.mark.parametrize("path", ["/memories/list", "/memories/relevant", "/memories/context"])
def test_a_bad_as_of_is_a_400_in_the_error_shape(api, end_user, bad, path):
    query = {"user_id": end_user.external_id, "prompt": "city", "as_of": bad}

    response = api.get(path, query)

    assert response.status_code == 400
    assert "as_of" in response.json()["error"]["message"]


def test_the_context_labels_periods_and_shows_a_past_fact_as_past(api, end_user, moved):
    porto, lisbon, _ = moved
    user = end_user.external_id

    now = api.get("/memories/context", {"user_id": user, "prompt": "which city do I live in"})
    past = api.get("/memories/context", {"user_id": user, "prompt": "where did I use to live"})
    then = api.get(
        "/memories/context",
        {"user_id": user, "prompt": "which city do I live in", "as_of": "2025-03-01"},
    )

    assert f"User lives in Lisbon (since May 2025) [{lisbon.id}]" in now.json()["context"]
    assert porto.id not in now.json()["context"]
    assert (
        f"in the past (until May 2025), no longer holds: User lives in Porto [{porto.id}]"
        in past.json()["context"]
    )
    assert f"User lives in Porto (until May 2025) [{porto.id}]" in then.json()["context"]
    assert lisbon.id not in then.json()["context"]
    assert set(now.json()["memories"][0]) == {"id", "caption", "tier", "score"}


def test_an_age_said_years_ago_is_shown_as_todays(api, end_user, remember):
    said = datetime.datetime.now(datetime.UTC) - datetime.timedelta(days=2 * 365 + 30)
    (age,) = remember(end_user, "User is 34", stated_at=said, category="personal")

    body = api.get(
        "/memories/context",
        {"user_id": end_user.external_id, "prompt": "I am 34, plan my training"},
    ).json()

    assert f"User is about 36 (said 34 on {said.date().isoformat()}) [{age.id}]" in body["context"]
    assert body["memories"][0]["caption"] == "User is 34"  # the stored caption, as before


def test_the_recall_tool_takes_as_of_and_gives_each_fact_its_period(end_user, tenant, moved):
    porto, _, _ = moved
    arguments = {"user_id": str(end_user.external_id), "query": "which city do I live in"}

    then = tool_call(
        tenant=tenant, name="recall", arguments={**arguments, "as_of": "2025-03-01"},
        may_write=False,
    )  # fmt: skip
    now = tool_call(tenant=tenant, name="recall", arguments=arguments, may_write=False)

    assert then["memories"][0] == {
        "id": porto.id, "caption": "User lives in Porto",
        "score": then["memories"][0]["score"], "period": "until May 2025",
    }  # fmt: skip
    assert all(set(m) == {"id", "caption", "score"} for m in now["memories"])


@pytest.mark.parametrize(
    "prompt",
    [
        "where did I use to work",
        "what was my old car",
        "when did I start at the bakery",
        "remind me what I did before I moved",
        "what hobby did I have previously",
        "which phone did I have before?",  # a question in the past about the user
        "which language course was I taking last spring?",
        "what medication was I on before this one",
        "which sport did I play as a kid?",
    ],
)
def test_a_prompt_about_the_past_is_read_as_one(prompt):
    assert asks_about_past(prompt)


@pytest.mark.parametrize(
    "prompt",
    [
        "any good cafes near me?",
        "plan my weekend",
        "what should I cook tonight",
        "what should I eat before my run?",
        "how do I prepare for my exam tomorrow?",
    ],
)
def test_a_present_prompt_is_not(prompt):
    assert not asks_about_past(prompt)


def test_an_ending_of_one_day_is_shown_as_what_happened_then_not_as_no_longer_holding(
    api, end_user, remember
):
    (sold,) = remember(
        end_user,
        "User sold their kayak",
        stated_at=JUN,
        valid_from=MAY,
        valid_to=MAY,
    )

    body = api.get(
        "/memories/context",
        {"user_id": end_user.external_id, "prompt": "what did I do with my kayak before?"},
    ).json()

    assert f"in the past (in May 2025): User sold their kayak [{sold.id}]" in body["context"]
