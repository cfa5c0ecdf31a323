"""The per-user rate limit, counted in Django's cache (shared across processes with Redis)."""

from __future__ import annotations

from django.conf import settings
from django_ratelimit.core import get_usage
from rest_framework.request import Request

from memory_platform.exceptions import RateLimited

RATE_LIMIT_GROUP = "memory-api"


def _user_key(group: str, request: Request) -> str:
    return request.rate_limit_key


def rate_limit_enforce(*, request: Request, tenant_id: int, user_id: str) -> None:
    """Count one request for (tenant, user_id) and refuse it past MEMORY_RATE_LIMIT a minute."""
    request.rate_limit_key = f"{tenant_id}:{user_id.strip().lower()}"
    try:
        usage = get_usage(
            request,
            group=RATE_LIMIT_GROUP,
            key=_user_key,
            rate=f"{settings.MEMORY_RATE_LIMIT}/m",
            increment=True,
        )
    except Exception:
        # Without its counter store the limit cannot be checked; serving beats refusing all.
        return
    if usage and usage["should_limit"]:
        raise RateLimited(
            f"More than {settings.MEMORY_RATE_LIMIT} requests a minute for this user_id.",
            retry_after=max(1, int(usage["time_left"])),
        )
