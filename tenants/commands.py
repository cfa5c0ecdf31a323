"""What management commands share about tenants: the `--tenant NAME` they are given."""

from __future__ import annotations

from django.core.management.base import CommandError

from tenants.models import Tenant


def command_tenant(name: str | None) -> Tenant | None:
    """The tenant a command's `--tenant NAME` names, None without one; an unknown name is
    the command's error, not an empty run."""
    if not name:
        return None
    tenant = Tenant.objects.filter(name=name).first()
    if tenant is None:
        raise CommandError(f"no tenant named {name!r}")
    return tenant
