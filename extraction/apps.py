from django.apps import AppConfig


class ExtractionConfig(AppConfig):
    name = "extraction"
    verbose_name = "Extraction"

    def ready(self) -> None:
        # Registers the job task in every process, so `extraction_job_enqueue` finds it by name,
        # and the receiver that deletes an erased user's or session's jobs.
        from extraction import receivers, tasks  # noqa: F401
        from extraction.metrics import ExtractionJobsCollector
        from memory_platform.metrics import scrape_collector_register

        scrape_collector_register(ExtractionJobsCollector())
