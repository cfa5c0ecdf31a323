"""Where "there" is: the place the fact right before it named.

"there" alone points at something said elsewhere, and a caption with it is not kept (`vague`
in `extraction.kept`). Right after a fact the registry reads a place in (where someone lives,
where they are from, where they work: `memories/attributes.toml`), it is that place, as the
user wrote it: "my sister lives in athens 🇬🇷 she teaches english there" is "User's sister
teaches english in athens"; "... now we live in a village near york, my partner grew up
there" is "User's partner grew up in a village near york"; "been at arriva 12 years. my
daughter works there too" is "User's daughter works at arriva". "there is", "over there", a
verb of going before it ("moved there for uni") and a fact before it that names no place
leave it as it was.
"""

from __future__ import annotations

import re

from core.lexicon import lexicon
from core.words import words_of
from memories.facets import read as read_facets

# The preposition a place of each attribute takes ("lives in", "works at").
_PREPOSITIONS = {"residence": "in", "origin": "in", "employer": "at"}
# The verbs of going: "there" after them is where a journey ends, left as it was.
_GOING = frozenset(
    {"go", "goes", "went", "move", "moved", "moving", "fly", "flies", "flew", "travel",
     "travels", "travelled", "traveled", "come", "comes", "came", "drive", "drives", "drove",
     "commute", "commutes", "commuted"}
)  # fmt: skip
_BREAKS = lexicon("value_breaks") | lexicon("quantities")
_THERE = re.compile(r"(?<![\w'])there(?![\w'])", re.I)


def _place(before: str) -> tuple[str, str] | None:
    """The place the caption `before` names and its preposition ("in", "Athens"), as written."""
    tokens = before.split()
    said = [words_of(token)[0] if words_of(token) else "" for token in tokens]
    for facet in read_facets(before):
        preposition = _PREPOSITIONS.get(facet.attribute)
        value = facet.value.split()
        if not preposition or not facet.positive or not value:
            continue
        for at in range(len(said) - len(value), 0, -1):
            if all(said[at + k].startswith(part) for k, part in enumerate(value)):
                start = at - 1 if said[at - 1] in lexicon("determiners") else at
                end = at + len(value)
                while end > at + 1 and (said[end - 1].isdigit() or said[end - 1] in _BREAKS):
                    end -= 1  # "at arriva 12 years": the place, not how long
                return preposition, " ".join(tokens[start:end]).strip(" ,.!")
    return None


def there_placed(part: str, before: str) -> str:
    """The first-person clause `part` with its "there" as the place `before` named."""
    found = _THERE.search(part)
    if not found or not before:
        return part
    after = words_of(part[found.end() :])[:1]
    ahead = words_of(part[: found.start()])[-1:]
    if (after and after[0] in lexicon("copulas") | {"'s"}) or ahead in (["over"], ["out"]):
        return part  # "there is", "over there"
    if ahead and ahead[0] in _GOING:
        return part  # "moved there for uni": a journey's end, which the fact need not name
    place = _place(before)
    if place is None:
        return part
    preposition, written = place
    return f"{part[: found.start()]}{preposition} {written}{part[found.end() :]}"
