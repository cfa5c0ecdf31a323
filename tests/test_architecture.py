"""The dependency rule, read from the source tree: apps depend one way and no module circles.

    core, integrations  <-  tenants  <-  memories  <-  extraction | recall  <-  agents
        <-  memory_platform  <-  config

`core` is the kernel every app imports (errors, metrics, request ids, logging, the API's
plumbing); `integrations` the clients of outside services (they report to core's metrics and
request context). `memory_platform` is the wiring on top: settings, urls, the admin site, wsgi,
Celery, gunicorn, the embedded servers. `config` is its old name, kept as re-exports for
installs that still name config.settings or config.wsgi: it imports the wiring only, and
nothing imports it. `bench` is dev-only and nothing imports it. `testing` holds the
test doubles the tests and the benches share (the LLM stub): the bench may import it, no runtime
package may, and it imports nothing of the project.

What counts as an import:
- every `import x` and `from x import y`, at module level or inside a function;
- a string that names a project module or an attribute of one ("tenants.authentication.
  TenantAPIKeyAuthentication" in REST_FRAMEWORK, `include("memories.urls")`, an app's
  `default_site`): Django imports it;
- importing `a.b.c` runs the package `a.b`'s `__init__`, so it imports what that imports too.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
LAYERS = ("core", "integrations", "tenants", "memories", "extraction", "recall", "agents")
PACKAGES = (*LAYERS, "memory_platform", "config", "bench", "testing")

# What each top-level package may import of the others (itself always).
ALLOWED: dict[str, set[str]] = {
    "core": set(),
    # The outside clients report to the kernel: metrics, the request's tenant.
    "integrations": {"core"},
    "tenants": {"core", "integrations"},
    "memories": {"core", "integrations", "tenants"},
    "extraction": {"core", "integrations", "tenants", "memories"},
    "recall": {"core", "integrations", "tenants", "memories"},
    # The agent tools front both extraction (remember) and recall (recall, context).
    "agents": {"core", "integrations", "tenants", "memories", "extraction", "recall"},
    # The wiring composes every layer.
    "memory_platform": set(LAYERS),
    # The wiring's old name: re-exports of it, for installs made before the rename.
    "config": {"memory_platform"},
    "bench": {*LAYERS, "memory_platform", "testing"},
    # Doubles of the outside world; what they need of the project is handed in.
    "testing": set(),
}
RUNTIME = (*LAYERS, "memory_platform", "config")
# Services not named so: the extraction job's life and the write pipeline, the context.
SERVICE_MODULES = {"extraction.jobs", "extraction.pipeline", "recall.context"}
# Modules of one concept allowed past the size limit; each says why in its docstring.
LONG_MODULES: set[str] = set()
MAX_LINES = 500
# Named in DJANGO_SETTINGS_MODULE, which Django reads from the environment: not imported by name.
SETTINGS_MODULES = {"memory_platform.settings", "config.settings", "bench.settings"}
# A Celery task's name, kept from when Celery named it by its path (queued messages still run).
TASK_NAMES = {"extraction.tasks.extraction_job_run_task"}
# A dotted name in a string: "memories.urls", "core.jsonlog.JsonFormatter".
_DOTTED = re.compile(r"^[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+$")


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _sources() -> dict[str, Path]:
    """Every project module (migrations included) by dotted name."""
    return {
        _module_name(path): path
        for package in PACKAGES
        for path in sorted((ROOT / package).rglob("*.py"))
    }


def _imports(name: str, path: Path, known: set[str]) -> Iterator[tuple[str, int]]:
    """The project modules `name` imports, with the line of each import."""
    is_package = path.name == "__init__.py"
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, node.lineno
        elif isinstance(node, ast.ImportFrom):
            if node.level:  # relative: resolve against this module's package
                base = name.split(".")
                base = base[: len(base) - node.level + (1 if is_package else 0)]
                module = ".".join([*base, node.module] if node.module else base)
            else:
                module = node.module or ""
            for alias in node.names:
                submodule = f"{module}.{alias.name}"
                yield (submodule if submodule in known else module), node.lineno
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            target = _named_module(node.value, known)
            if target is not None:
                yield target, node.lineno


def _named_module(text: str, known: set[str]) -> str | None:
    """The project module a string names ("a.b" or its attribute "a.b.Name"), if any."""
    if not _DOTTED.match(text) or text in SETTINGS_MODULES | TASK_NAMES:
        return None
    if text in known:
        return text
    module = text.rpartition(".")[0]
    return module if module in known else None


def _with_packages(target: str, known: set[str]) -> list[str]:
    """`target` and the packages whose `__init__` importing it runs (those that import)."""
    parts = target.split(".")
    return [
        ".".join(parts[:end]) for end in range(1, len(parts)) if ".".join(parts[:end]) in known
    ] + [target]


def _graph() -> dict[str, list[tuple[str, int]]]:
    sources = _sources()
    known = set(sources)
    return {
        name: [
            (module, line)
            for target, line in _imports(name, path, known)
            if target.split(".")[0] in PACKAGES
            for module in _with_packages(target, known)
            if module != name and not name.startswith(f"{module}.")
        ]
        for name, path in sources.items()
    }


def test_imports_inside_functions_and_relative_ones_are_seen(tmp_path):
    source = tmp_path / "module.py"
    source.write_text(
        "from memories.models import Memory\n"
        "def f():\n"
        "    from recall import selectors\n"
        "    import extraction.jobs\n"
        "from . import signals\n"
    )
    known = {"recall.selectors", "memories.signals"}

    found = sorted(_imports("memories.services", source, known))

    assert found == [
        ("extraction.jobs", 4),
        ("memories.models", 1),
        ("memories.signals", 5),
        ("recall.selectors", 3),
    ]


def test_strings_naming_a_module_and_package_inits_count_as_imports(tmp_path):
    source = tmp_path / "urls.py"
    source.write_text(
        'urlpatterns = [include("memories.urls")]\n'
        'AUTH = ["tenants.authentication.TenantAPIKeyAuthentication"]\n'
        '"""A docstring naming memories.models is prose."""\n'
        'SETTINGS = "memory_platform.settings"\n'
    )
    known = {"memories", "memories.urls", "tenants.authentication", "memory_platform.settings"}

    found = sorted(_imports("memory_platform.urls", source, known))

    assert found == [("memories.urls", 1), ("tenants.authentication", 2)]
    assert _with_packages("memories.admin.review", {"memories.admin", "memories.admin.review"}) == [
        "memories.admin",
        "memories.admin.review",
    ]


def test_the_source_tree_is_read():
    graph = _graph()
    assert ("memories.models", 9) in graph["extraction.models"]
    assert any(target == "extraction.jobs" for target, _ in graph["extraction.tasks"])
    # The wiring's string references: an app's urls, the authentication class.
    assert any(target == "memories.urls" for target, _ in graph["memory_platform.urls"])
    settings_targets = {target for target, _ in graph["memory_platform.settings"]}
    assert "tenants.authentication" in settings_targets


@pytest.mark.parametrize("package", PACKAGES)
def test_each_package_imports_only_the_layers_below_it(package):
    sources = _sources()
    wrong = [
        f"{sources[name].relative_to(ROOT)}:{line} imports {target}"
        for name, edges in _graph().items()
        if name.split(".")[0] == package
        for target, line in edges
        if target.split(".")[0] not in ALLOWED[package] | {package}
    ]
    assert not wrong, "imports against the dependency rule:\n" + "\n".join(wrong)


def test_no_module_imports_itself_through_a_circle():
    graph = {name: {target for target, _ in edges} for name, edges in _graph().items()}
    state: dict[str, str] = {}
    circles: list[list[str]] = []

    def visit(name: str, trail: list[str]) -> None:
        state[name] = "open"
        for target in sorted(graph.get(name, ())):
            if target == name or target not in graph:
                continue
            if state.get(target) == "open":
                circles.append([*trail[trail.index(target) :], target])
            elif target not in state:
                visit(target, [*trail, target])
        state[name] = "done"

    for name in sorted(graph):
        if name not in state:
            visit(name, [name])
    assert not circles, "import circles:\n" + "\n".join(" -> ".join(c) for c in circles)


def test_the_service_layer_raises_application_errors_and_never_imports_drf():
    """Services and selectors raise the ApplicationError family (core.exceptions);
    only the APIs and the one exception handler map errors to HTTP with DRF."""
    sources = _sources()
    layer = {
        name
        for name in sources
        if {"services", "selectors"} & set(name.split(".")) or name in SERVICE_MODULES
    }
    wrong = [
        f"{sources[name].relative_to(ROOT)}:{line} imports {target}"
        for name in sorted(layer)
        for target, line in _imports(name, sources[name], set(sources))
        if target.split(".")[0] == "rest_framework"
    ]
    assert {"extraction.jobs", "recall.services", "memories.services.reviews"} <= layer
    assert not wrong, "DRF in the service layer:\n" + "\n".join(wrong)


def test_no_runtime_module_grows_past_the_size_limit_unless_it_is_one_concept():
    long = [
        f"{path.relative_to(ROOT)} ({lines} lines)"
        for package in RUNTIME
        for path in (ROOT / package).rglob("*.py")
        if "migrations" not in path.parts
        and (lines := len(path.read_text().splitlines())) > MAX_LINES
        and str(path.relative_to(ROOT)) not in LONG_MODULES
    ]
    assert not long, "modules over the limit:\n" + "\n".join(long)


def test_the_bench_app_is_not_installed_by_the_production_settings():
    from django.conf import settings

    from memory_platform import settings as production

    assert "bench" not in production.INSTALLED_APPS
    assert "bench" not in settings.INSTALLED_APPS


def test_the_wheel_ships_the_runtime_packages_and_not_the_bench_or_the_test_doubles():
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    shipped = project["tool"]["setuptools"]["packages"]["find"]["include"]
    assert sorted(p.rstrip("*") for p in shipped) == sorted(RUNTIME)


def test_the_docker_image_copies_every_runtime_package_and_not_the_bench_or_the_doubles():
    copied = {
        line.split()[1]
        for line in (ROOT / "Dockerfile").read_text().splitlines()
        if line.startswith("COPY ")
    }
    assert set(RUNTIME) <= copied
    assert "bench" not in copied
    assert "testing" not in copied
