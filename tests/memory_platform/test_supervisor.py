"""`run_local`'s supervisor with real child processes: a helper that exits is started again with
a bounded, doubling delay that starts over after a healthy run; the web server exiting stops
everything. Small delays stand in for the real ones (set in the supervising process)."""

from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
import time

import psutil

from memory_platform.supervisor import RESTART_FIRST_SECONDS, RESTART_MAX_SECONDS, restart_delay
from tests.processes import ROOT

_DRIVER = """
import json, sys
import memory_platform.supervisor as s
s.RESTART_FIRST_SECONDS, s.RESTART_MAX_SECONDS, s.HEALTHY_SECONDS = {first}, {most}, {healthy}
sys.exit(s.supervise(json.loads(sys.argv[1])))
"""
_RESTART = re.compile(
    r"worker exited with status (-?\d+) after \d+ s; starting it again in ([\d.]+) s"
)


def _python(code: str) -> list[str]:
    return [sys.executable, "-c", code]


def _supervisor(commands: dict[str, list[str]], first: float, most: float, healthy: float):
    driver = _DRIVER.format(first=first, most=most, healthy=healthy)
    return subprocess.Popen(
        [*_python(driver), json.dumps(commands)],
        cwd=ROOT, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip


def _restart_delays(supervisor: subprocess.Popen, count: int) -> tuple[list[str], list[float]]:
    """Read the supervisor's log until `count` restarts were scheduled; their statuses, delays."""
    statuses: list[str] = []
    delays: list[float] = []
    deadline = time.monotonic() + 120  # generous: a loaded machine starts Python slowly
    while len(delays) < count and time.monotonic() < deadline:
        line = supervisor.stderr.readline()
        if match := _RESTART.search(line):
            statuses.append(match.group(1))
            delays.append(float(match.group(2)))
    return statuses, delays


def _stopped(supervisor: subprocess.Popen) -> int:
    supervisor.send_signal(signal.SIGTERM)
    return supervisor.wait(timeout=60)


def test_the_restart_delay_doubles_from_the_first_up_to_the_longest():
    delays = [restart_delay(failures) for failures in range(1, 12)]

    assert delays[:3] == [
        RESTART_FIRST_SECONDS,
        2 * RESTART_FIRST_SECONDS,
        4 * RESTART_FIRST_SECONDS,
    ]
    assert max(delays) == delays[-1] == RESTART_MAX_SECONDS


def test_a_helper_that_keeps_exiting_is_started_again_after_doubling_bounded_delays():
    commands = {
        "web": _python("import time; time.sleep(300)"),
        "worker": _python("import sys; sys.exit(3)"),
    }
    supervisor = _supervisor(commands, first=0.1, most=0.4, healthy=300)
    try:
        statuses, delays = _restart_delays(supervisor, 5)
    finally:
        code = _stopped(supervisor)

    assert statuses == ["3"] * 5
    assert delays == [0.1, 0.2, 0.4, 0.4, 0.4]
    assert code == 0  # stopped by its signal, not by a child


def test_a_helper_that_ran_a_healthy_while_starts_again_after_the_first_delay():
    commands = {
        "web": _python("import time; time.sleep(300)"),
        "worker": _python("import time, os, signal; time.sleep(1); os.kill(os.getpid(), 9)"),
    }
    supervisor = _supervisor(commands, first=0.1, most=10, healthy=0.5)
    try:
        statuses, delays = _restart_delays(supervisor, 3)
    finally:
        _stopped(supervisor)

    assert statuses == ["-9"] * 3  # kill -9 is an exit like any other
    assert delays == [0.1, 0.1, 0.1]


def test_the_web_server_exiting_stops_the_others_and_is_the_exit_status(tmp_path):
    pid_file = tmp_path / "worker.pid"
    commands = {
        "web": _python("import sys, time; time.sleep(2); sys.exit(7)"),
        "worker": _python(
            f"import os, time; open({str(pid_file)!r}, 'w').write(str(os.getpid())); "
            "time.sleep(300)"
        ),
    }
    supervisor = _supervisor(commands, first=0.1, most=0.4, healthy=300)
    code = supervisor.wait(timeout=120)
    log = supervisor.stderr.read()

    assert code == 7
    assert "web exited with status 7; stopping the others" in log
    assert not psutil.pid_exists(int(pid_file.read_text()))
