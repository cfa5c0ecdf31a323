"""Bearer API-key authentication: the request's tenant comes from its key."""

from __future__ import annotations

from django.db import DatabaseError
from rest_framework import authentication, exceptions
from rest_framework.request import Request

from memories.models import Tenant, TenantAPIKey
from memory_platform.exceptions import ServiceUnavailable


class TenantPrincipal:
    """The authenticated caller: one tenant, through one API key."""

    is_authenticated = True
    is_anonymous = False

    def __init__(self, tenant: Tenant, key: TenantAPIKey):
        self.tenant = tenant
        self.key = key

    def __str__(self) -> str:
        return f"tenant:{self.tenant.name}"


class TenantAPIKeyAuthentication(authentication.BaseAuthentication):
    """Accept `Authorization: Bearer <key>` for a valid key of an active tenant."""

    keyword = "Bearer"

    def authenticate(self, request: Request) -> tuple[TenantPrincipal, TenantAPIKey] | None:
        header = authentication.get_authorization_header(request).decode("latin-1")
        if not header:
            return None
        keyword, _, raw_key = header.strip().partition(" ")
        if keyword.lower() != self.keyword.lower() or not raw_key.strip():
            raise exceptions.AuthenticationFailed("Use 'Authorization: Bearer <api key>'.")
        raw_key = raw_key.strip()
        prefix, _, _ = raw_key.partition(".")
        try:
            # One query for the key and its tenant: this runs before every API call.
            key = (
                TenantAPIKey.objects.get_usable_keys()
                .select_related("tenant")
                .filter(prefix=prefix)
                .first()
            )
        except DatabaseError:
            raise ServiceUnavailable() from None
        if key is None or not key.is_valid(raw_key):
            raise exceptions.AuthenticationFailed("Unknown or revoked API key.")
        tenant = key.tenant
        if key.has_expired or not tenant.is_active:
            raise exceptions.AuthenticationFailed("Unknown or revoked API key.")
        return TenantPrincipal(tenant, key), key

    def authenticate_header(self, request: Request) -> str:
        return self.keyword
