from django.apps import AppConfig
from django.contrib.admin import apps as admin_apps


class MemoriesConfig(AppConfig):
    name = "memories"
    verbose_name = "Memories"

    def ready(self) -> None:
        # Registers the API key's OpenAPI security scheme (an extension registers on import).
        import memories.schema  # noqa: F401

        # The review queue and memories per status, read at each /metrics scrape.
        from memories.metrics import MemoriesCollector
        from memory_platform.metrics import scrape_collector_register

        scrape_collector_register(MemoriesCollector())


class MemoryAdminConfig(admin_apps.AdminConfig):
    """django.contrib.admin with the product's site (name, dashboard) as the default site.

    Named in INSTALLED_APPS by its full path, in place of "django.contrib.admin"."""

    default = False
    default_site = "memories.admin_site.MemoryAdminSite"
