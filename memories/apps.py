from django.apps import AppConfig


class MemoriesConfig(AppConfig):
    name = "memories"
    verbose_name = "Memories"

    def ready(self) -> None:
        # The review queue and memories per status, read at each /metrics scrape.
        from core.metrics import scrape_collector_register
        from memories.metrics import MemoriesCollector

        scrape_collector_register(MemoriesCollector())
