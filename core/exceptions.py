"""The ApplicationError family and the one handler that maps every error to JSON over HTTP.

Every error leaves as `{"error": {"code": ..., "message": ...}}` with the right status, so no
input a client can send turns into a 500.
"""

from __future__ import annotations

import logging
from typing import Any

from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.core.exceptions import RequestDataTooBig
from django.db import DatabaseError
from django.http import Http404, HttpRequest, JsonResponse
from rest_framework import exceptions as drf_exceptions
from rest_framework.response import Response

logger = logging.getLogger(__name__)


class ApplicationError(Exception):
    """A failure the service reports to its caller with a status, a code and a message."""

    status_code: int = 400
    code: str = "bad_request"
    default_message: str = "The request could not be processed."

    def __init__(self, message: str | None = None, *, extra: dict[str, Any] | None = None):
        self.message = message or self.default_message
        self.extra = extra or {}
        super().__init__(self.message)


class InvalidInput(ApplicationError):
    """The request is well formed but its content is not acceptable."""

    status_code = 400
    code = "invalid_request"
    default_message = "The request is invalid."


class NotFound(ApplicationError):
    """The object does not exist or belongs to someone else."""

    status_code = 404
    code = "not_found"
    default_message = "Not found."


class ReadOnlyKey(ApplicationError):
    """A read-only API key tried to write (extract, forget, erase, a writing tool)."""

    status_code = 403
    code = "read_only_key"
    default_message = (
        "This API key is read-only: it may recall and list memories, not write or delete them. "
        "Use a read-write key (an operator makes one in the admin, or with "
        "`manage.py create_api_key`)."
    )


class RateLimited(ApplicationError):
    """More requests for one end user than the rate limit allows (outside DRF's throttles)."""

    status_code = 429
    code = "rate_limited"
    default_message = "Too many requests for this user_id; retry after the given seconds."


class UpstreamUnavailable(ApplicationError):
    """The LLM (or another upstream) failed after retries."""

    status_code = 502
    code = "upstream_unavailable"
    default_message = "The language model is unavailable; the conversation was kept."


class ServiceUnavailable(ApplicationError):
    """The service's database is down. Every 503 of an outage is this one, with this one
    message, wherever the outage is met (the key's lookup, a view, a tool call)."""

    status_code = 503
    code = "service_unavailable"
    default_message = "The database is unavailable; retry later."


_DRF_CODES: dict[type[drf_exceptions.APIException], str] = {
    drf_exceptions.ParseError: "malformed_request",
    drf_exceptions.AuthenticationFailed: "unauthorized",
    drf_exceptions.NotAuthenticated: "unauthorized",
    drf_exceptions.PermissionDenied: "forbidden",
    drf_exceptions.NotFound: "not_found",
    drf_exceptions.MethodNotAllowed: "method_not_allowed",
    drf_exceptions.NotAcceptable: "not_acceptable",
    drf_exceptions.UnsupportedMediaType: "unsupported_media_type",
    drf_exceptions.Throttled: "rate_limited",
    drf_exceptions.ValidationError: "invalid_request",
}


def error_body(code: str, message: str, **extra: Any) -> dict[str, Any]:
    """Return the JSON body of an error response."""
    return {"error": {"code": code, "message": message, **extra}}


def _flatten(detail: Any, prefix: str = "") -> list[str]:
    """Turn DRF's nested validation detail into 'field: message' lines."""
    if isinstance(detail, dict):
        lines: list[str] = []
        for key, value in detail.items():
            name = key if key != "non_field_errors" else ""
            path = f"{prefix}.{name}" if prefix and name else (name or prefix)
            lines.extend(_flatten(value, path))
        return lines
    if isinstance(detail, list):
        lines = []
        for index, value in enumerate(detail):
            nested = isinstance(value, dict | list)
            lines.extend(_flatten(value, f"{prefix}[{index}]" if nested else prefix))
        return lines
    return [f"{prefix}: {detail}" if prefix else str(detail)]


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    """Map every exception raised in an API view to the JSON error shape."""
    if isinstance(exc, ApplicationError):
        return Response(error_body(exc.code, exc.message, **exc.extra), status=exc.status_code)
    if isinstance(exc, RequestDataTooBig):
        return Response(error_body("payload_too_large", "The request body is too large."), 413)
    if isinstance(exc, Http404):
        return Response(error_body("not_found", "Not found."), status=404)
    if isinstance(exc, DjangoPermissionDenied):
        return Response(error_body("forbidden", "Permission denied."), status=403)
    if isinstance(exc, DatabaseError):
        logger.exception("database error while serving an API request")
        return exception_handler(ServiceUnavailable(), context)
    if isinstance(exc, drf_exceptions.APIException):
        code = next((c for t, c in _DRF_CODES.items() if isinstance(exc, t)), "error")
        # Throttled's (DRF sets it; its stubs leave it out).
        wait = getattr(exc, "wait", None)
        if isinstance(exc, drf_exceptions.ValidationError):
            message = "; ".join(_flatten(exc.detail)) or "The request is invalid."
            body = error_body(code, message, fields=exc.detail)
        elif isinstance(exc, drf_exceptions.Throttled):
            body = error_body(
                code, f"Too many requests for this user_id; retry in {int(wait or 1)} s."
            )
        else:
            body = error_body(code, str(exc.detail))
        response = Response(body, status=exc.status_code)
        if auth_header := getattr(exc, "auth_header", None):
            response["WWW-Authenticate"] = auth_header
        if wait:
            response["Retry-After"] = str(int(wait))
        return response
    return None


def bad_request(request: HttpRequest, exception: Exception | None = None) -> JsonResponse:
    """Answer a request Django refuses before any view (an empty or invalid Host header, a
    suspicious operation) with the JSON error shape, never an HTML page."""
    return JsonResponse(error_body("malformed_request", "The request is malformed."), status=400)


def forbidden(request: HttpRequest, exception: Exception | None = None) -> JsonResponse:
    """Answer a request Django refuses as forbidden before any view with the JSON error shape."""
    return JsonResponse(error_body("forbidden", "Permission denied."), status=403)


def not_found(request: HttpRequest, exception: Exception | None = None) -> JsonResponse:
    """Answer unknown paths with the JSON error shape."""
    return JsonResponse(error_body("not_found", "No such endpoint."), status=404)


def server_error(request: HttpRequest) -> JsonResponse:
    """Answer unexpected failures with the JSON error shape, never an HTML page."""
    return JsonResponse(error_body("internal_error", "Unexpected server error."), status=500)
