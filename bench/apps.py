from django.apps import AppConfig


class BenchConfig(AppConfig):
    name = "bench"
    verbose_name = "Benchmarks (development only)"

    def ready(self) -> None:
        from bench import checks  # noqa: F401  (registers the migrations check)
