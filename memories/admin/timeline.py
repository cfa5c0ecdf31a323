"""The memory page's timeline (issue 33): the user's facts as bars, updates and review
decisions marked (`memories.timeline_chart` draws it)."""

from __future__ import annotations

from django.utils import timezone
from django.utils.safestring import SafeString

from memories.models import Memory, ReviewItem
from memories.selectors import VISIBLE_STATUSES
from memories.timeline_chart import Fact, Mark, timeline_svg

# The most facts one picture draws (the newest): a user's cap plus some history.
TIMELINE_FACTS = 60


def user_timeline(*, memory: Memory) -> SafeString:
    """The timeline of `memory`'s user, `memory` in bold."""
    rows = list(
        Memory.objects.filter(end_user_id=memory.end_user_id)
        .filter(status__in=[*VISIBLE_STATUSES, Memory.Status.SUPERSEDED])
        .only("id", "caption", "status", "stated_at", "valid_from", "valid_to", "created_at")
        .order_by("-created_at", "id")[:TIMELINE_FACTS]
    )
    marks: dict[str, list[Mark]] = {}
    for row in rows:
        if row.status == Memory.Status.SUPERSEDED and row.valid_to:
            marks.setdefault(row.id, []).append(
                Mark(row.valid_to, "update", "replaced by an update")
            )
    items = ReviewItem.objects.filter(end_user_id=memory.end_user_id, new_memory__isnull=False)
    for item in items.select_related("resolved_by").order_by("created_at")[:TIMELINE_FACTS]:
        if item.status == ReviewItem.Status.PENDING:
            mark = Mark(item.created_at.date(), "review", "held for review")
        else:
            who = (
                "the supersede policy" if item.auto_resolved else item.resolved_by or "an operator"
            )
            when = (item.resolved_at or item.created_at).date()
            mark = Mark(when, "review", f"{item.get_resolution_display()} by {who}")
        if item.new_memory_id is not None:  # the query asks for items with one
            marks.setdefault(item.new_memory_id, []).append(mark)
    facts = [
        Fact(
            id=row.id,
            caption=row.caption,
            start=row.valid_from or row.stated_at.date(),
            end=row.valid_to,
            status=row.status,
            valid_from=row.valid_from,
            marks=tuple(marks.get(row.id, ())),
            focus=row.id == memory.id,
        )
        for row in rows
    ]
    return timeline_svg(facts, today=timezone.now().date())
