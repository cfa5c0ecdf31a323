"""GET /health: the state of the database, cache, embedder and LLM configuration."""

from __future__ import annotations

import time
import uuid
from typing import Any
from urllib.parse import urlsplit

from django.conf import settings
from django.core.cache import cache
from django.db import DatabaseError, connection
from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView


def _timed(check: Any) -> dict[str, Any]:
    """Run one check and add how long it took."""
    started = time.perf_counter()
    result = check()
    result["latency_ms"] = round((time.perf_counter() - started) * 1000, 2)
    return result


def database_status() -> dict[str, Any]:
    """Report whether the database answers and has pgvector."""
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT extversion FROM pg_extension WHERE extname = 'vector'")
            row = cursor.fetchone()
    except DatabaseError as exc:
        return {"status": "down", "error": str(exc).strip().splitlines()[0][:200]}
    return {
        "status": "ok",
        "vendor": connection.vendor,
        "embedded": settings.EMBEDDED_POSTGRES,
        "pgvector": row[0] if row else None,
    }


def cache_status() -> dict[str, Any]:
    """Report whether the cache stores and returns a value."""
    key = f"health:{uuid.uuid4().hex}"
    backend = settings.CACHES["default"]["BACKEND"].rsplit(".", 1)[-1]
    try:
        cache.set(key, "1", timeout=5)
        ok = cache.get(key) == "1"
        cache.delete(key)
    except Exception as exc:  # any client error means the cache is degraded, not the service
        return {"status": "down", "backend": backend, "error": str(exc)[:200]}
    return {"status": "ok" if ok else "down", "backend": backend}


def embedder_status() -> dict[str, Any]:
    """Report the configured embedding provider."""
    return {"status": "configured", "provider": settings.MEMORY_EMBEDDER}


def llm_status() -> dict[str, Any]:
    """Report the LLM configuration without calling it."""
    configured = bool(settings.OPENAI_API_KEY)
    base_url = settings.OPENAI_BASE_URL or "https://api.openai.com/v1"
    return {
        "status": "configured" if configured else "not_configured",
        "extractor": settings.MEMORY_EXTRACTOR,
        "model": settings.MEMORY_LLM_MODEL if configured else None,
        "host": urlsplit(base_url).hostname if configured else None,
    }


class HealthApi(APIView):
    """Report the service's dependencies; 503 when the database is unreachable."""

    authentication_classes: list = []
    permission_classes: list = []

    @extend_schema(
        operation_id="health",
        responses={
            200: inline_serializer("Health", {"status": serializers.CharField()}),
            503: inline_serializer("HealthDown", {"status": serializers.CharField()}),
        },
        auth=[],
    )
    def get(self, request: Request) -> Response:
        checks = {
            "database": _timed(database_status),
            "cache": _timed(cache_status),
            "embedder": embedder_status(),
            "llm": llm_status(),
        }
        healthy = checks["database"]["status"] == "ok"
        degraded = checks["cache"]["status"] != "ok"
        status = "ok" if healthy and not degraded else ("degraded" if healthy else "down")
        return Response({"status": status, **checks}, status=200 if healthy else 503)
