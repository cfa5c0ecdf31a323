"""factory_boy factories for the domain models."""

from __future__ import annotations

import hashlib
import uuid

import factory

from memories.models import EndUser, Memory, Tenant, TenantAPIKey


class TenantFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Tenant
        django_get_or_create = ("name",)

    name = factory.Sequence(lambda n: f"tenant-{n}")


class EndUserFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = EndUser

    tenant = factory.SubFactory(TenantFactory)
    external_id = factory.LazyFunction(uuid.uuid4)


class MemoryFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Memory

    end_user = factory.SubFactory(EndUserFactory)
    caption = factory.Sequence(lambda n: f"User likes thing number {n}")
    full_text = factory.LazyAttribute(lambda o: o.caption)
    category = Memory.Category.PREFERENCE
    content_hash = factory.LazyAttribute(
        lambda o: hashlib.sha256(o.full_text.lower().encode()).hexdigest()
    )


def api_key_for(tenant: Tenant, name: str = "test") -> str:
    """Create an API key for `tenant` and return the raw key."""
    _, raw_key = TenantAPIKey.objects.create_key(tenant=tenant, name=name)
    return raw_key
