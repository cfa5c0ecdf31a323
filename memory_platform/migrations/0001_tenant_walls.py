"""Row-level security on every table of tenant data (memory_platform.tenant_tables), and the
role the application runs as when its login user would ignore it (tenants.rls.APP_ROLE)."""

from django.db import migrations

from memory_platform.tenant_tables import APP_ROLE_SQL, tenant_walls_operation

# The tables of tenant data when this migration was written; one added later is walled by a
# migration of its own (see memory_platform.tenant_tables).
TABLES = [
    "memories_tenantapikey",
    "memories_tenantusage",
    "memories_enduser",
    "memories_erasurerecord",
    "memories_agentsession",
    "memories_memory",
    "memories_memory_sessions",
    "memories_memoryversion",
    "memories_memoryevidence",
    "memories_reviewitem",
    "memories_reviewitem_existing_memories",
    "memories_deletionrecord",
    "extraction_extractionjob",
    "extraction_extractionjob_memories_saved",
]


class Migration(migrations.Migration):
    dependencies = [
        ("tenants", "0001_initial"),
        ("memories", "0015_memory_tenant"),
        ("extraction", "0006_job_clauses_skipped"),
    ]

    operations = [
        # The role is the cluster's and may serve other databases: never dropped on reverse.
        migrations.RunSQL(APP_ROLE_SQL, reverse_sql=migrations.RunSQL.noop),
        tenant_walls_operation(TABLES),
    ]
