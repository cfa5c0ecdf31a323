"""The consolidation job (`memories.services.audit`, run by the beat task
`memories.tasks.audit_proposals`): what the audit finds is filed for review once, with its
reason, and no memory changes."""

from __future__ import annotations

import pytest
from django.conf import settings
from django.urls import reverse

from memories.models import Memory, MemoryVersion, ReviewItem
from memories.services.audit import audit_proposals_file
from memories.services.reviews import review_item_resolve
from memories.tasks import audit_proposals
from tests.factories import EndUserFactory, conflict_make, memory_make


def _vector(x: float, y: float) -> list[float]:
    norm = (x * x + y * y) ** 0.5
    return [x / norm, y / norm, 0.0, 0.0]


def _store() -> tuple[Memory, Memory, Memory, Memory]:
    user = EndUserFactory()
    older = memory_make(user, "User loves hiking", embedding=_vector(1, 0), embedding_model="t")
    newer = memory_make(
        user, "User really loves hiking", embedding=_vector(1, 0.02), embedding_model="t"
    )
    garbled = memory_make(user, "User smokes tho", embedding=_vector(0, 1), embedding_model="t")
    clean = memory_make(user, "User plays the cello")
    return older, newer, garbled, clean


def _snapshot() -> list[tuple]:
    return list(
        Memory.objects.order_by("id").values_list(
            "id", "status", "caption", "full_text", "content_hash", "updated_at"
        )
    )


@pytest.mark.django_db
def test_the_job_files_each_finding_as_a_proposal_with_its_reason():
    older, newer, garbled, _ = _store()

    result = audit_proposals_file()

    assert result.filed == 2
    items = {i.new_memory_id: i for i in ReviewItem.objects.filter(signal="audit")}
    assert set(items) == {newer.id, garbled.id}
    pair = items[newer.id]
    assert list(pair.existing_memories.values_list("id", flat=True)) == [older.id]
    assert pair.similarity > 0.99 and f"near-duplicate of {older.id}" in pair.reason
    assert "garbled caption (debris)" in items[garbled.id].reason
    assert not items[garbled.id].existing_memories.exists()
    assert all(i.status == ReviewItem.Status.PENDING for i in items.values())


@pytest.mark.django_db
def test_the_job_changes_no_memory():
    _store()
    before = _snapshot()
    versions = MemoryVersion.objects.count()

    audit_proposals_file()

    assert _snapshot() == before
    assert MemoryVersion.objects.count() == versions


@pytest.mark.django_db
def test_a_second_run_files_nothing_again():
    _store()
    audit_proposals_file()

    again = audit_proposals_file()

    assert (again.filed, again.proposed_before) == (0, 2)
    assert ReviewItem.objects.filter(signal="audit").count() == 2


@pytest.mark.django_db
def test_a_proposal_an_operator_resolved_is_not_filed_again(django_user_model):
    _, newer, _, _ = _store()
    audit_proposals_file()
    operator = django_user_model.objects.create_superuser("olga", password="x")
    item = ReviewItem.objects.get(new_memory=newer)
    review_item_resolve(review_item_id=item.pk, resolution="keep_both", operator=operator)

    again = audit_proposals_file()

    assert again.filed == 0
    assert ReviewItem.objects.filter(signal="audit", new_memory=newer).count() == 1


@pytest.mark.django_db
def test_a_memory_already_waiting_for_review_gets_no_second_item():
    user = EndUserFactory()
    item = conflict_make(user, "User lives in", ("User lives in Berlin",))
    Memory.objects.filter(pk=item.new_memory_id).update(status=Memory.Status.ACTIVE)

    result = audit_proposals_file()

    assert (result.filed, result.in_review) == (0, 1)
    assert ReviewItem.objects.filter(new_memory_id=item.new_memory_id).count() == 1


@pytest.mark.django_db
def test_the_beat_task_calls_the_service_and_is_scheduled():
    _store()

    assert audit_proposals() == {"filed": 2, "proposed_before": 0, "in_review": 0}
    scheduled = {entry["task"] for entry in settings.CELERY_BEAT_SCHEDULE.values()}
    assert "memories.audit_proposals" in scheduled


@pytest.mark.django_db
def test_the_job_files_only_the_tenants_asked():
    _store()
    other = EndUserFactory()
    memory_make(other, "User lives in")

    result = audit_proposals_file(tenant_ids=[other.tenant_id])

    assert result.filed == 1
    assert ReviewItem.objects.get(signal="audit").end_user_id == other.id


@pytest.mark.django_db
def test_an_operator_sees_a_proposal_in_the_review_queue_and_discards_the_junk(
    admin_client, admin_user
):
    older, newer, garbled, _ = _store()
    audit_proposals_file()
    pair = ReviewItem.objects.get(new_memory=newer)
    junk = ReviewItem.objects.get(new_memory=garbled)
    queue = reverse("admin:memories_reviewitem_changelist")

    listed = admin_client.get(f"{queue}?signal__exact=audit").content.decode()
    page = admin_client.get(reverse("admin:memories_reviewitem_change", args=[pair.pk]))
    junk_page = admin_client.get(reverse("admin:memories_reviewitem_change", args=[junk.pk]))

    assert "User smokes tho" in listed and "User really loves hiking" in listed
    assert page.status_code == junk_page.status_code == 200
    assert "near-duplicate of" in page.content.decode()
    assert older.caption in page.content.decode()
    review_item_resolve(review_item_id=junk.pk, resolution="keep_existing", operator=admin_user)
    assert not Memory.objects.filter(pk=garbled.pk).exists()  # the operator's choice, not the job's
