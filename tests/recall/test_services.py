import pytest
from django.utils import timezone

from integrations.embeddings import EmbeddingError
from memories.models import Memory
from recall import selectors
from recall.access import access_flush
from recall.index import local_index_clear, user_index_invalidate
from recall.services import RelevantMemory, memory_recall_for_end_user
from tests.factories import EndUserFactory

pytestmark = pytest.mark.django_db


def relevant(**arguments) -> list:
    """The memories of one recall that counts no usage (as the context and the benchmarks)."""
    return memory_recall_for_end_user(**arguments).memories


FACTS = (
    "User prefers dark roast coffee in the morning",
    "User is learning the Rust programming language",
    "User has a golden retriever named Biscuit",
)


@pytest.mark.parametrize("mode", ["hybrid", "vector", "lexical"])
def test_the_memory_that_matches_the_prompt_comes_first(end_user, remember, mode):
    remember(end_user, *FACTS)

    results = relevant(end_user=end_user, prompt="Which coffee roast do I prefer?", mode=mode)

    assert isinstance(results[0], RelevantMemory)
    assert results[0].caption == FACTS[0]
    assert [r.score for r in results] == sorted((r.score for r in results), reverse=True)


def test_the_default_mode_comes_from_settings(end_user, remember, settings, monkeypatch):
    remember(end_user, *FACTS)
    settings.RECALL_MODE = "lexical"
    monkeypatch.setattr(selectors, "embed_query", pytest.fail)  # lexical never embeds

    results = relevant(end_user=end_user, prompt="golden retriever")

    assert results[0].caption == FACTS[2]


def test_an_unknown_mode_is_refused(end_user):
    with pytest.raises(ValueError, match="unknown recall mode"):
        relevant(end_user=end_user, prompt="coffee", mode="psychic")


def test_only_the_users_own_active_memories_are_recalled(end_user, remember):
    other = EndUserFactory(tenant=end_user.tenant)
    remember(other, "User loves coffee from Ethiopia")
    remember(end_user, "User drinks coffee black", status=Memory.Status.SUPERSEDED)
    remember(end_user, "User drinks coffee with oat milk", status=Memory.Status.PENDING_REVIEW)
    (active,) = remember(end_user, "User drinks coffee every morning")

    results = relevant(end_user=end_user, prompt="coffee every morning")

    assert [r.id for r in results] == [active.id]


def test_limit_caps_the_number_of_memories(end_user, remember):
    remember(end_user, *(f"User visited city number {n} on holiday" for n in range(8)))

    results = relevant(end_user=end_user, prompt="holiday city visited", limit=3)

    assert len(results) == 3


def test_a_prompt_unrelated_to_every_memory_gets_nothing(end_user, remember):
    remember(end_user, *FACTS)

    assert relevant(end_user=end_user, prompt="Explain plate tectonics") == []


def test_a_user_without_memories_gets_an_empty_list_without_an_embedding(end_user, monkeypatch):
    monkeypatch.setattr(selectors, "embed_query", pytest.fail)

    assert relevant(end_user=end_user, prompt="anything at all") == []


def test_a_failing_embedder_degrades_recall_to_lexical(end_user, remember, monkeypatch):
    remember(end_user, *FACTS)

    def broken(text):
        raise EmbeddingError("provider down")

    monkeypatch.setattr(selectors, "embed_query", broken)

    results = relevant(end_user=end_user, prompt="golden retriever Biscuit")

    assert results[0].caption == FACTS[2]


def test_vectors_of_another_model_are_ignored_but_their_words_still_count(end_user, remember):
    (memory,) = remember(end_user, "User collects vintage fountain pens")
    Memory.objects.filter(pk=memory.pk).update(embedding_model="some-older-model")
    user_index_invalidate(end_user_id=end_user.pk)

    results = relevant(end_user=end_user, prompt="fountain pens")

    assert [r.id for r in results] == [memory.id]


def test_a_new_memory_is_recalled_after_its_write_invalidates_the_index(end_user, remember):
    remember(end_user, "User plays chess on weekends")
    assert relevant(end_user=end_user, prompt="guitar lessons", mode="lexical") == []

    (guitar,) = remember(end_user, "User takes guitar lessons")
    user_index_invalidate(end_user_id=end_user.pk)

    results = relevant(end_user=end_user, prompt="guitar lessons", mode="lexical")
    assert [r.id for r in results] == [guitar.id]


def test_recall_counts_an_access_of_each_returned_memory(end_user, remember):
    coffee, rust, _ = remember(end_user, *FACTS)
    before = timezone.now()

    relevant(end_user=end_user, prompt="dark roast coffee", mode="lexical")
    relevant(end_user=end_user, prompt="dark roast coffee", mode="lexical")

    coffee.refresh_from_db()
    rust.refresh_from_db()
    assert coffee.access_count == 2
    assert coffee.last_accessed_at >= before
    assert rust.access_count == 0 and rust.last_accessed_at is None


def test_access_statistics_wait_for_the_background_flush(end_user, remember, settings):
    settings.RECALL_ACCESS_FLUSH_SECONDS = 3600  # the flusher thread will not run in this test
    (coffee,) = remember(end_user, FACTS[0])
    updated_at = Memory.objects.get(pk=coffee.pk).updated_at

    relevant(end_user=end_user, prompt="dark roast coffee", mode="lexical")
    coffee.refresh_from_db()
    assert coffee.access_count == 0  # the request did not write

    assert access_flush() == 1
    coffee.refresh_from_db()
    assert coffee.access_count == 1
    assert coffee.updated_at == updated_at  # an access is not an edit


def test_an_occasion_of_the_users_own_reaches_their_partner_without_an_i_or_my(
    end_user, remember, recall_settings
):
    recall_settings.MEMORY_EMBEDDER = "local"
    local_index_clear()
    partner, *_ = remember(
        end_user, "User's partner is called Sam", "User works as a nurse", "User drinks green tea"
    )

    found = relevant(end_user=end_user, prompt="what's a good anniversary gift idea?")

    assert [m.id for m in found][:1] == [partner.id]
