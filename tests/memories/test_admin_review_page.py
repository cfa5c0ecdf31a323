"""The review console's words: one name for the queue, times written once, and the conflict page
saying what *Keep new* and *Merge* would drop before the operator clicks (issue 24)."""

from __future__ import annotations

import re
from datetime import UTC, datetime

import pytest
from django.contrib.admin.utils import quote
from django.urls import reverse

from memories.models import Memory, MemoryVersion, ReviewItem
from tests.factories import conflict_make

QUEUE = reverse("admin:memories_reviewitem_changelist")
PORTO = "User lives in Porto with their husband and daughter Inês"
# An a.m. time: Django's default format writes it "3:13 a.m.", with its own final period.
EARLY = datetime(2024, 5, 12, 3, 13, tzinfo=UTC)


def conflict_page(item: ReviewItem) -> str:
    return reverse("admin:memories_reviewitem_change", args=[item.pk])


def _marked(html: str, element_id: str) -> list[str]:
    """The words a `would-lose` note marks, in order."""
    note = re.search(rf'<p class="would-lose" id="{element_id}"[^>]*>(.*?)</p>', html, re.S)
    assert note is not None, f"no #{element_id} on the page"
    return re.findall(r"<mark>(.*?)</mark>", note.group(1))


@pytest.fixture(autouse=True)
def _hashing_embedder(settings):
    settings.MEMORY_EMBEDDER = "hashing"


@pytest.fixture
def lisbon(end_user) -> ReviewItem:
    return conflict_make(end_user, "User moved to Lisbon", (PORTO,))


# --- one name ------------------------------------------------------------------------------


def test_the_queue_goes_by_one_name_on_every_admin_page(client_as_operator, lisbon):
    client_as_operator.post(conflict_page(lisbon), {"resolution": "keep_both"})
    pages = {
        "index": reverse("admin:index"),
        "app": reverse("admin:app_list", args=["memories"]),
        "queue": QUEUE + "?status=all",
        "conflict": conflict_page(lisbon),
        "history": reverse("admin:memories_reviewitem_history", args=[lisbon.pk]),
    }

    for name, url in pages.items():
        html = client_as_operator.get(url).content.decode()
        assert f'<a href="{QUEUE}">Review queue</a>' in html or name == "queue", name
        # The plural is the queue's name; one entry of Recent actions is still a "Review item".
        assert re.search(r"review items\b", html, re.IGNORECASE) is None, name
    queue = client_as_operator.get(QUEUE + "?status=all").content.decode()
    assert "&rsaquo; Review queue\n</div>" in queue
    assert "1 conflict\n" in queue


# --- times ---------------------------------------------------------------------------------


def test_no_admin_page_writes_a_time_with_a_doubled_period(client_as_operator, lisbon, end_user):
    auto = conflict_make(end_user, "User is 31", ("User is 30",))
    client_as_operator.post(conflict_page(lisbon), {"resolution": "keep_both"})
    ReviewItem.objects.filter(pk=auto.pk).update(
        status="resolved", resolution="keep_new", auto_resolved=True
    )
    ReviewItem.objects.update(created_at=EARLY, resolved_at=EARLY)
    pending = conflict_make(end_user, "User likes tea", ("User likes coffee",))
    ReviewItem.objects.filter(pk=pending.pk).update(created_at=EARLY)
    Memory.objects.update(created_at=EARLY, updated_at=EARLY, last_accessed_at=EARLY)
    MemoryVersion.objects.update(created_at=EARLY)
    memory = lisbon.existing_memories.get()
    pages = [
        QUEUE + "?status=all",
        conflict_page(lisbon),
        conflict_page(auto),
        conflict_page(pending),
        reverse("admin:memories_memory_changelist"),
        reverse("admin:memories_memory_change", args=[quote(memory.pk)]),
    ]

    for url in pages:
        response = client_as_operator.get(url)
        assert response.status_code == 200, url
        assert "m.." not in response.content.decode(), url
    resolved = client_as_operator.get(conflict_page(lisbon)).content.decode()
    assert "by olga on 2024-05-12 03:13 UTC." in resolved


# --- what a resolution would drop ----------------------------------------------------------


def test_the_conflict_page_says_what_keep_new_and_merge_would_drop(client_as_operator, lisbon):
    html = client_as_operator.get(conflict_page(lisbon)).content.decode()

    # The box starts with the new memory's text, so an unedited merge drops the same words.
    assert _marked(html, "keep_new-loses") == ["lives", "Porto", "husband", "daughter", "Inês"]
    assert _marked(html, "merge-loses") == ["lives", "Porto", "husband", "daughter", "Inês"]
    assert 'id="loss-texts"' in html  # what the page's script recounts from


def test_a_merge_shown_again_counts_the_loss_of_the_text_the_operator_wrote(
    client_as_operator, lisbon
):
    existing = lisbon.existing_memories.get()
    response = client_as_operator.post(
        conflict_page(lisbon),
        {
            "resolution": "merge",
            "caption": "x" * 101,  # too long: the page comes back with the operator's text
            "full_text": "User moved from Porto to Lisbon with their husband",
            "merge_into": existing.id,
        },
    )
    html = response.content.decode()

    assert response.status_code == 200
    assert _marked(html, "merge-loses") == ["lives", "daughter", "Inês"]


def test_nothing_is_flagged_when_the_new_memory_says_it_all(client_as_operator, end_user):
    item = conflict_make(end_user, "User lives in Munich with family", ("User lives in Berlin",))
    html = client_as_operator.get(conflict_page(item)).content.decode()

    assert _marked(html, "keep_new-loses") == ["Berlin"]
    item = conflict_make(
        end_user, "User likes green tea and coffee", ("User likes coffee",), category="preference"
    )
    html = client_as_operator.get(conflict_page(item)).content.decode()

    assert 'id="keep_new-loses"' not in html
    assert re.search(r'<p class="would-lose" id="merge-loses"[^>]* hidden>', html)
    assert 'id="merge-keeps-all">' in html
