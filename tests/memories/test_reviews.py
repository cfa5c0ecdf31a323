"""Resolving conflicts (review items) and operators' edits, through the services."""

from __future__ import annotations

import threading

import pytest
from django.contrib.auth import get_user_model
from django.db import connection

from integrations.embeddings import HASHING_MODEL_ID
from memories.models import DeletionRecord, Memory, MemoryVersion, ReviewItem
from memories.services.reviews import (
    ReviewAlreadyResolved,
    ReviewError,
    memory_operator_edit,
    review_item_reopen,
    review_item_resolve,
    review_item_resolve_many,
)
from memories.signals import memories_changed
from memories.text import content_hash
from tests.factories import EndUserFactory, conflict_make, memory_make

Resolution = ReviewItem.Resolution


@pytest.fixture
def operator(db):
    return get_user_model().objects.create_user("alice", password="not-used-here")


@pytest.fixture(autouse=True)
def _hashing_embedder(settings):
    settings.MEMORY_EMBEDDER = "hashing"


def _actions(memory: Memory) -> list[tuple[str, str, str]]:
    return [(v.action, v.actor_type, v.actor) for v in memory.versions.order_by("version")]


def test_keep_new_activates_the_new_memory_and_supersedes_the_existing_one(end_user, operator):
    item = conflict_make(end_user)
    new, (old,) = item.new_memory, item.existing_memories.all()

    review_item_resolve(review_item_id=item.pk, resolution=Resolution.KEEP_NEW, operator=operator)

    new.refresh_from_db()
    old.refresh_from_db()
    item.refresh_from_db()
    assert new.status == Memory.Status.ACTIVE
    assert old.status == Memory.Status.SUPERSEDED
    assert _actions(new)[-1] == ("resolved", "operator", "alice")
    assert _actions(old)[-1] == ("superseded", "operator", "alice")
    assert new.id in old.versions.last().note
    assert (item.status, item.resolution, item.resolved_by) == ("resolved", "keep_new", operator)
    assert item.resolved_at is not None


def test_keep_existing_discards_the_new_memory_for_real_and_keeps_the_item(end_user, operator):
    item = conflict_make(end_user)
    new_id, (old,) = item.new_memory_id, item.existing_memories.all()

    review_item_resolve(
        review_item_id=item.pk, resolution=Resolution.KEEP_EXISTING, operator=operator
    )

    item.refresh_from_db()
    old.refresh_from_db()
    assert not Memory.objects.filter(pk=new_id).exists()
    assert not MemoryVersion.objects.filter(memory_id=new_id).exists()
    record = DeletionRecord.objects.get(memory_id=new_id)
    assert (record.reason, record.actor_type, record.actor) == ("discarded", "operator", "alice")
    assert item.new_memory is None
    assert (item.status, item.resolution) == ("resolved", "keep_existing")
    assert old.status == Memory.Status.ACTIVE
    assert _actions(old)[-1] == ("resolved", "operator", "alice")


def test_keep_both_makes_both_memories_active(end_user, operator):
    item = conflict_make(end_user, "User likes tea", ("User likes coffee",))

    review_item_resolve(review_item_id=item.pk, resolution=Resolution.KEEP_BOTH, operator=operator)

    statuses = set(Memory.objects.filter(end_user=end_user).values_list("status", flat=True))
    assert statuses == {Memory.Status.ACTIVE}
    for memory in Memory.objects.filter(end_user=end_user):
        assert _actions(memory)[-1] == ("resolved", "operator", "alice")


