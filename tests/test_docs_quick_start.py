"""README.md's quick start, its first screen, says what a new user needs before the first call,
read against the code that it describes:

- the block `make run` prints last is shown as `run_local` renders it, with the credentials;
- the rule for `user_id`, with examples the rule accepts;
- what the default conflict policy does, and the real ways to switch a tenant to `supersede`.

No database: these tests only read files and call pure functions.
"""

from __future__ import annotations

import re
import uuid

import pytest

from core.user_ids import USER_ID_MAX_LENGTH, USER_ID_PATTERN
from memory_platform.management.commands.run_local import ready_block
from tenants.models import ConflictPolicy, Tenant
from tests.test_docs import README, environment_reads

# A first screen: the quick start starts within it.
FIRST_SCREEN_LINES = 20
SETTINGS = README.parent / "memory_platform" / "settings.py"


@pytest.fixture(scope="module")
def quick_start() -> str:
    """The README's "Quick start" section, up to the next heading of its level."""
    text = README.read_text()
    start = text.index("\n## Quick start\n")
    assert text[:start].count("\n") < FIRST_SCREEN_LINES, "the quick start is below the fold"
    end = text.find("\n## ", start + 1)
    return text[start : end if end != -1 else None]


def test_it_shows_the_block_make_run_prints_last_with_the_login_and_the_key(quick_start):
    frame = re.search(r"^(\+-+\+)\n(?:\|.*\|\n)+\1$", quick_start, re.MULTILINE)
    assert frame, "no framed block in the quick start"
    shown = frame.group(0)
    inner = [line[3:-3].rstrip() for line in shown.splitlines()[1:-1]]
    credentials = [line for line in inner if line.startswith(("Admin:", "API docs:", "API key"))]
    base = "http://127.0.0.1:8000"
    # bootstrap_local's three lines (tests/memory_platform/test_local_run.py holds them to its
    # output).
    assert re.fullmatch(rf"Admin:    {base}/admin/  user 'admin'  password \S+", credentials[0])
    assert credentials[1] == f"API docs: {base}/api/docs/"
    assert re.fullmatch(r"API key \(tenant 'local'\): \S+", credentials[2])
    # The rest is what `run_local` prints around them, exactly.
    printed = ready_block(["web", "worker", "beat"], base, "ok", [], credentials)
    assert shown == printed.strip("\n")
    assert "last" in quick_start and "credentials" in quick_start.lower()


def test_it_states_the_user_id_rule_with_examples_the_rule_accepts(quick_start):
    rule = re.search(
        r"`user_id`\*\* is [^.]*?any 1-(\d+) printable characters, such as ([^;]+); UUIDs work",
        " ".join(quick_start.split()),
    )
    assert rule, "the quick start does not state the user_id rule"
    assert int(rule.group(1)) == USER_ID_MAX_LENGTH
    examples = re.findall(r'`"([^"`]+)"`', rule.group(2))
    assert len(examples) >= 2
    for example in examples:
        assert re.fullmatch(USER_ID_PATTERN, example) and len(example) <= USER_ID_MAX_LENGTH
    # Ids as agent frameworks keep them, not UUIDs.
    for example in examples:
        with pytest.raises(ValueError):
            uuid.UUID(example)


def test_it_says_what_the_default_conflict_policy_does_and_how_to_switch_a_tenant(quick_start):
    text = " ".join(quick_start.split())
    default = re.search(
        r'env_choice\(\s*"MEMORY_CONFLICT_POLICY",\s*"(\w+)"', SETTINGS.read_text()
    ).group(1)
    assert default == ConflictPolicy.REVIEW
    assert f"default conflict policy `{default}`" in text
    assert "review queue" in text and "we moved to Lisbon" in text
    # The tenant's field in the admin, by its label and the choice's label...
    field = Tenant._meta.get_field("conflict_policy")
    assert f"*{field.verbose_name.capitalize()}*" in text
    assert f"*{ConflictPolicy.SUPERSEDE.label}*" in text
    # ...and the variable for every tenant, which the settings read.
    assert f"`MEMORY_CONFLICT_POLICY={ConflictPolicy.SUPERSEDE.value}`" in text
    assert "MEMORY_CONFLICT_POLICY" in environment_reads([SETTINGS.read_text()])
