"""What a local install needs before it serves: its data folder, secret key and embedded servers.

Importing the settings starts nothing and writes nothing; they only compute paths from the
environment with the functions below. `prepare` is the one entry point that creates what the
paths name. It is called, before Django loads, by manage.py (for the commands that use the
database), by gunicorn's master (`memory_platform.gunicorn_conf`), by Celery's worker and beat
(`memory_platform.celery`) and by the test session (`tests/conftest.py`). It is idempotent and
safe to call from many processes at once.

This module reads the environment only: it must not import Django's settings, because it runs
before them and may tell them (through `MEMORY_EMBEDDED_REDIS_ERROR`) that Valkey is missing.
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path

BASE_DIR = Path(__file__).resolve().parent.parent
EMBEDDED_DATABASE_NAME = "memory_platform"
# Set by `prepare` when the embedded Valkey was asked for and could not start: the settings
# then fall back to the stores that need no server, and say why (a check, `run_local`).
VALKEY_ERROR_VARIABLE = "MEMORY_EMBEDDED_REDIS_ERROR"

# Management commands that never touch the database: they start no server.
COMMANDS_WITHOUT_SERVERS = frozenset(
    {
        "check",
        "compilemessages",
        "diffsettings",
        "embedded",
        "help",
        "makemessages",
        "makemigrations",
        "spectacular",
        "startapp",
        "startproject",
        "version",
    }
)


def _env(name: str) -> str:
    return os.environ.get(name, "").strip()


def data_dir() -> Path:
    """Everything a local install keeps (database, secret key, credentials) lives here."""
    return Path(_env("MEMORY_DATA_DIR") or str(BASE_DIR / ".data")).resolve()


def postgres_wanted() -> bool:
    """The embedded PostgreSQL serves unless DATABASE_URL names a server."""
    return not _env("DATABASE_URL")


def valkey_wanted() -> bool:
    """`make run` asks for an embedded Valkey (MEMORY_EMBEDDED_REDIS) unless REDIS_URL is set."""
    return not _env("REDIS_URL") and _env("MEMORY_EMBEDDED_REDIS").lower() in {
        "1",
        "true",
        "yes",
        "on",
    }


def secret_key_file() -> Path:
    return data_dir() / "secret_key"


def metrics_dir() -> Path:
    return Path(_env("PROMETHEUS_MULTIPROC_DIR") or str(data_dir() / "prometheus"))


def static_root() -> Path:
    return Path(_env("DJANGO_STATIC_ROOT") or str(data_dir() / "static"))


def _secret_key_ensure() -> None:
    """Generate the local secret key once, atomically (concurrent starters agree on one)."""
    path = secret_key_file()
    if path.exists() and path.read_text().strip():
        return
    scratch = path.with_name(f".secret_key.{os.getpid()}")
    scratch.write_text(secrets.token_urlsafe(50))
    scratch.chmod(0o600)
    try:
        os.link(scratch, path)  # fails if another process made it first: keep theirs
    except FileExistsError:
        if not path.read_text().strip():  # an empty file left by an older, killed writer
            os.replace(scratch, path)
    finally:
        scratch.unlink(missing_ok=True)


def needs_servers(argv: list[str]) -> bool:
    """Whether `manage.py <argv>` uses the database (and so the embedded servers)."""
    command = argv[1] if len(argv) > 1 else "help"
    return command not in COMMANDS_WITHOUT_SERVERS and not command.startswith("-")


def prepare(*, servers: bool = True) -> None:
    """Create the local folders and secret key, and start the embedded servers that are wanted.

    Raises EmbeddedServerError (with what to do) when PostgreSQL cannot start. Valkey failing
    is not fatal: the reason goes to MEMORY_EMBEDDED_REDIS_ERROR for the settings to read.
    """
    from memory_platform.embedded import (
        EmbeddedServerError,
        ensure_embedded_postgres,
        ensure_embedded_valkey,
    )

    data = data_dir()
    data.mkdir(parents=True, exist_ok=True)
    metrics_dir().mkdir(parents=True, exist_ok=True)
    static_root().mkdir(parents=True, exist_ok=True)
    if not _env("DJANGO_SECRET_KEY"):
        _secret_key_ensure()
    if not servers:
        return
    if postgres_wanted():
        ensure_embedded_postgres(data / "pg", EMBEDDED_DATABASE_NAME)
    if valkey_wanted():
        try:
            ensure_embedded_valkey(data / "valkey")
        except EmbeddedServerError as exc:
            os.environ[VALKEY_ERROR_VARIABLE] = str(exc)
        else:
            os.environ.pop(VALKEY_ERROR_VARIABLE, None)
