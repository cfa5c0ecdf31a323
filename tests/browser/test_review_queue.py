"""An operator, in a real browser, logs in, opens the review queue and resolves a conflict by
each of the four ways; the database is checked after each click."""

from __future__ import annotations

import re

import pytest

from memories.models import DeletionRecord, Memory, ReviewItem
from tests.browser.admin_login import log_in, operator_create

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture(autouse=True)
def _hashing_embedder(settings):
    settings.MEMORY_EMBEDDER = "hashing"


@pytest.fixture
def operator(db):
    return operator_create()


def _open_queue(page) -> None:
    summary = page.locator("#review-queue-summary a.button")
    if summary.count():
        summary.click()
    else:  # without the index summary (context processor not configured), the app list link
        page.get_by_role("link", name="Review queue", exact=True).first.click()
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
    log_in(page, live_server)
    screenshot(page, "admin-index.png", full_page=False)

    _open_queue(page)
    rows = page.locator("#result_list tbody tr")
    assert rows.count() == 5
    # Oldest first: the Munich conflict (50 hours old) leads the queue.
    assert "User lives in Munich" in rows.first.inner_text()
    screenshot(page, "review-queue.png", full_page=False)

    # The conflict page shows both sides with similarity, reason, session, the user's words and
    # versions.
    item = conflicts["keep_new"]
    page.get_by_role("link", name=f"#{item.pk}", exact=True).click()
    new_card = page.locator(f"#memory-{item.new_memory_id}")
    existing_id = item.existing_memories.get().id
    assert "User lives in Munich" in new_card.inner_text()
    assert "chat-2024-05-12" in new_card.inner_text()
    assert "User lives in Berlin" in page.locator(f"#memory-{existing_id}").inner_text()
    # What the user said, beside each memory.
    assert "we finally moved to Munich last week" in new_card.locator(".said").inner_text()
    said_before = page.locator(f"#memory-{existing_id} .said").inner_text()
    assert "I live in Berlin, in Prenzlauer Berg" in said_before
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
    log_in(page, live_server)
    page.goto(f"{live_server.url}/admin/memories/reviewitem/{item.pk}/change/")
    page.fill("#id_full_text", "")
    page.click("#resolve-merge")

    assert "Merging needs the text to keep." in page.locator(".merge-box").inner_text()
    item.refresh_from_db()
    assert item.status == "pending"