def test_merge_writes_the_edited_text_into_the_existing_memory_as_a_new_version(end_user, operator):
    item = conflict_make(end_user)
    new_id, (old,) = item.new_memory_id, item.existing_memories.all()

    review_item_resolve(
        review_item_id=item.pk,
        resolution=Resolution.MERGE,
        operator=operator,
        caption="User moved from Berlin to Munich",
        full_text="User lived in Berlin and moved to Munich in 2024.",
    )

    old.refresh_from_db()
    assert old.caption == "User moved from Berlin to Munich"
    assert old.full_text == "User lived in Berlin and moved to Munich in 2024."
    assert old.content_hash == content_hash(old.full_text)
    assert old.status == Memory.Status.ACTIVE
    assert old.embedding_model == HASHING_MODEL_ID
    assert len(old.embedding) == 384
    version = old.versions.order_by("version").last()
    assert (version.action, version.actor, version.version) == ("merged", "alice", 2)
    assert version.full_text_before == "User lives in Berlin"
    assert not Memory.objects.filter(pk=new_id).exists()
    assert DeletionRecord.objects.get(memory_id=new_id).reason == "discarded"
    assert ReviewItem.objects.get(pk=item.pk).resolution == "merge"


def test_merge_goes_into_the_existing_memory_the_operator_picks(end_user, operator):
    item = conflict_make(
        end_user, "User works at Acme", ("User works at Initech", "User works at Hooli")
    )
    first, second = item.existing_memories.order_by("created_at")

    review_item_resolve(
        review_item_id=item.pk,
        resolution=Resolution.MERGE,
        operator=operator,
        caption="User works at Acme",
        full_text="User works at Acme since March.",
        merge_into_id=second.id,
    )

    first.refresh_from_db()
    second.refresh_from_db()
    assert second.full_text == "User works at Acme since March."
    assert first.full_text == "User works at Initech"
    assert _actions(first)[-1] == ("resolved", "operator", "alice")


def test_merge_into_a_memory_outside_the_conflict_is_refused(end_user, operator):
    item = conflict_make(end_user)
    stranger = memory_make(end_user, "User has a cat")

    with pytest.raises(ReviewError, match="not one of the existing"):
        review_item_resolve(
            review_item_id=item.pk,
            resolution=Resolution.MERGE,
            operator=operator,
            caption="x",
            full_text="y",
            merge_into_id=stranger.id,
        )
    assert ReviewItem.objects.get(pk=item.pk).status == "pending"


@pytest.mark.parametrize(
    ("caption", "full_text", "message"),
    [
        ("", "some text", "must not be empty"),
        ("caption", "   ", "must not be empty"),
        ("c" * 101, "some text", "longer than 100"),
        ("caption", "t" * 501, "longer than 500"),
    ],
)
def test_merge_needs_a_valid_caption_and_text(end_user, operator, caption, full_text, message):
    item = conflict_make(end_user)

    with pytest.raises(ReviewError, match=message):
        review_item_resolve(
            review_item_id=item.pk,
            resolution=Resolution.MERGE,
            operator=operator,
            caption=caption,
            full_text=full_text,
        )


def test_keep_new_folds_into_an_active_memory_with_the_same_text_instead_of_failing(
    end_user, operator
):
    item = conflict_make(end_user, "User lives in Munich", ("User lives in Berlin",))
    # Meanwhile the same fact arrived again and was stored as active.
    twin = memory_make(end_user, "user lives in munich.")
    new_id = item.new_memory_id

    review_item_resolve(review_item_id=item.pk, resolution=Resolution.KEEP_NEW, operator=operator)

    assert not Memory.objects.filter(pk=new_id).exists()
    assert _actions(twin)[-1] == ("merged", "operator", "alice")
    active = Memory.objects.filter(end_user=end_user, status="active")
    assert list(active.values_list("id", flat=True)) == [twin.id]


def test_merge_with_the_text_of_another_active_memory_folds_into_that_one(end_user, operator):
    item = conflict_make(end_user)
    (old,) = item.existing_memories.all()
    twin = memory_make(end_user, "User lives in Munich since 2024")

    review_item_resolve(
        review_item_id=item.pk,
        resolution=Resolution.MERGE,
        operator=operator,
        caption="User lives in Munich",
        full_text="User lives in Munich since 2024",
    )

    old.refresh_from_db()
    assert old.status == Memory.Status.SUPERSEDED
    assert _actions(twin)[-1] == ("merged", "operator", "alice")


