"""Start, stop or show the embedded PostgreSQL and Valkey of a local install."""

from __future__ import annotations

import os
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from memory_platform import local
from memory_platform.embedded import (
    EmbeddedServerError,
    postgres_running,
    stop_embedded_postgres,
    stop_embedded_valkey,
    valkey_running,
)


class Command(BaseCommand):
    help = (
        "start: start the embedded servers this environment wants (what every command that "
        "uses the database does first); stop: stop them (`make db-stop`); status: say which run."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("action", choices=["start", "stop", "status"])

    def handle(self, *args: Any, action: str, **options: Any) -> None:
        data = local.data_dir()
        if action == "start":
            try:
                local.prepare()
            except EmbeddedServerError as exc:
                raise CommandError(str(exc)) from exc
            valkey_error = os.environ.get(local.VALKEY_ERROR_VARIABLE, "")
            if valkey_error:
                self.stderr.write(
                    f"The embedded Valkey could not start: {valkey_error}\n"
                    "Running without it: rate limits are counted in files under the data "
                    "directory, the recall cache is per process and tasks run inline."
                )
        elif action == "stop":
            pg = stop_embedded_postgres(data / "pg")
            valkey = stop_embedded_valkey(data / "valkey")
            self.stdout.write(f"PostgreSQL {'stopped' if pg else 'not running'}")
            self.stdout.write(f"Valkey {'stopped' if valkey else 'not running'}")
            return
        pg = postgres_running(data / "pg")
        valkey = valkey_running(data / "valkey")
        self.stdout.write(f"PostgreSQL {'running' if pg else 'not running'} ({data / 'pg'})")
        self.stdout.write(f"Valkey {'running' if valkey else 'not running'} ({data / 'valkey'})")
