"""Tenancy: the client applications, their API keys and their daily usage.

These models moved here from `memories` with their tables (a state-only migration): the
`memories_` table names are history, not a dependency.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from rest_framework_api_key.models import AbstractAPIKey


class ConflictPolicy(models.TextChoices):
    """What a new memory that contradicts stored ones does (MEMORY_CONFLICT_POLICY)."""

    REVIEW = "review", "Hold for review"
    SUPERSEDE = "supersede", "Explicit updates supersede"


class Tenant(models.Model):
    """A client application; its API keys see only its own end users."""

    name = models.CharField(max_length=100, unique=True)
    is_active = models.BooleanField(default=True)
    conflict_policy = models.CharField(
        max_length=20,
        choices=ConflictPolicy.choices,
        blank=True,
        help_text="Empty: the service's MEMORY_CONFLICT_POLICY. 'Explicit updates supersede': a "
        "new fact that announces a change (moved, switched, quit) replaces the one it "
        "contradicts at once, and the conflict is filed as resolved for an operator to audit.",
    )
    # Staff users who operate this tenant: in the admin they see and act on its data only.
    operators = models.ManyToManyField(
        settings.AUTH_USER_MODEL,
        blank=True,
        related_name="operated_tenants",
        db_table="memories_tenant_operators",
        help_text="Staff users who may see and act on this tenant's data in the admin. A staff "
        "user who operates one or more tenants sees only those; superusers, and staff users "
        "given no tenant, see every tenant.",
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        # The table kept its name when tenancy moved out of `memories` (a state-only move).
        db_table = "memories_tenant"
        ordering = ["name"]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(conflict_policy__in=["", *ConflictPolicy.values]),
                name="tenant_conflict_policy_valid",
            ),
        ]

    def __str__(self) -> str:
        return self.name

    @property
    def effective_conflict_policy(self) -> str:
        """The tenant's own conflict policy, else the service's MEMORY_CONFLICT_POLICY."""
        return self.conflict_policy or settings.MEMORY_CONFLICT_POLICY


class TenantAPIKey(AbstractAPIKey):
    """A hashed, named, revocable API key of one tenant."""

    class Scope(models.TextChoices):
        READ = "read", "Read only: relevant, full, list, context"
        READ_WRITE = "read_write", "Read and write"

    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="api_keys")
    scope = models.CharField(
        max_length=20,
        choices=Scope.choices,
        default=Scope.READ_WRITE,
        help_text="A read-only key may recall and list memories but not extract, forget or erase.",
    )
    # Written at most once a minute per key and process, so a request pays no UPDATE for it.
    last_used_at = models.DateTimeField("last used", null=True, blank=True, editable=False)

    class Meta(AbstractAPIKey.Meta):
        db_table = "memories_tenantapikey"
        verbose_name = "API key"
        verbose_name_plural = "API keys"
        constraints = [
            models.CheckConstraint(
                condition=models.Q(scope__in=["read", "read_write"]),
                name="tenantapikey_scope_valid",
            ),
        ]


class TenantUsage(models.Model):
    """One tenant's use of the service on one day (UTC), counted as the service runs."""

    # The counters, in one place for the upsert, the admin, the dashboard and memory_stats.
    COUNTERS = (
        "extractions",
        "failed_extractions",
        "recalls",
        "llm_calls",
        "prompt_tokens",
        "completion_tokens",
    )

    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="usage_days")
    day = models.DateField()
    # Database defaults too: the upsert names only the counters it adds to.
    # Conversations extracted (a job that succeeded) and extraction runs that failed.
    extractions = models.PositiveBigIntegerField(default=0, db_default=0)
    failed_extractions = models.PositiveBigIntegerField(default=0, db_default=0)
    # Recall requests served: /memories/relevant, /memories/context and the agent tools.
    recalls = models.PositiveBigIntegerField(default=0, db_default=0)
    # Every HTTP attempt at the LLM and the tokens it reported, failures included.
    llm_calls = models.PositiveBigIntegerField(default=0, db_default=0)
    prompt_tokens = models.PositiveBigIntegerField(default=0, db_default=0)
    completion_tokens = models.PositiveBigIntegerField(default=0, db_default=0)

    class Meta:
        db_table = "memories_tenantusage"
        verbose_name = "tenant usage (day)"
        verbose_name_plural = "tenant usage (days)"
        constraints = [
            # The conflict target of `tenant_usage_add`'s upsert, and the index of a tenant's
            # usage page (its days, newest first).
            models.UniqueConstraint(fields=["tenant", "day"], name="tenantusage_unique_day"),
        ]
        indexes = [
            # The dashboard's `tenant_usage_since`: every tenant's last 30 days.
            models.Index(fields=["day"], name="tenantusage_day"),
        ]

    def __str__(self) -> str:
        return f"{self.tenant_id} on {self.day}"
