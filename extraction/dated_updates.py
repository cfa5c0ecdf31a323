"""A new value said with the time it began closes the old one it meets (issue 33): "my
hospital radio show moved to Wednesday nights in the new year" after "I present a request show
on the hospital radio every Sunday evening"; "they made us go hybrid in september, I'm in the
Manchester office three days a week now" after "I went fully remote when our office shut".

`extraction.updates` reads a change from the words of the two facts. Here the evidence is the
time: the new fact says it began on a day after the old one was last said and that it holds on
("now", `time_now.txt`, or the perfect with a start, "I've been ... since June"; a replacement
announced, "switched to"; or a start of a thing of the user's that the old fact names, "User's
radio show moved to ..."), and the two meet in a word
of their own (`updates.link`: "both say 'office'"). Then the old one stopped holding when the
new began, and the update is applied as any announced one. Never for an addition ("a second
cat", "also"), a wish, a negation or an ending (the update reading's), another person or
another place ("at work"); a start alone ("joined a triathlon club" after "rows with a rowing
club") adds as often as it replaces, so it is not enough.
"""

from __future__ import annotations

import datetime

from core.lexicon import has_phrase, lexicon
from core.words import words_of
from extraction.candidates import Candidate
from extraction.time_phrases import time_phrases
from extraction.updates import Reading, Update, lemma, link
from extraction.verbs import past_tense, third_singular

# The words a caption's subject may run to after "User's" ("hospital radio show").
SUBJECT_MAX_WORDS = 4


def dated_update(
    candidate: Candidate, new: Reading, old: Reading, old_said: datetime.date | None
) -> Update | None:
    """The update a dated new fact makes to an old one it shares a word with (see the module
    docstring), else None. `old_said`: when the old fact was last said."""
    how = link(new, old, 0.0)
    begins = candidate.valid_from
    if begins is None or candidate.valid_to is not None or old_said is None:
        return None
    if not how.startswith("both say") or old_said >= begins:
        return None
    if new.additive or new.wish or new.negative or old.negative or new.ends:
        return None
    if new.subject != old.subject or (new.scopes and old.scopes and new.scopes != old.scopes):
        return None
    said = candidate.said or candidate.caption
    now = has_phrase(said, "time_now") or _held_since(candidate, said)
    if not (now or new.replaces or (new.starts and _own_thing_of(candidate, old))):
        return None
    return Update(f"began after it was last said ({how})", automatic=True)


def _held_since(candidate: Candidate, said: str) -> bool:
    """Whether the clause says its fact has held since a time, up to now: the perfect with a
    start ("I've been going to bed at 10:30pm since the spring", "since March I've had ..."),
    which says "now" as plainly as the word does. "I joined in March" does not."""
    if not has_phrase(said, "time_perfect") or candidate.said_at is None:
        return False
    return any(phrase.role == "from" for phrase in time_phrases(said, candidate.said_at))


def _own_thing_of(candidate: Candidate, old: Reading) -> bool:
    """Whether the candidate is about a thing of the user's ("User's hospital radio show
    ...") that the old fact names: a word of its subject, before its verb, is one of the old
    fact's."""
    words = words_of(candidate.caption)
    if words[:1] != ["user's"]:
        return False
    subject = []
    for word in words[1 : SUBJECT_MAX_WORDS + 1]:
        if past_tense(word) or third_singular(word) or word in lexicon("copulas"):
            break
        subject.append(lemma(word))
    return bool(set(subject) & old.words)


def dated_refs(new: Reading, met: list[tuple[str, Reading, float]]) -> tuple[str, ...]:
    """Of the facts a dated change contradicts (ref, reading, cosine), those it may close at
    once: the ones `updates.link` links it to. One only close to it by cosine ("paid off and
    closed the Barclaycard" beside "moved my current account to Monzo") is no evidence enough
    to close; it stays as the reading that found it left it (held, under review)."""
    return tuple(ref for ref, old, similarity in met if link(new, old, similarity))
