"""The review console as an operator sees it at 1440x900 (the `page` fixture's viewport): the
queue fits its container with every column in view, one name for the queue in the title,
breadcrumb and sidebar, and the conflict page says what *Keep new* would lose."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.utils import timezone

from memories.models import ReviewItem
from tests.browser.admin_login import log_in, operator_create
from tests.factories import EndUserFactory, TenantFactory, conflict_make

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PORTO = "User lives in Porto with their husband and daughter Inês"
# Captions as long as the queue shows them (it cuts at 60 characters), reasons as the offline
# judge writes them, and tenant names as long as real ones get.
LONG_CONFLICTS = [
    (
        "User lives in Lisbon with their husband and their daughter Inês since March 2024",
        "User lives in Porto with their husband and daughter Inês and a cat called Miso",
        "different value of 'lives in': 'porto' before, 'lisbon' now",
    ),
    (
        "User works as a senior data engineer at Banco Comercial Português in Lisbon",
        "User works as a backend developer at a logistics start-up called Shipwise",
        "LLM judge: the user changed jobs, so the new employer may replace the old one",
    ),
    (
        "User keeps their notes at https://notes.example.com/users/inês/lisbon-relocation-2024",
        "User keeps their notes in a paper notebook",
        "different value of 'notes kept in': 'a paper notebook' before, 'a web page' now",
    ),
    (
        "User prefers answers in European Portuguese, short, with code examples first",
        "User prefers answers in English with long explanations before any code",
        "different value of 'answer language': 'english' before, 'portuguese' now",
    ),
]


@pytest.fixture(autouse=True)
def _hashing_embedder(settings):
    settings.MEMORY_EMBEDDER = "hashing"


@pytest.fixture
def operator(db):
    return operator_create()


@pytest.fixture
def long_queue(operator):
    """Pending and resolved conflicts with long captions, so `status=all` shows every column."""
    tenant = TenantFactory(name="northwind-customer-support-europe")
    users = [EndUserFactory(tenant=tenant) for _ in range(2)]  # one text once per user
    items = []
    for days, (new, old, reason) in enumerate(LONG_CONFLICTS * 2, start=1):
        end_user = users[(days - 1) // len(LONG_CONFLICTS)]
        item = conflict_make(end_user, new, (old,), reason=reason)
        ReviewItem.objects.filter(pk=item.pk).update(
            created_at=timezone.now() - timedelta(days=days, hours=3)
        )
        items.append(item)
    # The widest values of the short columns: "LLM decision", "Keep existing".
    ReviewItem.objects.filter(pk__in=[item.pk for item in items[1::2]]).update(
        signal=ReviewItem.Signal.LLM
    )
    for item in items[::2]:
        ReviewItem.objects.filter(pk=item.pk).update(
            status=ReviewItem.Status.RESOLVED,
            resolution=ReviewItem.Resolution.KEEP_EXISTING,
            resolved_by=operator,
            resolved_at=timezone.now(),
        )
    return items


def test_the_review_queue_fits_1440_pixels_with_the_resolution_column_in_view(
    page, live_server, long_queue
):
    log_in(page, live_server)
    page.goto(f"{live_server.url}/admin/memories/reviewitem/?status=all")
    assert page.locator("#result_list tbody tr").count() == len(long_queue)

    sizes = page.evaluate(
        """() => {
            const table = document.querySelector('#result_list');
            const container = table.parentElement;
            const header = document.querySelector('#result_list th.column-resolution_shown');
            const box = header.getBoundingClientRect();
            return {table: table.scrollWidth, container: container.clientWidth,
                    header_right: box.right,
                    container_right: container.getBoundingClientRect().right,
                    viewport: document.documentElement.clientWidth};
        }"""
    )

    assert sizes["table"] <= sizes["container"], sizes
    # In view: not scrolled out of its container, and the container not out of the window.
    assert 0 < sizes["header_right"] <= sizes["container_right"] <= sizes["viewport"], sizes
    # A shortened caption is whole on hover, and its cell is no wider than the rest.
    caption = page.locator("#result_list").get_by_title(LONG_CONFLICTS[0][0])
    assert caption.count() == 2


def test_the_queue_has_one_name_in_its_title_breadcrumb_and_sidebar(page, live_server, long_queue):
    log_in(page, live_server)
    page.goto(f"{live_server.url}/admin/memories/reviewitem/")

    title = page.locator("#content h1").inner_text()
    breadcrumb = page.locator(".breadcrumbs").inner_text()
    sidebar = page.locator('#nav-sidebar a[href$="/admin/memories/reviewitem/"]').inner_text()

    last_crumb = breadcrumb.split("\N{SINGLE RIGHT-POINTING ANGLE QUOTATION MARK}")[-1].strip()
    assert (title.split(":")[0], last_crumb, sidebar) == ("Review queue",) * 3
    assert re.search(r"review items", page.content(), re.IGNORECASE) is None


def test_the_conflict_page_shows_what_keep_new_and_merge_would_drop_as_the_text_is_edited(
    page, live_server, operator
):
    # Imported here: without playwright the module must still load, to be skipped.
    from playwright.sync_api import expect

    item = conflict_make(EndUserFactory(), "User moved to Lisbon", (PORTO,))
    log_in(page, live_server)
    page.goto(f"{live_server.url}/admin/memories/reviewitem/{item.pk}/change/")

    keep_new = page.locator("#keep_new-loses")
    merge = page.locator("#merge-loses")
    expect(keep_new).to_contain_text("lives, Porto, husband, daughter, Inês")
    expect(merge).to_contain_text("lives, Porto, husband, daughter, Inês")

    # The operator writes the family back in: the box recounts as they type.
    page.fill("#id_caption", "User lives in Lisbon")
    page.fill("#id_full_text", "User moved from Porto to Lisbon with their husband")
    expect(merge.locator("mark")).to_have_text(["daughter", "Inês"])
    page.fill("#id_full_text", "User moved from Porto to Lisbon with husband and daughter Inês")
    expect(merge).to_be_hidden()
    expect(page.locator("#merge-keeps-all")).to_be_visible()
    expect(keep_new).to_contain_text("husband")  # Keep new keeps the new memory, not the box
