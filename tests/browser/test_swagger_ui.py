"""A developer, in a real browser, opens Swagger UI, authorizes with an API key and runs
GET /memories/list: 200 with the user's memory. Swagger's files come from the service itself."""

from __future__ import annotations

from urllib.parse import urlsplit

import pytest

from tenants.models import TenantAPIKey
from tests.factories import EndUserFactory, MemoryFactory, TenantFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_swagger_ui_authorizes_with_a_key_and_runs_an_operation(page, live_server, screenshot):
    tenant = TenantFactory(name="acme-chat")
    end_user = EndUserFactory(tenant=tenant)
    MemoryFactory(end_user=end_user, caption="User prefers window seats")
    _, raw_key = TenantAPIKey.objects.create_key(
        tenant=tenant, name="docs", scope=TenantAPIKey.Scope.READ
    )
    # Anything not from the live server (a CDN) is refused and noted.
    elsewhere: list[str] = []
    own_host = urlsplit(live_server.url).netloc

    def outside(route) -> None:
        elsewhere.append(route.request.url)
        route.abort()

    page.route(lambda url: urlsplit(url).netloc != own_host, outside)

    page.goto(f"{live_server.url}/api/docs/")
    page.get_by_role("button", name="Authorize").first.click()
    dialog = page.locator(".modal-ux")
    assert "ApiKeyAuth" in dialog.inner_text()
    assert "Authorization: Bearer <key>" in dialog.inner_text()
    dialog.get_by_label("auth-bearer-value").fill(raw_key)
    dialog.get_by_role("button", name="Apply credentials").click()
    dialog.locator("button", has_text="Logout").wait_for()  # authorized
    dialog.get_by_role("button", name="Close").click()

    operation = page.locator("#operations-memories-memories_list")
    operation.locator(".opblock-summary").first.click()
    operation.get_by_role("button", name="Try it out").click()
    operation.locator('tr[data-param-name="user_id"] input').fill(str(end_user.external_id))
    operation.get_by_role("button", name="Execute").click()

    response = operation.locator(".live-responses-table .response")
    response.locator(".response-col_status").first.wait_for()
    assert response.locator(".response-col_status").first.inner_text().strip() == "200"
    assert "User prefers window seats" in response.inner_text()
    # The request Swagger made carried the key as the bearer scheme says.
    assert "Authorization: Bearer" in operation.locator(".curl-command").inner_text()
    operation.locator(".live-responses-table").scroll_into_view_if_needed()
    screenshot(page, "swagger-authorized.png", full_page=False)
    assert elsewhere == []
