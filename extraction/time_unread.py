"""Times the offline reader left unread (issue 33): a time the user said in a clause no
candidate came from still dates the fact told beside it.

- "they made us go hybrid in september, I'm in the Manchester office three days a week now":
  the first clause is about others and gives no candidate, but its time is the change's, and a
  fact said to hold now (`time_now.txt`) in the same sentence holds since then.
- "I present a request show on the hospital radio every Sunday." then "Since 2017.": a
  sentence that says nothing but a start ("since ...") opening a message dates the fact the
  user's previous message ended on, when that fact still holds (not told in the past).

Both read by structure (where the time stands, what the clause says of now) and the closed
classes of `extraction.time_phrases`; the dates are dateparser's, as everywhere.
"""

from __future__ import annotations

from dataclasses import replace
from itertools import pairwise

from core.lexicon import has_phrase
from core.words import sentences, words_of
from extraction.candidates import Candidate
from extraction.time_phrases import time_phrases, timely_only
from extraction.verbs import past_tense

# The roles of a time that dates a change said beside a fact of now: "in September", "since
# the spring", "back in March"; never "until", nor how long.
_CHANGE_ROLES = frozenset({"at", "from", "past"})


def candidates_dated_unread(
    candidates: list[Candidate], messages: list[dict] | None
) -> list[Candidate]:
    """The candidates, each with no time of its own dated by a time the reader left unread in
    its sentence (`_beside_now`) or in the user's next message (`_time_alone`)."""
    if not messages:
        return candidates
    texts = {
        at: str(message.get("content", ""))
        for at, message in enumerate(messages)
        if message.get("role") == "user"
    }
    dated = [_beside_now(candidate, candidates, texts) for candidate in candidates]
    return _time_alone(dated, texts)


def _untimed(candidate: Candidate) -> bool:
    return candidate.valid_from is None and candidate.valid_to is None


def _beside_now(
    candidate: Candidate, candidates: list[Candidate], texts: dict[int, str]
) -> Candidate:
    """A fact said to hold now, with no time of its own, in a sentence whose other clause (no
    candidate's) names one change time: it holds since then."""
    said = (candidate.said or "").strip(" ,;")
    text = texts.get(candidate.said_in if candidate.said_in is not None else -1)
    if not (_untimed(candidate) and said and text and candidate.said_at):
        return candidate
    if not has_phrase(said, "time_now"):
        return candidate
    sentence = next((s for s in sentences(text) if said in s), None)
    if sentence is None:
        return candidate
    rest = sentence.replace(said, " ", 1)
    told = [
        other
        for other in candidates
        if other is not candidate
        and other.said_in == candidate.said_in
        and (other.said or "").strip(" ,;")
        and (other.said or "").strip(" ,;") in rest
    ]
    if told:
        return candidate  # the other clause was read: its own time is `_since_the_change`'s
    said_on = candidate.said_at.date()
    phrases = [
        phrase
        for phrase in time_phrases(rest, candidate.said_at)
        if phrase.role in _CHANGE_ROLES and phrase.start <= said_on
    ]
    if len(phrases) != 1:
        return candidate
    return replace(candidate, valid_from=phrases[0].start)


def _time_alone(candidates: list[Candidate], texts: dict[int, str]) -> list[Candidate]:
    """A user's message opening on a sentence that is nothing but a start ("Since 2017.") dates
    the last fact of the user's message before it, when that fact has no time and is not told
    in the past."""
    dated = list(candidates)
    positions = sorted(texts)
    for earlier, later in pairwise(positions):
        opening = (sentences(texts[later]) or [""])[0]
        words = words_of(opening)
        if not words or not timely_only(words):
            continue
        last = max(
            (at for at, c in enumerate(dated) if c.said_in == earlier),
            default=None,
        )
        said_at = dated[last].said_at if last is not None else None
        if last is None or said_at is None or not _untimed(dated[last]):
            continue
        phrases = [
            phrase
            for phrase in time_phrases(opening, said_at)
            # Only a start ("Since 2017."): "In March." after "I'm moving to Leeds" may be
            # the coming one, and a time alone says nothing of which.
            if phrase.role == "from" and phrase.start <= said_at.date()
        ]
        if len(phrases) == 1 and not _told_past(dated[last].caption):
            dated[last] = replace(dated[last], valid_from=phrases[0].start)
    return dated


def _told_past(caption: str) -> bool:
    """Whether the caption's verb, within its first words, is in the past ("User presented
    ...", "User was ..."): such a fact is not dated from a start said after it."""
    return any(
        past_tense(word) or word in {"was", "were", "used"} for word in words_of(caption)[1:4]
    )
