"""The context is a picture an assistant can act on (issue 32): what the request needs first,
a few standing facts, a fact held for review marked beside the one it would replace, and an
earlier fact a later one contradicts never shown as current."""

from __future__ import annotations

import pytest

from memories.models import Memory
from recall.context import PROFILE, PROFILE_LINES, RELEVANT, memory_context
from tests.factories import conflict_make

pytestmark = pytest.mark.django_db

PROFILE_FACTS = (
    "User's name is Priya",
    "User lives in Bristol",
    "User is allergic to shellfish",
    "User works as a secondary school chemistry teacher",
    "User plays five-a-side football on Tuesdays",
    "User's brother Dev is a paramedic",
    "User has a tabby cat called Mango",
    "User is learning to play the ukulele",
    "User supports Bristol Rovers",
    "User's mum grows tomatoes on her allotment",
    "User drives a 2015 Ford Fiesta",
    "User collects vintage postcards",
)


@pytest.fixture
def priya(settings, end_user, remember):
    settings.MEMORY_EMBEDDER = "local"  # the floors are calibrated for MiniLM
    remember(end_user, *PROFILE_FACTS, category=Memory.Category.PERSONAL)
    return end_user


def _context(tenant, end_user, prompt: str):
    return memory_context(
        tenant=tenant, external_id=str(end_user.external_id), prompt=prompt, max_tokens=1000
    )


@pytest.mark.parametrize(
    "prompt", ["help me write a cover letter", "plan my weekend", "where do i live?"]
)
def test_the_context_shows_a_few_standing_facts_not_the_whole_profile(tenant, priya, prompt):
    context = _context(tenant, priya, prompt)

    profile = [m.caption for m in context.memories if m.tier == PROFILE]
    shown = [m.caption for m in context.memories]
    assert len(profile) <= PROFILE_LINES, profile
    assert len(shown) < len(PROFILE_FACTS), shown
    # The facts that shape any answer are there, whatever the request.
    for standing in (
        "User's name is Priya",
        "User lives in Bristol",
        "User is allergic to shellfish",
    ):
        assert standing in shown, shown


def test_what_the_request_needs_comes_before_the_standing_facts(tenant, priya):
    context = _context(tenant, priya, "help me write a cover letter")

    tiers = [m.tier for m in context.memories]
    assert tiers[0] == RELEVANT, context.text
    assert "User works as a secondary school chemistry teacher" in context.text
    assert context.text.index("chemistry teacher") < context.text.index("Standing facts")


def test_a_personal_prompt_with_a_question_mark_gets_a_context(api, local_embedder_user):
    end_user = local_embedder_user
    body = api.get(
        "/memories/context", {"user_id": str(end_user.external_id), "prompt": "any dinner ideas?"}
    ).json()

    assert "User is vegetarian" in body["context"], body


@pytest.fixture
def local_embedder_user(settings, end_user, remember):
    settings.MEMORY_EMBEDDER = "local"
    remember(
        end_user,
        "User is vegetarian",
        "User is a junior data analyst at an nhs trust",
        "User plays bass in a band on weekends",
        category=Memory.Category.PERSONAL,
    )
    return end_user


def test_a_fact_held_for_review_is_marked_unconfirmed_beside_the_one_it_would_replace(
    tenant, end_user, remember
):
    remember(end_user, "User is training for a half marathon", category=Memory.Category.PERSONAL)
    item = conflict_make(end_user, "User lives in Munich", ("User lives in Berlin",))
    existing = item.existing_memories.get()

    context = _context(tenant, end_user, "half marathon training plan")

    lines = context.text.splitlines()
    at = next(n for n, line in enumerate(lines) if existing.id in line)
    assert "User lives in Berlin" in lines[at] and "unconfirmed" not in lines[at]
    assert "unconfirmed" in lines[at + 1] and "User lives in Munich" in lines[at + 1]
    assert item.new_memory.id in lines[at + 1]
    # Never as a fact that holds on its own line.
    assert not any(line.startswith("- User lives in Munich") for line in lines)


def test_an_earlier_fact_a_later_one_contradicts_is_not_shown_as_current(
    tenant, end_user, remember
):
    older, newer = remember(
        end_user,
        "User works as a barista in Leeds",
        "User works as a software developer in Leeds",
        category=Memory.Category.PERSONAL,
    )

    context = _context(tenant, end_user, "what do I do for work in Leeds")

    lines = {
        m.id: line for m in context.memories for line in context.text.splitlines() if m.id in line
    }
    assert older.id in lines and newer.id in lines, context.text
    assert "earlier, may no longer hold" in lines[older.id]
    assert "earlier" not in lines[newer.id]
