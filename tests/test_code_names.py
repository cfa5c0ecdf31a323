"""Every dotted code name the documentation and the docstrings cite still exists.

A name is cited in backticks: `memories.models.Memory`, `core.lexicon.lexicon(name)`. Only
names whose first part is one of the project's top-level packages are read (so that
`os.environ` or `self.cache` are not); a file name (`extraction.md`, `recall.py`) and a system
check's id (`recall.W001`) are not code names. Each is resolved by import: the longest prefix
that is a module, then attributes.

Where they are read: README.md and docs/*.md, and the docstrings (module, class, function) of
every module of the project's packages.
"""

from __future__ import annotations

import ast
import importlib
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from testing.wheel_smoke import APPS

ROOT = Path(__file__).resolve().parent.parent
# The project's packages: what ships (the wheel's apps, the old wiring name) and the dev-only ones.
PACKAGES = frozenset({*APPS, "bench", "testing", "tests"})
DOCUMENTS = (ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")))
# Endings that make a dotted word a file's name rather than code's.
FILE_ENDINGS = frozenset(
    {"md", "py", "toml", "txt", "json", "jsonl", "html", "yaml", "yml", "png", "cfg", "ini"}
)
# `a.b.c`, `a.b.c()` or `a.b.c(name, *, ...)`: the whole backticked span is one name.
_CITED = re.compile(r"`([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+)(?:\([^`]*\))?`")
# A system check's id: `recall.W001` (Django's levels: Debug, Info, Warning, Error, Critical).
_CHECK_ID = re.compile(r"^[DIWEC]\d{3}$")


def cited(text: str) -> Iterator[str]:
    """The project's dotted names cited in backticks in `text`."""
    for match in _CITED.finditer(text):
        name = match.group(1)
        parts = name.split(".")
        if parts[0] not in PACKAGES or parts[-1] in FILE_ENDINGS or _CHECK_ID.match(parts[-1]):
            continue
        yield name


def resolves(name: str) -> bool:
    """Whether `name` is a module, or an attribute (at any depth) of one."""
    parts = name.split(".")
    for end in range(len(parts), 0, -1):
        try:
            target: object = importlib.import_module(".".join(parts[:end]))
        except ModuleNotFoundError as exc:
            if exc.name is None or not ".".join(parts[:end]).startswith(exc.name):
                raise  # the module exists but imports something missing: a real error
            continue
        for attribute in parts[end:]:
            if not hasattr(target, attribute):
                return False
            target = getattr(target, attribute)
        return True
    return False


def _docstrings(path: Path) -> Iterator[tuple[int, str]]:
    tree = ast.parse(path.read_text(), filename=str(path))
    for node in ast.walk(tree):
        if isinstance(
            node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef
        ) and (docstring := ast.get_docstring(node, clean=False)):
            yield (node.body[0].lineno if node.body else 1), docstring


def citations() -> Iterator[tuple[str, str]]:
    """(where, name) for every citation in the documents and the docstrings."""
    for document in DOCUMENTS:
        for number, line in enumerate(document.read_text().splitlines(), start=1):
            for name in cited(line):
                yield f"{document.relative_to(ROOT)}:{number}", name
    for package in sorted(PACKAGES):
        for path in sorted((ROOT / package).rglob("*.py")):
            for line, docstring in _docstrings(path):
                for name in cited(docstring):
                    yield f"{path.relative_to(ROOT)}:{line}", name


def test_a_citation_is_read_only_when_it_names_the_project_s_code():
    text = (
        "`memories.services.memory_create(*, ...)` and `core.lexicon.lexicon(name)`; "
        "not `os.environ`, `self.cache`, `extraction.md`, `recall.domains.toml` or `recall.W001`; "
        "not a [link](memories.md) nor a sentence ending in recall."
    )

    assert list(cited(text)) == ["memories.services.memory_create", "core.lexicon.lexicon"]


def test_a_name_resolves_to_a_module_or_an_attribute_of_one():
    assert resolves("core.lexicon")
    assert resolves("core.lexicon.lexicon")
    assert resolves("memories.models.Memory.objects")
    assert not resolves("core.lexicon.no_such_function")
    assert not resolves("core.no_such_module")
    assert not resolves("core.no_such_module.function")


@pytest.mark.django_db
def test_every_cited_code_name_exists():
    found = list(citations())
    missing = [f"{where}: `{name}`" for where, name in found if not resolves(name)]

    # Both sources are read (128 citations when this test was written).
    assert sum(".md:" in where for where, _ in found) > 20
    assert sum(".py:" in where for where, _ in found) > 20

    assert not missing, "cited code names that do not exist:\n" + "\n".join(missing)
