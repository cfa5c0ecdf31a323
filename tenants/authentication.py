"""Bearer API-key authentication: the request's tenant comes from its key.

A verified key is remembered by the process for KEY_CACHE_SECONDS, so a warm request makes no
query for it (the query is most of the cost: its hash check is one sha512). Revocation:
- a key revoked, expired or deleted, or its tenant deactivated or deleted, through the ORM in
  this process (the admin, a service) is refused from the next request on: the receivers below
  forget every verified key;
- changed by another process (another gunicorn worker, another machine) or by a bulk
  `QuerySet.update()`, it is refused at most KEY_CACHE_SECONDS later;
- an expiry date is compared with the clock on every request, cached or not.

A key's last use (`last_used_at`, shown in the admin) is written only when the key is checked
against the database, and only once its recorded use is LAST_USED_RESOLUTION old: a warm
request writes nothing, a busy key costs one UPDATE a minute.
"""

from __future__ import annotations

import copy
import hashlib
import logging
import threading
import time
from dataclasses import dataclass
from datetime import timedelta
from typing import Any, cast

from django.db import DatabaseError, transaction
from django.db.models import Q
from django.db.models.signals import post_delete, post_save
from django.dispatch import receiver
from django.utils import timezone
from rest_framework import authentication, exceptions
from rest_framework.request import Request

from core.exceptions import ServiceUnavailable
from core.requests import request_context_set_tenant
from tenants import rls
from tenants.models import Tenant, TenantAPIKey

logger = logging.getLogger(__name__)

# How long another process may go on accepting a key after it was revoked.
KEY_CACHE_SECONDS = 5.0
# How stale a key's recorded last use may get: the price of not writing on every request.
LAST_USED_RESOLUTION = timedelta(seconds=60)
# Distinct keys remembered per process; past it the memory starts over (keys are few).
_KEY_CACHE_MAX = 1024

# The cache's clock (tests move it).
_clock = time.monotonic


class TenantPrincipal:
    """The authenticated caller: one tenant, through one API key."""

    is_authenticated = True
    is_anonymous = False

    def __init__(self, tenant: Tenant, key: TenantAPIKey):
        self.tenant = tenant
        self.key = key

    def __str__(self) -> str:
        return f"tenant:{self.tenant.name}"


def request_principal(request: Request) -> TenantPrincipal:
    """The caller of an API view: the settings' authentication (TenantAPIKeyAuthentication,
    alone) and permission (IsAuthenticated) let a request reach a view, or its throttles, only
    with one. DRF's types say a Django user: this is the one place that narrows it."""
    return cast(TenantPrincipal, request.user)


def request_tenant(request: Request) -> Tenant:
    """The tenant of an API view's caller (see `request_principal`)."""
    return request_principal(request).tenant


@dataclass(frozen=True)
class _Verified:
    key: TenantAPIKey
    tenant: Tenant
    until: float


# sha256 of the raw key -> what it verified as: the raw key itself is never kept.
_verified: dict[bytes, _Verified] = {}
_verified_lock = threading.Lock()


def verified_keys_forget() -> None:
    """Forget every verified key of this process: the next request of each checks it again."""
    with _verified_lock:
        _verified.clear()


def _remembered(digest: bytes) -> tuple[Tenant, TenantAPIKey] | None:
    """The key and tenant verified under `digest` within KEY_CACHE_SECONDS, as fresh copies."""
    entry = _verified.get(digest)
    if entry is None or entry.until <= _clock():
        return None
    if entry.key.has_expired:
        return None
    # Copies: a request never shares a model instance with another one.
    tenant, key = copy.copy(entry.tenant), copy.copy(entry.key)
    key.tenant = tenant
    return tenant, key


def _remember(digest: bytes, key: TenantAPIKey, tenant: Tenant) -> None:
    until = _clock() + KEY_CACHE_SECONDS
    entry = _Verified(key=copy.copy(key), tenant=copy.copy(tenant), until=until)
    with _verified_lock:
        if len(_verified) >= _KEY_CACHE_MAX:
            _verified.clear()
        _verified[digest] = entry


def _last_use_record(key: TenantAPIKey) -> None:
    """Record that `key` (just read from the database) is used, unless it was within a minute."""
    now = timezone.now()
    if key.last_used_at is not None and now - key.last_used_at < LAST_USED_RESOLUTION:
        return
    try:
        # A bulk update: no post_save, so the verified keys are not forgotten over it. The
        # condition again, for the processes that read the same old value at the same time.
        TenantAPIKey.objects.filter(
            Q(last_used_at__isnull=True) | Q(last_used_at__lt=now - LAST_USED_RESOLUTION),
            pk=key.pk,
        ).update(last_used_at=now)
    except DatabaseError:
        # Bookkeeping: the request the key authenticated goes on.
        logger.warning("could not record the last use of API key %s", key.prefix, exc_info=True)
        return
    key.last_used_at = now


@receiver([post_save, post_delete], sender=TenantAPIKey, dispatch_uid="api_key_changed")
@receiver([post_save, post_delete], sender=Tenant, dispatch_uid="api_tenant_changed")
def _key_or_tenant_changed(**kwargs: Any) -> None:
    """A key or tenant changed here: forget verified keys now, and again once it commits (a
    request in between could still read and remember the state before the change)."""
    verified_keys_forget()
    transaction.on_commit(verified_keys_forget, using=kwargs.get("using"))


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
        # The whole key, not its prefix: a wrong secret never matches a remembered key.
        digest = hashlib.sha256(raw_key.encode()).digest()
        if (remembered := _remembered(digest)) is not None:
            known_tenant, known_key = remembered
            request_context_set_tenant(known_tenant.name)  # for the request's access log line
            rls.frame_tenant_set(known_tenant.pk)
            return TenantPrincipal(known_tenant, known_key), known_key
        prefix, _, _ = raw_key.partition(".")
        # Row-level security shows the request no key but the one of this prefix until it
        # knows the tenant.
        rls.frame_key_prefix_set(prefix)
        try:
            # One query for the key and its tenant.
            key = (
                TenantAPIKey.objects.get_usable_keys()
                .select_related("tenant")
                .filter(prefix=prefix)
                .first()
            )
        except DatabaseError:
            raise ServiceUnavailable() from None
        finally:
            rls.frame_key_prefix_set("")
        if key is None or not key.is_valid(raw_key):
            raise exceptions.AuthenticationFailed("Unknown or revoked API key.")
        tenant = key.tenant
        if key.has_expired or not tenant.is_active:
            raise exceptions.AuthenticationFailed("Unknown or revoked API key.")
        rls.frame_tenant_set(tenant.pk)
        _last_use_record(key)
        _remember(digest, key, tenant)
        request_context_set_tenant(tenant.name)
        return TenantPrincipal(tenant, key), key

    def authenticate_header(self, request: Request) -> str:
        return self.keyword
