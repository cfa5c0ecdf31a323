"""A verb that ends a practice said without it: "I used to smoke but I quit three years ago"
reads "User quit three years ago", which says nothing of what was quit; the practice is the
one the clause before stated, so the caption becomes "User quit smoking three years ago".

Only the closed class of verbs that take the practice as "-ing" (`practice_enders`), and only
after a caption of the user's own practice: "User used to <verb> ..." or "User <verb>s ...".
"""

from __future__ import annotations

from core.lexicon import lexicon
from core.words import words_of
from extraction.run_ons import time_trimmed
from extraction.verbs import base_form, gerund_of, third_singular


def practice_restored(caption: str, before: str) -> str:
    """The caption with the practice its ending verb left out, taken from `before` (the
    caption the clause before stated); the caption itself when nothing was left out."""
    words = caption.split()
    if words[:1] != ["User"]:
        return caption
    for size in (2, 1):
        verb = " ".join(words[1 : 1 + size])
        if verb.lower() not in lexicon("practice_enders"):
            continue
        rest = " ".join(words[1 + size :])
        opens = words_of(time_trimmed(rest))[:1]
        if opens and opens[0] not in lexicon("value_breaks"):
            return caption  # it says what ended ("quit the gym")
        practice = _practice(before)
        return " ".join(filter(None, ["User", verb, practice, rest])) if practice else caption
    return caption


def _practice(caption: str) -> str:
    """What the user does or did in a caption of their own practice, in "-ing" ("User used to
    play rugby" is "playing rugby", "User smokes" is "smoking"); "" for any other caption."""
    words = caption.split()
    said = words_of(caption)
    if said[:1] != ["user"] or len(said) < 2 or len(said) != len(words):
        return ""  # a word of symbols only ("User used to 🙂") is no practice either
    if said[1:3] == ["used", "to"] and len(said) > 3 and base_form(said[3]):
        verb, rest = said[3], words[4:]
    elif third_singular(said[1]):
        verb, rest = said[1], words[2:]
    else:
        return ""
    if verb in {"is", "was", "has", "had", "does", "did"}:
        return ""
    return " ".join([gerund_of(verb), *rest])
