"""A user's facts on a timeline (issue 33): one bar per fact from when it began to hold to when
it stopped (or today), as inline SVG drawn on the server, with the updates that closed facts and
the operators' review decisions marked. The admin's memory page shows it."""

from __future__ import annotations

import datetime
from dataclasses import dataclass, field

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

from memories.periods import period_label

WIDTH = 760
ROW = 22
LEFT = 250  # the captions' column
RIGHT = 12
TOP = 8
AXIS = 22
CAPTION_CHARS = 38


@dataclass(frozen=True)
class Mark:
    """Something that happened to a fact on a day: an update, a review decision."""

    day: datetime.date
    kind: str  # "update" (it was replaced) or "review" (an operator or the policy decided)
    label: str


@dataclass(frozen=True)
class Fact:
    """One memory as the timeline draws it."""

    id: str
    caption: str
    start: datetime.date  # valid_from, else the day it was said
    end: datetime.date | None  # valid_to (exclusive), None while it holds
    status: str
    valid_from: datetime.date | None = None
    marks: tuple[Mark, ...] = field(default_factory=tuple)
    focus: bool = False  # the memory whose page this is


def timeline_svg(facts: list[Fact], *, today: datetime.date) -> SafeString:
    """The picture: a row per fact, oldest first; a past fact's bar is grey, a current one's
    green, one held for review dashed; each bar's period is its tooltip."""
    if not facts:
        return mark_safe('<p class="timeline-empty">No facts to draw.</p>')
    first = min(f.start for f in facts)
    last = max([today, *(f.end for f in facts if f.end), *(m.day for f in facts for m in f.marks)])
    span = max((last - first).days, 1)
    plot = WIDTH - LEFT - RIGHT
    height = TOP + ROW * len(facts) + AXIS

    def x(day: datetime.date) -> float:
        return LEFT + plot * (day - first).days / span

    parts = [
        f'<svg class="memory-timeline" viewBox="0 0 {WIDTH} {height}" width="{WIDTH}" '
        f'role="img" aria-label="The user\'s facts over time" '
        'xmlns="http://www.w3.org/2000/svg">',
        "<title>The user's facts over time</title>",
        "<style>.fact{fill:#3a8f5b}.fact.past{fill:#9aa0a6}.fact.pending{fill:#fff;"
        "stroke:#d08a00;stroke-dasharray:4 2}.focus text.caption{font-weight:bold}"
        ".caption,.axis{font:11px sans-serif;fill:#333}.mark.update{fill:#c0392b}"
        ".mark.review{fill:#1f5fa8}</style>",
    ]
    for row, fact in enumerate(sorted(facts, key=lambda f: (f.start, f.id))):
        y = TOP + row * ROW
        past = (fact.end is not None and fact.end <= today) or fact.status == "superseded"
        kind = "pending" if fact.status == "pending_review" else "past" if past else "current"
        end = fact.end or today
        width = max(x(end) - x(fact.start), 3.0)
        period = period_label(fact.valid_from, fact.end) or f"since {fact.start:%d %b %Y}"
        caption = (
            fact.caption
            if len(fact.caption) <= CAPTION_CHARS
            else (fact.caption[: CAPTION_CHARS - 1] + "\u2026")
        )
        parts.append(
            f'<g class="row{" focus" if fact.focus else ""}" data-memory="{escape(fact.id)}">'
            f'<text class="caption" x="4" y="{y + 14}">{escape(caption)}</text>'
            f'<rect class="fact {kind}" x="{x(fact.start):.1f}" y="{y + 4}" '
            f'width="{width:.1f}" height="{ROW - 8}" rx="3" data-memory="{escape(fact.id)}">'
            f"<title>{escape(fact.caption)}: {escape(period)} ({escape(fact.status)})</title>"
            "</rect>"
        )
        for mark in fact.marks:
            cx, cy = x(mark.day), y + ROW / 2
            parts.append(
                f'<path class="mark {escape(mark.kind)}" d="M{cx:.1f} {cy - 6:.1f} '
                f'l5 6 l-5 6 l-5 -6 z" data-day="{mark.day.isoformat()}">'
                f"<title>{mark.day.isoformat()}: {escape(mark.label)}</title></path>"
            )
        parts.append("</g>")
    axis_y = TOP + ROW * len(facts) + 14
    for day, anchor in ((first, "start"), (last, "end")):
        parts.append(
            f'<text class="axis" x="{x(day):.1f}" y="{axis_y}" text-anchor="{anchor}">'
            f"{day:%b %Y}</text>"
        )
    parts.append("</svg>")
    # Every piece of text above went through escape(); numbers and dates are formatted here.
    return mark_safe("".join(parts))
