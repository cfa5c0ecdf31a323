"""Rule-based contradiction detection, used when no LLM judge is configured.

Two signals: a negation of the same statement ("User likes coffee" / "User does not like
coffee"), and a different value of a single-valued attribute ("User lives in Berlin" /
"User lives in Munich"). Embeddings alone cannot see the second: MiniLM puts those two
sentences at cosine 0.78, below the 0.85 gate, so attribute matches are candidates on their own.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from memories.text import normalise_text

# (attribute name, pattern capturing the value). Each attribute holds one value at a time.
_SINGLE_VALUED: list[tuple[str, re.Pattern[str]]] = [
    (name, re.compile(pattern))
    for name, pattern in [
        ("lives in", r"\b(?:lives|is living|resides|is based) in (?P<value>[^,.;]+)"),
        # Moving somewhere states where the user lives now.
        ("lives in", r"\bmoved to (?P<value>[^,.;]+)"),
        ("is from", r"\b(?:is|comes) from (?P<value>[^,.;]+)"),
        ("works at", r"\bworks (?:at|for) (?P<value>[^,.;]+)"),
        ("works as", r"\bworks as (?:an? )?(?P<value>[^,.;]+)"),
        ("name", r"\buser's name is (?P<value>[^,.;]+)"),
        ("is called", r"\buser is called (?P<value>[^,.;]+)"),
        ("age", r"\b(?:user is|user's age is) (?P<value>\d+)(?: years old)?\b"),
        ("birthday", r"\bbirthday is (?:on )?(?P<value>[^,.;]+)"),
        ("married to", r"\bis married to (?P<value>[^,.;]+)"),
        ("diet", r"\buser is (?:a )?(?P<value>vegetarian|vegan|pescatarian|carnivore)\b"),
        (
            "pet name",
            r"\buser's (?P<key>dog|cat|pet|horse|bird|rabbit)(?:'s name)? is "
            r"(?:called |named )?(?P<value>[^,.;]+)",
        ),
        (
            "partner name",
            r"\buser's (?P<key>wife|husband|partner|girlfriend|boyfriend)(?:'s name)? is "
            r"(?:called |named )?(?P<value>[^,.;]+)",
        ),
        ("favourite", r"\buser's favou?rite (?P<key>[a-z ]+?) is (?P<value>[^,.;]+)"),
        ("prefers mode", r"\bprefers (?P<value>dark|light) (?P<key>mode|theme)\b"),
    ]
]

_NEGATIONS = re.compile(
    r"\b(?:not|no longer|never|doesn't|does not|don't|do not|isn't|is not|dislikes|hates)\b"
)
_NEGATION_WORDS = {"not", "no", "longer", "never", "doesn't", "does", "don't", "do", "isn't"}
# Verbs of liking and their opposites share one stem, so that negation is what differs.
_LIKING = {"likes", "like", "loves", "love", "enjoys", "enjoy", "hates", "hate", "dislikes"}
_FILLER = {"user", "user's", "the", "a", "an", "is", "to", "any", "more", "anymore"}


def _core_tokens(text: str) -> frozenset[str]:
    words = re.findall(r"[a-z0-9']+", normalise_text(text))
    core = set()
    for word in words:
        if word in _NEGATION_WORDS or word in _FILLER:
            continue
        if word in _LIKING:
            word = "like"
        elif len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
            word = word[:-1]
        core.add(word)
    return frozenset(core)


@dataclass(frozen=True)
class Attribute:
    """A single-valued attribute a memory states, such as ('lives in', 'berlin')."""

    name: str
    value: str


# Where a value ends: "Munich in 2019", "Acme since May", "Berlin with his wife" are Munich,
# Acme and Berlin.
_VALUE_END = re.compile(
    r"\s(?:in|since|for|last|this|next|from|with|because|and|but|now|anymore|again|"
    r"until|after|before|as|at|on)\b.*$"
)


def _clean_value(value: str) -> str:
    return _VALUE_END.sub("", value.strip()).strip()


# Each stored memory is compared with every candidate of an extraction, so parse it once.
@functools.lru_cache(maxsize=8192)
def attributes(text: str) -> tuple[Attribute, ...]:
    """Return the single-valued attributes a memory's text states (none if it is negated)."""
    lowered = normalise_text(text)
    if _NEGATIONS.search(lowered):
        return ()
    found = []
    for name, pattern in _SINGLE_VALUED:
        for match in pattern.finditer(lowered):
            groups = match.groupdict()
            key = f"{name}:{groups['key'].strip()}" if groups.get("key") else name
            value = _clean_value(groups["value"])
            if value:
                found.append(Attribute(key, value))
    return tuple(found)


def _is_negative(text: str) -> bool:
    return bool(_NEGATIONS.search(normalise_text(text)))


def rules_contradiction(new_text: str, existing_text: str) -> str | None:
    """Return why the two statements contradict each other, or None if they don't."""
    existing_attributes = {a.name: a.value for a in attributes(existing_text)}
    for attribute in attributes(new_text):
        old_value = existing_attributes.get(attribute.name)
        if old_value is not None and old_value != attribute.value:
            return (
                f"different value of '{attribute.name}': "
                f"'{old_value}' before, '{attribute.value}' now"
            )
    if _is_negative(new_text) != _is_negative(existing_text):
        new_core, old_core = _core_tokens(new_text), _core_tokens(existing_text)
        if new_core and new_core == old_core:
            return "negation of the existing statement"
    return None


def shares_single_valued_attribute(new_text: str, existing_text: str) -> bool:
    """Whether both texts state the same single-valued attribute (whatever the values)."""
    names = {a.name for a in attributes(existing_text)}
    return any(a.name in names for a in attributes(new_text))
