import django.db.models.deletion
from django.db import migrations, models

# A memory carries its end user's tenant (`Memory.tenant`), so the tenant walls test the row's
# own column. Copied from the end users, then held equal to the end user's by a foreign key on
# (end_user_id, tenant_id), which Django cannot declare: raw SQL, dropped on reverse.
COPY = """
UPDATE memories_memory AS m SET tenant_id = e.tenant_id
FROM memories_enduser AS e WHERE e.id = m.end_user_id
"""
FOREIGN_KEY = """
ALTER TABLE memories_memory ADD CONSTRAINT memory_tenant_is_end_users
FOREIGN KEY (end_user_id, tenant_id) REFERENCES memories_enduser (id, tenant_id)
ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED
"""


class Migration(migrations.Migration):

    dependencies = [
        ("memories", "0014_memory_evidence"),
        ("tenants", "0001_initial"),
    ]

    operations = [
        migrations.AddField(
            model_name="memory",
            name="tenant",
            field=models.ForeignKey(
                db_index=False,
                editable=False,
                null=True,
                on_delete=django.db.models.deletion.CASCADE,
                related_name="+",
                to="tenants.tenant",
            ),
        ),
        migrations.RunSQL(COPY, reverse_sql=migrations.RunSQL.noop),
        migrations.AlterField(
            model_name="memory",
            name="tenant",
            field=models.ForeignKey(
                db_index=False,
                editable=False,
                on_delete=django.db.models.deletion.CASCADE,
                related_name="+",
                to="tenants.tenant",
            ),
        ),
        migrations.AddConstraint(
            model_name="enduser",
            constraint=models.UniqueConstraint(
                fields=("id", "tenant"), name="enduser_unique_id_tenant"
            ),
        ),
        migrations.RunSQL(
            FOREIGN_KEY,
            reverse_sql="ALTER TABLE memories_memory DROP CONSTRAINT memory_tenant_is_end_users",
        ),
    ]