def test_a_resolved_item_cannot_be_resolved_again(end_user, operator):
    item = conflict_make(end_user)
    review_item_resolve(review_item_id=item.pk, resolution=Resolution.KEEP_BOTH, operator=operator)
    versions = MemoryVersion.objects.count()

    with pytest.raises(ReviewAlreadyResolved):
        review_item_resolve(
            review_item_id=item.pk, resolution=Resolution.KEEP_NEW, operator=operator
        )
    assert MemoryVersion.objects.count() == versions
    assert ReviewItem.objects.get(pk=item.pk).resolution == "keep_both"


def test_an_unknown_resolution_or_item_is_refused(end_user, operator):
    item = conflict_make(end_user)
    with pytest.raises(ReviewError, match="unknown resolution"):
        review_item_resolve(review_item_id=item.pk, resolution="shrug", operator=operator)
    with pytest.raises(ReviewError, match="does not exist"):
        review_item_resolve(review_item_id=10**9, resolution="keep_new", operator=operator)


def test_keep_new_is_refused_once_the_new_memory_was_deleted_but_keep_existing_works(
    end_user, operator
):
    item = conflict_make(end_user)
    item.new_memory.delete()  # e.g. the end user deleted it through the API

    with pytest.raises(ReviewError, match="no longer exists"):
        review_item_resolve(
            review_item_id=item.pk, resolution=Resolution.KEEP_NEW, operator=operator
        )
    review_item_resolve(
        review_item_id=item.pk, resolution=Resolution.KEEP_EXISTING, operator=operator
    )
    assert ReviewItem.objects.get(pk=item.pk).status == "resolved"


def test_a_resolution_announces_the_users_changed_memories_once_after_commit(
    end_user, operator, django_capture_on_commit_callbacks
):
    announced = []

    def listen(*, end_user_ids, **kwargs):
        announced.append(end_user_ids)

    memories_changed.connect(listen)
    try:
        item = conflict_make(end_user)
        with django_capture_on_commit_callbacks(execute=False) as callbacks:
            review_item_resolve(
                review_item_id=item.pk, resolution=Resolution.KEEP_NEW, operator=operator
            )
        assert announced == []  # nothing before the commit
        for callback in callbacks:
            callback()
    finally:
        memories_changed.disconnect(listen)

    assert announced == [frozenset({end_user.pk})]


def test_bulk_resolution_resolves_pending_items_and_skips_the_others(end_user, operator):
    first, second = conflict_make(end_user), conflict_make(end_user, "User is 31", ("User is 30",))
    done = conflict_make(end_user, "User likes tea", ("User likes coffee",))
    review_item_resolve(review_item_id=done.pk, resolution=Resolution.KEEP_BOTH, operator=operator)

    result = review_item_resolve_many(
        review_item_ids=[first.pk, second.pk, done.pk],
        resolution=Resolution.KEEP_EXISTING,
        operator=operator,
    )

    assert (result.resolved, result.skipped) == (2, 1)
    assert f"#{done.pk}" in result.errors[0]
    assert ReviewItem.objects.filter(status="pending").count() == 0
    assert ReviewItem.objects.get(pk=done.pk).resolution == "keep_both"


def test_bulk_merge_is_refused(end_user, operator):
    item = conflict_make(end_user)
    with pytest.raises(ReviewError, match="one at a time"):
        review_item_resolve_many(
            review_item_ids=[item.pk], resolution=Resolution.MERGE, operator=operator
        )


@pytest.mark.django_db(transaction=True)
def test_two_operators_resolving_the_same_conflict_at_once_apply_it_once():
    users = get_user_model().objects
    alice, bob = users.create_user("alice"), users.create_user("bob")
    end_user = EndUserFactory()
    item = conflict_make(end_user)
    barrier = threading.Barrier(2)
    outcomes: dict[str, str] = {}

    def resolve(operator, resolution):
        try:
            barrier.wait()
            review_item_resolve(review_item_id=item.pk, resolution=resolution, operator=operator)
            outcomes[operator.username] = "resolved"
        except ReviewAlreadyResolved:
            outcomes[operator.username] = "already resolved"
        finally:
            connection.close()

    threads = [
        threading.Thread(target=resolve, args=(alice, Resolution.KEEP_NEW)),
        threading.Thread(target=resolve, args=(bob, Resolution.KEEP_EXISTING)),
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)

    assert sorted(outcomes.values()) == ["already resolved", "resolved"]
    item.refresh_from_db()
    winner = next(name for name, outcome in outcomes.items() if outcome == "resolved")
    assert item.resolved_by.username == winner
    operator_versions = MemoryVersion.objects.filter(actor_type="operator")
    assert set(operator_versions.values_list("actor", flat=True)) == {winner}
    if winner == "alice":
        assert Memory.objects.get(pk=item.new_memory_id).status == "active"
    else:
        assert item.new_memory_id is None


