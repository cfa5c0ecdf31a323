from django.apps import AppConfig


class RecallConfig(AppConfig):
    name = "recall"
    verbose_name = "Recall"

    def ready(self) -> None:
        from recall import checks, receivers  # noqa: F401  registers checks and receivers
