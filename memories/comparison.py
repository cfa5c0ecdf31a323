"""The facet comparison: how a new fact relates to a stored one, compared facet by facet.

Each memory carries its facets (`memories.facets`: whose fact, which attribute, what value,
polarity). `compare` answers a `Verdict`, CONTRADICTS (they cannot both be true now) or SAME
(the new one restates the stored one), or None (compatible, or nothing to say), with the
reason an operator reads. Facts about different people, and facts true only in the past, never
conflict. `Verdict` is the one name of what a decision finds (`extraction.decisions`, and the
LLM's advice, `extraction.llm_decisions`).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from core.lexicon import broader, lexicon
from memories.attributes import PRACTICE, attribute
from memories.facets import Facet, kind_of

# The merge floor: the cosine similarity at or above which two wordings are one fact without
# the facets agreeing (on the dev pairs, rewordings of one fact sit at 0.67-0.86, compatible
# facts below 0.70, and two facts about one person up to 0.71: below this only the facets
# merge). The write path merges at it (`extraction.merge_evidence.same_fact`); the store's
# audit counts two active memories at it as near-duplicates (`memories.hygiene`).
NEAR_DUPLICATE_SIMILARITY = 0.92


class Verdict(enum.StrEnum):
    """What a new fact is to a stored one: new (or compatible), the same fact, or a fact that
    cannot be true together with it now."""

    NEW = "new"
    SAME = "same"
    CONTRADICTS = "contradicts"


@dataclass(frozen=True)
class Comparison:
    """What the judge found, why, and whether the new fact announces a change."""

    verdict: Verdict
    reason: str
    explicit_update: bool = False


def _same_value(a: str, b: str) -> bool:
    """One value, however much of it each says ("cello" and "cello in an orchestra")."""
    if a == b:
        return True
    mine, theirs = set(a.split()), set(b.split())
    return bool(mine and theirs) and (mine <= theirs or theirs <= mine)


def _other_value(new: Facet, old: Facet) -> bool:
    """Visibly another value: both said, and another of a closed class ("dark mode", "light
    mode") or no word in common; a value that holds only somewhere ("at work") is not."""
    a, b = new.value, old.value
    if not (a and b) or _place(new) != _place(old):
        return False
    if attribute(new.attribute).values:
        return a != b and not (narrower_than(a, b) or narrower_than(b, a))
    return not set(a.split()) & set(b.split())


def narrower_than(narrow: str, broad: str) -> bool:
    """Whether one value is a kind of the other (the kinds lexicon: an ICU nurse is a nurse),
    so that saying it more or less precisely is no other value."""
    seen: set[str] = set()
    while narrow in broader("kinds") and narrow not in seen:
        seen.add(narrow)
        narrow = broader("kinds")[narrow]
        if narrow == broad:
            return True
    return False


def _place(facet: Facet) -> str:
    """Where a fact holds ("at work"): a value elsewhere does not contradict it; what it is
    for ("for scripting") narrows a restatement only."""
    return facet.scope if facet.scope in lexicon("scopes") else ""


def _label(facet: Facet) -> str:
    if facet.attribute.startswith(f"{PRACTICE}:"):
        return f"does ({facet.attribute.split(':', 1)[1]}…)"
    if facet.attribute.startswith("about:"):
        return facet.attribute.split(":", 1)[1]
    return attribute(facet.attribute).label


def _single(facet: Facet) -> bool:
    return attribute(facet.attribute).single


def pair_relation(new: Facet, old: Facet) -> Comparison | None:
    """How one new facet relates to one stored facet."""
    if new.subject != old.subject or new.past or old.past:
        return None
    if new.attribute != old.attribute:
        # Selling or giving up a thing ends doing anything with it ("sold the cello").
        ends_it = new.attribute == "owns" and not new.positive and new.value
        of_it = old.positive and old.attribute.startswith(PRACTICE)
        if ends_it and of_it and _same_value(new.value, old.value):
            return Comparison(Verdict.CONTRADICTS, f"'{old.value}': gone now", True)
        return None
    label = _label(new)
    if new.positive and old.positive:
        if _same_value(new.value, old.value) and new.scope == old.scope:
            return Comparison(Verdict.SAME, f"same {label}: {new.value or old.value}")
        if (
            _single(new)
            and _other_value(new, old)
            and not attribute(new.attribute).compatible_values(new.value, old.value)
        ):
            return Comparison(
                Verdict.CONTRADICTS,
                f"different {label}: '{old.value}' before, '{new.value}' now",
                explicit_update=new.change,
            )
        return None
    if new.positive != old.positive:
        # A negation without a value ends whatever value was held ("got laid off").
        same = _same_value(new.value, old.value) or kind_of(new.value) == kind_of(old.value)
        # Quitting a habit ends it whatever was said of it ("smokes half a pack a day").
        same = same or (new.change and not new.positive and new.attribute.startswith(PRACTICE))
        if same or not (new.value and old.value):
            value = old.value or new.value
            quoted = f" '{value}'" if value else ""  # "does (smok…): yes before, no now"
            return Comparison(
                Verdict.CONTRADICTS,
                f"{label}{quoted}: {'yes' if old.positive else 'no'} before, "
                f"{'yes' if new.positive else 'no'} now",
                explicit_update=new.change or not new.positive,
            )
        return None
    if _same_value(new.value, old.value):
        return Comparison(Verdict.SAME, f"same: not {label} {new.value}".rstrip())
    return None


def compare(new: tuple[Facet, ...], old: tuple[Facet, ...]) -> Comparison | None:
    """How a new memory relates to a stored one: a contradiction wins over a restatement, and
    a restatement is the whole fact restated (`restates`), never one facet the two share ("User's
    husband is vegan" and "... is allergic to nuts" share only the husband)."""
    same: Comparison | None = None
    for new_facet in new:
        for old_facet in old:
            found = pair_relation(new_facet, old_facet)
            if found is None:
                continue
            if found.verdict == Verdict.CONTRADICTS:
                return found
            same = same or found
    if same is not None and not (restates(new, old) or restates(old, new)):
        return None
    return same


def _restated(facet: Facet, by: Facet) -> bool:
    """Whether `by` says what `facet` says: the same person, attribute, polarity, time, place
    and value (however much of the value each says)."""
    same_kind = (facet.subject, facet.attribute, facet.positive, facet.past, facet.scope)
    return same_kind == (by.subject, by.attribute, by.positive, by.past, by.scope) and (
        _same_value(facet.value, by.value)
    )


def restates(kept: tuple[Facet, ...], folded: tuple[Facet, ...], about: str = "") -> bool:
    """Whether a memory reading `kept` still says everything `folded` says, so that folding one
    into the other loses no fact: every facet of `folded` is restated by one of `kept`, and
    `folded` was read at all (a statement the facets cannot read is restated by nothing).

    `about` is whom `folded` is about (`memories.facets.subject_of` of its caption; without it,
    the person its facets name). The user's ownership that a fact about someone implies
    ("User's husband ...": the user has a husband) is no reading of it (`_read`): two facts
    about one person share it and nothing else."""
    about = about or next((f.subject for f in folded if f.subject != "user"), "user")
    said = [f for f in folded if _read(f, about)]
    return bool(said) and all(any(_restated(f, by) for by in kept) for f in folded)


def _read(facet: Facet, about: str) -> bool:
    """Whether a facet is a reading of what a statement about `about` says: not the ownership
    a fact about someone implies, and not an open attribute without its value (the reader
    takes "is now seven" for a practice of "now" with nothing said: every age would agree)."""
    if about != "user" and (facet.subject, facet.attribute) == ("user", "owns"):
        return False
    return bool(facet.value) or not facet.attribute.startswith((f"{PRACTICE}:", "about:"))


def distinct(new: tuple[Facet, ...], old: tuple[Facet, ...]) -> bool:
    """Whether two memories visibly state different things of one kind (another person, pet,
    allergy or value), so that however close their wording they are not one fact."""
    for a in new:
        for b in old:
            if a.attribute != b.attribute:
                continue
            if a.subject != b.subject or not _same_value(a.value, b.value):
                return True
    return False


def shares_attribute(new: tuple[Facet, ...], old: tuple[Facet, ...]) -> bool:
    """Whether the two state something of the same person and attribute."""
    pairs = {(facet.subject, facet.attribute) for facet in new}
    return any((facet.subject, facet.attribute) in pairs for facet in old)
