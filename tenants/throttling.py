"""The per-user rate limit as a DRF throttle, counted in Django's cache (shared with Redis)."""

from __future__ import annotations

import time
from typing import Any

from django.conf import settings
from django.core.cache import BaseCache, caches
from django.core.cache.backends.redis import RedisCache

# django-ratelimit's own window and counter key, so that its counters and these are the same
# ones (a process running an older version during a deploy counts with this one).
from django_ratelimit import ALL
from django_ratelimit.core import EXPIRATION_FUDGE, _get_window, _make_cache_key
from rest_framework.request import Request
from rest_framework.throttling import BaseThrottle

RATE_LIMIT_GROUP = "memory-api"
_PERIOD_SECONDS = 60


def _end_user_id(request: Request) -> str | None:
    """The `user_id` the request acts for: in the path (DELETE /users/{user_id}), the query, a
    JSON body's top level, or the arguments of a tool call."""
    user_id = (request.parser_context or {}).get("kwargs", {}).get("user_id")
    user_id = user_id or request.query_params.get("user_id")
    if user_id is None and request.method == "POST" and isinstance(request.data, dict):
        user_id = request.data.get("user_id")
        arguments = request.data.get("arguments")
        if user_id is None and isinstance(arguments, dict):
            user_id = arguments.get("user_id")
    return user_id if isinstance(user_id, str) and user_id else None


def counter_increment(cache: BaseCache, key: str, timeout: int) -> int:
    """Add one to the counter `key` (created for `timeout` seconds); return its new value.

    Atomic across processes when the cache's `add` and `incr` are (Redis, the locked file
    cache), and one round trip where django-ratelimit's add-then-incr makes two or three."""
    if isinstance(cache, RedisCache):
        full_key = cache.make_and_validate_key(key)
        client = cache._cache.get_client(full_key, write=True)
        # One MULTI/EXEC: create the counter at 0 with its expiry unless it exists, add one.
        # (Django's incr is EXISTS then INCR: a key expiring in between would live forever.)
        pipeline = client.pipeline(transaction=True)
        pipeline.set(full_key, 0, ex=timeout, nx=True)
        pipeline.incr(full_key)
        return int(pipeline.execute()[1])
    # The counter usually exists: increment first, create it only when it is missing.
    try:
        return cache.incr(key)
    except ValueError:
        pass
    if cache.add(key, 1, timeout):
        return 1
    return cache.incr(key)  # another process created it in between


def end_user_rate_wait(*, tenant_id: int, user_id: str) -> float | None:
    """Count one request of the tenant's user; None if allowed, else seconds to wait.

    Every door counts here: the API's throttle and the MCP tool calls, on the same counter."""
    if not getattr(settings, "RATELIMIT_ENABLE", True):
        return None
    value = f"{tenant_id}:{user_id.strip().lower()}"
    rate = f"{settings.MEMORY_RATE_LIMIT}/m"
    window = _get_window(value, _PERIOD_SECONDS)
    key = _make_cache_key(RATE_LIMIT_GROUP, window, rate, value, ALL)
    try:
        cache = caches[getattr(settings, "RATELIMIT_USE_CACHE", "default")]
        count = counter_increment(cache, key, _PERIOD_SECONDS + EXPIRATION_FUDGE)
    except Exception:
        # Without its counter store the limit cannot be checked; serving beats refusing all.
        return None
    if count > settings.MEMORY_RATE_LIMIT:
        return max(1, window - int(time.time()))
    return None


class EndUserRateThrottle(BaseThrottle):
    """At most MEMORY_RATE_LIMIT requests a minute per (tenant, user_id), over all endpoints.

    The count is an atomic cache increment in a fixed one-minute window (django-ratelimit's),
    so concurrent requests of one user are all counted, whichever process serves them.
    """

    def __init__(self) -> None:
        self._wait: float | None = None

    def allow_request(self, request: Request, view: Any) -> bool:
        user_id = _end_user_id(request)
        if user_id is None:
            return True  # nothing to count against: validation answers the request
        self._wait = end_user_rate_wait(tenant_id=request.user.tenant.pk, user_id=user_id)
        return self._wait is None

    def wait(self) -> float | None:
        """Seconds until the window resets (the Retry-After of the 429)."""
        return self._wait
