"""The calendar days a prompt names ("what did I tell you on 3 June, 2023?", "in January
2024"), so recall can prefer what the user said then.

A day needs its month and year, a month its year: "in May" alone, "May 3" or "a cat called
May" name no day a memory can be matched to (which year?). The months are the `months`
lexicon; no date of the prompt is resolved against today (recall.timeline reads "last week").
"""

from __future__ import annotations

import calendar
import datetime
from dataclasses import dataclass

import numpy as np

from core.lexicon import lexicon
from core.words import names_a_year, words_of


def _month(word: str) -> int | None:
    """The month a word names (1-12), "sept" and "jan." spellings the lexicon holds too."""
    if word not in lexicon("months"):
        return None
    for number in range(1, 13):
        full = calendar.month_name[number].lower()
        if full.startswith(word[:3]):
            return number
    return None


def _year(word: str) -> int | None:
    return int(word) if len(word) == 4 and names_a_year(word) else None


def _day(word: str | None) -> int | None:
    if word is None:
        return None
    word = word.removesuffix("st").removesuffix("nd").removesuffix("rd").removesuffix("th")
    return int(word) if word.isdigit() and 1 <= int(word) <= 31 else None


@dataclass(frozen=True)
class Named:
    """The days a prompt names: a span of days (proleptic ordinals, both ends included), or
    a month of any year ("in June": the user's Junes, whichever year they said it in)."""

    first: int = 0
    last: int = 0
    month: int | None = None

    def holds(self, days: np.ndarray, *, after: int = 0) -> np.ndarray:
        """(n,) whether each day (ordinals; 0: unknown) falls in what was named, or up to
        `after` days later (told a few days after)."""
        if self.month is None:
            return (days >= self.first) & (days <= self.last + after)
        known = days > 0
        # Ordinals to months of the year: the day as numpy's datetime64, then its month.
        epoch = datetime.date(1970, 1, 1).toordinal()
        later = (days - after - epoch).astype("datetime64[D]").astype("datetime64[M]")
        earlier = (days - epoch).astype("datetime64[D]").astype("datetime64[M]")
        months = later.astype(np.int64) % 12 + 1
        return known & ((months == self.month) | (earlier.astype(np.int64) % 12 + 1 == self.month))


def _in_words() -> frozenset[str]:
    """The words that make a month alone a time ("in June", "during March"): the one-word
    phrases `time_roles` reads as the time a fact held at."""
    return frozenset(
        phrase
        for role, _, phrase in (entry.partition(" ") for entry in lexicon("time_roles"))
        if role == "at" and " " not in phrase
    )


def days_named(prompt: str) -> Named | None:
    """The days the prompt names: one day ("3 June, 2023", "June 3rd 2023"), a whole month
    ("January 2024") or a month of any year ("in June"); the first one named, None when it
    names none."""
    words = words_of(prompt)
    for at, word in enumerate(words):
        month = _month(word)
        if month is None:
            continue
        before = words[at - 1] if at else None
        after = words[at + 1 : at + 3]
        # "3 June 2023" / "June 3 2023" / "June 2023".
        if after and _year(after[0]) is not None:
            year = _year(after[0])
            day = _day(before)
            if day is None and before == "of" and at >= 2:
                day = _day(words[at - 2])  # "the 3rd of June 2023"
        elif len(after) == 2 and _day(after[0]) is not None and _year(after[1]) is not None:
            year, day = _year(after[1]), _day(after[0])
        elif before in _in_words() and not (after and _day(after[0]) is not None):
            return Named(month=month)
        else:
            continue
        assert year is not None
        last = calendar.monthrange(year, month)[1]
        if day is not None and day <= last:
            ordinal = datetime.date(year, month, day).toordinal()
            return Named(ordinal, ordinal)
        first = datetime.date(year, month, 1).toordinal()
        return Named(first, first + last - 1)
    return None
