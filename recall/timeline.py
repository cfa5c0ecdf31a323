"""Recall with time (issue 33): which of a user's facts held on a day, which are past, and the
timeline index that holds the facts an update closed beside the current ones.

The default read ranks the user's current index and only leaves out an active fact whose
`valid_to` has passed ("used to live in Paris"). `as_of` and a prompt about the past rank the
timeline instead: one query more (its stamp), kept per process.
"""

from __future__ import annotations

import datetime

import numpy as np
from django.db import connection

from core.lexicon import has_phrase, lexicon
from core.words import words_of
from integrations.embeddings import current_model_id
from memories.models import Memory
from memories.periods import period_label
from recall.index import (
    LOCAL_MAX_USERS,
    TIMELINE_ROWS,
    UserIndex,
    fetch_records,
    index_build,
    local_lock,
    stamp_text,
    timelines,
)
from recall.ranking import Ranked

# The timeline's freshness: any change of its rows' text, status or time moves it.
_STAMP_COLUMNS = (
    "count(*), max(updated_at), coalesce(sum(hashtext(id || content_hash || embedding_model "
    "|| status || coalesce(valid_from::text, '') || coalesce(valid_to::text, '') "
    "|| stated_at::text)::bigint), 0)"
)


def user_timeline_get(*, end_user_id: int) -> UserIndex:
    """The user's timeline index: the active memories and the superseded ones an update
    closed (`valid_to` set), each with when it holds."""
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT {_STAMP_COLUMNS} FROM {Memory._meta.db_table} "
            f"WHERE end_user_id = %s AND {TIMELINE_ROWS}",
            [end_user_id],
        )
        stamp = stamp_text(*cursor.fetchone())
    model_id = current_model_id()
    with local_lock:
        index = timelines.get(end_user_id)
    if index is not None and index.stamp == stamp and index.model_id == model_id:
        return index
    index = index_build(
        end_user_id=end_user_id,
        stamp=stamp,
        model_id=model_id,
        records=fetch_records(end_user_id, TIMELINE_ROWS)[0],
    )
    with local_lock:
        timelines[end_user_id] = index
        timelines.move_to_end(end_user_id)
        while len(timelines) > LOCAL_MAX_USERS:
            timelines.popitem(last=False)
    return index


def current_rows(index: UserIndex, today: datetime.date) -> np.ndarray | None:
    """The rows that hold today (not replaced, no end passed); None when all do, so the
    default read ranks exactly as before."""
    if index.valid_to is None or index.replaced is None:
        return None
    ended = (index.valid_to > 0) & (index.valid_to <= today.toordinal())
    past = ended | index.replaced
    return None if not past.any() else ~past


def rows_held_on(index: UserIndex, day: datetime.date) -> np.ndarray:
    """The rows that held on `day`: begun by then (`valid_from`, else the day it was said) and
    not yet ended (`valid_to` is exclusive: the day the next fact took over)."""
    at = day.toordinal()
    size = index.size
    valid_from = index.valid_from if index.valid_from is not None else np.zeros(size, np.int64)
    valid_to = index.valid_to if index.valid_to is not None else np.zeros(size, np.int64)
    stated = index.stated if index.stated is not None else np.zeros(size, np.int64)
    began = np.where(valid_from > 0, valid_from, stated)
    return (began <= at) & ((valid_to == 0) | (at < valid_to))


def past_rows(index: UserIndex, today: datetime.date) -> np.ndarray:
    """The rows that no longer hold: replaced by an update, or ended before today."""
    current = current_rows(index, today)
    return np.zeros(index.size, dtype=bool) if current is None else ~current


def asks_about_past(prompt: str) -> bool:
    """Whether a prompt asks about the user's past ("where did I use to work", "what was my
    old car", "when did I start at Acme"): a phrase of the `past_cues` lexicon."""
    return has_phrase(prompt, "past_cues")


def period_of(index: UserIndex, row: int) -> str:
    """The period label of one row ("since May 2025"), "" when its time is unknown."""
    if index.valid_from is None or index.valid_to is None:
        return ""
    start, end = int(index.valid_from[row]), int(index.valid_to[row])
    return period_label(
        datetime.date.fromordinal(start) if start else None,
        datetime.date.fromordinal(end) if end else None,
    )


