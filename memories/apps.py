from django.apps import AppConfig
from django.contrib.admin import apps as admin_apps


class MemoriesConfig(AppConfig):
    name = "memories"
    verbose_name = "Memories"


class MemoryAdminConfig(admin_apps.AdminConfig):
    """django.contrib.admin with the product's site (name, dashboard) as the default site.

    Named in INSTALLED_APPS by its full path, in place of "django.contrib.admin"."""

    default = False
    default_site = "memories.admin_site.MemoryAdminSite"
