"""Template context processors of the memory domain (TEMPLATES' `context_processors`)."""

from __future__ import annotations

from typing import Any

from django.db.models import Count, Min
from django.http import HttpRequest
from django.utils.functional import SimpleLazyObject

from memories.selectors import review_item_pending_list
from tenants.scoping import scoped


def review_queue_summary(request: HttpRequest) -> dict[str, Any]:
    """The pending review count and the oldest item's age, of the operator's tenants.

    Lazy, so a page that does not show it costs no query. The admin index shows it.
    """

    def summary() -> dict[str, Any]:
        pending = scoped(request, review_item_pending_list(), "end_user__tenant")
        return pending.order_by().aggregate(pending=Count("pk"), oldest=Min("created_at"))

    return {"review_queue": SimpleLazyObject(summary)}
