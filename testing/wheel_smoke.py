"""Run by testing/wheel_check.py with a scratch virtualenv's interpreter: the wheel serves.

Imports every module of every app from the installed wheel (not from a checkout), then starts
an embedded PostgreSQL in the data folder given as the argument, migrates it, serves the WSGI
application over a real socket and calls GET /health and POST /memories/extract. Stops the
database whatever happens. Exits non-zero with the reason on the first failure.

It drives the install as an operator would, through Django's entry points (the settings
module, management commands, the WSGI application) rather than by importing the project's
modules by name: like the rest of testing/, it sits outside the dependency rule's layers.
"""

from __future__ import annotations

import importlib
import io
import json
import os
import pkgutil
import sys
import sysconfig
import threading
import urllib.request
import uuid
from pathlib import Path
from wsgiref.simple_server import WSGIRequestHandler, make_server

WIRING = "memory_platform"
APPS = [
    WIRING,
    "config",
    "core",
    "tenants",
    "integrations",
    "memories",
    "extraction",
    "recall",
    "agents",
]
INSTALLED = Path(sysconfig.get_path("purelib")).resolve()


def import_everything() -> int:
    """Import each module of each app; each must come from the wheel's install."""
    count = 0
    for app in APPS:
        package = importlib.import_module(app)
        names = [app] + [
            info.name for info in pkgutil.walk_packages(package.__path__, prefix=f"{app}.")
        ]
        for name in names:
            module = importlib.import_module(name)
            origin = Path(module.__file__ or "").resolve()
            if not origin.is_relative_to(INSTALLED):
                sys.exit(f"wheel smoke: {name} comes from {origin}, not from the wheel")
            count += 1
    return count


class _Quiet(WSGIRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


def call(base: str, method: str, path: str, body: dict | None = None, key: str = "") -> dict:
    request = urllib.request.Request(
        base + path,
        method=method,
        data=json.dumps(body).encode() if body is not None else None,
        headers={"Content-Type": "application/json", "Authorization": f"Bearer {key}"},
    )
    with urllib.request.urlopen(request, timeout=120) as response:
        reply = json.loads(response.read())
        print(f"wheel smoke: {method} {path} -> {response.status}")
        return reply


def serve() -> None:
    from django.core.management import call_command
    from django.core.wsgi import get_wsgi_application
    from django.template.loader import get_template

    # The Django backend's template (django-stubs type get_template's result as any engine's).
    origin = get_template("admin/index.html").origin  # type: ignore[attr-defined]
    template = Path(origin.name).resolve()
    if not template.is_relative_to(INSTALLED / WIRING / "templates"):
        sys.exit(f"wheel smoke: the admin's index template is {template}, not the wheel's")
    call_command("check", fail_level="ERROR")
    call_command("migrate", verbosity=0, interactive=False)
    printed = io.StringIO()
    call_command("create_api_key", tenant="wheel-check", stdout=printed)
    key = printed.getvalue().strip().splitlines()[-1]

    server = make_server("127.0.0.1", 0, get_wsgi_application(), handler_class=_Quiet)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_port}"
    try:
        health = call(base, "GET", "/health")
        if health.get("database", {}).get("status") != "ok":
            sys.exit(f"wheel smoke: /health reports {health}")
        conversation = [
            {"role": "user", "content": "I live in Lisbon and I work as a nurse."},
            {"role": "assistant", "content": "Thanks, noted."},
        ]
        body = {"user_id": str(uuid.uuid4()), "conversation": conversation}
        extracted = call(base, "POST", "/memories/extract", body, key)
        if not extracted.get("memories_saved"):
            sys.exit(f"wheel smoke: the extract saved nothing: {extracted}")
    finally:
        server.shutdown()


def main() -> None:
    os.environ["DJANGO_SETTINGS_MODULE"] = f"{WIRING}.settings"
    os.environ["MEMORY_DATA_DIR"] = str(Path(sys.argv[1]) / "data")
    import django
    from django.core.management import call_command

    django.setup()
    # What manage.py does before a command that needs the database: the embedded servers.
    call_command("embedded", "start")
    try:
        print(f"wheel smoke: imported {import_everything()} modules from {INSTALLED}")
        serve()
    finally:
        call_command("embedded", "stop")


if __name__ == "__main__":
    main()
