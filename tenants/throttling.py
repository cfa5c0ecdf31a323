"""The per-user rate limit as a DRF throttle, counted in Django's cache (shared with Redis)."""

from __future__ import annotations

import hashlib
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

from core.api import query_given_once, user_id_valid
from core.exceptions import InvalidInput
from core.user_ids import user_id_normal
from tenants.authentication import request_tenant

RATE_LIMIT_GROUP = "memory-api"
_PERIOD_SECONDS = 60


def _named_user_ids(request: Request) -> list[Any]:
    """Every `user_id` the request names, wherever a view reads one: the path
    (DELETE /users/{user_id}), the query, a JSON body's top level (POST /memories/extract) and
    the arguments of a tool call (POST /tools/call). Bodies are read for POST only, the one
    method whose body a view reads."""
    named: list[Any] = []
    kwargs = (request.parser_context or {}).get("kwargs", {})
    if "user_id" in kwargs:
        named.append(kwargs["user_id"])
    query_given_once(request.query_params, ["user_id"])  # as the views refuse it
    named.extend(request.query_params.getlist("user_id"))
    if request.method == "POST" and isinstance(request.data, dict):
        if "user_id" in request.data:
            named.append(request.data["user_id"])
        arguments = request.data.get("arguments")
        if isinstance(arguments, dict) and "user_id" in arguments:
            named.append(arguments["user_id"])
    return named


def _end_user_id(request: Request) -> Any:
    """The one `user_id` the request names (None if none), the one its view acts on.

    Each view reads its user from one place; naming a user in another place too would let
    the limit count one user while the view acts for another, so two different ones are a
    400. (A UUID in two spellings is one user, as stored.)"""
    distinct: list[Any] = []
    for value in _named_user_ids(request):
        value = user_id_normal(value) if isinstance(value, str) else value
        if value not in distinct:
            distinct.append(value)
    if len(distinct) > 1:
        raise InvalidInput(
            "The request names more than one user_id (in the path, the query, the body or "
            "the tool's arguments); name the user once."
        )
    return distinct[0] if distinct else None


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


def end_user_rate_key(*, tenant_id: int, user_id: str) -> str:
    """The counter's value for a user: the exact id as stored (ids are case-sensitive and kept
    as sent, so "alice", "Alice" and "alice " are three users), hashed: bounded, and safe
    for any characters."""
    digest = hashlib.sha256(user_id.encode("utf-8", "surrogatepass")).hexdigest()
    return f"{tenant_id}:{digest}"


def end_user_rate_wait(*, tenant_id: int, user_id: Any) -> float | None:
    """Count one request of the tenant's user; None if allowed, else seconds to wait.

    Every door counts here: the API's throttle and the MCP tool calls, on the same counter.
    A `user_id` that is not valid (UserIdField's rule) is not counted, under any key: the
    request is answered 400 by its validation, which does nothing for any user."""
    if not getattr(settings, "RATELIMIT_ENABLE", True):
        return None
    user_id = user_id_valid(user_id)
    if user_id is None:
        return None
    value = end_user_rate_key(tenant_id=tenant_id, user_id=user_id)
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
        # Not counted when invalid (end_user_rate_wait): the view's validation answers it.
        self._wait = end_user_rate_wait(tenant_id=request_tenant(request).pk, user_id=user_id)
        return self._wait is None

    def wait(self) -> float | None:
        """Seconds until the window resets (the Retry-After of the 429)."""
        return self._wait
