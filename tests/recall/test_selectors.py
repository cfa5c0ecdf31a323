import pytest

from memories.models import Memory
from recall.index import user_index_invalidate
from recall.selectors import RelevantMemory, memory_relevant_list
from tests.factories import EndUserFactory

pytestmark = pytest.mark.django_db


def test_the_memory_that_matches_the_prompt_comes_first(end_user, remember):
    remember(
        end_user,
        "User prefers dark roast coffee in the morning",
        "User is learning the Rust programming language",
        "User has a golden retriever named Biscuit",
    )

    results = memory_relevant_list(end_user=end_user, prompt="What coffee should I brew?")

    assert isinstance(results[0], RelevantMemory)
    assert results[0].caption == "User prefers dark roast coffee in the morning"
    assert [r.score for r in results] == sorted((r.score for r in results), reverse=True)


def test_only_the_users_own_active_memories_are_recalled(end_user, remember):
    other = EndUserFactory(tenant=end_user.tenant)
    remember(other, "User loves coffee from Ethiopia")
    remember(end_user, "User drinks coffee black", status=Memory.Status.SUPERSEDED)
    remember(end_user, "User drinks coffee with oat milk", status=Memory.Status.PENDING_REVIEW)
    (active,) = remember(end_user, "User drinks coffee every morning")

    results = memory_relevant_list(end_user=end_user, prompt="coffee")

    assert [r.id for r in results] == [active.id]


def test_limit_caps_the_number_of_memories(end_user, remember):
    remember(end_user, *(f"User visited city number {n} on holiday" for n in range(8)))

    assert len(memory_relevant_list(end_user=end_user, prompt="holiday city", limit=3)) == 3


def test_a_user_without_memories_gets_an_empty_list(end_user):
    assert memory_relevant_list(end_user=end_user, prompt="anything at all") == []


def test_a_new_memory_is_recalled_after_its_write_invalidates_the_index(end_user, remember):
    remember(end_user, "User plays chess on weekends")
    assert memory_relevant_list(end_user=end_user, prompt="guitar lessons", mode="lexical") == []

    (guitar,) = remember(end_user, "User takes guitar lessons")
    user_index_invalidate(end_user_id=end_user.pk)

    results = memory_relevant_list(end_user=end_user, prompt="guitar lessons", mode="lexical")
    assert [r.id for r in results] == [guitar.id]
