"""The operators' admin: the review queue, the conflict page, memories and jobs."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.contrib.admin.utils import quote
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from memories.models import DeletionRecord, Memory, MemoryVersion, ReviewItem
from tests.factories import (
    EndUserFactory,
    ExtractionJobFactory,
    ReviewItemFactory,
    TenantFactory,
    conflict_make,
    memory_make,
)

QUEUE = reverse("admin:memories_reviewitem_changelist")
MEMORIES = reverse("admin:memories_memory_changelist")


def conflict_page(item: ReviewItem) -> str:
    return reverse("admin:memories_reviewitem_change", args=[item.pk])


def memory_page(memory: Memory, action: str = "change") -> str:
    """A memory's admin page, its id quoted as the admin quotes it: unquoted, an id such as
    mem_2Coc... reads as the escape _2C (",") and the page is a 404."""
    return reverse(f"admin:memories_memory_{action}", args=[quote(memory.pk)])


@pytest.fixture(autouse=True)
def _hashing_embedder(settings):
    settings.MEMORY_EMBEDDER = "hashing"


def _filed(item: ReviewItem, *, days: float) -> ReviewItem:
    ReviewItem.objects.filter(pk=item.pk).update(created_at=timezone.now() - timedelta(days=days))
    return item


def _listed(response) -> list[int]:
    return [item.pk for item in response.context["cl"].result_list]


# --- the index and the queue ----------------------------------------------------------------


def test_the_admin_index_shows_how_many_conflicts_wait(client_as_operator, end_user):
    _filed(conflict_make(end_user), days=3)
    conflict_make(end_user, "User is 31", ("User is 30",))

    page = client_as_operator.get(reverse("admin:index")).content.decode()

    assert 'id="review-queue-summary"' in page, (
        "add 'memories.context_processors.review_queue_summary' to TEMPLATES' context_processors"
    )
    assert '<span class="review-queue-count">2</span>' in page
    assert "the oldest for 3\xa0days" in page
    assert f'href="{QUEUE}"' in page


def test_the_queue_lists_pending_conflicts_oldest_first_and_hides_resolved_ones(
    client_as_operator, end_user, operator
):
    newer = _filed(conflict_make(end_user, "User is 31", ("User is 30",)), days=1)
    older = _filed(conflict_make(end_user), days=5)
    resolved = _filed(conflict_make(end_user, "User likes tea", ("User likes coffee",)), days=9)
    resolved.status, resolved.resolution, resolved.resolved_by = "resolved", "keep_both", operator
    resolved.save()

    pending = client_as_operator.get(QUEUE)
    everything = client_as_operator.get(QUEUE, {"status": "all"})

    assert pending.status_code == 200
    assert _listed(pending) == [older.pk, newer.pk]
    assert _listed(everything) == [older.pk, newer.pk, resolved.pk]
    assert _listed(client_as_operator.get(QUEUE, {"status": "resolved"})) == [resolved.pk]


@pytest.fixture
def varied_conflicts():
    acme, globex = TenantFactory(name="acme"), TenantFactory(name="globex")
    alice, bob = EndUserFactory(tenant=acme), EndUserFactory(tenant=globex)
    return {
        "alice_personal_old": _filed(conflict_make(alice), days=10),
        "alice_preference_new": _filed(
            conflict_make(alice, "User likes tea", ("User likes coffee",), category="preference"),
            days=0.1,
        ),
        "bob_personal": _filed(conflict_make(bob, "User is 31", ("User is 30",)), days=2),
    }


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        (
            lambda c: {"end_user__tenant__id__exact": c["bob_personal"].end_user.tenant_id},
            {"bob_personal"},
        ),
        (
            lambda c: {"end_user": c["alice_personal_old"].end_user_id},
            {"alice_personal_old", "alice_preference_new"},
        ),
        (lambda c: {"new_memory__category": "preference"}, {"alice_preference_new"}),
        (lambda c: {"age": "7d"}, {"alice_personal_old"}),
        (lambda c: {"age": "today"}, {"alice_preference_new"}),
        (lambda c: {"q": "coffee"}, {"alice_preference_new"}),
        (lambda c: {"q": str(c["bob_personal"].end_user.external_id)}, {"bob_personal"}),
        (lambda c: {"q": str(c["bob_personal"].end_user.external_id)[:8]}, {"bob_personal"}),
    ],
    ids=["tenant", "user", "category", "age", "today", "caption", "user-id", "user-id-prefix"],
)
def test_the_queue_filters_and_searches(client_as_operator, varied_conflicts, query, expected):
    response = client_as_operator.get(QUEUE, query(varied_conflicts))

    assert response.status_code == 200
    names = {name for name, item in varied_conflicts.items() if item.pk in _listed(response)}
    assert names == expected


def test_a_malformed_user_filter_is_ignored_not_an_error(client_as_operator, varied_conflicts):
    response = client_as_operator.get(QUEUE, {"end_user": "nope"})

    assert response.status_code == 200
    assert len(_listed(response)) == 3


def _queries(client, url: str) -> int:
    with CaptureQueriesContext(connection) as captured:
        assert client.get(url).status_code == 200
    return len(captured)


def test_the_queue_costs_the_same_queries_for_5_or_50_conflicts(client_as_operator, tenant):
    users = [EndUserFactory(tenant=tenant) for _ in range(5)]
    for n in range(5):
        conflict_make(users[n % 5], f"User likes band {n}", (f"User hates band {n}",))
    few = _queries(client_as_operator, QUEUE)
    for n in range(5, 50):
        conflict_make(users[n % 5], f"User likes band {n}", (f"User hates band {n}",))

    assert _queries(client_as_operator, QUEUE) == few
    assert few <= 12


# --- the conflict page ----------------------------------------------------------------------


def test_the_conflict_page_shows_both_sides_with_their_versions(client_as_operator, end_user):
    item = conflict_make(end_user, similarity=0.873)
    existing = item.existing_memories.get()

    with CaptureQueriesContext(connection) as captured:
        response = client_as_operator.get(conflict_page(item))
    page = response.content.decode()

    assert response.status_code == 200
    assert len(captured) <= 10
    assert f'id="memory-{item.new_memory_id}"' in page
    assert f'id="memory-{existing.id}"' in page
    assert "User lives in Munich" in page and "User lives in Berlin" in page
    assert '<strong id="conflict-similarity">0.87</strong>' in page
    assert "&#x27;berlin&#x27; before, &#x27;munich&#x27; now" in page
    assert page.count("<summary>1 version</summary>") == 2
    for resolution in ("keep_new", "keep_existing", "keep_both", "merge"):
        assert f'id="resolve-{resolution}"' in page


def test_the_conflict_page_of_an_unknown_item_is_a_404(client_as_operator):
    assert client_as_operator.get(conflict_page(ReviewItem(pk=999))).status_code == 404
    url = reverse("admin:memories_reviewitem_change", args=["nope"])
    assert client_as_operator.get(url).status_code == 404


@pytest.mark.parametrize(
    ("resolution", "new_status", "existing_status"),
    [
        ("keep_new", "active", "superseded"),
        ("keep_existing", None, "active"),
        ("keep_both", "active", "active"),
        ("merge", None, "active"),
    ],
)
def test_one_click_resolves_the_conflict_and_returns_to_the_queue(
    client_as_operator, end_user, resolution, new_status, existing_status
):
    item = conflict_make(end_user)
    new_id, existing = item.new_memory_id, item.existing_memories.get()

    response = client_as_operator.post(
        conflict_page(item),
        {
            "resolution": resolution,
            "caption": "User moved to Munich",
            "full_text": "User moved from Berlin to Munich.",
            "merge_into": existing.id,
        },
        follow=True,
    )

    assert response.redirect_chain[-1][0] == QUEUE
    assert f"Conflict #{item.pk} resolved" in response.content.decode()
    item.refresh_from_db()
    assert (item.status, item.resolution, item.resolved_by.username) == (
        "resolved",
        resolution,
        "olga",
    )
    assert Memory.objects.filter(pk=new_id).values_list("status", flat=True).first() == new_status
    existing.refresh_from_db()
    assert existing.status == existing_status
    assert existing.versions.order_by("version").last().actor == "olga"
    if resolution == "merge":
        assert existing.full_text == "User moved from Berlin to Munich."


def test_a_merge_without_text_is_shown_again_with_an_error(client_as_operator, end_user):
    item = conflict_make(end_user)

    response = client_as_operator.post(
        conflict_page(item), {"resolution": "merge", "caption": "", "full_text": ""}
    )

    assert response.status_code == 200
    assert "Merging needs the text to keep." in response.content.decode()
    assert ReviewItem.objects.get(pk=item.pk).status == "pending"


def test_a_resolved_conflict_shows_its_resolution_and_cannot_be_resolved_again(
    client_as_operator, end_user
):
    item = conflict_make(end_user)
    client_as_operator.post(conflict_page(item), {"resolution": "keep_both"})

    page = client_as_operator.get(conflict_page(item)).content.decode()
    again = client_as_operator.post(conflict_page(item), {"resolution": "keep_new"})

    assert "Resolved as <strong>Keep both</strong>" in page
    assert "by olga" in page
    assert 'id="resolve-keep_new"' not in page
    assert again.status_code == 403
    assert ReviewItem.objects.get(pk=item.pk).resolution == "keep_both"


def test_staff_who_may_only_view_see_the_conflict_but_cannot_resolve_it(client, end_user):
    viewer = get_user_model().objects.create_user("vic", is_staff=True)
    viewer.user_permissions.add(Permission.objects.get(codename="view_reviewitem"))
    client.force_login(viewer)
    item = conflict_make(end_user)

    page = client.get(conflict_page(item))
    post = client.post(conflict_page(item), {"resolution": "keep_new"})

    assert page.status_code == 200
    assert 'id="resolve-keep_new"' not in page.content.decode()
    assert post.status_code == 403
    assert ReviewItem.objects.get(pk=item.pk).status == "pending"


@pytest.mark.parametrize(
    ("action", "resolution"),
    [
        ("resolve_keep_new", "keep_new"),
        ("resolve_keep_existing", "keep_existing"),
        ("resolve_keep_both", "keep_both"),
    ],
)
def test_bulk_actions_resolve_the_selected_conflicts(
    client_as_operator, end_user, action, resolution
):
    chosen = [conflict_make(end_user), conflict_make(end_user, "User is 31", ("User is 30",))]
    untouched = conflict_make(end_user, "User likes tea", ("User likes coffee",))

    response = client_as_operator.post(
        QUEUE, {"action": action, "_selected_action": [item.pk for item in chosen]}, follow=True
    )

    assert "Resolved 2 conflict(s)" in response.content.decode()
    resolved = ReviewItem.objects.filter(status="resolved")
    assert set(resolved.values_list("pk", flat=True)) == {item.pk for item in chosen}
    assert set(resolved.values_list("resolution", flat=True)) == {resolution}
    assert ReviewItem.objects.get(pk=untouched.pk).status == "pending"


def test_review_items_cannot_be_added_or_deleted_by_hand(client_as_operator, end_user):
    item = conflict_make(end_user)

    assert client_as_operator.get(reverse("admin:memories_reviewitem_add")).status_code == 403
    delete = reverse("admin:memories_reviewitem_delete", args=[item.pk])
    assert client_as_operator.post(delete, {"post": "yes"}).status_code == 403


# --- memories -------------------------------------------------------------------------------


def test_a_page_of_100_memories_costs_a_fixed_number_of_queries(
    client_as_operator, django_assert_max_num_queries
):
    tenants = [TenantFactory() for _ in range(4)]
    for n in range(10):
        memory_make(EndUserFactory(tenant=tenants[n % 4]), f"User likes band {n}")
    with CaptureQueriesContext(connection) as ten:
        client_as_operator.get(MEMORIES)
    for n in range(10, 100):
        memory_make(EndUserFactory(tenant=tenants[n % 4]), f"User likes band {n}")

    with django_assert_max_num_queries(6):
        response = client_as_operator.get(MEMORIES)

    assert len(response.context["cl"].result_list) == 100
    with CaptureQueriesContext(connection) as hundred:
        client_as_operator.get(MEMORIES)
    assert len(hundred) == len(ten)


def test_the_memory_list_never_loads_the_embedding(client_as_operator, end_user):
    memory_make(end_user, "User likes jazz", embedding=[0.125] * 384, embedding_model="m")

    with CaptureQueriesContext(connection) as captured:
        client_as_operator.get(MEMORIES)

    memory_selects = [q["sql"] for q in captured if 'FROM "memories_memory"' in q["sql"]]
    assert memory_selects
    assert not any('"memories_memory"."embedding"' in sql for sql in memory_selects)


def test_the_memory_page_shows_its_history_and_never_the_embedding(client_as_operator, end_user):
    memory = memory_make(end_user, "User likes jazz", embedding=[0.125] * 384, embedding_model="m")

    page = client_as_operator.get(memory_page(memory)).content.decode()

    assert "User likes jazz" in page
    assert "0.125" not in page
    assert 'name="embedding"' not in page
    assert 'name="content_hash"' not in page  # generated: shown read-only
    assert memory.content_hash in page
    assert "Created" in page  # the version inline


def test_editing_a_memory_in_the_admin_writes_a_version_by_the_operator(
    client_as_operator, end_user
):
    memory = memory_make(end_user, "User likes jazz", category="preference")
    url = memory_page(memory)

    response = client_as_operator.post(
        url,
        {
            "caption": "User likes cool jazz",
            "full_text": "User likes cool jazz, Chet Baker most.",
            "category": "preference",
            "confidence": "0.9",
            # The read-only inline of what the user said posts its management form too.
            "evidence-TOTAL_FORMS": "0",
            "evidence-INITIAL_FORMS": "0",
            "evidence-MIN_NUM_FORMS": "0",
            "evidence-MAX_NUM_FORMS": "1000",
            "versions-TOTAL_FORMS": "1",
            "versions-INITIAL_FORMS": "1",
            "versions-MIN_NUM_FORMS": "0",
            "versions-MAX_NUM_FORMS": "1000",
            "versions-0-id": str(memory.versions.get().pk),
            "versions-0-memory": memory.pk,
        },
    )

    assert response.status_code == 302, response.content.decode()[:2000]
    memory.refresh_from_db()
    assert memory.full_text == "User likes cool jazz, Chet Baker most."
    version = memory.versions.order_by("version").last()
    assert (version.action, version.actor_type, version.actor) == ("edited", "operator", "olga")
    assert version.full_text_before == "User likes jazz"


def test_deleting_a_memory_in_the_admin_is_real_and_audited(client_as_operator, end_user):
    memory = memory_make(end_user, "User likes jazz")

    response = client_as_operator.post(memory_page(memory, "delete"), {"post": "yes"})

    assert response.status_code == 302
    assert not Memory.objects.filter(pk=memory.pk).exists()
    assert not MemoryVersion.objects.filter(memory_id=memory.pk).exists()
    record = DeletionRecord.objects.get(memory_id=memory.pk)
    assert (record.reason, record.actor_type, record.actor) == ("operator", "operator", "olga")


# An id whose first characters read as one of the admin's escapes (_2C is ","): one in about
# fifteen random ids, so a link or test that forgets to quote fails now and then.
ESCAPE_LIKE_ID = "mem_2CocEld6RPEz40Er"


def test_a_memory_whose_id_reads_as_an_admin_escape_opens_and_deletes(client_as_operator, end_user):
    memory = memory_make(end_user, "User likes jazz", id=ESCAPE_LIKE_ID)

    assert client_as_operator.get(memory_page(memory)).status_code == 200
    assert (
        client_as_operator.post(memory_page(memory, "delete"), {"post": "yes"}).status_code == 302
    )
    assert not Memory.objects.filter(pk=ESCAPE_LIKE_ID).exists()


def test_the_conflict_page_links_each_memory_to_its_page_whatever_its_id(
    client_as_operator, end_user
):
    existing = memory_make(end_user, "User lives in Berlin", id=ESCAPE_LIKE_ID)
    new = memory_make(end_user, "User lives in Munich", status=Memory.Status.PENDING_REVIEW)
    item = ReviewItemFactory(end_user=end_user, new_memory=new, existing_memories=[existing])

    page = client_as_operator.get(conflict_page(item)).content.decode()
    links = re.findall(r'href="([^"]*/memories/memory/[^"]*/change/)"', page)

    assert len(links) == 2
    assert all(client_as_operator.get(link).status_code == 200 for link in links)


def test_memories_cannot_be_added_by_hand(client_as_operator):
    assert client_as_operator.get(reverse("admin:memories_memory_add")).status_code == 403


# --- jobs and the rest ----------------------------------------------------------------------


def test_the_job_list_costs_the_same_queries_for_few_or_many_jobs(client_as_operator, tenant):
    url = reverse("admin:extraction_extractionjob_changelist")

    ExtractionJobFactory.create_batch(3, end_user__tenant=tenant)
    few = _queries(client_as_operator, url)
    ExtractionJobFactory.create_batch(57, end_user__tenant=tenant)
    assert _queries(client_as_operator, url) == few


def test_the_job_list_filters_the_jobs_given_up_after_the_bound(
    client_as_operator, tenant, settings
):
    settings.MEMORY_JOB_MAX_ATTEMPTS = 3
    given_up = ExtractionJobFactory(end_user__tenant=tenant, status="failed", attempts=3)
    retried = ExtractionJobFactory(end_user__tenant=tenant, status="failed", attempts=1)
    url = reverse("admin:extraction_extractionjob_changelist")

    page = client_as_operator.get(url, {"replay": "given_up"}).content.decode()

    assert "given up (3 attempts)" in page
    assert str(given_up.pk) in page and str(retried.pk) not in page


def test_admin_pages_and_their_static_files_work_with_debug_off(client_as_operator, settings):
    assert settings.DEBUG is False
    assert client_as_operator.get(reverse("admin:index")).status_code == 200
    css = client_as_operator.get("/static/admin/css/base.css")
    assert css.status_code == 200
    assert b"--primary" in b"".join(css.streaming_content)


def test_the_conflict_page_names_the_signal_that_found_the_conflict(client_as_operator, end_user):
    item = conflict_make(end_user, reason="different where the user lives: 'berlin' before")
    ReviewItem.objects.filter(pk=item.pk).update(signal=ReviewItem.Signal.LLM)

    page = client_as_operator.get(conflict_page(item)).content.decode()

    assert "Found by: <strong>LLM decision</strong>" in page
    assert "different where the user lives" in page


def test_an_update_the_policy_applied_can_be_reopened_from_its_page(client_as_operator, end_user):
    from memories.services.conflicts import review_item_file

    old = memory_make(end_user, "User lives in Berlin")
    new = memory_make(end_user, "User moved to Munich")
    item = review_item_file(
        new_memory=new,
        existing=[old],
        similarity=0.5,
        reason="moved",
        signal="rules",
        supersede=True,
    )

    page = client_as_operator.get(conflict_page(item)).content.decode()
    assert "Applied automatically" in page and 'id="resolve-reopen"' in page
    response = client_as_operator.post(conflict_page(item), {"resolution": "reopen"})

    assert response.status_code == 302
    item.refresh_from_db()
    old.refresh_from_db()
    assert item.status == ReviewItem.Status.PENDING and old.status == Memory.Status.ACTIVE
    assert 'id="resolve-keep_new"' in client_as_operator.get(conflict_page(item)).content.decode()


def test_a_tenants_conflict_policy_is_set_in_the_admin(client_as_operator, tenant):
    page = reverse("admin:tenants_tenant_change", args=[tenant.pk])

    response = client_as_operator.post(
        page, {"name": tenant.name, "is_active": "on", "conflict_policy": "supersede"}
    )

    assert response.status_code == 302
    tenant.refresh_from_db()
    assert tenant.effective_conflict_policy == "supersede"
    listing = client_as_operator.get(reverse("admin:tenants_tenant_changelist")).content.decode()
    assert "Explicit updates supersede" in listing
