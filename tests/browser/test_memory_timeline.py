"""An operator opens a memory whose user moved twice and sees the user's facts on a timeline:
a bar per fact from when it began to hold, the replaced ones grey and closed where the update
took over, the current one green to today, and the update and the review decision marked."""

from __future__ import annotations

import datetime

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from memories.models import Memory
from memories.services.conflicts import review_item_file
from memories.services.reviews import review_item_resolve
from tests.browser.admin_login import log_in, operator_create
from tests.factories import EndUserFactory, conflict_make, memory_make

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

UTC = datetime.UTC


@pytest.fixture(autouse=True)
def _hashing_embedder(settings):
    settings.MEMORY_EMBEDDER = "hashing"


@pytest.fixture
def moves():
    """Porto (2023) -> Lisbon (May 2025, the supersede policy) -> Madrid (an operator kept it)."""
    end_user = EndUserFactory()
    porto = memory_make(
        end_user, "User lives in Porto", stated_at=datetime.datetime(2023, 3, 1, tzinfo=UTC)
    )
    lisbon = memory_make(
        end_user,
        "User lives in Lisbon",
        stated_at=datetime.datetime(2025, 6, 2, tzinfo=UTC),
        valid_from=datetime.date(2025, 5, 1),
    )
    review_item_file(
        new_memory=lisbon, existing=[porto], similarity=0.9, reason="moved", signal="rules",
        supersede=True,
    )  # fmt: skip
    item = conflict_make(end_user, "User lives in Madrid", ("User has a cat",))
    item.existing_memories.set([lisbon])
    operator = get_user_model().objects.create_user("olga")
    review_item_resolve(
        review_item_id=item.pk, resolution="keep_new", operator=operator,
        changed_on=datetime.date(2026, 9, 1),
    )  # fmt: skip
    return {m.caption: m for m in Memory.objects.filter(end_user=end_user)}


def test_the_memory_page_draws_the_users_facts_as_bars_with_updates_marked(
    page, live_server, moves, screenshot
):
    operator_create()
    log_in(page, live_server)
    lisbon = moves["User lives in Lisbon"]

    page.goto(live_server.url + reverse("admin:memories_memory_change", args=[lisbon.pk]))

    chart = page.locator("svg.memory-timeline")
    chart.wait_for()
    bars = {
        bar.get_attribute("data-memory"): bar.get_attribute("class")
        for bar in chart.locator("rect.fact").all()
    }
    porto, madrid = moves["User lives in Porto"], moves["User lives in Madrid"]
    assert bars[porto.pk] == "fact past"
    assert bars[lisbon.pk] == "fact past"
    assert bars[madrid.pk] == "fact current"
    # Each bar starts where its fact began and the replaced ones end where the next began.
    box = {pk: chart.locator(f'rect.fact[data-memory="{pk}"]').bounding_box() for pk in bars}
    assert box[porto.pk]["x"] < box[lisbon.pk]["x"] < box[madrid.pk]["x"]
    assert box[porto.pk]["x"] + box[porto.pk]["width"] == pytest.approx(box[lisbon.pk]["x"], 1)
    assert box[lisbon.pk]["x"] + box[lisbon.pk]["width"] == pytest.approx(box[madrid.pk]["x"], 1)
    updates = chart.locator("path.mark.update")
    reviews = chart.locator("path.mark.review")
    assert updates.count() == 2
    decisions = {reviews.nth(n).text_content().split(": ", 1)[1] for n in range(reviews.count())}
    assert decisions == {"Keep new by the supersede policy", "Keep new by olga"}
    assert chart.locator(f'g.row.focus[data-memory="{lisbon.pk}"]').count() == 1
    assert (
        "from May 2025 to September 2026"
        in chart.locator(f'rect.fact[data-memory="{lisbon.pk}"] title').text_content()
    )
    screenshot(page, "admin-memory-timeline.png")
