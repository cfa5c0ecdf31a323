"""Operators scoped to tenants: every admin page, filter, search, action and the dashboard show
a scoped operator their tenants' data only; another tenant's object is a 404."""

from __future__ import annotations

import uuid

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.urls import reverse

from memories.models import (
    AgentSession,
    DeletionRecord,
    ErasureRecord,
    Memory,
    MemoryVersion,
    ReviewItem,
)
from tenants.models import Tenant, TenantAPIKey
from tenants.services import tenant_usage_add
from tests.factories import (
    AgentSessionFactory,
    EndUserFactory,
    ExtractionJobFactory,
    TenantFactory,
    conflict_make,
)

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _hashing_embedder(settings):
    settings.MEMORY_EMBEDDER = "hashing"


def _world(name: str, city: str) -> dict:
    """One tenant's data of every kind the admin shows."""
    tenant = TenantFactory(name=name)
    end_user = EndUserFactory(tenant=tenant)
    item = conflict_make(end_user, f"User lives in {city}", (f"User lived in {city} before",))
    memory = Memory.objects.filter(end_user=end_user).first()
    key, _ = TenantAPIKey.objects.create_key(tenant=tenant, name=f"{name}-key")
    return {
        "tenant": tenant,
        "end_user": end_user,
        "reviewitem": item,
        "memory": memory,
        "memoryversion": MemoryVersion.objects.filter(memory=memory).first(),
        "tenantapikey": key,
        "agentsession": AgentSessionFactory(end_user=end_user, external_id=f"{name}-s1"),
        "deletionrecord": DeletionRecord.objects.create(
            memory_id=f"mem_gone{name[:8]}", end_user=end_user, reason="api", actor_type="api"
        ),
        "erasurerecord": ErasureRecord.objects.create(
            tenant=tenant, external_id=uuid.uuid4(), scope="user", deleted={}, actor_type="api"
        ),
        "extractionjob": ExtractionJobFactory(end_user=end_user, conversation=[], error=city),
    }


@pytest.fixture
def acme():
    return _world("acme-chat", "Lisbon")


@pytest.fixture
def globex():
    return _world("globex-support", "Oslo")


@pytest.fixture
def scoped(client, acme):
    """Sam, a staff user with every view/change permission, operating acme only."""
    sam = get_user_model().objects.create_user("sam", password="x", is_staff=True)
    sam.user_permissions.set(
        Permission.objects.filter(content_type__app_label__in=["tenants", "memories", "extraction"])
    )
    acme["tenant"].operators.add(sam)
    client.force_login(sam)
    return client


PAGES = {
    "tenant": "tenants_tenant",
    "tenantapikey": "tenants_tenantapikey",
    "end_user": "memories_enduser",
    "agentsession": "memories_agentsession",
    "memory": "memories_memory",
    "memoryversion": "memories_memoryversion",
    "reviewitem": "memories_reviewitem",
    "deletionrecord": "memories_deletionrecord",
    "erasurerecord": "memories_erasurerecord",
    "extractionjob": "extraction_extractionjob",
}


def _listed(response) -> set:
    return {obj.pk for obj in response.context["cl"].result_list}


@pytest.mark.parametrize("kind", PAGES)
def test_a_scoped_operator_lists_only_their_tenants_rows(scoped, acme, globex, kind):
    url = reverse(f"admin:{PAGES[kind]}_changelist")
    params = {"status": "all"} if kind == "reviewitem" else {}

    response = scoped.get(url, params)

    assert response.status_code == 200
    listed = _listed(response)
    assert acme[kind].pk in listed and globex[kind].pk not in listed
    assert "globex-support" not in response.content.decode()


@pytest.mark.parametrize("kind", PAGES)
def test_another_tenants_object_is_a_404_and_their_own_opens(scoped, acme, globex, kind):
    page = f"admin:{PAGES[kind]}_change"

    assert scoped.get(reverse(page, args=[globex[kind].pk])).status_code == 404
    assert scoped.get(reverse(page, args=[acme[kind].pk])).status_code == 200


@pytest.mark.parametrize("kind", ["tenant", "end_user", "memory", "agentsession"])
def test_another_tenants_object_cannot_be_deleted_or_its_history_read(scoped, globex, kind):
    for view in ("delete", "history"):
        url = reverse(f"admin:{PAGES[kind]}_{view}", args=[globex[kind].pk])
        assert scoped.get(url).status_code == 404
        assert scoped.post(url, {"post": "yes"}).status_code == 404
    assert type(globex[kind]).objects.filter(pk=globex[kind].pk).exists()


