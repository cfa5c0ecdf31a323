"""An operator, in a real browser, logs in, opens the review queue and resolves a conflict by
each of the four ways; the database is checked after each click."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone

from memories.models import AgentSession, DeletionRecord, Memory, ReviewItem
from tests.factories import EndUserFactory, TenantFactory
from tests.memories.test_reviews import conflict_make

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PASSWORD = "a-long-operator-passphrase"


@pytest.fixture(autouse=True)
def _hashing_embedder(settings):
    settings.MEMORY_EMBEDDER = "hashing"


def _conflict(end_user, new, existing, *, similarity, reason, hours_ago, session=None):
    item = conflict_make(end_user, new, (existing,), similarity=similarity, reason=reason)
    filed = timezone.now() - timedelta(hours=hours_ago)
    ReviewItem.objects.filter(pk=item.pk).update(created_at=filed)
    Memory.objects.filter(pk=item.new_memory_id).update(created_at=filed)
    Memory.objects.filter(conflicting_reviews=item).update(
        created_at=filed - timedelta(days=40), access_count=7, last_accessed_at=filed
    )
    if session is not None:
        Memory.objects.filter(pk=item.new_memory_id).update(source_session=session)
    return item


@pytest.fixture
def conflicts():
    """Four conflicts of one user, oldest first, and one of another tenant's user."""
    end_user = EndUserFactory(tenant=TenantFactory(name="acme-chat"))
    session = AgentSession.objects.create(end_user=end_user, external_id="chat-2024-05-12")
    items = {
        "keep_new": _conflict(
            end_user,
            "User lives in Munich",
            "User lives in Berlin",
            similarity=0.88,
            reason="different value of 'lives in': 'berlin' before, 'munich' now",
            hours_ago=50,
            session=session,
        ),
        "keep_existing": _conflict(
            end_user,
            "User is vegan",
            "User is vegetarian",
            similarity=0.91,
            reason="different value of 'diet': 'vegetarian' before, 'vegan' now",
            hours_ago=30,
        ),
        "keep_both": _conflict(
            end_user,
            "User likes green tea",
            "User likes coffee",
            similarity=0.86,
            reason="LLM judge: a new preference may replace the old one",
            hours_ago=20,
        ),
        "merge": _conflict(
            end_user,
            "User works at Initech",
            "User works at Acme",
            similarity=0.87,
            reason="different value of 'works at': 'acme' before, 'initech' now",
            hours_ago=5,
            session=session,
        ),
    }
    other = EndUserFactory(tenant=TenantFactory(name="globex-support"))
    _conflict(
        other,
        "User's dog is called Rex",
        "User's dog is called Bello",
        similarity=0.9,
        reason="different value of 'pet name:dog': 'bello' before, 'rex' now",
        hours_ago=2,
    )
    return items


@pytest.fixture
def operator(db):
    return get_user_model().objects.create_superuser("operator", password=PASSWORD)


def _log_in(page, live_server) -> None:
    page.goto(f"{live_server.url}/admin/")
    page.fill("#id_username", "operator")
    page.fill("#id_password", PASSWORD)
    page.click("input[type=submit]")
    page.wait_for_url(f"{live_server.url}/admin/")


def _open_queue(page) -> None:
    summary = page.locator("#review-queue-summary a.button")
    if summary.count():
        summary.click()
    else:  # without the index summary (context processor not configured), the app list link
        page.get_by_role("link", name="Review items", exact=True).first.click()
    page.wait_for_url(re.compile(r"/admin/memories/reviewitem/"))


def _resolve(page, live_server, item: ReviewItem, button: str) -> None:
    page.goto(f"{live_server.url}/admin/memories/reviewitem/")
    page.get_by_role("link", name=f"#{item.pk}", exact=True).click()
    page.wait_for_url(re.compile(rf"/reviewitem/{item.pk}/change/"))
    page.click(f"#resolve-{button}")
    page.wait_for_url(re.compile(r"/admin/memories/reviewitem/$"))
    message = page.locator(".messagelist .success").inner_text()
    assert f"Conflict #{item.pk} resolved" in message


