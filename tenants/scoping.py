"""Operators scoped to tenants: a staff user who operates tenants (`Tenant.operators`) sees and
acts on their data only, in every list, filter, search, bulk action and page; an object of
another tenant is a 404, as if it did not exist. Superusers, and staff users given no tenant,
see every tenant (`tenants.selectors.tenant_ids_operated_by`)."""

from __future__ import annotations

from typing import Any, cast

from django.contrib import admin
from django.contrib.auth.models import User
from django.db.models import ForeignKey, QuerySet
from django.forms import ModelChoiceField
from django.http import Http404, HttpRequest

from tenants.models import Tenant
from tenants.selectors import scoped_to_tenants, tenant_ids_operated_by

_CACHE = "_operated_tenant_ids"


def request_operator(request: HttpRequest) -> User:
    """The operator an admin page acts for: the admin site serves its pages only to an active
    staff user who signed in. Django's types say a user or an anonymous one: this is the one
    place that narrows it."""
    return cast(User, request.user)


def request_tenant_ids(request: HttpRequest) -> list[int] | None:
    """The tenants the request's user may see (None: all), looked up once per request."""
    if not hasattr(request, _CACHE):
        setattr(request, _CACHE, tenant_ids_operated_by(user=request.user))
    return getattr(request, _CACHE)


def scoped(request: HttpRequest, queryset: QuerySet, tenant_path: str) -> QuerySet:
    """`queryset` narrowed to the tenants of the request's operator."""
    return scoped_to_tenants(
        queryset, tenant_ids=request_tenant_ids(request), tenant_path=tenant_path
    )


class TenantScopedAdmin(admin.ModelAdmin):
    """A ModelAdmin whose rows belong to a tenant through `tenant_path`."""

    # The lookup from this model to its Tenant ("tenant", "end_user__tenant", "pk"...).
    tenant_path: str = "tenant"

    def get_queryset(self, request: HttpRequest) -> QuerySet:
        return self.scoped(request, super().get_queryset(request))

    def scoped(self, request: HttpRequest, queryset: QuerySet) -> QuerySet:
        return scoped(request, queryset, self.tenant_path)

    def _get_obj_does_not_exist_redirect(self, request: HttpRequest, opts: Any, object_id: str):
        # Django redirects to the list with "doesn't exist"; another tenant's object must not
        # even be told apart from a missing one, and a 404 says exactly that.
        raise Http404(f"No {opts.verbose_name} with id {object_id!r}.")

    def formfield_for_foreignkey(
        self, db_field: ForeignKey, request: HttpRequest, **kwargs: Any
    ) -> ModelChoiceField | None:
        """Choices (and what a typed raw id may be) limited to the operator's tenants."""
        related = db_field.related_model
        if related is Tenant:
            kwargs["queryset"] = scoped(request, Tenant.objects.all(), "pk")
        elif any(
            getattr(field, "related_model", None) is Tenant and field.name == "tenant"
            for field in related._meta.get_fields()
        ):  # a model of one tenant, such as an end user: only the operator's tenants' rows
            kwargs["queryset"] = scoped(request, related._default_manager.all(), "tenant")
        return super().formfield_for_foreignkey(db_field, request, **kwargs)