def test_an_operator_edit_is_a_new_version_with_a_new_hash_and_vector(end_user, operator):
    memory = memory_make(end_user, "User likes coffee")

    memory_operator_edit(
        memory_id=memory.id,
        operator=operator,
        caption="User likes black coffee",
        full_text="User likes black coffee, no sugar.",
        category=Memory.Category.PREFERENCE,
        confidence=0.9,
    )

    memory.refresh_from_db()
    assert memory.content_hash == content_hash("User likes black coffee, no sugar.")
    assert memory.embedding_model == HASHING_MODEL_ID
    version = memory.versions.order_by("version").last()
    assert (version.action, version.actor, version.full_text_before) == (
        "edited",
        "alice",
        "User likes coffee",
    )


def test_an_operator_edit_that_duplicates_another_active_memory_is_refused(end_user, operator):
    memory = memory_make(end_user, "User likes coffee")
    memory_make(end_user, "User likes tea")

    with pytest.raises(ReviewError, match="already says this"):
        memory_operator_edit(
            memory_id=memory.id,
            operator=operator,
            caption="User likes tea",
            full_text="User likes tea",
            category=Memory.Category.PREFERENCE,
            confidence=1.0,
        )
    memory.refresh_from_db()
    assert memory.full_text == "User likes coffee"


def test_an_operator_edit_that_changes_nothing_writes_no_version(end_user, operator):
    memory = memory_make(end_user, "User likes coffee")

    memory_operator_edit(
        memory_id=memory.id,
        operator=operator,
        caption=memory.caption,
        full_text=memory.full_text,
        category=memory.category,
        confidence=memory.confidence,
    )

    assert memory.versions.count() == 1


def _superseded(end_user) -> ReviewItem:
    """An update the supersede policy applied: the old memory superseded, the item resolved."""
    from memories.services.conflicts import review_item_file

    old = memory_make(end_user, "User lives in Berlin")
    new = memory_make(end_user, "User moved to Munich")
    return review_item_file(
        new_memory=new,
        existing=[old],
        similarity=0.5,
        reason="moved",
        signal="rules",
        supersede=True,
    )


def test_an_update_applied_by_the_policy_is_filed_resolved_and_audited(end_user):
    item = _superseded(end_user)

    old = item.existing_memories.get()
    assert item.status == ReviewItem.Status.RESOLVED and item.auto_resolved
    assert item.resolved_by is None and item.resolution == Resolution.KEEP_NEW
    assert old.status == Memory.Status.SUPERSEDED
    assert old.versions.last().action == MemoryVersion.Action.SUPERSEDED


def test_reopening_an_applied_update_makes_it_wait_for_review_again(end_user, operator):
    item = _superseded(end_user)

    review_item_reopen(review_item_id=item.pk, operator=operator)

    item.refresh_from_db()
    assert item.status == ReviewItem.Status.PENDING and not item.auto_resolved
    assert item.new_memory.status == Memory.Status.PENDING_REVIEW
    assert item.existing_memories.get().status == Memory.Status.ACTIVE
    assert item.new_memory.versions.last().actor == operator.get_username()
    # Then it resolves like any conflict.
    review_item_resolve(
        review_item_id=item.pk, resolution=Resolution.KEEP_EXISTING, operator=operator
    )
    assert Memory.objects.get().full_text == "User lives in Berlin"


def test_only_an_applied_update_can_be_reopened(end_user, operator):
    with pytest.raises(ReviewError):
        review_item_reopen(review_item_id=conflict_make(end_user).pk, operator=operator)
