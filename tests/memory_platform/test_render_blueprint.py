"""render.yaml (the Render Blueprint) against the project: its commands parse with the real
command-line parsers and name modules and commands that exist, every variable it sets is one the
settings read, and the processes reach the database and Key Value it declares.

No database and no Render: the file is read and checked here.
"""

from __future__ import annotations

import importlib.util
import shlex
from pathlib import Path
from typing import Any

import click
import pytest
import yaml
from celery import Celery
from celery.app.utils import find_app
from celery.bin.celery import celery as celery_cli
from django.core.management import CommandError, get_commands, load_command_class
from gunicorn.config import Config as GunicornConfig
from pgvector.django import VectorExtension

from tests.processes import ROOT
from tests.test_docs import environment_reads

BLUEPRINT = ROOT / "render.yaml"
# Read by Render's build, not by the service.
PLATFORM_VARIABLES = frozenset({"PYTHON_VERSION"})


@pytest.fixture(scope="module")
def blueprint() -> dict[str, Any]:
    return yaml.safe_load(BLUEPRINT.read_text())


def services(blueprint: dict[str, Any], *types: str) -> list[dict[str, Any]]:
    return [s for s in blueprint["services"] if s["type"] in types]


def apps(blueprint: dict[str, Any]) -> list[dict[str, Any]]:
    """The services that run the project's code (web and background workers)."""
    return services(blueprint, "web", "worker")


def commands(service: dict[str, Any]) -> list[list[str]]:
    """A service's build, pre-deploy and start commands, split as a shell would."""
    fields = ("buildCommand", "preDeployCommand", "startCommand")
    return [shlex.split(service[field]) for field in fields if field in service]


# --- each command, parsed as its own program would ------------------------------------------


def check_pip(args: list[str]) -> None:
    assert args[:2] == ["install", "-e"] and Path(args[2]) == Path(".")
    assert (ROOT / args[2] / "pyproject.toml").exists()


def check_manage_py(args: list[str]) -> None:
    """A management command that exists, with options its parser accepts."""
    name, *options = args
    assert name in get_commands(), f"no management command {name!r}"
    command = load_command_class(get_commands()[name], name)
    command.create_parser("manage.py", name).parse_args(options)


def check_gunicorn(args: list[str]) -> None:
    """gunicorn's own parser; the WSGI module and the config module exist."""
    parsed, unknown = GunicornConfig().parser().parse_known_args(args)
    assert not unknown, f"gunicorn has no option {unknown}"
    assert parsed.args == ["memory_platform.wsgi"]
    assert importlib.util.find_spec("memory_platform.wsgi") is not None
    assert parsed.config == "python:memory_platform.gunicorn_conf"
    assert importlib.util.find_spec("memory_platform.gunicorn_conf") is not None
    # Render routes to the port it puts in $PORT, on every interface.
    assert parsed.bind == ["0.0.0.0:$PORT"]


def check_celery(args: list[str]) -> str:
    """Celery's own (click) parsers, without running anything; the app exists; the subcommand."""
    options, rest, _ = celery_cli.make_parser(click.Context(celery_cli)).parse_args(args)
    app = find_app(options["app"])
    assert isinstance(app, Celery) and app.main == "memory_platform"
    name, *sub_args = rest
    subcommand = celery_cli.commands[name]
    subcommand.make_parser(click.Context(subcommand)).parse_args(sub_args)
    return name


def run_command(argv: list[str]) -> str:
    """Check one command; what it runs ("pip", "migrate", "gunicorn", "worker", "beat")."""
    program, *args = argv
    if program == "pip":
        check_pip(args)
        return "pip"
    if program == "python" and args[0] == "manage.py":
        check_manage_py(args[1:])
        return args[1]
    if program == "gunicorn":
        check_gunicorn(args)
        return "gunicorn"
    if program == "celery":
        return check_celery(args)
    raise AssertionError(f"an unknown program: {shlex.join(argv)}")


