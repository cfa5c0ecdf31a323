"""Every table that holds tenant data, and how its rows reach their tenant: the one list the
row-level security migrations read (`memory_platform.migrations`).

A table is walled either by its own tenant column (`Own`) or through its parent (`Through`): a
row is visible when its parent row is, which the parent's own policy decides (the sub-select is
itself filtered, and looks the parent up by its primary key).

A new table of tenant data: add it here, and add a migration in `memory_platform` that runs
`tenant_walls_operation([...its name...])` after the migration that creates it;
`tests/tenants/test_rls.py` fails while a table with a path to a tenant is missing from this
list or from the database's policies.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db import migrations

from tenants import rls


@dataclass(frozen=True)
class Own:
    """The table's `column` names its tenant."""

    column: str = "tenant_id"
    # An API key's row is also visible while that key is looked up (its prefix).
    by_key_prefix: bool = False


@dataclass(frozen=True)
class Through:
    """The table's `column` names a row of `parent`, whose tenant is the row's."""

    column: str
    parent: str


Wall = Own | Through

TENANT_TABLES: dict[str, Wall] = {
    # tenants
    "memories_tenantapikey": Own(by_key_prefix=True),
    "memories_tenantusage": Own(),
    # memories
    "memories_enduser": Own(),
    "memories_erasurerecord": Own(),
    "memories_agentsession": Through("end_user_id", "memories_enduser"),
    # Its own column (`Memory.tenant`): a recall reads a hundred memories of one user, and a
    # look-up of the end user per row cost a fifth of /memories/relevant's p95.
    "memories_memory": Own(),
    "memories_memory_sessions": Through("memory_id", "memories_memory"),
    "memories_memoryversion": Through("memory_id", "memories_memory"),
    "memories_memoryevidence": Through("memory_id", "memories_memory"),
    "memories_reviewitem": Through("end_user_id", "memories_enduser"),
    "memories_reviewitem_existing_memories": Through("reviewitem_id", "memories_reviewitem"),
    "memories_deletionrecord": Through("end_user_id", "memories_enduser"),
    # extraction
    "extraction_extractionjob": Through("end_user_id", "memories_enduser"),
    "extraction_extractionjob_memories_saved": Through(
        "extractionjob_id", "extraction_extractionjob"
    ),
}

POLICY = "tenant_wall"
# Each setting read in a sub-select of its own: PostgreSQL evaluates it once per query (an
# InitPlan), not once per row (parsing the array of tenants for every row it filters).
_BYPASS = f"(SELECT current_setting('{rls.BYPASS_SETTING}', true) = 'on')"
# (The cast outside keeps `= ANY (...)` reading an array, not the rows of a sub-select.)
_TENANTS = f"(SELECT NULLIF(current_setting('{rls.TENANT_SETTING}', true), '')::bigint[])::bigint[]"
_PREFIX = f"(SELECT NULLIF(current_setting('{rls.KEY_PREFIX_SETTING}', true), ''))"


def policy_condition(table: str, wall: Wall) -> str:
    """The SQL condition a row of `table` must meet to be seen or written."""
    if isinstance(wall, Own):
        condition = f"{_BYPASS} OR {wall.column} = ANY ({_TENANTS})"
        if wall.by_key_prefix:
            condition += f" OR prefix = {_PREFIX}"
        return condition
    # The parent row by its primary key, through the parent's own policy (which holds the
    # bypass test): true when visible, else NULL. A scalar sub-select, not EXISTS: PostgreSQL
    # may turn an EXISTS into a hash of every parent row the tenant has, built per query (10,000
    # end users: a quarter more time on /memories/relevant), where this probes one row per row.
    return f"(SELECT true FROM {wall.parent} AS p WHERE p.id = {table}.{wall.column})"


def _wall_sql(table: str) -> str:
    condition = policy_condition(table, TENANT_TABLES[table])
    return (
        f"ALTER TABLE {table} ENABLE ROW LEVEL SECURITY; "
        f"ALTER TABLE {table} FORCE ROW LEVEL SECURITY; "
        f"DROP POLICY IF EXISTS {POLICY} ON {table}; "
        f"CREATE POLICY {POLICY} ON {table} USING ({condition}) WITH CHECK ({condition});"
    )


def _unwall_sql(table: str) -> str:
    return (
        f"DROP POLICY IF EXISTS {POLICY} ON {table}; "
        f"ALTER TABLE {table} NO FORCE ROW LEVEL SECURITY; "
        f"ALTER TABLE {table} DISABLE ROW LEVEL SECURITY;"
    )


def tenant_walls_operation(tables: list[str]) -> migrations.RunSQL:
    """The migration operation that walls `tables` (each in TENANT_TABLES); reversible."""
    return migrations.RunSQL(
        sql=[_wall_sql(table) for table in tables],
        reverse_sql=[_unwall_sql(table) for table in reversed(tables)],
    )


# The role the application runs as when its login user ignores row security, with the rights
# on every table of the schema, now and to come; created only by a user who may (a superuser:
# the embedded PostgreSQL, a compose `postgres`). A racing creator (two test databases made at
# once) is harmless: the role is the cluster's, made once.
APP_ROLE_SQL = f"""
DO $$
DECLARE
    me record;
BEGIN
    SELECT rolsuper, rolbypassrls INTO me FROM pg_roles WHERE rolname = current_user;
    IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '{rls.APP_ROLE}')
            AND (me.rolsuper OR me.rolbypassrls) THEN
        BEGIN
            CREATE ROLE {rls.APP_ROLE} NOLOGIN NOSUPERUSER NOBYPASSRLS;
        EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL;
        END;
    END IF;
    IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '{rls.APP_ROLE}') THEN
        IF me.rolbypassrls AND NOT me.rolsuper THEN
            BEGIN
                EXECUTE format('GRANT {rls.APP_ROLE} TO %I', current_user);
            EXCEPTION WHEN insufficient_privilege THEN NULL;
            END;
        END IF;
        EXECUTE format('GRANT USAGE ON SCHEMA %I TO {rls.APP_ROLE}', current_schema());
        EXECUTE format('GRANT SELECT, INSERT, UPDATE, DELETE, TRUNCATE ON ALL TABLES IN SCHEMA %I TO {rls.APP_ROLE}', current_schema());
        EXECUTE format('GRANT USAGE, SELECT, UPDATE ON ALL SEQUENCES IN SCHEMA %I TO {rls.APP_ROLE}', current_schema());
        EXECUTE format('ALTER DEFAULT PRIVILEGES IN SCHEMA %I GRANT SELECT, INSERT, UPDATE, DELETE, TRUNCATE ON TABLES TO {rls.APP_ROLE}', current_schema());
        EXECUTE format('ALTER DEFAULT PRIVILEGES IN SCHEMA %I GRANT USAGE, SELECT, UPDATE ON SEQUENCES TO {rls.APP_ROLE}', current_schema());
    END IF;
END
$$;
"""  # noqa: E501