def test_a_search_finds_nothing_of_another_tenant(scoped, acme, globex):
    url = reverse("admin:memories_memory_changelist")

    assert _listed(scoped.get(url, {"q": "Oslo"})) == set()
    assert _listed(scoped.get(url, {"q": str(globex["end_user"].external_id)})) == set()
    assert acme["memory"].pk in _listed(scoped.get(url, {"q": "Lisbon"}))


def test_a_bulk_resolution_cannot_reach_another_tenants_conflict(scoped, acme, globex):
    response = scoped.post(
        reverse("admin:memories_reviewitem_changelist"),
        {
            "action": "resolve_keep_new",
            "_selected_action": [globex["reviewitem"].pk, acme["reviewitem"].pk],
        },
    )

    assert response.status_code == 302
    globex["reviewitem"].refresh_from_db()
    acme["reviewitem"].refresh_from_db()
    assert globex["reviewitem"].status == ReviewItem.Status.PENDING
    assert acme["reviewitem"].status == ReviewItem.Status.RESOLVED


def test_another_tenants_conflict_cannot_be_resolved_from_its_page(scoped, globex):
    url = reverse("admin:memories_reviewitem_change", args=[globex["reviewitem"].pk])

    assert scoped.post(url, {"resolution": "keep_new"}).status_code == 404
    globex["reviewitem"].refresh_from_db()
    assert globex["reviewitem"].status == ReviewItem.Status.PENDING


def test_filters_offer_only_the_operators_tenants_and_users(scoped, acme, globex):
    html = scoped.get(reverse("admin:memories_reviewitem_changelist")).content.decode()

    assert "acme-chat" in html and "globex-support" not in html
    assert str(globex["end_user"].external_id) not in html
    # A filter value naming another tenant's user shows nothing of them either.
    response = scoped.get(
        reverse("admin:memories_reviewitem_changelist"), {"end_user": globex["end_user"].pk}
    )
    assert _listed(response) == set()


def test_the_front_page_counts_the_operators_tenants_only(scoped, acme, globex):
    tenant_usage_add(tenant_id=acme["tenant"].pk, llm_calls=2)
    tenant_usage_add(tenant_id=globex["tenant"].pk, llm_calls=40)

    html = scoped.get(reverse("admin:index")).content.decode()

    assert 'id="dashboard-queue-size">1<' in html
    assert "acme-chat" in html and "globex-support" not in html
    assert '<span class="review-queue-count">1</span>' in html


def test_forms_offer_only_the_operators_tenants_and_users(scoped, acme, globex):
    html = scoped.get(reverse("admin:tenants_tenantapikey_add")).content.decode()
    assert "acme-chat" in html and "globex-support" not in html

    response = scoped.post(
        reverse("admin:memories_agentsession_add"),
        {"external_id": "sneaky", "end_user": globex["end_user"].pk},
    )
    assert response.status_code == 200  # the form is shown again with the error
    assert not AgentSession.objects.filter(external_id="sneaky").exists()


def test_a_scoped_operator_cannot_add_tenants_or_change_who_operates_them(scoped, acme):
    assert scoped.get(reverse("admin:tenants_tenant_add")).status_code == 403
    page = scoped.get(reverse("admin:tenants_tenant_change", args=[acme["tenant"].pk]))
    assert 'name="operators"' not in page.content.decode()


def test_a_staff_user_given_no_tenant_is_not_scoped(client, acme, globex):
    unscoped = get_user_model().objects.create_user("una", password="x", is_staff=True)
    unscoped.user_permissions.set(Permission.objects.filter(content_type__app_label="memories"))
    client.force_login(unscoped)

    listed = _listed(client.get(reverse("admin:memories_memory_changelist")))

    assert {acme["memory"].pk, globex["memory"].pk} <= listed


def test_a_superuser_sees_every_tenant(admin_client, acme, globex):
    response = admin_client.get(reverse("admin:memories_memory_changelist"))

    assert {acme["memory"].pk, globex["memory"].pk} <= _listed(response)
    html = admin_client.get(reverse("admin:tenants_tenant_change", args=[acme["tenant"].pk]))
    assert 'name="operators"' in html.content.decode()
    assert Tenant.objects.count() == 2
