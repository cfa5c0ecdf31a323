"""A fact the user shares with one of their people: "im lactose intolerant too, like my mum",
"I do not drink alcohol, and neither does my wife", "my son has the same allergy".

A clause of a phrase of `core/lexicons/sharers.txt` and one of the user's people alone (maybe
"too") states the fact of the caption before it about that person: "User is lactose
intolerant" gives "User's mum is lactose intolerant". Only a fact of the user's own is shared,
and only with one person, so the verb that agreed with "User" agrees with them.
"""

from __future__ import annotations

from functools import cache

from core.lexicon import lexicon
from core.words import words_of
from extraction.people import mention_at
from memories.attributes import attribute
from memories.facets import read as read_facets


@cache
def _sharers() -> tuple[list[str], ...]:
    return tuple(sorted((p.split() for p in lexicon("sharers")), key=len, reverse=True))


# The verb that echoes the fact before it ("my son is too", "my wife does as well").
_ECHOES = frozenset({"is", "does", "has", "can", "was", "did"})


def shared(statement: str, before: str) -> str | None:
    """The caption `before` about the person a sharing clause names, else None."""
    if not before.startswith("User ") or before.startswith("User and "):
        return None
    words = words_of(statement)
    while words[:1] and words[0] in {"and", "but"} | lexicon("fillers"):
        words = words[1:]
    if words[-1:] in (["too"], ["also"]) or words[-2:] == ["as", "well"]:
        echoed = words[:-2] if words[-1] == "well" else words[:-1]
        mention = mention_at(" ".join(echoed), 0)
        if mention and mention.end == len(echoed) - 1 and echoed[-1] in _ECHOES:
            words = ["so", "is", *echoed[: mention.end]]  # "my son is too": "so is my son"
        else:
            words = echoed
    for phrase in _sharers():
        if words[: len(phrase)] != phrase:
            continue
        rest = words[len(phrase) :]
        mention = mention_at(" ".join(rest), 0) if rest else None
        if mention is None or mention.end != len(rest) or mention.count:
            return None
        if mention.relation in lexicon("people_plural"):
            return None  # "like my parents": a plural verb the caption does not have
        return f"User's {mention.said()} {before.removeprefix('User ')}"
    return None


def same_as_before(statement: str, before: str) -> str | None:
    """ "my son has the same allergy" after "User is allergic to shellfish": the fact before
    about the person, when the noun names the attribute the registry reads in it (its name or
    label: "allergy", "condition", "diet", "job"); else None."""
    if not before.startswith("User ") or before.startswith("User and "):
        return None
    words = words_of(statement)
    while words[:1] and words[0] in {"and", "but"} | lexicon("fillers"):
        words = words[1:]
    mention = mention_at(" ".join(words), 0)
    if mention is None or mention.count or mention.relation in lexicon("people_plural"):
        return None
    rest = words[mention.end :]
    if rest[:3] not in (["has", "the", "same"], ["has", "got", "the"]) or len(rest) != 4:
        return None
    noun = rest[-1].removesuffix("s")
    plain = " ".join(w for w in before.split() if w.lower() not in lexicon("adverbs"))
    for facet in read_facets(plain):
        entry = attribute(facet.attribute.split(":")[0])
        if facet.subject == "user" and noun in {facet.attribute, *entry.label.split()}:
            return f"User's {mention.said()} {plain.removeprefix('User ')}"
    return None
