"""Writes of tenants and their API keys (keys are revoked in the admin)."""

from __future__ import annotations

from django.db import transaction

from memories.models import Tenant, TenantAPIKey


@transaction.atomic
def tenant_api_key_create(
    *, tenant_name: str, key_name: str, scope: str = TenantAPIKey.Scope.READ_WRITE
) -> tuple[TenantAPIKey, str]:
    """Create an API key for the named tenant (created if new); return it and the raw key."""
    tenant, _ = Tenant.objects.get_or_create(name=tenant_name.strip())
    return TenantAPIKey.objects.create_key(tenant=tenant, name=key_name, scope=scope)