# A prompt about the past wants a past fact among the first answers: within this many, the
# ranking stands; else the best past fact the prompt reaches comes first.
PAST_WITHIN = 3
# How many past facts are ranked apart for it (the best one is used).
PAST_FIRST = 1


def past_first(ranked: Ranked, of_past: Ranked, past: np.ndarray) -> Ranked:
    """A prompt about the past ("who was my manager before Helen?") answered with the best
    past fact first when the ranking of every fact left none in its first `PAST_WITHIN` (the
    current ones share its words). `of_past` ranks the past facts alone, under the same
    relevance floor: a past fact the prompt does not reach is never brought in."""
    if past[ranked.rows[:PAST_WITHIN]].any() or not of_past.rows.size:
        return ranked
    row, score = of_past.rows[0], of_past.scores[0]
    keep = ranked.rows != row
    size = max(len(ranked.rows), 1)
    rows = np.concatenate(([row], ranked.rows[keep]))[:size]
    scores = np.concatenate(([score], ranked.scores[keep]))[:size]
    signals = ranked.signals
    if signals:
        first = of_past.signals[0] if of_past.signals else {}
        kept = [s for s, k in zip(signals, keep, strict=True) if k]
        signals = tuple([first, *kept][:size])
    return Ranked(rows=rows, scores=scores.astype(ranked.scores.dtype), signals=signals)


def _anchor_words(prompt: str) -> list[str]:
    """The words that name what came after the time asked about ("before the Pixel": "pixel"),
    up to the end of the prompt; none when no `time_before` phrase is said or it names only
    function words ("before that", "before I moved")."""
    words = words_of(prompt)
    light = lexicon("function_words") | lexicon("determiners") | lexicon("subject_pronouns")
    for phrase in sorted(lexicon("time_before"), key=len, reverse=True):
        said = phrase.split()
        for at in range(len(words) - len(said) + 1):
            if words[at : at + len(said)] == said:
                return [w for w in words[at + len(said) :] if w not in light]
    return []


def before_first(ranked: Ranked, index: UserIndex, prompt: str, past: np.ndarray) -> Ranked:
    """A prompt that names a time by the fact that came after it ("which phone did I have
    before the Pixel?") answered first by the past facts that ended by the time the named one
    began: the one it replaced (ended the day it began) even when the prompt's words do not
    reach it, then those the prompt reaches that ended earlier; the named fact after them. The
    named fact is a recalled one whose caption says every anchor word; no query more."""
    anchor = _anchor_words(prompt)
    if not anchor or index.valid_to is None or index.valid_from is None or index.stated is None:
        return ranked
    named = [
        int(row)
        for row in ranked.rows
        if all(any(w.startswith(a) for w in words_of(index.captions[row])) for a in anchor)
    ]
    if not named:
        return ranked
    began = min(int(index.valid_from[r]) or int(index.stated[r]) for r in named)
    ended = index.valid_to
    replaced = [
        int(row) for row in np.flatnonzero(past & (ended == began)) if int(row) not in named
    ]
    reached = [
        int(row)
        for row in ranked.rows
        if past[row] and int(row) not in named and 0 < ended[row] <= began
    ]
    first = list(dict.fromkeys(replaced + reached))
    if not first:
        return ranked
    rest = [int(row) for row in ranked.rows if int(row) not in first]
    size = max(len(ranked.rows), 1)
    rows = np.array((first + rest)[:size], dtype=ranked.rows.dtype)
    score = {int(row): s for row, s in zip(ranked.rows, ranked.scores, strict=True)}
    top = float(ranked.scores[0]) if ranked.scores.size else 0.0
    scores = np.array([score.get(int(r), top) for r in rows], dtype=ranked.scores.dtype)
    signals = ranked.signals
    if signals:
        by_row = {int(row): sig for row, sig in zip(ranked.rows, signals, strict=True)}
        signals = tuple(by_row.get(int(r), {}) for r in rows)
    return Ranked(rows=rows, scores=scores, signals=signals)
