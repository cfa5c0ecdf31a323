"""Django's `migrate`, run as the tables' owner under the logged row-level security bypass.

Migrations alter tables (which only their owner may) and move rows of every tenant; the
application's own queries run as `tenants.rls.APP_ROLE` when the login user would ignore row
security. `call_command("migrate")` (the test database, `run_local`) comes here too.
"""

from __future__ import annotations

from typing import Any

from django.core.management.commands import migrate

from tenants import rls


class Command(migrate.Command):
    def handle(self, *args: Any, **options: Any) -> None:
        with rls.schema_owner("manage.py migrate"):
            super().handle(*args, **options)
