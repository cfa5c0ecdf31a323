"""Create an API key for a tenant; the raw key is the last line of output."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from memories.services.tenants import tenant_api_key_create


class Command(BaseCommand):
    help = "Create an API key for a tenant (created if needed) and print the raw key last."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--tenant", required=True, help="Tenant (client application) name.")
        parser.add_argument("--name", default="", help="A label for the key (default: 'cli').")

    def handle(self, *args: Any, tenant: str, name: str, **options: Any) -> None:
        if not tenant.strip():
            raise CommandError("--tenant must not be empty.")
        if len(tenant.strip()) > 100:
            raise CommandError("--tenant must be at most 100 characters.")
        key, raw_key = tenant_api_key_create(tenant_name=tenant, key_name=name or "cli")
        self.stdout.write(
            f"Created API key '{key.name}' (prefix {key.prefix}) for tenant '{key.tenant.name}'. "
            "It is shown once; store it now:"
        )
        self.stdout.write(raw_key)
