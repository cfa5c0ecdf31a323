"""The documentation, read from the source tree: links resolve, variables are documented.

- Every relative link in README.md, docs/*.md and clients/python/README.md names a file that
  exists, and every `#anchor` matches a heading of its target (GitHub's slugs).
- Every environment variable the settings read (found by parsing the settings' source) and
  every one the runtime packages read is named in docs/configuration.md.
- README.md stays a front page: at most README_MAX_LINES lines.
- Every chat loop the documentation shows, run against stand-ins for the LLM and the service,
  sends the model no system message when the service has nothing to tell (and one carrying the
  memories when it has).

No database: these tests only read files.
"""

from __future__ import annotations

import ast
import re
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path
from types import ModuleType, SimpleNamespace
from unittest import mock

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
CONFIGURATION = ROOT / "docs" / "configuration.md"
README_MAX_LINES = 250

# The settings module.
SETTINGS_FILES = ("memory_platform/settings.py",)
# Packages that run in production; any environment read in them must be documented too.
RUNTIME_PACKAGES = (
    "memory_platform",
    "core",
    "tenants",
    "integrations",
    "memories",
    "extraction",
    "recall",
    "agents",
)
# Functions whose first argument, a string, names an environment variable.
ENV_FUNCTIONS = frozenset(
    {"env_str", "env_bool", "env_int", "env_float", "env_choice", "env_list", "_env", "getenv"}
)
# Methods of `os.environ` that read a variable named by their first argument.
ENVIRON_METHODS = frozenset({"get", "setdefault"})


# --- markdown -----------------------------------------------------------------------------

