"""The OpenAPI schema's view of the API keys: their bearer scheme and what a read-only key may do.

Imported by `MemoriesConfig.ready` (and named in REST_FRAMEWORK's DEFAULT_SCHEMA_CLASS): an
extension registers itself when its module is imported.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.extensions import OpenApiAuthenticationExtension
from drf_spectacular.openapi import AutoSchema as SpectacularAutoSchema

from tenants.permissions import operation_writes

SECURITY_SCHEME_NAME = "ApiKeyAuth"

READ_ONLY_ALLOWED = "Read-only API keys may call this."
READ_WRITE_NEEDED = (
    "Needs a read-write API key: a read-only key is answered 403 with the code `read_only_key`."
)


class TenantAPIKeyScheme(OpenApiAuthenticationExtension):
    """The bearer API key of `TenantAPIKeyAuthentication`, as an HTTP bearer security scheme."""

    target_class = "tenants.authentication.TenantAPIKeyAuthentication"
    name = SECURITY_SCHEME_NAME

    def get_security_definition(self, auto_schema: Any) -> dict[str, Any]:
        return {
            "type": "http",
            "scheme": "bearer",
            "description": (
                "`Authorization: Bearer <key>` (the word Bearer in any case), with a key an "
                "operator made in the admin or with `manage.py create_api_key`. The key's "
                "tenant is the caller; a read-only key may only read."
            ),
        }


class AutoSchema(SpectacularAutoSchema):
    """drf-spectacular's AutoSchema, saying in each operation if a read-only key may call it."""

    def get_description(self) -> str:  # type: ignore[override]
        description = super().get_description() or ""
        if not self.view.authentication_classes:
            return description  # open to all (health): no key, so no scope
        writes = operation_writes(self.view, self.method)
        if writes is None:
            # The view says itself which of its calls write (a tool call).
            return description
        sentence = READ_WRITE_NEEDED if writes else READ_ONLY_ALLOWED
        return f"{description}\n\n{sentence}" if description else sentence
