"""Give a local install an admin login and an API key, and print both (used by `make run`)."""

from __future__ import annotations

import json
import secrets
from pathlib import Path
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandParser

from tenants.models import TenantAPIKey
from tenants.rls import bypassed
from tenants.services import tenant_api_key_create

LOCAL_TENANT = "local"
ADMIN_USERNAME = "admin"


class Command(BaseCommand):
    help = "Ensure a local admin login and API key exist and print them (kept in DATA_DIR)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--host", default="127.0.0.1")
        parser.add_argument("--port", default="8000")

    @bypassed("manage.py bootstrap_local")
    def handle(self, *args: Any, host: str, port: str, **options: Any) -> None:
        path: Path = settings.DATA_DIR / "local-credentials.json"
        saved: dict[str, str] = json.loads(path.read_text()) if path.exists() else {}

        password = self._ensure_admin(saved.get("admin_password", ""))
        api_key = saved.get("api_key", "")
        if not api_key or not TenantAPIKey.objects.is_valid(api_key):
            _, api_key = tenant_api_key_create(tenant_name=LOCAL_TENANT, key_name="make run")

        saved = {"admin_password": password or saved.get("admin_password", ""), "api_key": api_key}
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(saved))
        path.chmod(0o600)

        base = f"http://{host}:{port}"
        self.stdout.write(f"Admin:    {base}/admin/  user '{ADMIN_USERNAME}'  password ", ending="")
        self.stdout.write(
            password or "(unchanged; set one with: .venv/bin/python manage.py changepassword admin)"
        )
        self.stdout.write(f"API docs: {base}/api/docs/")
        self.stdout.write(f"API key (tenant '{LOCAL_TENANT}'): {api_key}")

    def _ensure_admin(self, known_password: str) -> str | None:
        """Create the admin login if missing; return its password when it is known, else None."""
        users = get_user_model()
        user = users.objects.filter(username=ADMIN_USERNAME).first()
        if user is None:
            password = secrets.token_urlsafe(12)
            users.objects.create_superuser(ADMIN_USERNAME, email="", password=password)
            return password
        if known_password and user.check_password(known_password):
            return known_password
        return None
