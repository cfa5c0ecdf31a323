"""What an API key may do: a read-only key reads, a read-write key also writes.

Whether a request writes is decided once, here, by its method: GET, HEAD and OPTIONS read,
every other method writes. A view whose POST carries reads and writes alike (a tool call, an
MCP message) declares `key_scope_per_call = True` and checks each call with `key_may_write`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rest_framework.permissions import SAFE_METHODS, BasePermission
from rest_framework.request import Request

from core.exceptions import ReadOnlyKey
from tenants.models import TenantAPIKey

if TYPE_CHECKING:
    # Only for the hints: rest_framework.views imports this module (through its settings).
    from rest_framework.views import APIView


def key_may_write(key: TenantAPIKey) -> bool:
    """Whether `key` may write (extract, forget, erase, a writing tool)."""
    return key.scope == TenantAPIKey.Scope.READ_WRITE


def operation_writes(view: APIView, method: str) -> bool | None:
    """Whether `method` on `view` writes; None when the view checks each call itself."""
    if method.upper() in SAFE_METHODS:
        return False
    if getattr(view, "key_scope_per_call", False):
        return None
    return True


class KeyScopePermission(BasePermission):
    """Refuse a read-only key's write with 403 `read_only_key` (in the JSON error shape)."""

    def has_permission(self, request: Request, view: APIView) -> bool:
        key = request.auth
        # No key (a view open to all, such as /health): other permissions decide.
        if not isinstance(key, TenantAPIKey) or key_may_write(key):
            return True
        if operation_writes(view, request.method or "GET"):
            # Raised, not returned False: DRF's own 403 would say nothing about the scope.
            raise ReadOnlyKey()
        return True
