from django.apps import AppConfig


class TenantsConfig(AppConfig):
    name = "tenants"
    verbose_name = "Tenants"

    def ready(self) -> None:
        # Registers the API key's OpenAPI security scheme (an extension registers on import).
        import tenants.schema  # noqa: F401
