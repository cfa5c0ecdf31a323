"""A bench refuses to start on a database that is behind the code, and says how to fix it."""

from __future__ import annotations

import pytest
from django.db.migrations.recorder import MigrationRecorder

from bench.checks import check_migrations_applied

pytestmark = pytest.mark.django_db


def test_a_migrated_database_passes():
    assert check_migrations_applied() == []


def test_an_unapplied_migration_is_an_error_naming_it_and_the_fix():
    latest = MigrationRecorder.Migration.objects.filter(app="memories").order_by("-id").first()
    latest.delete()  # rolled back with the test's transaction

    (error,) = check_migrations_applied()

    assert f"memories.{latest.name}" in error.msg
    assert "manage.py migrate" in error.hint
