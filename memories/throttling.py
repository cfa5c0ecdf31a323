"""The per-user rate limit as a DRF throttle, counted in Django's cache (shared with Redis)."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django_ratelimit.core import get_usage
from rest_framework.request import Request
from rest_framework.throttling import BaseThrottle

RATE_LIMIT_GROUP = "memory-api"


def _end_user_id(request: Request) -> str | None:
    """The `user_id` the request acts for: in the query, or in a JSON body's top level."""
    user_id = request.query_params.get("user_id")
    if user_id is None and request.method == "POST" and isinstance(request.data, dict):
        user_id = request.data.get("user_id")
    return user_id if isinstance(user_id, str) and user_id else None


class EndUserRateThrottle(BaseThrottle):
    """At most MEMORY_RATE_LIMIT requests a minute per (tenant, user_id), over all endpoints.

    The count is an atomic cache increment in a fixed one-minute window (django-ratelimit),
    so concurrent requests of one user are all counted.
    """

    def __init__(self) -> None:
        self._wait: float | None = None

    def allow_request(self, request: Request, view: Any) -> bool:
        user_id = _end_user_id(request)
        if user_id is None:
            return True  # nothing to count against: validation answers the request
        key = f"{request.user.tenant.pk}:{user_id.strip().lower()}"
        try:
            usage = get_usage(
                request,
                group=RATE_LIMIT_GROUP,
                key=lambda group, request: key,
                rate=f"{settings.MEMORY_RATE_LIMIT}/m",
                increment=True,
            )
        except Exception:
            # Without its counter store the limit cannot be checked; serving beats refusing all.
            return True
        if usage and usage["should_limit"]:
            self._wait = max(1, int(usage["time_left"]))
            return False
        return True

    def wait(self) -> float | None:
        """Seconds until the window resets (the Retry-After of the 429)."""
        return self._wait
