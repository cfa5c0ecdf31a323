"""Django's PostgreSQL backend, with each query run under the tenant walls of its context.

Before every query made through Django (the ORM, `connection.cursor()`), the connection's
session settings are brought in line with the current `tenants.rls` scope: one
`SELECT set_config(...)` round trip when they differ from what the connection last had, none
when they agree (the next request of the same tenant on a kept connection pays nothing). So the
settings are session-level, but never outlive their scope: whatever ran before on the
connection, the next query runs with its own context's tenants, or none.

A setting changed inside a transaction is undone by a rollback; the backend then forgets what
it applied, and the next query sets it again.

When the login user would ignore row security (a superuser or a BYPASSRLS role, such as the
embedded PostgreSQL's `postgres`), the queries also run as `tenants.rls.APP_ROLE` (created by
the migration `memory_platform.0001_tenant_walls`), on which the policies act; migrations run
as the login user (`tenants.rls.schema_owner`).
"""

from __future__ import annotations

import logging
from typing import Any

from django.db.backends.postgresql import base

from tenants import rls

logger = logging.getLogger(__name__)

NO_DB_ALIAS = "__no_db__"
_APPLY = (
    "SELECT set_config('role', %s, false), set_config(%s, %s, false), "
    "set_config(%s, %s, false), set_config(%s, %s, false)"
)
# (database, login user) -> whether its queries must switch to APP_ROLE; known once per process.
_role_needed: dict[tuple[str, str, str], bool] = {}
_warned: set[tuple[str, str, str]] = set()


class DatabaseWrapper(base.DatabaseWrapper):
    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        # What the connection's settings are: (role, tenants, bypass, key prefix), or None
        # when unknown (a new connection, a rollback since they were set).
        self._rls_applied: tuple[str, str, str, str] | None = None
        self._rls_applied_in_transaction = False
        # Whether to run as APP_ROLE; None: not known yet (no connection, or the role missing).
        self._rls_switch_role: bool | None = False
        if self.alias != NO_DB_ALIAS:
            self.execute_wrappers.append(self._rls_sync)

    def init_connection_state(self) -> None:
        super().init_connection_state()
        self._rls_applied = None
        self._rls_applied_in_transaction = False
        if self.alias != NO_DB_ALIAS:
            self._rls_switch_role = self._rls_role_needed()

    def _rls_role_needed(self) -> bool | None:
        """Whether the login user ignores row security (and so must run as APP_ROLE); None
        while APP_ROLE is missing (before the migration that creates it)."""
        key = (self.alias, str(self.settings_dict["NAME"]), str(self.settings_dict["USER"]))
        if key in _role_needed:
            return _role_needed[key]
        assert self.connection is not None
        # The role is the cluster's: it may exist (made for another database, a test one)
        # before this database's migration granted it these tables.
        bypasses, role_ready = self.connection.execute(
            "SELECT r.rolsuper OR r.rolbypassrls, "
            "CASE WHEN EXISTS (SELECT 1 FROM pg_roles WHERE rolname = %s) THEN COALESCE("
            "has_table_privilege(%s, to_regclass('django_migrations'), 'SELECT'), false) "
            "ELSE false END "
            "FROM pg_roles r WHERE r.rolname = session_user",
            [rls.APP_ROLE, rls.APP_ROLE],
        ).fetchone() or (False, False)
        if bypasses and not role_ready:
            # Before the migration that creates it: nothing is walled yet. Asked again before
            # the next query that is not a migration's.
            if key not in _warned:
                _warned.add(key)
                logger.warning(
                    "the database user ignores row-level security and the role %s is missing "
                    "or not granted this database: run `manage.py migrate`",
                    rls.APP_ROLE,
                )
            return None
        _role_needed[key] = bool(bypasses)
        return bool(bypasses)

    def _rls_wanted(self) -> tuple[str, str, str, str]:
        scope = rls.scope_current()
        if self._rls_switch_role is None and not scope.as_login_user:
            self._rls_switch_role = self._rls_role_needed()
        role = rls.APP_ROLE if self._rls_switch_role and not scope.as_login_user else "none"
        return (role, *scope.settings())

    def _rls_sync(self, execute, sql, params, many, context):
        wanted = self._rls_wanted()
        if wanted != self._rls_applied:
            role, tenant_ids, bypass, prefix = wanted
            # The raw connection: not a query of the caller's (query counts stay the same),
            # and not through these wrappers again.
            self.connection.execute(
                _APPLY,
                [
                    role,
                    rls.TENANT_SETTING,
                    tenant_ids,
                    rls.BYPASS_SETTING,
                    bypass,
                    rls.KEY_PREFIX_SETTING,
                    prefix,
                ],
            )
            self._rls_applied = wanted
            if self.in_atomic_block or not self.get_autocommit():
                self._rls_applied_in_transaction = True
        return execute(sql, params, many, context)

    def _rls_forget_if_transactional(self) -> None:
        if self._rls_applied_in_transaction:
            self._rls_applied = None
            self._rls_applied_in_transaction = False

    def _commit(self) -> None:
        # A transaction that had failed commits as a rollback: forget either way.
        try:
            super()._commit()  # type: ignore[misc]  # private in the stubs
        finally:
            self._rls_forget_if_transactional()

    def _rollback(self) -> None:
        try:
            super()._rollback()  # type: ignore[misc]
        finally:
            self._rls_forget_if_transactional()

    def _savepoint_rollback(self, sid: str) -> None:
        try:
            super()._savepoint_rollback(sid)  # type: ignore[misc]
        finally:
            self._rls_forget_if_transactional()

    def _close(self) -> None:
        try:
            super()._close()  # type: ignore[misc]
        finally:
            self._rls_applied = None
            self._rls_applied_in_transaction = False
