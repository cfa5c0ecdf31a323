"""Each request behind its tenant's walls (`tenants.rls`): it starts seeing no tenant's rows.

An API request names its tenant when its key is authenticated
(`tenants.authentication.TenantAPIKeyAuthentication`); an admin page is scoped here to the
signed-in operator's tenants (`tenants.selectors.tenant_ids_operated_by`), a superuser or an
operator of every tenant through the logged bypass. Whatever the request set is gone when it
ends: the next query on its connection runs with the scope of whoever makes it.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cached_property

from django.http import HttpRequest, HttpResponse
from django.urls import NoReverseMatch, reverse

from tenants import rls
from tenants.scoping import request_operator, request_tenant_ids


class TenantWallMiddleware:
    """After AuthenticationMiddleware: the request's scope, reset when it ends."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]):
        self.get_response = get_response

    @cached_property
    def admin_prefix(self) -> str | None:
        try:
            return reverse("admin:index")
        except NoReverseMatch:
            return None

    def __call__(self, request: HttpRequest) -> HttpResponse:
        with rls.request_frame():
            if self._admin_page_of_staff(request):
                operator = request_operator(request)
                rls.frame_scope_set(request_tenant_ids(request), actor=operator.get_username())
            return self.get_response(request)

    def _admin_page_of_staff(self, request: HttpRequest) -> bool:
        prefix = self.admin_prefix
        if prefix is None or not request.path.startswith(prefix):
            return False
        user = getattr(request, "user", None)
        return bool(user is not None and user.is_active and user.is_staff)
