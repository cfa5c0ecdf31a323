"""A description of the user that runs into what they do: "User is a 28-year-old graphic
designer living in Austin with their girlfriend" says two facts, what the user is and where
they live. Stored as one, an update of either ("moved to Denver") would supersede both, and
the job would be lost with the town; so each is a caption of its own.

Only after "User is a/an <what they are>", and only at a participle of the closed class of
states chat states without "I" (`pro_drop_states.txt`: "living", "working", "studying"), whose
verb is a plain verb ("live", not "am trying") and that opens no job's name ("a retired
teaching assistant"), or at an opening that says where the user is
("based in", "originally from": `fragment_openers.txt`).
"""

from __future__ import annotations

from functools import cache

from core.lexicon import lexicon, pairs
from core.words import words_of
from extraction.fragments import job_named
from extraction.wording import third_person


def description_split(caption: str) -> list[str]:
    """The caption as its facts: ["User is a graphic designer", "User lives in Austin"] for
    "User is a graphic designer living in Austin"; [caption] for any other."""
    words = caption.split()
    if words[:3] not in (["User", "is", "a"], ["User", "is", "an"]):
        return [caption]
    for at in range(4, len(words) - 1):
        said = words_of(words[at])
        verb = pairs("pro_drop_states").get(said[0]) if said else None
        head = " ".join(words[:at]).rstrip(",")
        if verb and " " not in verb and not job_named(" ".join(words[at:])):
            return [head, third_person(" ".join(["I", verb, *words[at + 1 :]]))]
        # "a teacher based in Manchester": an opening of two words or more that states where
        # the user is (`fragment_openers.txt`), never one word ("a fan of music from the 80s").
        for opening, stands_for in _place_openers():
            if [w.lower() for w in words[at : at + len(opening)]] == opening:
                rest = words[at + len(opening) :]
                return [head, third_person(" ".join([stands_for, *rest]))]
    return [caption]


@cache
def _place_openers() -> tuple[tuple[list[str], str], ...]:
    """The openings of `fragment_openers.txt` of two words or more and the clause each stands
    for ("based in" is "I'm based in")."""
    found = []
    for entry in lexicon("fragment_openers"):
        opening, _, clause = entry.partition("=")
        if len(opening.split()) >= 2:
            found.append((opening.split(), clause.strip()))
    return tuple(found)
