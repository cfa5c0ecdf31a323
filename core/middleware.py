"""Refusals made before any view runs, in the JSON error shape."""

from __future__ import annotations

from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse

from core.exceptions import error_body

_CHUNK = 64 * 1024


class BodyLimitMiddleware:
    """Answer a body over the limit with a 413 the client can read.

    Python clients (urllib, requests) send the whole body before reading the answer: a server
    that answers and closes early leaves them with a broken pipe instead of the 413. So the
    body is read and discarded first, up to MEMORY_MAX_DRAIN_BYTES; a larger one is refused
    without reading it.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        try:
            length = int(request.META.get("CONTENT_LENGTH") or 0)
        except ValueError:
            length = 0
        limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        if limit is None or length <= limit:
            return self.get_response(request)
        if length <= settings.MEMORY_MAX_DRAIN_BYTES:
            _drain(request.META["wsgi.input"], length)
        message = f"The request body is {length} bytes; the limit is {limit}."
        response = JsonResponse(error_body("payload_too_large", message), status=413)
        response["Connection"] = "close"
        return response


def _drain(stream, length: int) -> None:
    """Read and drop `length` bytes of the body; a client that hangs up ends it early."""
    left = length
    try:
        while left > 0 and (chunk := stream.read(min(_CHUNK, left))):
            left -= len(chunk)
    except (OSError, ValueError):
        pass
