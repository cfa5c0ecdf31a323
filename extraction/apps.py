from django.apps import AppConfig


class ExtractionConfig(AppConfig):
    name = "extraction"
    verbose_name = "Extraction"

    def ready(self) -> None:
        # Registers the job task in every process, so `extraction_job_enqueue` finds it by name,
        # and the receiver that deletes an erased user's or session's jobs.
        from core.metrics import scrape_collector_register
        from extraction import receivers, tasks  # noqa: F401
        from extraction.metrics import ExtractionJobsCollector

        scrape_collector_register(ExtractionJobsCollector())
