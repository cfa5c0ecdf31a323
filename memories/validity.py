"""When an update closes a fact (issue 33): the replaced memory stops holding the day the new
one starts, and keeps its history, so it stays answerable as a past fact.

Pure: the services (`memories.services.conflicts`, `memories.services.reviews`) apply it.
"""

from __future__ import annotations

import datetime

from memories.models import Memory


def change_date(new: Memory) -> datetime.date:
    """The day an update took effect: when the new fact holds from, else when it was said."""
    if new.valid_from is not None:
        return new.valid_from
    return (new.stated_at or new.created_at).date()


def closing_date(old: Memory, on: datetime.date) -> datetime.date:
    """`old`'s end when an update on `on` replaces it: never before its own start (the
    schema's rule), never later than an end it already had."""
    if old.valid_from is not None and on < old.valid_from:
        on = old.valid_from
    if old.valid_to is not None and old.valid_to < on:
        return old.valid_to
    return on
