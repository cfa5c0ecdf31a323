"""The offline judge: how a new fact relates to a stored one, read as statements.

`compare` answers CONTRADICTS (they cannot both be true now), SAME (the new one restates the
stored one) or None (compatible, or nothing to say), with the reason an operator reads.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from extraction.catalogue import NO_MEAT, POLAR, RELATIONSHIP_COMPATIBLE, SINGLE_VALUED
from extraction.statements import Statement, read
from extraction.values import same_job, same_object, same_value


class Relation(enum.StrEnum):
    CONTRADICTS = "contradicts"
    SAME = "same"


@dataclass(frozen=True)
class Comparison:
    """What the judge found, why, and whether the new fact announces a change."""

    relation: Relation
    reason: str
    explicit_update: bool = False


def statements_of(caption: str, full_text: str) -> tuple[Statement, ...]:
    """The statements a memory makes, from its caption and its full text."""
    return tuple(dict.fromkeys((*read(caption), *read(full_text))))


_TOOL_ATTRIBUTES = frozenset({"editor", "os", "phone"})


def _label(attribute: str) -> str:
    family, _, key = attribute.partition(":")
    name = SINGLE_VALUED.get(family) or POLAR.get(family) or family
    return f"{name} ({key})" if key and key != "*" else name


def _values_conflict(attribute: str, new: str, old: str) -> bool:
    if _values_same(attribute, new, old):
        return False
    if attribute == "diet":
        return not ({new, old} <= NO_MEAT and "no-meat" in {new, old})
    if attribute == "relationship":
        return frozenset({new, old}) not in RELATIONSHIP_COMPATIBLE
    return True


def _values_same(attribute: str, new: str, old: str) -> bool:
    if same_value(new, old) or (attribute == "job" and same_job(new, old)):
        return True
    return attribute == "diet" and {new, old} == {"no-meat", "vegetarian"}


def _polar_match(new: Statement, old: Statement) -> bool:
    """Whether two polar statements are about the same thing."""
    if new.attribute != old.attribute:
        return False
    if new.attribute in {"children", "employer_left"} or "*" in (new.value, old.value):
        return True
    return same_object(new.value, old.value)


def pair_relation(new: Statement, old: Statement) -> Comparison | None:
    """How one new statement relates to one stored statement."""
    if new.subject != old.subject:
        return None  # facts about different people never conflict
    if new.past or old.past:
        return None  # "grew up in Lyon" and "lives in Paris" are both true
    if new.single_valued and new.attribute == old.attribute:
        if new.positive and old.positive:
            if _values_same(new.attribute, new.value, old.value):
                return Comparison(Relation.SAME, f"same {_label(new.attribute)}: {new.value}")
            if new.additive or old.additive:
                return None
            if _values_conflict(new.attribute, new.value, old.value):
                return Comparison(
                    Relation.CONTRADICTS,
                    f"different {_label(new.attribute)}: '{old.value}' before, '{new.value}' now",
                    explicit_update=new.change,
                )
            return None
        if new.positive != old.positive and _values_same(new.attribute, new.value, old.value):
            return Comparison(
                Relation.CONTRADICTS,
                f"{_label(new.attribute)} '{new.value}' "
                f"{'now' if new.positive else 'no longer'} holds",
                explicit_update=new.change or not new.positive,
            )
        return None
    # No longer using a tool contradicts its being the main editor, phone or OS.
    if (
        new.attribute == "practice"
        and not new.positive
        and old.positive
        and old.attribute in _TOOL_ATTRIBUTES
        and (
            same_object(new.value, old.value)
            or new.value.replace(" ", "") == old.value.replace(" ", "")
        )
    ):
        return Comparison(
            Relation.CONTRADICTS,
            f"{_label(old.attribute)} '{old.value}' before, no longer used now",
            explicit_update=True,
        )
    # Leaving an employer contradicts working there.
    if {new.attribute, old.attribute} == {"employer", "employer_left"}:
        if same_value(new.value, old.value) and new.positive != old.positive:
            return Comparison(
                Relation.CONTRADICTS,
                f"employer '{old.value}' before, left now"
                if not new.positive
                else f"works at '{new.value}' again",
                explicit_update=True,
            )
        return None
    if _polar_match(new, old):
        if new.positive != old.positive:
            verb = _label(new.attribute)
            return Comparison(
                Relation.CONTRADICTS,
                f"{verb} '{old.value or new.value}': "
                f"{'yes' if old.positive else 'no'} before, {'yes' if new.positive else 'no'} now",
                explicit_update=new.change,
            )
        if new.attribute != "children" or new.positive:
            return Comparison(Relation.SAME, f"same {_label(new.attribute)}: {new.value}")
    return None


def distinct(new: tuple[Statement, ...], old: tuple[Statement, ...]) -> bool:
    """Whether two memories visibly state different things of one kind (another person, pet,
    allergy or value), so that however close their wording they are not one fact."""
    for a in new:
        for b in old:
            if a.attribute.split(":", 1)[0] != b.attribute.split(":", 1)[0]:
                continue
            if a.subject != b.subject or a.attribute != b.attribute:
                return True
            if a.single_valued and not _values_same(a.attribute, a.value, b.value):
                return True
            if not a.single_valued and not _polar_match(a, b):
                return True
    return False


def compare(new: tuple[Statement, ...], old: tuple[Statement, ...]) -> Comparison | None:
    """How a new memory relates to a stored one: a contradiction wins over a restatement."""
    same: Comparison | None = None
    for new_statement in new:
        for old_statement in old:
            found = pair_relation(new_statement, old_statement)
            if found is None:
                continue
            if found.relation == Relation.CONTRADICTS:
                return found
            same = same or found
    return same
