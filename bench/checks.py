"""Before a bench runs: the database it writes to has every migration applied."""

from __future__ import annotations

import sys
from typing import Any

from django.core.checks import Error, register
from django.db import DatabaseError, connection
from django.db.migrations.executor import MigrationExecutor

# Commands that bring the database up to date (or show how far behind it is).
_MIGRATING = {"migrate", "showmigrations", "makemigrations"}


@register()
def check_migrations_applied(app_configs: Any = None, **kwargs: Any) -> list:
    """A bench on a database behind the code would fail midway on a missing table."""
    if set(sys.argv[1:2]) & _MIGRATING:
        return []  # the remedy itself must run under these settings
    try:
        executor = MigrationExecutor(connection)
        pending = executor.migration_plan(executor.loader.graph.leaf_nodes())
    except DatabaseError:
        return []  # unreachable: the bench's own connection reports it better
    if not pending:
        return []
    names = ", ".join(f"{migration.app_label}.{migration.name}" for migration, _ in pending[:5])
    return [
        Error(
            f"The database has {len(pending)} unapplied migration(s): {names}.",
            hint="Run: python manage.py migrate --settings=bench.settings (or make run, which "
            "migrates first).",
            id="bench.E001",
        )
    ]
