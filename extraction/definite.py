""" "The cat" after the user said they have one: their cat.

A clause about "the <relation>" says nothing of the user's on its own ("the cat is called
toast" could be anyone's cat). Once the conversation has stated that the user has one
("we have a cat, two guinea pigs and ...", "User has a cat") or stated a fact of theirs ("my
dog is 5"), "the cat", "the dog", "the kids" is that one: "my cat is called toast". Only a
relation of the closed class of the user's people and pets (`people.txt`) is read so, and
only one the conversation gave the user.
"""

from __future__ import annotations

import re

from core.lexicon import lexicon
from core.words import words_of
from extraction.named import one_of
from extraction.people import mention_at

# "User has a cat", "User got two guinea pigs", "User adopted a very old goldfish".
_HAS = re.compile(r"^User (?:has|has got|got|adopted|keeps|just got) (?P<what>.+)$")


def relations_of(caption: str) -> set[str]:
    """The user's people or pets a caption names as theirs ("cat" of "User has a cat" or of
    "User's cat is 5"), singular and plural as said."""
    if caption.startswith("User's "):
        mention = mention_at("my " + caption.removeprefix("User's "), 0)
        return {mention.relation} if mention else set()
    had = _HAS.match(caption)
    if not had:
        return set()
    said = words_of(had["what"])
    for size in (2, 1):
        relation = " ".join(said[-size:])
        if len(said) > size and relation in lexicon("people"):
            return {relation, one_of(relation)}
    return set()


def definite_mine(statement: str, known: set[str]) -> str:
    """The statement with "the <relation>" it opens with as the user's, when the relation is
    one of `known` ("the cat is called toast" is "my cat is called toast"); else as it was."""
    words = words_of(statement)
    if words[:1] != ["the"]:
        return statement
    for size in (2, 1):
        relation = " ".join(words[1 : 1 + size])
        if relation in known and relation in lexicon("people"):
            start = statement.lower().index("the")
            return f"{statement[:start]}my {statement[start + 4 :]}"
    return statement
