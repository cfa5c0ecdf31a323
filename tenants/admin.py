"""The Django admin of tenancy: tenants (with their operators and usage) and API keys."""

from __future__ import annotations

import contextlib
from typing import Any

from django.contrib import admin
from django.contrib.admin.exceptions import NotRegistered
from django.http import HttpRequest
from django.utils.html import format_html, format_html_join
from rest_framework_api_key.admin import APIKeyModelAdmin
from rest_framework_api_key.models import APIKey

from tenants.models import Tenant, TenantAPIKey, TenantUsage
from tenants.scoping import TenantScopedAdmin
from tenants.selectors import USAGE_DAYS, tenant_usage_days


@admin.register(Tenant)
class TenantAdmin(TenantScopedAdmin):
    tenant_path = "pk"
    list_display = ["name", "is_active", "conflict_policy_shown", "created_at"]
    list_filter = ["is_active", "conflict_policy"]
    search_fields = ["name"]
    readonly_fields = ["usage"]
    filter_horizontal = ["operators"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        # A tenant made by a scoped operator would be out of their own sight at once.
        return request.user.is_superuser and super().has_add_permission(request)

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> list[str]:
        """Only a superuser says who operates a tenant: nobody widens their own scope."""
        fields = list(super().get_readonly_fields(request, obj))
        return fields if request.user.is_superuser else [*fields, "operators"]

    @admin.display(description=f"usage, last {USAGE_DAYS} days (UTC)")
    def usage(self, tenant: Tenant) -> str:
        """The tenant's usage counters per day and in total, one query."""
        if tenant.pk is None:
            return "-"
        days = list(tenant_usage_days(tenant=tenant))
        if not days:
            return "No extraction or recall yet."
        verbose = {field.name: field.verbose_name for field in TenantUsage._meta.concrete_fields}
        labels = [verbose[name] for name in TenantUsage.COUNTERS]
        totals = [sum(getattr(day, name) for day in days) for name in TenantUsage.COUNTERS]
        return format_html(
            '<table class="tenant-usage"><thead><tr><th>day</th>{}</tr></thead>'
            "<tbody>{}</tbody><tfoot><tr><th>total</th>{}</tr></tfoot></table>",
            format_html_join("", "<th>{}</th>", ((label,) for label in labels)),
            format_html_join(
                "",
                "<tr><td>{}</td>{}</tr>",
                (
                    (
                        day.day.isoformat(),
                        format_html_join(
                            "",
                            "<td>{}</td>",
                            ((getattr(day, name),) for name in TenantUsage.COUNTERS),
                        ),
                    )
                    for day in days
                ),
            ),
            format_html_join("", "<td>{}</td>", ((total,) for total in totals)),
        )

    @admin.display(description="conflict policy", ordering="conflict_policy")
    def conflict_policy_shown(self, tenant: Tenant) -> str:
        if tenant.conflict_policy:
            return tenant.get_conflict_policy_display()
        return f"service default ({tenant.effective_conflict_policy})"


# One "API keys" entry: the package's own APIKey model (unused, keys belong to tenants) goes.
with contextlib.suppress(NotRegistered):
    admin.site.unregister(APIKey)


@admin.register(TenantAPIKey)
class TenantAPIKeyAdmin(TenantScopedAdmin, APIKeyModelAdmin):
    # The package's hints fix these to its own tuples' lengths; Django takes any sequence.
    list_display = [*APIKeyModelAdmin.list_display, "scope", "last_used_at", "tenant"]  # type: ignore[assignment]
    list_filter = [  # type: ignore[assignment]
        "scope",
        *APIKeyModelAdmin.list_filter,
        ("tenant", admin.RelatedOnlyFieldListFilter),
    ]
    list_select_related = ["tenant"]

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> tuple[str, ...]:
        """The package's, and when the key was made and last used (shown, never edited)."""
        return (*super().get_readonly_fields(request, obj), "created", "last_used_at")
