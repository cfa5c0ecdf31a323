"""A change the user announces in their own words about a fact no shared word ties to it.

`extraction.updates.update` reads a change where the two facts meet in a word, a kind or an
attribute. A user who announces a change seldom repeats the old words: "sees a therapist every
week" then "finished therapy last month"; "flies to Frankfurt twice a month" then "gone
flight-free since January". When the new fact carries a change cue of the closed class
(`change_cues.txt`: "ends", "replaces"; "starts" only on a fact that holds one value at a
time, by the registry or in the user's words: "I only wear black") and the embedder puts the
two facts of one person close, that cue is the evidence: the pair is held for review (never
superseded at once: the link is a cosine).

It stays out where structure says both hold: two single-valued attributes the registry tells
apart ("grew up in Lyon", "lives in Paris now"), two members of one kind ("plays guitar",
"started piano lessons": the kinds lexicon links them, and one more instrument ends none),
another place ("at work", "at home"), an addition or a wish, and two negatives ("doesn't
smoke", "doesn't drink anymore").
"""

from __future__ import annotations

import re

from extraction.updates import Reading, Update, distinct_attributes, same_person

# Cosine at or above which a fact that announces a change is linked to one of the same
# person's facts with no shared word (measured on the dev splits of bench/data/conflicts_*:
# pairs with a change cue sit at 0.26-0.92 when they contradict and 0.47-0.56 when they do
# not, and those three are kept apart by structure; see docs/benchmarks.md).
CUED_LINK_SIMILARITY = 0.5


def cued_change(new: Reading, old: Reading, similarity: float, how: str) -> Update | None:
    """The change the new fact announces to the old one when only their closeness links them
    (`how` is `updates.link`'s reading of the pair; see the module docstring), else None."""
    # A cue that brings a value without ending one ("now", "these days") changes a close
    # fact only where that fact holds one value at a time: "User's mum lives with them now"
    # ends nothing of "User's mum has dementia", close as they are.
    if not (new.ends or new.replaces or (new.starts and (old.single or old.exclusive))):
        return None
    if new.additive or new.wish:
        return None
    if similarity < CUED_LINK_SIMILARITY or new.subject != old.subject:
        return None
    if not same_person(new, old) or distinct_attributes(new, old):
        return None
    if how.startswith("both are about") or (new.negative and old.negative):
        return None
    if new.scopes and old.scopes and new.scopes != old.scopes:
        return None
    return Update("announced a change to a close fact", automatic=False)


def slot_changed(new: Reading, old: Reading) -> Update | None:
    """Another value of a slot the user says holds one ("User's favourite food is ramen",
    then "Lasagna is hands down my favourite food"; "my only newspaper"): the same person and
    slot, both positive, and values with no word in common. Held for review, never
    superseded at once: a favourite changes, and the user says which one holds."""
    if not (new.exclusive and old.exclusive) or new.subject != old.subject:
        return None
    if new.negative or old.negative or new.additive or new.wish:
        return None
    if not new.slot or new.slot != old.slot or new.scopes != old.scopes:
        return None
    if not new.slot_value or not old.slot_value or new.slot_value & old.slot_value:
        return None
    return Update("another value of a slot that holds one", automatic=False)


def modifier_changed(new: Reading, old: Reading) -> Update | None:
    """Another kind of the same thing, announced ("User sleeps on a memory foam mattress",
    then "we're on a pocket sprung mattress these days"; "drives a Fiat", then "drives a Tesla
    now"): a cue that brings a value, the same person and polarity, a word both say, and each
    says words of its own the other does not, neither a broader kind of the other's. Held for
    review, never superseded at once: most things may be had two at a time."""
    if not new.starts or new.ends or new.additive or new.wish or new.corrects:
        return None
    if new.subject != old.subject or new.negative or old.negative:
        return None
    if new.scopes != old.scopes or distinct_attributes(new, old):
        return None
    if not new.words & old.words - new.people - old.people:
        return None  # whom both are about is no thing both say ("User's mum ...")
    mine, theirs = new.words - old.concepts, old.words - new.concepts
    if not mine or not theirs:
        return None
    return Update("another kind of the same thing, announced", automatic=False, held=True)


_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")


def number_changed(new: Reading, old: Reading, similarity: float) -> Update | None:
    """Another number for a close fact of one person, announced with a cue that brings a value
    ("I'm an 8 now" after "I'm a UK 7 in shoes"): both say a number, none the same, the same
    polarity and scope, at or above CUED_LINK_SIMILARITY. Held for review, never superseded
    at once: the cosine is the only link."""
    if not new.starts or new.ends or new.additive or new.wish or new.corrects:
        return None
    if similarity < CUED_LINK_SIMILARITY or new.subject != old.subject:
        return None
    if new.negative or old.negative or new.scopes != old.scopes:
        return None
    mine, theirs = set(_NUMBER.findall(new.text)), set(_NUMBER.findall(old.text))
    if not mine or not theirs or mine & theirs:
        return None
    return Update("another number, announced", automatic=False, held=True)
