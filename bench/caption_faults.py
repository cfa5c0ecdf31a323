"""What is wrong with a caption the assistant would read (issue 30): garbles and misattribution.

Garbles are judged by the store's own checks (`memories.captions.garbles`, kinds
`memories.captions.GARBLE_KINDS`), which the audit of a live store runs too.

Misattribution: a caption about the user ("User ...", not "User's ...") that does not name the
other person, yet states the value of a labelled fact about that person. The value of a label
about someone else is its caption without "User's", the `about` words and the names written
right after them ("User's sister Anna is a nurse in Turin" -> "is a nurse in Turin"); the
caption states it when their content-word F1 reaches MATCH_THRESHOLD and it matched no fact
about the user.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from bench.captions import MATCH_THRESHOLD, caption_tokens, token_f1
from core.words import words_of
from memories.captions import GARBLE_KINDS, USER, garbles

__all__ = ["GARBLE_KINDS", "OtherFact", "about_user", "garbles", "misattributed", "other_fact"]


# --- misattribution ---------------------------------------------------------------------------


def about_user(caption: str) -> bool:
    """Whether a caption is about the user alone: "User ...", not "User's ..." (someone of
    theirs) nor "User and ..." (a plan of two)."""
    words = words_of(caption)
    return len(words) > 1 and words[0] == USER and words[1] != "and"


@dataclass(frozen=True)
class OtherFact:
    """A labelled fact about someone else: who it names, and what it says of them."""

    person: frozenset[str]
    value: str


def other_fact(label: dict[str, Any]) -> OtherFact | None:
    """The person and value of a label whose `about` is not the user; None for the user's."""
    about = str(label.get("about") or USER).strip()
    if about.lower() == USER:
        return None
    caption = label["caption"]
    about_words = about.split()
    chunks = caption.split()
    person = set(caption_tokens(about))
    rest = chunks
    # "User's sister Anna is ...", "User's other flatmate is ...": the words up to the `about`
    # words, then the names written after them.
    if chunks and chunks[0].lower().replace("\u2019", "'") == "user's":
        at = 1
        wanted = [word.lower() for word in about_words]
        for start in range(1, min(len(chunks), 4)):
            if [c.lower() for c in chunks[start : start + len(wanted)]] == wanted:
                at = start + len(wanted)
                break
        while at < len(chunks) and chunks[at][:1].isupper():
            person |= caption_tokens(chunks[at])
            at += 1
        rest = chunks[at:]
    return OtherFact(person=frozenset(person), value="User " + " ".join(rest))


def misattributed(caption: str, facts: Sequence[OtherFact]) -> bool:
    """Whether a caption about the user states the value of a fact about someone else it does
    not name (the caller leaves out captions that matched a fact about the user)."""
    if not about_user(caption):
        return False
    tokens = caption_tokens(caption)
    return any(
        not (tokens & fact.person) and token_f1(caption, fact.value) >= MATCH_THRESHOLD
        for fact in facts
    )
