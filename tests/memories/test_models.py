import re

import pytest
from django.db import DataError, IntegrityError, connection, transaction

from memories.models import Memory, ReviewItem, new_memory_id
from tests.factories import EndUserFactory, MemoryFactory


def test_memory_ids_are_public_prefixed_nanoids_that_fit_twenty_chars():
    ids = {new_memory_id() for _ in range(1000)}

    assert len(ids) == 1000
    assert all(re.fullmatch(r"mem_[A-Za-z0-9]{16}", memory_id) for memory_id in ids)


@pytest.mark.django_db
def test_two_active_memories_of_one_user_cannot_share_a_content_hash():
    memory = MemoryFactory()

    with pytest.raises(IntegrityError), transaction.atomic():
        MemoryFactory(end_user=memory.end_user, content_hash=memory.content_hash)


@pytest.mark.django_db
def test_a_superseded_memory_may_share_its_hash_with_the_active_one():
    memory = MemoryFactory(status=Memory.Status.SUPERSEDED)

    MemoryFactory(end_user=memory.end_user, content_hash=memory.content_hash)

    assert Memory.objects.filter(content_hash=memory.content_hash).count() == 2


@pytest.mark.django_db
def test_other_users_may_hold_the_same_fact():
    memory = MemoryFactory()

    MemoryFactory(end_user=EndUserFactory(), content_hash=memory.content_hash)


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("field", "value"),
    [("caption", "x" * 101), ("full_text", "x" * 501), ("caption", ""), ("confidence", 1.5)],
)
def test_schema_rejects_out_of_bounds_memories(field, value):
    with pytest.raises((IntegrityError, DataError)), transaction.atomic():
        MemoryFactory(**{field: value})


@pytest.mark.django_db
def test_embeddings_round_trip_through_pgvector():
    memory = MemoryFactory(embedding=[0.5, -0.25, 1.0])

    memory.refresh_from_db()

    assert list(memory.embedding) == [0.5, -0.25, 1.0]
    with connection.cursor() as cursor:
        cursor.execute("SELECT embedding <=> '[0.5,-0.25,1.0]' FROM memories_memory")
        assert cursor.fetchone()[0] == pytest.approx(0.0)


@pytest.mark.django_db
def test_a_review_item_is_resolved_only_with_a_resolution():
    memory = MemoryFactory(status=Memory.Status.PENDING_REVIEW)

    with pytest.raises(IntegrityError), transaction.atomic():
        ReviewItem.objects.create(
            end_user=memory.end_user,
            new_memory=memory,
            similarity=0.9,
            reason="contradiction",
            status=ReviewItem.Status.RESOLVED,
        )
