"""Settings of the bench commands: the service's own, plus the dev-only `bench` app.

    python manage.py bench_recall --settings=bench.settings

The production settings never install `bench`, so its commands stay out of `manage.py help`
and nothing of it ships in the wheel.
"""

from memory_platform.settings import *  # noqa: F403
from memory_platform.settings import INSTALLED_APPS

INSTALLED_APPS = [*INSTALLED_APPS, "bench"]
