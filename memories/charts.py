"""Bar charts as inline SVG, drawn on the server: no JavaScript, no CDN, no build step."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

WIDTH = 640
HEIGHT = 170
# Room for the y-axis labels on the left and the dates below.
LEFT = 44
BOTTOM = 22
TOP = 8
RIGHT = 6


@dataclass(frozen=True)
class Series:
    """One coloured set of bars: its label, one value per day, and its colour."""

    label: str
    values: list[int]
    colour: str


def daily_bars(*, title: str, dates: list[date], series: list[Series]) -> SafeString:
    """Grouped bars, one group per day; each bar's exact figure is its tooltip (`<title>`)."""
    peak = max((v for s in series for v in s.values), default=0)
    top = _nice_ceiling(peak)
    plot_w = WIDTH - LEFT - RIGHT
    plot_h = HEIGHT - TOP - BOTTOM
    slot = plot_w / max(len(dates), 1)
    bar_w = max(slot * 0.8 / max(len(series), 1), 1.0)
    parts = [
        f'<svg class="dashboard-chart" viewBox="0 0 {WIDTH} {HEIGHT}" role="img" '
        f'aria-label="{escape(title)}" xmlns="http://www.w3.org/2000/svg">',
        f"<title>{escape(title)}</title>",
    ]
    for fraction in (0.0, 0.5, 1.0):
        y = TOP + plot_h * (1 - fraction)
        parts.append(
            f'<line x1="{LEFT}" x2="{WIDTH - RIGHT}" y1="{y:.1f}" y2="{y:.1f}" class="grid"/>'
            f'<text x="{LEFT - 4}" y="{y + 4:.1f}" text-anchor="end" class="axis">'
            f"{_short(top * fraction)}</text>"
        )
    for n, day in enumerate(dates):
        x0 = LEFT + n * slot + slot * 0.1
        for k, s in enumerate(series):
            value = s.values[n]
            h = plot_h * value / top if top else 0.0
            x = x0 + k * bar_w
            parts.append(
                f'<rect x="{x:.1f}" y="{TOP + plot_h - h:.1f}" width="{bar_w:.1f}" '
                f'height="{h:.1f}" fill="{s.colour}" data-series="{escape(s.label)}" '
                f'data-value="{value}"><title>{escape(s.label)}, {day:%d %b}: {value}</title>'
                "</rect>"
            )
    for n in sorted({0, len(dates) // 2, len(dates) - 1}):
        if 0 <= n < len(dates):
            x = LEFT + n * slot + slot / 2
            # The outer dates align inwards so that neither is cut at the edge.
            anchor = "start" if n == 0 else "end" if n == len(dates) - 1 else "middle"
            x = LEFT if anchor == "start" else WIDTH - RIGHT if anchor == "end" else x
            parts.append(
                f'<text x="{x:.1f}" y="{HEIGHT - 6}" text-anchor="{anchor}" class="axis">'
                f"{dates[n]:%d %b}</text>"
            )
    parts.append("</svg>")
    # Every piece of text above went through escape(); numbers and dates are formatted here.
    return mark_safe("".join(parts))


def _nice_ceiling(value: int) -> int:
    """The axis top: 1, 2 or 5 times a power of ten, at least `value` (1 when all are 0)."""
    if value <= 0:
        return 1
    magnitude = 1
    while magnitude * 10 <= value:
        magnitude *= 10
    for step in (1, 2, 5, 10):
        if step * magnitude >= value:
            return step * magnitude
    return 10 * magnitude


def _short(value: float) -> str:
    """12 -> 12, 2.5 -> 2.5, 12,500 -> 12.5k, 3,000,000 -> 3M: axis labels stay narrow."""
    for size, suffix in ((1_000_000, "M"), (1_000, "k")):
        if value >= size:
            return f"{value / size:.1f}".rstrip("0").rstrip(".") + suffix
    return f"{value:.1f}".rstrip("0").rstrip(".")
