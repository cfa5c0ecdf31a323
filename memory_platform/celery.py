"""The Celery application; configuration comes from Django settings (CELERY_*)."""

import os

from celery import Celery, signals

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memory_platform.settings")

app = Celery("memory_platform")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@signals.celeryd_init.connect
@signals.beat_init.connect
def _local_install_prepare(**_: object) -> None:
    """A worker or beat started by hand (`make worker`) finds the embedded servers running."""
    from memory_platform import local

    local.prepare()
