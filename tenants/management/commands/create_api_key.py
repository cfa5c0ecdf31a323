"""Create an API key for a tenant; the raw key is the last line of output."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from tenants.models import TenantAPIKey
from tenants.rls import bypassed
from tenants.services import tenant_api_key_create


class Command(BaseCommand):
    help = "Create an API key for a tenant (created if needed) and print the raw key last."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--tenant", required=True, help="Tenant (client application) name.")
        parser.add_argument("--name", default="", help="A label for the key (default: 'cli').")
        parser.add_argument(
            "--read-only",
            action="store_true",
            help="A read-only key: relevant, full, list, context and the reading tools; "
            "writes (extract, forget, erase, remember) are answered 403.",
        )

    @bypassed("manage.py create_api_key")
    def handle(self, *args: Any, tenant: str, name: str, read_only: bool, **options: Any) -> None:
        if not tenant.strip():
            raise CommandError("--tenant must not be empty.")
        if len(tenant.strip()) > 100:
            raise CommandError("--tenant must be at most 100 characters.")
        scope = TenantAPIKey.Scope.READ if read_only else TenantAPIKey.Scope.READ_WRITE
        key, raw_key = tenant_api_key_create(
            tenant_name=tenant, key_name=name or "cli", scope=scope
        )
        self.stdout.write(
            f"Created {'read-only' if read_only else 'read-write'} API key '{key.name}' (prefix "
            f"{key.prefix}) for tenant '{key.tenant.name}'. It is shown once; store it now:"
        )
        self.stdout.write(raw_key)
