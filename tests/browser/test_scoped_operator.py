"""A staff user who operates one tenant works the review queue in a real browser: they see
that tenant's conflicts only, resolve one, and another tenant's conflict is a 404."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission

from memories.models import ReviewItem
from tenants.models import Tenant

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PASSWORD = "a-long-operator-passphrase"


@pytest.fixture(autouse=True)
def _hashing_embedder(settings):
    settings.MEMORY_EMBEDDER = "hashing"


@pytest.fixture
def sam(db):
    """A staff user allowed to review conflicts, operating acme-chat only."""
    user = get_user_model().objects.create_user("sam", password=PASSWORD, is_staff=True)
    user.user_permissions.set(
        Permission.objects.filter(codename__in=["view_reviewitem", "change_reviewitem"])
    )
    return user


def test_a_scoped_operator_sees_and_resolves_only_their_tenants_conflicts(
    page,
    live_server,
    sam,
    conflicts,
):
    Tenant.objects.get(name="acme-chat").operators.add(sam)
    other = ReviewItem.objects.get(end_user__tenant__name="globex-support")
    page.goto(f"{live_server.url}/admin/")
    page.fill("#id_username", "sam")
    page.fill("#id_password", PASSWORD)
    page.click("input[type=submit]")
    page.wait_for_url(f"{live_server.url}/admin/")

    assert page.locator("#review-queue-summary .review-queue-count").inner_text() == "4"
    page.locator("#review-queue-summary a.button").click()
    page.wait_for_url(re.compile(r"/admin/memories/reviewitem/"))
    rows = page.locator("#result_list tbody tr")
    assert rows.count() == 4
    assert "globex-support" not in page.content()
    assert "Rex" not in page.locator("#result_list").inner_text()

    item = conflicts["keep_new"]
    page.get_by_role("link", name=f"#{item.pk}", exact=True).click()
    page.click("#resolve-keep_new")
    page.wait_for_url(re.compile(r"/admin/memories/reviewitem/$"))
    item.refresh_from_db()
    assert item.status == ReviewItem.Status.RESOLVED and item.resolved_by == sam

    response = page.goto(f"{live_server.url}/admin/memories/reviewitem/{other.pk}/change/")
    assert response.status == 404
    other.refresh_from_db()
    assert other.status == ReviewItem.Status.PENDING
