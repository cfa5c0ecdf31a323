"""How a fact's time reads (issue 33): its period ("since October 2026", "until 2019", "from
March 2021 to June 2024") and, for a kind of fact that moves with time (the registry's `ages`),
today's value with when it was said ("about 36 (said 34 on 2024-11-02)").

Pure functions of dates and captions: the context and `explain=true` show them.
"""

from __future__ import annotations

import datetime
import re

from memories.attributes import attribute
from memories.facets import facets_read

_DAYS_A_YEAR = 365.2425


def date_text(day: datetime.date) -> str:
    """A validity bound as people say it: a year alone when it is the year's first day (what
    "in 2019" resolves to), else the month ("March 2021")."""
    if (day.month, day.day) == (1, 1):
        return str(day.year)
    return day.strftime("%B %Y")


def period_label(valid_from: datetime.date | None, valid_to: datetime.date | None) -> str:
    """The period a fact held or holds, "" when neither bound is known."""
    if valid_from and valid_to:
        start, end = date_text(valid_from), date_text(valid_to)
        return f"in {start}" if start == end else f"from {start} to {end}"
    if valid_from:
        return f"since {date_text(valid_from)}"
    if valid_to:
        return f"until {date_text(valid_to)}"
    return ""


def years_between(earlier: datetime.date, later: datetime.date) -> int:
    """Whole years from `earlier` to `later` (0 when later is not later)."""
    return max(0, int((later - earlier).days // _DAYS_A_YEAR))


def caption_today(caption: str, stated_on: datetime.date | None, today: datetime.date) -> str:
    """`caption` with a value that grows with time (an age) brought to today: "User is 34",
    said on 2024-11-02, is "User is about 36 (said 34 on 2024-11-02)" in 2026. Unchanged when
    it states no such value, or less than a year has passed."""
    if stated_on is None:
        return caption
    elapsed = years_between(stated_on, today)
    if not elapsed:
        return caption
    for facet in facets_read(caption):
        if not facet.value.isdigit() or facet.past:
            continue
        if facet.attribute.startswith("practice") or not attribute(facet.attribute).ages:
            continue
        said = int(facet.value)
        replaced, count = re.subn(rf"\b{said}\b", f"about {said + elapsed}", caption, count=1)
        if count:
            return f"{replaced} (said {said} on {stated_on.isoformat()})"
    return caption
