from django.apps import AppConfig
from django.contrib.admin import apps as admin_apps


class MemoryPlatformConfig(AppConfig):
    """The wiring as an app: its management commands (run_local, embedded) and system checks."""

    name = "memory_platform"
    verbose_name = "Memory platform"

    def ready(self) -> None:
        from memory_platform import checks  # noqa: F401  registers the system checks


class MemoryAdminConfig(admin_apps.AdminConfig):
    """django.contrib.admin with the product's site (name, dashboard) as the default site.

    Named in INSTALLED_APPS by its full path, in place of "django.contrib.admin"."""

    default = False
    default_site = "memory_platform.admin_site.MemoryAdminSite"
