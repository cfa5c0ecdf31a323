"""Traceable requests: one id per request, in the response, the logs and the jobs it starts.

`RequestIdMiddleware` (first in MIDDLEWARE) takes the caller's `X-Request-ID` when it is sane,
else makes one, keeps it in a context variable while the request is served (every log line
carries it, see `core.jsonlog`), answers it in the `X-Request-ID` header of every
response, errors included, and logs one access line per request. An extraction enqueued by
the request passes the id on to its Celery task (a message header), which serves under it too.
"""

from __future__ import annotations

import contextlib
import logging
import re
import time
import uuid
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from typing import TypeGuard

from django.conf import settings
from django.http import HttpRequest, HttpResponse

from core.metrics import HTTP_DURATION, HTTP_REQUESTS

HEADER = "X-Request-ID"
_META_KEY = "HTTP_X_REQUEST_ID"
# What a caller's id may look like; anything else is replaced, never echoed.
_SANE = re.compile(r"[A-Za-z0-9._:@/+=-]{1,128}")
# The Celery message header that carries the id to a task.
TASK_HEADER = "memory_request_id"

access_logger = logging.getLogger("core.requests")
_METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})

_request_id: ContextVar[str | None] = ContextVar("request_id", default=None)
_tenant: ContextVar[str | None] = ContextVar("request_tenant", default=None)


def request_id_new() -> str:
    return uuid.uuid4().hex


def request_id_sane(value: str | None) -> TypeGuard[str]:
    if not value:
        return False
    return _SANE.fullmatch(value) is not None


def request_id_get() -> str | None:
    """The id of the request (or task) being served in this context, if any."""
    return _request_id.get()


def request_tenant_get() -> str | None:
    return _tenant.get()


def request_context_set_tenant(name: str) -> None:
    """Record the authenticated tenant of the request being served (for its access line)."""
    _tenant.set(name)


@contextlib.contextmanager
def request_context(request_id: str | None) -> Iterator[str]:
    """Serve under `request_id` (a new one when missing or not sane); restore on exit."""
    rid = request_id if request_id_sane(request_id) else request_id_new()
    id_token = _request_id.set(rid)
    tenant_token = _tenant.set(None)
    try:
        yield rid
    finally:
        _tenant.reset(tenant_token)
        _request_id.reset(id_token)


@contextlib.contextmanager
def tenant_context(name: str | None) -> Iterator[None]:
    """Work for tenant `name` outside its request (a job in a worker): what it logs and the LLM
    calls it makes are labelled with the tenant; restored on exit."""
    token = _tenant.set(name)
    try:
        yield
    finally:
        _tenant.reset(token)


def client_address(request: HttpRequest) -> str | None:
    """The client's address: REMOTE_ADDR, or behind PROXY_COUNT trusted proxies the entry the
    outermost one appended to X-Forwarded-For (entries left of it are the client's to forge)."""
    count = settings.PROXY_COUNT
    forwarded = [part.strip() for part in request.META.get("HTTP_X_FORWARDED_FOR", "").split(",")]
    forwarded = [part for part in forwarded if part]
    if count and len(forwarded) >= count:
        return forwarded[-count]
    return request.META.get("REMOTE_ADDR")


def _route(request: HttpRequest) -> str | None:
    """The route template (`/memories/relevant`) the request matched, if any."""
    match = getattr(request, "resolver_match", None)
    if match is not None and match.route:
        return "/" + match.route.lstrip("^").rstrip("$")
    return None


def _metrics_observe(method: str | None, route: str | None, status: int, seconds: float) -> None:
    """Count the request in Prometheus with bounded labels: a path that matched no route, or
    a method nobody uses, is one label value, not one per path a scanner tries."""
    method = method if method in _METHODS else "other"
    endpoint = route or "unmatched"
    HTTP_REQUESTS.labels(method, endpoint, str(status)).inc()
    HTTP_DURATION.labels(method, endpoint).observe(seconds)


class RequestIdMiddleware:
    """Give every request an id, answer it in `X-Request-ID`, log one access line."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        started = time.perf_counter()
        with request_context(request.META.get(_META_KEY)) as rid:
            response = self.get_response(request)
            response[HEADER] = rid
            elapsed = time.perf_counter() - started
            duration_ms = round(elapsed * 1000, 1)
            status = response.status_code
            route = _route(request)
            # Never the query string: it holds prompts.
            endpoint = route or request.path[:200]
            _metrics_observe(request.method, route, status, elapsed)
            access_logger.log(
                logging.WARNING if status >= 500 else logging.INFO,
                "%s %s %s %sms",
                request.method,
                endpoint,
                status,
                duration_ms,
                extra={
                    "request_id": rid,
                    "method": request.method,
                    "endpoint": endpoint,
                    "status": status,
                    "duration_ms": duration_ms,
                    "tenant": request_tenant_get(),
                },
            )
        return response