# --- the Blueprint ---------------------------------------------------------------------------


def test_web_migrates_then_serves_with_gunicorn_and_one_worker_and_one_beat_run_celery(
    blueprint,
):
    ran = {s["name"]: [run_command(argv) for argv in commands(s)] for s in apps(blueprint)}

    (web,) = services(blueprint, "web")
    assert ran[web["name"]] == ["pip", "migrate", "gunicorn"]
    workers = sorted(ran[s["name"]][-1] for s in services(blueprint, "worker"))
    assert workers == ["beat", "worker"]  # one beat: two would schedule every job twice
    assert all(steps[0] == "pip" for steps in ran.values())


def test_the_processes_reach_the_database_and_key_value_it_declares(blueprint):
    (database,) = blueprint["databases"]
    (key_value,) = services(blueprint, "keyvalue")
    for service in apps(blueprint):
        variables = {v["key"]: v for v in service["envVars"] if "key" in v}
        assert variables["DATABASE_URL"]["fromDatabase"] == {
            "name": database["name"],
            "property": "connectionString",
        }, service["name"]
        assert variables["REDIS_URL"]["fromService"] == {
            "type": "keyvalue",
            "name": key_value["name"],
            "property": "connectionString",
        }, service["name"]
    # Key Value holds the Celery queue: a full instance must not drop queued jobs.
    assert key_value["maxmemoryPolicy"] == "noeviction"
    assert key_value["ipAllowList"] == [] and database["ipAllowList"] == []


def test_pgvector_needs_no_step_of_its_own_the_first_migration_creates_it():
    migration = importlib.import_module("memories.migrations.0001_initial").Migration
    assert any(isinstance(op, VectorExtension) for op in migration.operations)


def test_every_variable_it_sets_is_one_the_settings_read(blueprint):
    groups = {group["name"]: group["envVars"] for group in blueprint["envVarGroups"]}
    entries = [v for vs in groups.values() for v in vs]
    for service in apps(blueprint):
        used = [v["fromGroup"] for v in service["envVars"] if "fromGroup" in v]
        assert used == list(groups), f"{service['name']} does not use the shared settings"
        entries += [v for v in service["envVars"] if "key" in v]
    read = environment_reads(
        (ROOT / name).read_text()
        for name in ("memory_platform/settings.py", "memory_platform/local.py")
    )
    set_here = {entry["key"] for entry in entries}

    assert set_here - PLATFORM_VARIABLES <= read, sorted(set_here - PLATFORM_VARIABLES - read)
    assert {"DATABASE_URL", "REDIS_URL", "DJANGO_SECRET_KEY", "DJANGO_ALLOWED_HOSTS"} <= set_here
    # Secrets are made by Render or asked for, never written here.
    secrets = [e for e in entries if e["key"] in {"DJANGO_SECRET_KEY", "OPENAI_API_KEY"}]
    assert secrets and all("value" not in e for e in secrets)
    assert all(e.get("generateValue") or e.get("sync") is False for e in secrets)


# --- the checks themselves catch what they are for ------------------------------------------


@pytest.mark.parametrize(
    "command",
    [
        "python manage.py migrat --noinput",  # no such command
        "python manage.py migrate --no-input-please",  # no such option
        "gunicorn memory_platform.wsgi --config python:memory_platform.gunicorn_conf"
        " --bind 0.0.0.0:8000",  # port
        "gunicorn memory_platform.wsgi --bind 0.0.0.0:$PORT",  # without the JSON errors and timeout
        "gunicorn memory_platform.wsgi --config python:memory_platform.gunicorn_conf"
        " --bind 0.0.0.0:$PORT --wokers 2",
        "celery -A memory_platform worker --concurency 2",
        "celery -A nowhere worker",
        "uvicorn memory_platform.asgi:application",
    ],
)
def test_run_command_refuses_what_would_not_start(command):
    with pytest.raises((AssertionError, CommandError, click.ClickException, ImportError)):
        run_command(shlex.split(command))