_FENCE = re.compile(r"^\s*(```|~~~)")
_HEADING = re.compile(r"^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
_INLINE_CODE = re.compile(r"(`+)(.+?)\1")
# [text](target "title") and ![alt](target); the target may be <wrapped>.
_INLINE_LINK = re.compile(
    r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*(<[^>]*>|[^\s)]*)(?:\s+[\"'(][^)]*)?\)"
)
_REFERENCE_DEFINITION = re.compile(r"^ {0,3}\[[^\]]+\]:[ \t]*(<[^>]*>|\S+)", re.MULTILINE)
_EXTERNAL = re.compile(r"^(?:[a-zA-Z][a-zA-Z0-9+.-]*:|//)")


def _prose_lines(text: str) -> Iterator[str]:
    """The lines of a markdown text outside fenced code blocks."""
    fence = ""
    for line in text.splitlines():
        match = _FENCE.match(line)
        if fence:
            if match and match.group(1) == fence:
                fence = ""
            continue
        if match:
            fence = match.group(1)
            continue
        yield line


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: the text as rendered (no code marks, link text only),
    lowercased, punctuation dropped but hyphens and underscores, spaces turned to hyphens."""
    text = _INLINE_CODE.sub(lambda match: match.group(2), heading)
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", text)
    text = re.sub(r"<[^>]+>", "", text)
    text = re.sub(r"[^\w\- ]", "", text.lower())
    return text.replace(" ", "-")


def anchors(text: str) -> set[str]:
    """Every heading anchor of a markdown text; a repeated slug gets -1, -2, ... as on GitHub."""
    seen: dict[str, int] = {}
    found: set[str] = set()
    for line in _prose_lines(text):
        match = _HEADING.match(line)
        if not match:
            continue
        base = slug(match.group(2))
        count = seen.get(base, 0)
        seen[base] = count + 1
        found.add(base if count == 0 else f"{base}-{count}")
    return found


def links(text: str) -> Iterator[str]:
    """The link and image targets of a markdown text, outside code (link text may wrap)."""
    prose = _INLINE_CODE.sub("", "\n".join(_prose_lines(text)))
    for match in _INLINE_LINK.finditer(prose):
        yield match.group(1).strip("<>")
    for match in _REFERENCE_DEFINITION.finditer(prose):
        yield match.group(1).strip("<>")


def broken_links(path: Path, root: Path) -> list[str]:
    """The relative links of `path` whose file, or whose #anchor in it, does not exist."""
    problems = []
    for target in links(path.read_text()):
        if not target or _EXTERNAL.match(target):
            continue
        file_part, _, anchor = target.partition("#")
        linked = (path.parent / file_part).resolve() if file_part else path
        where = f"{path.relative_to(root)}: {target}"
        if not linked.exists():
            problems.append(f"{where} (no such file)")
        elif anchor and linked.suffix == ".md" and anchor not in anchors(linked.read_text()):
            problems.append(f"{where} (no such heading in {linked.name})")
        elif anchor and linked.suffix != ".md":
            problems.append(f"{where} (an anchor into a file that is not markdown)")
    return problems


def markdown_files(root: Path) -> list[Path]:
    files = [root / "README.md", *sorted((root / "docs").glob("*.md"))]
    client = root / "clients" / "python" / "README.md"
    return [path for path in [*files, client] if path.exists()]


_PYTHON_BLOCK = re.compile(r"^```python\n(.*?)^```", re.MULTILINE | re.DOTALL)


def python_blocks(text: str) -> list[str]:
    """The ```python fenced blocks of a markdown text."""
    return _PYTHON_BLOCK.findall(text)


# --- chat loops -------------------------------------------------------------------------------

PROMPT = "any dinner ideas for tonight?"
CONTEXT = "What you remember about the user [memory id]:\n- User is vegetarian [mem_1]"


def chat_loops(root: Path) -> list[tuple[str, str]]:
    """(file, code) of every Python block of the documentation that chats with an LLM in a loop."""
    return [
        (str(path.relative_to(root)), block)
        for path in markdown_files(root)
        for block in python_blocks(path.read_text())
        if "while " in block and "chat.completions.create" in block
    ]


def messages_sent(loop: str, context: str) -> list[dict[str, str]]:
    """Run a chat loop for one prompt, the service's context block being `context`; what the
    loop sent the LLM. OpenAI and the client are stand-ins: nothing leaves the process."""
    sent: list[list[dict[str, str]]] = []

    def create(*, messages: list[dict[str, str]], **_: object) -> SimpleNamespace:
        sent.append([dict(message) for message in messages])
        reply = SimpleNamespace(message=SimpleNamespace(content="Try a mushroom risotto."))
        return SimpleNamespace(choices=[reply])

    class MemoryClient:
        def __init__(self, *args: object, **kwargs: object) -> None:
            pass

        def context(self, *args: object, **kwargs: object) -> SimpleNamespace:
            return SimpleNamespace(context=context, tokens=len(context.split()), memories=[])

        def extract(self, *args: object, **kwargs: object) -> None:
            pass

    openai = ModuleType("openai")
    openai.OpenAI = lambda *args, **kwargs: SimpleNamespace(
        chat=SimpleNamespace(completions=SimpleNamespace(create=create))
    )
    client = ModuleType("memory_platform_client")
    client.MemoryClient = MemoryClient
    client.MemoryPlatformError = type("MemoryPlatformError", (Exception,), {})
    prompts = iter([PROMPT, ""])  # one turn, then the empty line that ends the loop
    scope = {"__name__": "chat_loop", "input": lambda *_: next(prompts), "print": lambda *_: None}
    with mock.patch.dict(sys.modules, {"openai": openai, "memory_platform_client": client}):
        exec(compile(loop, "chat_loop", "exec"), scope)
    assert len(sent) == 1, f"the loop called the LLM {len(sent)} times for one prompt"
    return sent[0]


def system_message_problems(loop: str) -> list[str]:
    """What is wrong with the system messages a chat loop sends, with and without context."""
    problems = []
    without = messages_sent(loop, context="")
    if without != [{"role": "user", "content": PROMPT}]:
        problems.append(f"with no context it sent {without}, not the conversation alone")
    with_context = messages_sent(loop, context=CONTEXT)
    if not any(m["role"] == "system" and CONTEXT in m["content"] for m in with_context):
        problems.append(f"with context it sent {with_context}, no system message carrying it")
    return problems


# --- environment variables ------------------------------------------------------------------


def _string_constants(trees: Iterable[ast.Module]) -> dict[str, str]:
    """Module-level `NAME = "string"` assignments, for variables named through a constant."""
    constants = {}
    for tree in trees:
        for node in tree.body:
            if (
                isinstance(node, ast.Assign)
                and isinstance(node.value, ast.Constant)
                and isinstance(node.value.value, str)
            ):
                for target in node.targets:
                    if isinstance(target, ast.Name):
                        constants[target.id] = node.value.value
    return constants


def _is_os_environ(node: ast.AST) -> bool:
    """`os.environ` (a bare `environ` is not read: WSGI code names its request dict so)."""
    return (
        isinstance(node, ast.Attribute)
        and node.attr == "environ"
        and isinstance(node.value, ast.Name)
        and node.value.id == "os"
    )


def _name_argument(node: ast.AST, constants: dict[str, str]) -> str | None:
    """The variable name a call's first argument gives: a literal, or a known constant."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.Name):
        return constants.get(node.id)
    if isinstance(node, ast.Attribute):
        return constants.get(node.attr)
    return None


def environment_reads(sources: Iterable[str], constant_sources: Iterable[str] = ()) -> set[str]:
    """The environment variables Python sources read: env_*(NAME, ...), os.getenv(NAME),
    os.environ.get(NAME) / setdefault(NAME) and os.environ[NAME]. NAME is a string literal,
    or a module-level string constant of `sources` or `constant_sources`."""
    trees = [ast.parse(source) for source in sources]
    constants = _string_constants([*trees, *(ast.parse(source) for source in constant_sources)])
    names: set[str] = set()
    for tree in trees:
        for node in ast.walk(tree):
            argument = None
            if isinstance(node, ast.Call) and node.args:
                function = node.func
                called = getattr(function, "id", None) or getattr(function, "attr", None)
                is_environ_method = (
                    isinstance(function, ast.Attribute)
                    and function.attr in ENVIRON_METHODS
                    and _is_os_environ(function.value)
                )
                if called in ENV_FUNCTIONS or is_environ_method:
                    argument = node.args[0]
            elif (
                isinstance(node, ast.Subscript)
                and _is_os_environ(node.value)
                and isinstance(node.ctx, ast.Load)
            ):
                argument = node.slice
            if argument is not None:
                name = _name_argument(argument, constants)
                if name:
                    names.add(name)
    return names


def settings_paths(root: Path) -> list[Path]:
    """The settings modules of SETTINGS_FILES that exist."""
    return [root / name for name in SETTINGS_FILES if (root / name).exists()]


def runtime_paths(root: Path) -> list[Path]:
    return [
        path
        for package in RUNTIME_PACKAGES
        if (root / package).is_dir()
        for path in sorted((root / package).rglob("*.py"))
        if "migrations" not in path.parts
    ]


def undocumented(variables: Iterable[str], documentation: str) -> list[str]:
    """The variables the documentation does not name as `NAME`."""
    return sorted(name for name in variables if f"`{name}`" not in documentation)


# --- the documentation --------------------------------------------------------------------


def test_every_relative_link_and_anchor_resolves():
    files = markdown_files(ROOT)
    assert README in files and CONFIGURATION in files
    problems = [problem for path in files for problem in broken_links(path, ROOT)]
    assert not problems, "broken links:\n" + "\n".join(problems)


def test_every_variable_the_settings_read_is_in_the_configuration_page():
    paths = settings_paths(ROOT)
    assert paths, f"no settings module among {SETTINGS_FILES}"
    # A variable may be named by a constant of another module (`local.VALKEY_ERROR_VARIABLE`).
    variables = environment_reads(
        (path.read_text() for path in paths),
        constant_sources=(path.read_text() for path in runtime_paths(ROOT)),
    )
    assert len(variables) >= 20, f"the parser found too few variables: {sorted(variables)}"
    missing = undocumented(variables, CONFIGURATION.read_text())
    assert not missing, f"not in docs/configuration.md: {missing}"


def test_every_variable_the_runtime_packages_read_is_in_the_configuration_page():
    variables = environment_reads(path.read_text() for path in runtime_paths(ROOT))
    missing = undocumented(variables, CONFIGURATION.read_text())
    assert not missing, f"not in docs/configuration.md: {missing}"


def test_the_readme_is_a_front_page():
    lines = len(README.read_text().splitlines())
    assert lines <= README_MAX_LINES, f"README.md has {lines} lines, at most {README_MAX_LINES}"


def test_the_chat_loops_send_no_empty_system_message_and_the_context_when_there_is_one():
    loops = chat_loops(ROOT)
    # The agents guide and the client's README each show one; a check of nothing would pass.
    assert {where for where, _ in loops} >= {"docs/agents.md", "clients/python/README.md"}
    problems = [f"{where}: {p}" for where, loop in loops for p in system_message_problems(loop)]
    assert not problems, "\n".join(problems)


# --- the checks themselves catch what they are for ------------------------------------------


@pytest.mark.parametrize(
    ("heading", "expected"),
    [
        ("POST /memories/extract", "post-memoriesextract"),
        ("Conflicts: `bench_conflicts`", "conflicts-bench_conflicts"),
        ("Why this memory, or why none: `explain=true`", "why-this-memory-or-why-none-explaintrue"),
        ("The LLM: OpenAI, Chutes (GLM)", "the-llm-openai-chutes-glm"),
        ("Operators' guide", "operators-guide"),
        ("A [linked](other.md) heading", "a-linked-heading"),
    ],
)  # fmt: skip
def test_slug_follows_github(heading, expected):
    assert slug(heading) == expected


def test_anchors_number_repeated_headings_and_skip_code_blocks():
    text = "# Setup\n\n## Setup\n\n```sh\n# Setup\n# not a heading\n```\n\n### Setup\n"
    assert anchors(text) == {"setup", "setup-1", "setup-2"}


def test_broken_links_finds_missing_files_and_anchors(tmp_path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "other.md").write_text("# Other\n\n## Known heading\n\n## Known heading\n")
    (tmp_path / "docs" / "image.png").write_bytes(b"")
    page = tmp_path / "README.md"
    page.write_text(
        "# Page\n\n## Here\n\n"
        "[ok](docs/other.md) [ok](docs/other.md#known-heading)\n"
        "[ok](docs/other.md#known-heading-1)\n"
        "[ok](#here) ![ok](docs/image.png) [ok](https://example.com/missing.md#nowhere)\n"
        "[text that\nwraps](docs/wrapped-missing.md)\n"
        "`[not a link](missing-in-code.md)`\n"
        "```\n[not a link](missing-in-fence.md)\n```\n"
        "[bad](docs/missing.md) [bad](docs/other.md#unknown) [bad](#nowhere)\n"
        "[bad](docs/other.md#known-heading-2) [bad](docs/image.png#x)\n"
        "[ref]: docs/also-missing.md\n"
    )
    problems = broken_links(page, tmp_path)
    assert [problem.split(": ", 1)[1].split(" (")[0] for problem in problems] == [
        "docs/wrapped-missing.md",
        "docs/missing.md",
        "docs/other.md#unknown",
        "#nowhere",
        "docs/other.md#known-heading-2",
        "docs/image.png#x",
        "docs/also-missing.md",
    ]


def test_environment_reads_finds_every_form_of_read():
    source = (
        "import os\n"
        'ERROR_VARIABLE = "SAMPLE_FROM_CONSTANT"\n'
        'A = env_str("SAMPLE_STR")\n'
        'B = env_bool("SAMPLE_BOOL", False)\n'
        'C = env_int("SAMPLE_INT", 1, minimum=0)\n'
        'D = env_float("SAMPLE_FLOAT", 0.5)\n'
        'E = env_choice("SAMPLE_CHOICE", "a", ("a", "b"))\n'
        'F = env_list("SAMPLE_LIST", [])\n'
        'G = os.environ.get("SAMPLE_GET")\n'
        'H = os.getenv("SAMPLE_GETENV")\n'
        'I = os.environ["SAMPLE_SUBSCRIPT"]\n'
        'os.environ.setdefault("SAMPLE_SETDEFAULT", "x")\n'
        'J = environ.get("HTTP_HOST")\n'  # a WSGI request's environ, not the process's
        "K = env_str(local.ERROR_VARIABLE)\n"
        "def env_str(name):\n"
        '    return os.environ.get(name, "")\n'  # a name not known here: ignored
        'os.environ["SAMPLE_WRITTEN"] = "x"\n'  # a write, not a read
        'L = settings.get("NOT_THE_ENVIRONMENT")\n'
    )
    assert environment_reads([source]) == {
        "SAMPLE_FROM_CONSTANT",
        "SAMPLE_STR",
        "SAMPLE_BOOL",
        "SAMPLE_INT",
        "SAMPLE_FLOAT",
        "SAMPLE_CHOICE",
        "SAMPLE_LIST",
        "SAMPLE_GET",
        "SAMPLE_GETENV",
        "SAMPLE_SUBSCRIPT",
        "SAMPLE_SETDEFAULT",
    }


def test_undocumented_names_what_the_page_lacks():
    page = "| `DOCUMENTED` | 1 | ... |\nMENTIONED_WITHOUT_CODE_MARKS in prose\n"
    assert undocumented({"DOCUMENTED", "MENTIONED_WITHOUT_CODE_MARKS", "NEW"}, page) == [
        "MENTIONED_WITHOUT_CODE_MARKS",
        "NEW",
    ]


def test_settings_paths_finds_the_settings_module(tmp_path):
    assert settings_paths(tmp_path) == []
    (tmp_path / "memory_platform").mkdir()
    (tmp_path / "memory_platform" / "settings.py").write_text("")
    assert settings_paths(tmp_path) == [tmp_path / "memory_platform" / "settings.py"]


def test_system_message_problems_finds_an_empty_system_message_and_a_dropped_context():
    head = (
        "from openai import OpenAI\n"
        "from memory_platform_client import MemoryClient\n"
        "llm, memory = OpenAI(), MemoryClient()\n"
        "while prompt := input():\n"
        "    known = memory.context('u', prompt).context\n"
    )
    send = "    llm.chat.completions.create(model='m', messages=messages)\n"
    empty_system = (
        "    system = {'role': 'system', 'content': f'What you know about the user:\\n{known}'}\n"
        "    messages = [system, {'role': 'user', 'content': prompt}]\n"
    )
    no_context = "    messages = [{'role': 'user', 'content': prompt}]\n"
    right = (
        "    messages = [{'role': 'system', 'content': known}] * bool(known)"
        " + [{'role': 'user', 'content': prompt}]\n"
    )
    assert [
        p.split(" it sent")[0] for p in system_message_problems(head + empty_system + send)
    ] == ["with no context"]
    assert [p.split(" it sent")[0] for p in system_message_problems(head + no_context + send)] == [
        "with context"
    ]
    assert system_message_problems(head + right + send) == []
