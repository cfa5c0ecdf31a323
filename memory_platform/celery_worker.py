"""The Celery worker's consumer (`CELERY_WORKER_CONSUMER`): the stock one without gossip,
mingle and event heartbeats, whichever command line starts the worker.

Those three keep a cluster of workers informed of each other (who is up, which tasks were
revoked) over extra broker channels and an event connection. This service runs independent
workers, needs none of it, and they are what a Redis broker's restart broke: stopping and
restarting them on a connection that was already closed fails inside kombu (an AttributeError
such as `'NoneType' object has no attribute 'hostname'`, celery/kombu#582) and, when it
happens while the consumer starts again, the worker exits with "Unrecoverable error". Remote
control (`celery inspect`, the ping of `run_local`) is a separate step and stays on.

Only the worker imports this module (by the setting's dotted path), not the web processes.
"""

from __future__ import annotations

from typing import Any

from celery.worker.consumer import Consumer as CeleryConsumer

# The `celery worker` options that turn the steps off (`--without-gossip` and so on): forced,
# since the command line always passes them (False unless given).
WITHOUT = {"without_gossip": True, "without_mingle": True, "without_heartbeat": True}


class Consumer(CeleryConsumer):
    def __init__(self, *args: Any, worker_options: dict | None = None, **kwargs: Any) -> None:
        super().__init__(*args, worker_options={**(worker_options or {}), **WITHOUT}, **kwargs)
