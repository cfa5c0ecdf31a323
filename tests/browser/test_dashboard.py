"""An operator opens the admin after a few real extractions and recalls and reads the dashboard:
the charts hold today's figures, the tenant table the tokens the LLM reported, and the page
costs the same number of queries however much data there is."""

from __future__ import annotations

import json
import threading
import urllib.parse
import urllib.request
import uuid
from collections.abc import Iterator

import pytest
from django.core.signals import request_finished, request_started
from django.db import connection
from django.db.backends import utils as db_utils
from django.db.models import Sum

from extraction.models import ExtractionJob
from extraction.reader import offline_candidates
from recall.access import access_flush
from tenants.models import TenantUsage
from testing.llm_stub import extracting_chat_reply
from tests.browser.admin_login import log_in, operator_create
from tests.factories import TenantFactory, api_key_for, dashboard_populate

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

TALKS = [
    "I moved to Lisbon in March and I work as a data engineer at a bank.",
    "My daughter Ana started school this week; I'm allergic to peanuts, by the way.",
    "We adopted a beagle called Toby and I've been learning Portuguese on weekends.",
]


@pytest.fixture(autouse=True)
def _hashing_embedder(settings):
    settings.MEMORY_EMBEDDER = "hashing"


@pytest.fixture
def server_queries() -> Iterator[list[str]]:
    """The SQL statements the live server runs while it serves a request, in order.

    Only those: a background thread's (the recall's access-statistics flusher writes when its
    timer fires, the one query by which a count once read 10 instead of 9) would make the
    count depend on timing, and the test thread's setup is not the server's work."""
    seen: list[str] = []
    original = db_utils.CursorWrapper._execute
    serving = threading.local()

    def started(**kwargs) -> None:
        serving.request = True

    def finished(**kwargs) -> None:
        serving.request = False

    def counting(self, sql, params, *ignored):
        if getattr(serving, "request", False):
            seen.append(sql)
        return original(self, sql, params, *ignored)

    request_started.connect(started, dispatch_uid="server_queries")
    request_finished.connect(finished, dispatch_uid="server_queries")
    db_utils.CursorWrapper._execute = counting
    try:
        yield seen
    finally:
        db_utils.CursorWrapper._execute = original
        request_started.disconnect(dispatch_uid="server_queries")
        request_finished.disconnect(dispatch_uid="server_queries")


def _call(live_server, key: str, method: str, path: str, body: dict | None = None) -> dict:
    request = urllib.request.Request(
        f"{live_server.url}{path}",
        method=method,
        data=None if body is None else json.dumps(body).encode(),
        headers={"Authorization": f"Bearer {key}", "Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.loads(response.read())


def _log_in(page, live_server) -> None:
    operator_create()
    log_in(page, live_server)


def _index_queries(page, live_server, server_queries: list[str]) -> int:
    server_queries.clear()
    page.goto(f"{live_server.url}/admin/")
    page.locator("#dashboard").wait_for()
    return len(server_queries)


def test_the_dashboard_shows_what_the_service_did_today(
    page, live_server, llm_settings, server_queries, screenshot
):
    llm_settings.always(extracting_chat_reply(offline_candidates))
    tenant = TenantFactory(name="acme-chat")
    key = api_key_for(tenant)
    user = str(uuid.uuid4())
    for text in TALKS:
        talk = [{"role": "user", "content": text}, {"role": "assistant", "content": "Ok!"}]
        _call(
            live_server, key, "POST", "/memories/extract", {"user_id": user, "conversation": talk}
        )
    for prompt in ("What should I cook for dinner?", "Plan my Saturday", "How is work going?"):
        query = urllib.parse.urlencode({"user_id": user, "prompt": prompt})
        _call(live_server, key, "GET", f"/memories/relevant?{query}")
    # The recalls' access counts are written by a background flush; written now, by this
    # thread, they cannot land among the dashboard's own queries counted below.
    access_flush()

    _log_in(page, live_server)
    queries_small = _index_queries(page, live_server, server_queries)

    panel = page.locator('figure[data-chart="Extractions and recalls"]')
    assert panel.locator("rect[data-series=Extractions]").last.get_attribute("data-value") == "3"
    assert panel.locator("rect[data-series=Recalls]").last.get_attribute("data-value") == "3"
    assert "Extractions: 3" in panel.locator(".legend").inner_text()
    new_memories = page.locator('figure[data-chart="New memories"] rect').last
    assert int(new_memories.get_attribute("data-value")) >= 5
    jobs = ExtractionJob.objects.aggregate(p=Sum("prompt_tokens"), c=Sum("completion_tokens"))
    row = page.locator("#dashboard-tenants tbody tr", has_text="acme-chat")
    cells = row.locator("td").all_inner_texts()
    assert cells[3] == str(len(llm_settings.calls))  # LLM calls, as the stub received them
    assert (int(cells[4]), int(cells[5])) == (jobs["p"], jobs["c"]) != (0, 0)
    usage = TenantUsage.objects.get(tenant=tenant)
    assert (usage.prompt_tokens, usage.completion_tokens) == (jobs["p"], jobs["c"])
    # Hovering a bar names the day and the figure (an SVG <title>, no JavaScript).
    assert page.locator("#dashboard script").count() == 0
    screenshot(page, "dashboard.png")

    dashboard_populate(tenants=8, per_tenant=30)
    assert _index_queries(page, live_server, server_queries) == queries_small


def test_the_server_s_query_count_leaves_out_other_threads(live_server, server_queries):
    def background_write() -> None:  # as the access-statistics flusher does, on its timer
        with connection.cursor() as cursor:
            cursor.execute("SELECT 'not the server'")
        connection.close()

    thread = threading.Thread(target=background_write)
    thread.start()
    thread.join()
    with urllib.request.urlopen(f"{live_server.url}/health", timeout=30) as response:
        assert response.status == 200

    assert server_queries  # /health asks the database
    assert not any("not the server" in sql for sql in server_queries)
