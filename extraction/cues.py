"""The closed classes a statement announces a change with (`core/lexicons/change_cues.txt`:
"quit", "switched to", "now", "turns out"), read by the linker (`extraction.updates`), the
reader and the corrections alike.

A cue verb said after a frame of something done (`core/lexicons/done_frames.txt`: "had to
cancel my direct debit", "decided to switch to the tram") announces what its past tense does
("cancelled", "switched to"): the frame says it happened.
"""

from __future__ import annotations

from functools import cache

from core.lexicon import lexicon, tagged
from core.words import words_of
from extraction.verbs import base_form, pasts_of

CUE_TAGS = ("ends", "starts", "corrects", "replaces")


def padded(text: str) -> str:
    """A text's words between spaces, hyphenated words split ("smoke-free": smoke free)."""
    return f" {' '.join(part for word in words_of(text) for part in word.split('-'))} "


@cache
def padded_lexicon(name: str) -> tuple[str, ...]:
    """A lexicon's phrases as `padded` writes them, longest first."""
    return tuple(sorted((padded(phrase) for phrase in lexicon(name)), key=len, reverse=True))


@cache
def cue_phrases() -> dict[str, frozenset[str]]:
    """The change cues by tag."""
    return tagged("change_cues", CUE_TAGS)


def _done(text: str) -> str:
    """The text with the past tense of each verb said after a frame of something done put
    beside it ("had to cancel" also reads "cancelled")."""
    words = text.split()
    found = []
    for frame in lexicon("done_frames"):
        size = len(frame.split())
        for at in range(len(words) - size):
            verb = words[at + size]
            if " ".join(words[at : at + size]) == frame and base_form(verb):
                found += [" ".join([past, *words[at + size + 1 : at + size + 3]])
                          for past in pasts_of(verb)]  # fmt: skip
    return f"{text}{' '.join(found)} " if found else text


def cues_of(text: str) -> set[str]:
    """Which change cues a text holds ("ends", "starts"), its exceptions taken out first
    ("every now and then" announces nothing)."""
    said = padded(text)
    for exception in padded_lexicon("change_cue_exceptions"):
        said = said.replace(exception, " ")
    said = _done(said)
    return {tag for tag, phrases in cue_phrases().items() if any(f" {p} " in said for p in phrases)}


def says(text: str, name: str) -> bool:
    """Whether `text` holds a phrase of lexicon `name` (hyphenated words split)."""
    said = padded(text)
    return any(phrase in said for phrase in padded_lexicon(name))
