"""factory_boy factories for the domain models, and the builders the tests share.

Shared builders live here rather than in a test module, so no test module imports another.
"""

from __future__ import annotations

import hashlib
import uuid
from datetime import timedelta
from typing import Any

import factory
from django.utils import timezone

from extraction.models import ExtractionJob
from memories.models import (
    AgentSession,
    EndUser,
    Memory,
    MemoryEvidence,
    MemoryVersion,
    ReviewItem,
)
from memories.text import content_hash
from tenants.models import Tenant, TenantAPIKey
from tenants.services import tenant_usage_add


class TenantFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Tenant
        django_get_or_create = ("name",)

    name = factory.Sequence(lambda n: f"tenant-{n}")


class TenantAPIKeyFactory(factory.django.DjangoModelFactory):
    """A key made as the admin makes one (hashed); the raw key is on `.raw_key`."""

    class Meta:
        model = TenantAPIKey

    tenant = factory.SubFactory(TenantFactory)
    name = factory.Sequence(lambda n: f"key-{n}")

    @classmethod
    def _create(cls, model_class: type[TenantAPIKey], *args: Any, **kwargs: Any) -> TenantAPIKey:
        # Only the manager can make a key: it generates the secret and stores its hash.
        api_key, raw_key = model_class.objects.create_key(*args, **kwargs)
        api_key.raw_key = raw_key
        return api_key


class EndUserFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = EndUser

    tenant = factory.SubFactory(TenantFactory)
    external_id = factory.LazyFunction(uuid.uuid4)


class AgentSessionFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = AgentSession

    end_user = factory.SubFactory(EndUserFactory)
    external_id = factory.Sequence(lambda n: f"chat-{n}")


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


class MemoryVersionFactory(factory.django.DjangoModelFactory):
    """A memory's `created` version by default: the text and status it has."""

    class Meta:
        model = MemoryVersion

    memory = factory.SubFactory(MemoryFactory)
    version = 1
    action = MemoryVersion.Action.CREATED
    status = factory.LazyAttribute(lambda o: o.memory.status)
    caption = factory.LazyAttribute(lambda o: o.memory.caption)
    full_text = factory.LazyAttribute(lambda o: o.memory.full_text)
    actor_type = MemoryVersion.Actor.SYSTEM
    stated_at = factory.LazyAttribute(lambda o: o.memory.stated_at)
    last_stated_at = factory.LazyAttribute(lambda o: o.memory.last_stated_at)
    valid_from = factory.LazyAttribute(lambda o: o.memory.valid_from)
    valid_to = factory.LazyAttribute(lambda o: o.memory.valid_to)


class MemoryEvidenceFactory(factory.django.DjangoModelFactory):
    """A quote of the user's message a memory came from (no session unless given)."""

    class Meta:
        model = MemoryEvidence

    memory = factory.SubFactory(MemoryFactory)
    source = MemoryEvidence.Source.USER
    position = 0
    said_at = factory.LazyFunction(timezone.now)
    quote = factory.Sequence(lambda n: f"I said thing number {n}")


class ReviewItemFactory(factory.django.DjangoModelFactory):
    """A pending conflict over a new memory held for review; `existing_memories=[...]` sets
    the memories it contradicts."""

    class Meta:
        model = ReviewItem
        skip_postgeneration_save = True

    end_user = factory.SubFactory(EndUserFactory)
    new_memory = factory.SubFactory(
        MemoryFactory,
        end_user=factory.SelfAttribute("..end_user"),
        status=Memory.Status.PENDING_REVIEW,
    )
    similarity = 0.88
    reason = "different value of 'lives in': 'berlin' before, 'munich' now"

    @factory.post_generation
    def existing_memories(self, create: bool, extracted: list[Memory] | None, **kwargs: Any):
        if create and extracted:
            self.existing_memories.set(extracted)


class ExtractionJobFactory(factory.django.DjangoModelFactory):
    """A queued extraction of a one-message conversation."""

    class Meta:
        model = ExtractionJob

    end_user = factory.SubFactory(EndUserFactory)
    conversation = factory.LazyFunction(lambda: [{"role": "user", "content": "hi"}])
    # Unique per job, as a real conversation's hash is per (user, conversation).
    conversation_hash = factory.Sequence(lambda n: hashlib.sha256(f"job {n}".encode()).hexdigest())


def api_key_for(tenant: Tenant, name: str = "test") -> str:
    """Create an API key for `tenant` and return the raw key."""
    return TenantAPIKeyFactory(tenant=tenant, name=name).raw_key


def memory_make(end_user: EndUser, text: str, **fields: Any) -> Memory:
    """A memory as the write pipeline stores it: real content hash and a `created` version."""
    memory = MemoryFactory(
        end_user=end_user,
        caption=fields.pop("caption", text[:100]),
        full_text=text,
        content_hash=content_hash(text),
        **fields,
    )
    MemoryVersionFactory(memory=memory)
    return memory


def conflict_make(
    end_user: EndUser,
    new_text: str = "User lives in Munich",
    existing_texts: tuple[str, ...] = ("User lives in Berlin",),
    *,
    similarity: float = 0.88,
    reason: str = "different value of 'lives in': 'berlin' before, 'munich' now",
    category: str = Memory.Category.PERSONAL,
) -> ReviewItem:
    """A conflict as the write pipeline files it: a pending new memory and a pending item."""
    existing = [memory_make(end_user, text, category=category) for text in existing_texts]
    new = memory_make(end_user, new_text, category=category, status=Memory.Status.PENDING_REVIEW)
    return ReviewItemFactory(
        end_user=end_user,
        new_memory=new,
        existing_memories=existing,
        similarity=similarity,
        reason=reason,
    )


def dashboard_populate(*, tenants: int, per_tenant: int) -> None:
    """Usage on several days, memories and a pending conflict per tenant (the dashboard's)."""
    today = timezone.now().date()
    for n in range(tenants):
        tenant = TenantFactory()
        for day in range(per_tenant):
            tenant_usage_add(
                tenant_id=tenant.pk,
                day=today - timedelta(days=day),
                extractions=2,
                recalls=5,
                llm_calls=3,
                prompt_tokens=100,
                completion_tokens=10,
            )
        end_user = EndUserFactory(tenant=tenant)
        MemoryFactory.create_batch(per_tenant, end_user=end_user)
        conflict_make(end_user, f"User is {30 + n}", (f"User is {40 + n}",))
