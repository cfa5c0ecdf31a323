from django.apps import AppConfig


class MemoryPlatformConfig(AppConfig):
    name = "memory_platform"
    verbose_name = "Memory platform"

    def ready(self) -> None:
        from memory_platform import checks  # noqa: F401  registers the system checks
