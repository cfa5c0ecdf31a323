"""A headless Chromium from Debian driven by Playwright, against pytest-django's live server.

Never a downloaded browser: Playwright is pointed at /usr/bin/chromium (`apt-get install
chromium`, which .ci/run does). Without it, or without the playwright package, the browser
tests are skipped and say why.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

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
