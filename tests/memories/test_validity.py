"""Issue 33: an applied update closes the fact it replaces. Under the supersede policy or when
an operator keeps the new fact, the old memory's `valid_to` is the day the new one starts (the
operator may date it, pre-filled from the message); it keeps its history as a past fact, and a
reopened update opens it again."""

from __future__ import annotations

import datetime

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from memories.models import Memory, MemoryVersion, ReviewItem
from memories.services.conflicts import review_item_file
from memories.services.reviews import review_item_reopen, review_item_resolve
from memories.validity import change_date, closing_date
from tests.factories import conflict_make, memory_make

pytestmark = pytest.mark.django_db

Resolution = ReviewItem.Resolution
MAY = datetime.date(2025, 5, 1)
SAID = datetime.datetime(2025, 6, 2, 18, 5, tzinfo=datetime.UTC)


@pytest.fixture(autouse=True)
def _hashing_embedder(settings):
    settings.MEMORY_EMBEDDER = "hashing"


@pytest.fixture
def operator(db):
    return get_user_model().objects.create_superuser("olga", password="not-used-here")


def test_the_change_date_is_the_new_facts_start_else_the_day_it_was_said():
    assert change_date(Memory(valid_from=MAY, stated_at=SAID)) == MAY
    assert change_date(Memory(stated_at=SAID)) == SAID.date()


def test_a_fact_is_never_closed_before_it_began_nor_after_its_own_end():
    began = Memory(valid_from=datetime.date(2025, 7, 1))
    ended = Memory(valid_to=datetime.date(2024, 1, 1))

    assert closing_date(began, MAY) == datetime.date(2025, 7, 1)
    assert closing_date(ended, MAY) == datetime.date(2024, 1, 1)
    assert closing_date(Memory(), MAY) == MAY


def test_the_supersede_policy_closes_the_old_fact_on_the_day_the_new_one_starts(end_user):
    old = memory_make(end_user, "User lives in Porto", category=Memory.Category.PERSONAL)
    new = memory_make(end_user, "User lives in Lisbon", valid_from=MAY, stated_at=SAID)

    review_item_file(
        new_memory=new, existing=[old], similarity=0.9, reason="moved", signal="rules",
        supersede=True,
    )  # fmt: skip

    old.refresh_from_db()
    assert (old.status, old.valid_to) == (Memory.Status.SUPERSEDED, MAY)
    superseded = old.versions.get(action=MemoryVersion.Action.SUPERSEDED)
    assert superseded.valid_to == MAY  # the history shows the validity change


def test_keep_new_closes_the_old_fact_on_the_day_the_new_one_was_said(end_user, operator):
    item = conflict_make(end_user, "User lives in Munich", ("User lives in Berlin",))
    Memory.objects.filter(pk=item.new_memory_id).update(stated_at=SAID)

    review_item_resolve(review_item_id=item.pk, resolution=Resolution.KEEP_NEW, operator=operator)

    old = item.existing_memories.get()
    assert (old.status, old.valid_to) == (Memory.Status.SUPERSEDED, SAID.date())


def test_an_operator_dates_the_change_and_both_facts_take_that_day(end_user, operator):
    item = conflict_make(end_user, "User lives in Munich", ("User lives in Berlin",))

    review_item_resolve(
        review_item_id=item.pk, resolution=Resolution.KEEP_NEW, operator=operator, changed_on=MAY
    )

    assert item.existing_memories.get().valid_to == MAY
    assert Memory.objects.get(pk=item.new_memory_id).valid_from == MAY


def test_keep_both_closes_nothing(end_user, operator):
    item = conflict_make(end_user, "User likes jazz", ("User likes opera",))

    review_item_resolve(review_item_id=item.pk, resolution=Resolution.KEEP_BOTH, operator=operator)

    assert item.existing_memories.get().valid_to is None


def test_reopening_an_applied_update_opens_the_old_fact_again(end_user, operator):
    old = memory_make(end_user, "User lives in Porto", valid_to=datetime.date(2030, 1, 1))
    new = memory_make(end_user, "User lives in Lisbon", valid_from=MAY)
    item = review_item_file(
        new_memory=new, existing=[old], similarity=0.9, reason="moved", signal="rules",
        supersede=True,
    )  # fmt: skip

    review_item_reopen(review_item_id=item.pk, operator=operator)

    old.refresh_from_db()
    assert (old.status, old.valid_to) == (Memory.Status.ACTIVE, datetime.date(2030, 1, 1))


def test_the_conflict_page_prefills_the_change_date_and_keep_new_takes_it(
    client, operator, end_user
):
    client.force_login(operator)
    item = conflict_make(end_user, "User lives in Munich", ("User lives in Berlin",))
    Memory.objects.filter(pk=item.new_memory_id).update(valid_from=MAY)
    page = reverse("admin:memories_reviewitem_change", args=[item.pk])

    html = client.get(page).content.decode()
    assert 'type="date"' in html and 'value="2025-05-01"' in html
    assert "<dt>Holds</dt><dd>2025-05-01 &rarr; now</dd>" in html  # the new memory's card

    client.post(page, {"resolution": "keep_new", "changed_on": "2025-04-15"})
    assert item.existing_memories.get().valid_to == datetime.date(2025, 4, 15)
