"""Writes of the memory domain."""

from __future__ import annotations

from django.db import transaction

from memories.models import Tenant, TenantAPIKey


@transaction.atomic
def tenant_api_key_create(*, tenant_name: str, key_name: str) -> tuple[TenantAPIKey, str]:
    """Create an API key for the named tenant (created if new); return it and the raw key."""
    tenant, _ = Tenant.objects.get_or_create(name=tenant_name.strip())
    return TenantAPIKey.objects.create_key(tenant=tenant, name=key_name)


@transaction.atomic
def tenant_api_key_revoke(*, prefix: str) -> TenantAPIKey:
    """Revoke the key with this prefix; it stops authenticating at once."""
    key = TenantAPIKey.objects.select_for_update().get(prefix=prefix)
    key.revoked = True
    key.save(update_fields=["revoked"])
    return key
