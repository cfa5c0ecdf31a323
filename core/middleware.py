"""Refusals made before any view runs, in the JSON error shape: a body over the limit, a
chunked body the server cannot bound, a query string that is not UTF-8."""

from __future__ import annotations

import io
from collections.abc import Callable
from typing import Any
from urllib.parse import unquote_to_bytes

from django.conf import settings
from django.core.handlers.wsgi import LimitedStream, get_bytes_from_wsgi
from django.http import HttpRequest, HttpResponse, JsonResponse

from core.exceptions import error_body

_CHUNK = 64 * 1024


class BodyLimitMiddleware:
    """Answer a body over the limit with a 413 the client can read, whether its length was
    declared (Content-Length) or not (Transfer-Encoding: chunked).

    Python clients (urllib, requests) send the whole body before reading the answer: a server
    that answers and closes early leaves them with a broken pipe instead of the 413. So the
    body is read and discarded first, up to MEMORY_MAX_DRAIN_BYTES; a larger one is refused
    without reading it.

    Django reads only a body whose length is declared: a chunked one would read as empty (a
    valid request answered "user_id: This field is required", a 10 MiB one not refused). So a
    chunked body is read here, under the same limit, and handed on with its length. That needs
    a server that decodes the chunks and ends the stream (gunicorn: `wsgi.input_terminated`);
    under any other server a chunked body is refused with 411 Length Required.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        if request.META.get("HTTP_TRANSFER_ENCODING"):
            refusal = _chunked_body_read(request, limit)
            return refusal or self.get_response(request)
        try:
            length = int(request.META.get("CONTENT_LENGTH") or 0)
        except ValueError:
            length = 0
        if limit is None or length <= limit:
            return self.get_response(request)
        if length <= settings.MEMORY_MAX_DRAIN_BYTES:
            _drain(request.META["wsgi.input"], length)
        return _too_large(f"The request body is {length} bytes; the limit is {limit}.")


def _too_large(message: str) -> JsonResponse:
    response = JsonResponse(error_body("payload_too_large", message), status=413)
    response["Connection"] = "close"
    return response


def _chunked_body_read(request: HttpRequest, limit: int | None) -> HttpResponse | None:
    """Read a body of unknown length into the request, or answer why not (411, 413)."""
    if not request.META.get("wsgi.input_terminated"):
        response = JsonResponse(
            error_body(
                "length_required",
                "This server cannot read a body sent without Content-Length "
                "(Transfer-Encoding); send its length.",
            ),
            status=411,
        )
        response["Connection"] = "close"
        return response
    stream = request.META["wsgi.input"]
    body = _read(stream, None if limit is None else limit + 1)
    if limit is not None and len(body) > limit:
        _drain(stream, settings.MEMORY_MAX_DRAIN_BYTES - len(body))
        return _too_large(f"The request body is over the limit of {limit} bytes.")
    # As if the client had declared the length: Django (and DRF, which reads CONTENT_LENGTH)
    # then read exactly this body.
    request.META["CONTENT_LENGTH"] = str(len(body))
    request.META["wsgi.input"] = io.BytesIO(body)
    # WSGIRequest's own stream type; django-stubs declare HttpRequest._stream as BinaryIO.
    request._stream = LimitedStream(request.META["wsgi.input"], len(body))  # type: ignore[assignment]
    return None


def _read(stream: Any, most: int | None) -> bytes:
    """Up to `most` bytes of the stream (all of it when None), until it ends."""
    parts: list[bytes] = []
    got = 0
    while most is None or got < most:
        size = _CHUNK if most is None else min(_CHUNK, most - got)
        chunk = stream.read(size)
        if not chunk:
            break
        parts.append(chunk)
        got += len(chunk)
    return b"".join(parts)


def _drain(stream: Any, length: int) -> None:
    """Read and drop up to `length` bytes of the body; a client that hangs up ends it early."""
    left = length
    try:
        while left > 0 and (chunk := stream.read(min(_CHUNK, left))):
            left -= len(chunk)
    except (OSError, ValueError):
        pass


class QueryStringMiddleware:
    """Refuse a query string that is not UTF-8 once percent-decoded (`?user_id=%ff%fe`, an
    encoded surrogate): Django would replace the bytes with U+FFFD and the view would act on
    text the client never sent. A 400 `malformed_request`, as for a body that is not JSON."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        raw = get_bytes_from_wsgi(request.META, "QUERY_STRING", "")
        try:
            unquote_to_bytes(raw.replace(b"+", b" ")).decode("utf-8")
        except UnicodeDecodeError:
            message = "The query string is not UTF-8: percent-encode text as UTF-8 bytes."
            return JsonResponse(error_body("malformed_request", message), status=400)
        return self.get_response(request)