def test_an_operator_resolves_conflicts_all_four_ways_in_the_browser(
    page, live_server, operator, conflicts, screenshot
):
    _log_in(page, live_server)
    screenshot(page, "admin-index.png", full_page=False)

    _open_queue(page)
    rows = page.locator("#result_list tbody tr")
    assert rows.count() == 5
    # Oldest first: the Munich conflict (50 hours old) leads the queue.
    assert "User lives in Munich" in rows.first.inner_text()
    screenshot(page, "review-queue.png", full_page=False)

    # The conflict page shows both sides with similarity, reason, session and versions.
    item = conflicts["keep_new"]
    page.get_by_role("link", name=f"#{item.pk}", exact=True).click()
    new_card = page.locator(f"#memory-{item.new_memory_id}")
    existing_id = item.existing_memories.get().id
    assert "User lives in Munich" in new_card.inner_text()
    assert "chat-2024-05-12" in new_card.inner_text()
    assert "User lives in Berlin" in page.locator(f"#memory-{existing_id}").inner_text()
    assert page.locator("#conflict-similarity").inner_text() == "0.88"
    assert "'berlin' before, 'munich' now" in page.locator(".conflict-reason").inner_text()
    screenshot(page, "conflict-page.png")

    # 1. Keep new: the new memory is active, the existing one superseded, by this operator.
    page.click("#resolve-keep_new")
    page.wait_for_url(re.compile(r"/admin/memories/reviewitem/$"))
    assert f"Conflict #{item.pk} resolved" in page.locator(".messagelist .success").inner_text()
    assert page.locator("#result_list tbody tr").count() == 4
    item.refresh_from_db()
    assert (item.status, item.resolution, item.resolved_by) == ("resolved", "keep_new", operator)
    assert Memory.objects.get(pk=item.new_memory_id).status == "active"
    superseded = Memory.objects.get(pk=existing_id)
    assert superseded.status == "superseded"
    assert superseded.versions.order_by("version").last().actor == "operator"

    # 2. Keep existing: the new memory is gone for real, the item stays as the trace.
    item = conflicts["keep_existing"]
    new_id = item.new_memory_id
    _resolve(page, live_server, item, "keep_existing")
    item.refresh_from_db()
    assert (item.resolution, item.new_memory_id) == ("keep_existing", None)
    assert not Memory.objects.filter(pk=new_id).exists()
    assert DeletionRecord.objects.get(memory_id=new_id).actor == "operator"
    assert item.existing_memories.get().status == "active"

    # 3. Keep both: both active.
    item = conflicts["keep_both"]
    _resolve(page, live_server, item, "keep_both")
    item.refresh_from_db()
    assert item.resolution == "keep_both"
    assert Memory.objects.get(pk=item.new_memory_id).status == "active"
    assert item.existing_memories.get().status == "active"

    # 4. Merge with edited text: the existing memory takes it as a new version.
    item = conflicts["merge"]
    new_id, existing = item.new_memory_id, item.existing_memories.get()
    page.goto(f"{live_server.url}/admin/memories/reviewitem/")
    page.get_by_role("link", name=f"#{item.pk}", exact=True).click()
    page.fill("#id_caption", "User works at Initech (before: Acme)")
    page.fill("#id_full_text", "User works at Initech since May 2024; before that at Acme.")
    page.click("#resolve-merge")
    page.wait_for_url(re.compile(r"/admin/memories/reviewitem/$"))
    existing.refresh_from_db()
    assert existing.caption == "User works at Initech (before: Acme)"
    assert existing.full_text == "User works at Initech since May 2024; before that at Acme."
    merged = existing.versions.order_by("version").last()
    assert (merged.action, merged.actor, merged.full_text_before) == (
        "merged",
        "operator",
        "User works at Acme",
    )
    assert not Memory.objects.filter(pk=new_id).exists()

    # Only the other tenant's conflict is left in the queue.
    remaining = page.locator("#result_list tbody tr")
    assert remaining.count() == 1
    assert "globex-support" in remaining.first.inner_text()
    assert ReviewItem.objects.filter(status="pending").count() == 1


def test_a_merge_without_text_is_refused_on_the_page(page, live_server, operator, conflicts):
    item = conflicts["merge"]
    _log_in(page, live_server)
    page.goto(f"{live_server.url}/admin/memories/reviewitem/{item.pk}/change/")
    page.fill("#id_full_text", "")
    page.click("#resolve-merge")

    assert "Merging needs the text to keep." in page.locator(".merge-box").inner_text()
    item.refresh_from_db()
    assert item.status == "pending"
