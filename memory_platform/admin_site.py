"""The admin site: "Memory platform", with the operators' dashboard on its front page.

Part of the wiring: it composes the apps' figures (memories, tenants' usage) into one page,
and Django builds the default site from it before any app registers its model pages.
"""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest
from django.template.response import TemplateResponse

from memories.charts import Series, daily_bars
from memories.dashboard import (
    CONFLICTS_FILED,
    CONFLICTS_RESOLVED,
    HYGIENE_COLUMNS,
    NEW_MEMORIES,
    Dashboard,
    dashboard_get,
    hygiene_rows,
)
from memories.hygiene import memory_audit
from tenants.scoping import request_tenant_ids

# The admin's palette (its --primary, --secondary...), so the charts match the pages.
BLUE, LIGHT_BLUE, ORANGE, GREEN, RED = "#417690", "#79aec8", "#c4884a", "#5b8c5a", "#ba2121"
# (title, [(series label, daily key, colour)]) of each chart, in page order.
CHARTS = [
    (
        "Extractions and recalls",
        [("Extractions", "extractions", BLUE), ("Recalls", "recalls", LIGHT_BLUE)],
    ),
    ("New memories", [("New memories", NEW_MEMORIES, GREEN)]),
    (
        "Conflicts filed and resolved",
        [("Filed", CONFLICTS_FILED, ORANGE), ("Resolved", CONFLICTS_RESOLVED, GREEN)],
    ),
    ("Failed extractions", [("Failed extractions", "failed_extractions", RED)]),
]


class MemoryAdminSite(admin.AdminSite):
    """Django's admin under the product's name; the index adds the dashboard."""

    site_header = "Memory platform"
    site_title = "Memory platform"
    index_title = "Dashboard"

    def index(self, request: HttpRequest, extra_context: dict | None = None) -> TemplateResponse:
        context = dict(extra_context or {})
        if request.user.has_perm("tenants.view_tenantusage"):
            # A scoped operator's dashboard counts their tenants only (looked up once per
            # request, shared with the review queue box).
            tenant_ids = request_tenant_ids(request)
            context["dashboard"] = dashboard_context(dashboard_get(tenant_ids=tenant_ids))
            # The store audit of the same tenants (a fixed number of queries, like the rest).
            context["hygiene"] = {
                "columns": HYGIENE_COLUMNS,
                "rows": hygiene_rows(memory_audit(tenant_ids=tenant_ids)),
            }
        return super().index(request, extra_context=context)

    def get_app_list(self, request: HttpRequest, app_label: str | None = None) -> list[dict]:
        """The apps and models of the index, app pages and sidebar, a model named by its
        admin's `list_label` where it has one (the review queue), so each page agrees."""
        app_list = super().get_app_list(request, app_label)
        for app in app_list:
            for entry in app["models"]:
                label = getattr(self._registry.get(entry["model"]), "list_label", None)
                if label:
                    entry["name"] = label
            app["models"].sort(key=lambda entry: entry["name"])
        return app_list


def dashboard_context(dashboard: Dashboard) -> dict[str, Any]:
    """The dashboard's figures as the template draws them: SVG charts, legends, a table."""
    charts = []
    for title, lines in CHARTS:
        series = [
            Series(label, [day[key] for day in dashboard.days], colour)
            for label, key, colour in lines
        ]
        charts.append(
            {
                "title": title,
                "svg": daily_bars(title=title, dates=dashboard.day_dates, series=series),
                "legend": [
                    {"label": s.label, "colour": s.colour, "total": sum(s.values)} for s in series
                ],
            }
        )
    return {
        "start": dashboard.start,
        "end": dashboard.end,
        "charts": charts,
        "tenants": dashboard.tenants,
        "totals": dashboard.totals,
        "queue_size": dashboard.queue_size,
        "queue_oldest": dashboard.queue_oldest,
    }
