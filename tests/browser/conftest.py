"""A headless Chromium from Debian driven by Playwright, against pytest-django's live server.

Never a downloaded browser: Playwright is pointed at /usr/bin/chromium (`apt-get install
chromium`, which .ci/run does). Without it, or without the playwright package, the browser
tests are skipped and say why.

Also the review queue's conflicts (`conflicts`), which the operators' browser tests share.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest
from django.utils import timezone

from memories.models import Memory, ReviewItem
from tests.factories import (
    AgentSessionFactory,
    EndUserFactory,
    MemoryEvidenceFactory,
    TenantFactory,
    conflict_make,
)

CHROMIUM = Path(os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium"))
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
# Screenshots for docs/ are rewritten only when asked: UPDATE_SCREENSHOTS=1.
DOCS = Path(__file__).resolve().parents[2] / "docs"


def browser_skip_reason() -> str | None:
    """Why the browser tests cannot run here, or None when they can."""
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "the playwright package is missing (pip install -e '.[dev]')"
    if not (CHROMIUM.is_file() and os.access(CHROMIUM, os.X_OK)):
        return f"no Chromium at {CHROMIUM} (apt-get install chromium; .ci/run installs it)"
    return None


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    reason = browser_skip_reason()
    if reason is None:
        return
    for item in items:
        if item.get_closest_marker("browser") is not None:
            item.add_marker(pytest.mark.skip(reason=f"browser test skipped: {reason}"))


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    """One Chromium per test module, closed before the next module's tests run."""
    from playwright.sync_api import sync_playwright

    # Playwright's sync API runs an asyncio loop in this thread for as long as it is started,
    # so Django would refuse the tests' (synchronous) ORM calls as "async unsafe" meanwhile.
    previous = os.environ.get("DJANGO_ALLOW_ASYNC_UNSAFE")
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(
                executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS
            )
            try:
                yield browser
            finally:
                browser.close()
    finally:
        if previous is None:
            os.environ.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
        else:
            os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = previous


@pytest.fixture
def page(browser) -> Iterator[object]:
    context = browser.new_context(viewport={"width": 1440, "height": 900}, locale="en-US")
    context.set_default_timeout(15_000)
    page = context.new_page()
    try:
        yield page
    finally:
        context.close()


@pytest.fixture
def screenshot(tmp_path):
    """Save a page's screenshot: into docs/ when UPDATE_SCREENSHOTS=1, else into tmp_path."""
    target = DOCS if os.environ.get("UPDATE_SCREENSHOTS") == "1" else tmp_path

    def take(page, name: str, *, full_page: bool = True) -> Path:
        path = target / name
        page.screenshot(path=str(path), full_page=full_page)
        return path

    return take


def _conflict(
    end_user, new, existing, *, similarity, reason, hours_ago, session=None, said=("", "")
):
    """A conflict filed `hours_ago`; `said` is what the user said for the new and the existing
    memory (their evidence), when given."""
    item = conflict_make(end_user, new, (existing,), similarity=similarity, reason=reason)
    filed = timezone.now() - timedelta(hours=hours_ago)
    ReviewItem.objects.filter(pk=item.pk).update(created_at=filed)
    # Said when stored, as the pipeline stores a fact said in the request.
    Memory.objects.filter(pk=item.new_memory_id).update(
        created_at=filed, stated_at=filed, last_stated_at=filed
    )
    before = filed - timedelta(days=40)
    Memory.objects.filter(conflicting_reviews=item).update(
        created_at=before,
        stated_at=before,
        last_stated_at=before,
        access_count=7,
        last_accessed_at=filed,
    )
    if session is not None:
        Memory.objects.filter(pk=item.new_memory_id).update(source_session=session)
    said_new, said_before = said
    if said_new:
        MemoryEvidenceFactory(
            memory_id=item.new_memory_id, session=session, position=4, quote=said_new,
            said_at=filed,
        )  # fmt: skip
    if said_before:
        MemoryEvidenceFactory(
            memory=item.existing_memories.get(), position=0, quote=said_before,
            said_at=before,
        )  # fmt: skip
    return item


@pytest.fixture
def conflicts():
    """Four conflicts of one user, oldest first, and one of another tenant's user."""
    end_user = EndUserFactory(tenant=TenantFactory(name="acme-chat"))
    session = AgentSessionFactory(end_user=end_user, external_id="chat-2024-05-12")
    items = {
        "keep_new": _conflict(
            end_user,
            "User lives in Munich",
            "User lives in Berlin",
            similarity=0.88,
            reason="different value of 'lives in': 'berlin' before, 'munich' now",
            hours_ago=50,
            session=session,
            said=("we finally moved to Munich last week", "I live in Berlin, in Prenzlauer Berg"),
        ),
        "keep_existing": _conflict(
            end_user,
            "User is vegan",
            "User is vegetarian",
            similarity=0.91,
            reason="different value of 'diet': 'vegetarian' before, 'vegan' now",
            hours_ago=30,
        ),
        "keep_both": _conflict(
            end_user,
            "User likes green tea",
            "User likes coffee",
            similarity=0.86,
            reason="LLM judge: a new preference may replace the old one",
            hours_ago=20,
        ),
        "merge": _conflict(
            end_user,
            "User works at Initech",
            "User works at Acme",
            similarity=0.87,
            reason="different value of 'works at': 'acme' before, 'initech' now",
            hours_ago=5,
            session=session,
        ),
    }
    other = EndUserFactory(tenant=TenantFactory(name="globex-support"))
    _conflict(
        other,
        "User's dog is called Rex",
        "User's dog is called Bello",
        similarity=0.9,
        reason="different value of 'pet name:dog': 'bello' before, 'rex' now",
        hours_ago=2,
    )
    return items
