"""An agent's note about the user ("User prefers tea") turned into the user's own words."""

from __future__ import annotations

import re

# "The user's", "User is", "user has": a statement about the user rather than by them.
_SUBJECT = re.compile(r"^\s*(?:the\s+)?user(?P<possessive>['\u2019]s)?\s+", re.IGNORECASE)
_IRREGULAR = {
    "is": "am",
    "was": "was",
    "has": "have",
    "does": "do",
    "doesn't": "don't",
    "isn't": "am not",
    "hasn't": "haven't",
    "wasn't": "wasn't",
}
# Adverbs an agent puts between the subject and the verb ("User often cycles to work").
_ADVERBS = frozenset(
    {
        "often", "always", "never", "usually", "sometimes", "really", "also", "still", "just",
        "recently", "now", "currently", "mostly", "rarely", "occasionally", "already",
    }
)  # fmt: skip
_PRONOUNS = (
    (re.compile(r"\btheir\b", re.IGNORECASE), "my"),
    (re.compile(r"\bthemselves\b", re.IGNORECASE), "myself"),
    (re.compile(r"\bthem\b", re.IGNORECASE), "me"),
)


def _base_form(verb: str) -> str:
    """The first-person form of a third-person verb: prefers -> prefer, studies -> study."""
    lower = verb.lower()
    if lower in _IRREGULAR:
        return _IRREGULAR[lower]
    if lower.endswith("ies") and len(lower) > 4:
        return verb[:-3] + "y"
    if lower.endswith(("sses", "shes", "ches", "xes", "zes", "oes")):
        return verb[:-2]
    if lower.endswith("s") and not lower.endswith(("ss", "us", "is")):
        return verb[:-1]
    return verb  # moved, can, will, used to: the same in the first person


def as_said_by_user(text: str) -> str:
    """`text` in the first person when it is written about "the user"; else unchanged.

    The write pipeline reads what users say ("I moved to Lisbon"); agents that call `remember`
    often write notes about the user instead ("User moved to Lisbon").
    """
    match = _SUBJECT.match(text)
    if match is None:
        return text
    rest = text[match.end() :]
    if match.group("possessive"):
        said = f"My {rest}"
    else:
        words = rest.split(" ")
        position = 0
        while position < len(words) - 1 and words[position].lower() in _ADVERBS:
            position += 1
        words[position] = _base_form(words[position])
        said = "I " + " ".join(words)
    for pattern, replacement in _PRONOUNS:
        said = pattern.sub(replacement, said)
    return said
