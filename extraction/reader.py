"""The offline reader: the user's own first-person statements, restated faithfully.

It keeps a clause only when the user states something about themselves or the people in
their life, in their own words, turned to the third person by closed-class rewrites
(`grounding.third_person`): "I'm vegan and my partner is a nurse." gives "User is vegan" and
"User's partner is a nurse". It invents no structure: no template builds a caption.

Most of its work is deciding what not to store, with the grounding check's own evidence
(`grounding.user_statements`): questions, requests, hypotheticals, messages that instruct
the extractor, what the assistant said, and clauses the user corrected right after are never
statements; a clause about now (a lexicon of time words: "today", "rn") or a passing state
is not durable; a clause that does not open in the first person is not about the user.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from core.lexicon import lexicon
from extraction.candidates import Candidate
from extraction.grounding import (
    has_phrase,
    instructs,
    opens_without_i,
    third_person,
    tidy_caption,
    user_statements,
    words_of,
)
from memories.facets import read as read_facets
from memories.models import Memory
from memories.text import CAPTION_MAX_LENGTH, states_a_fact

CONFIDENCE = 0.7
# A clause goes on with another subject after "and" / "but" ("I'm vegan and my partner is a
# nurse"): each is its own statement.
_SUBJECT_BREAK = re.compile(
    r"\s*(?:\s(?:and|but|while|plus)|&|\+)(?:\s+(?:now|then|also|so|since))?\s+"
    r"(?=(?:i|i'm|im|i've|ive|my|our|we|we're|it|it's|its|she|she's|he|he's|they|they're)\b)",
    re.I,
)
# "my dad's a firefighter", "my gf's vegetarian": the 's of "is" after the person.
_IS = re.compile(r"^(User's \S+?)'s\b(?!\s+(?:a|an|the)?\s*\S+\s+(?:is|are|was)\b)")


def _parts(clause: str) -> list[str]:
    """The clause's statements: split at a new subject, and at "and" before a verb that
    leaves the "I" out ("I'm 41 and have bad knees")."""
    parts = []
    for part in _SUBJECT_BREAK.split(clause):
        pieces = part.split(" and ")
        parts.append(pieces[0])
        for piece in pieces[1:]:
            if opens_without_i(words_of(piece)) and len(words_of(parts[-1])) > 1:
                parts.append(piece)
            else:
                parts[-1] = f"{parts[-1]} and {piece}"
    return [part.strip() for part in parts if part.strip()]


def _opening(part: str) -> str:
    """The clause without the chat words it may open with ("lol", "ok so", "btw")."""
    words = part.split()
    while words:
        if " ".join(words[:2]).lower().strip(",.!") in lexicon("fillers"):
            words = words[2:]
        elif words[0].lower().strip(",.!") in lexicon("fillers"):
            words = words[1:]
        else:
            break
    return " ".join(words)


def _in_first_person(part: str) -> str:
    """The part as a first-person clause ("" if it is about someone else), with the "I" a
    chat clause leaves out put back ("moved to Lisbon!" is "I moved to Lisbon!")."""
    words = words_of(part)
    if not words:
        return ""
    if words[0] in lexicon("first_person") and words[0] not in {"me", "us"}:
        return part
    if opens_without_i(words):
        negated = words[0] in {"not", "never"} and words[1:2] != ["been"]
        return f"I'm {part}" if negated else f"I {part}"
    return ""


# "she", "he", "they" at the start of a clause: the person the user named last ("my mum has
# dementia, she lives with us now").
_PRONOUN = re.compile(r"^(?:she|he|they)(?:'s|'re| is| are|\b)", re.I)


def _last_person(clause: str, current: str) -> str:
    """The relation the clause names last ("my mum", "our son"), else `current`."""
    words = words_of(clause)
    for at in range(len(words) - 1, -1, -1):
        if words[at] in {"my", "our"}:
            for size in (3, 2, 1):
                relation = " ".join(words[at + 1 : at + 1 + size]).removesuffix("'s")
                if relation in lexicon("people"):
                    return relation
    return current


def _resolved(part: str, person: str) -> str:
    """A clause opening with a pronoun for the person last named, about that person."""
    match = _PRONOUN.match(part)
    if not match or not person:
        return part
    verb = match.group(0)[len(match.group(0).split("'")[0].split(" ")[0]) :]
    verb = {"'s": " is", "'re": " is", " are": " is"}.get(verb, verb)
    return f"my {person}{verb}{part[match.end() :]}"


def _caption(part: str) -> str:
    return _IS.sub(r"\1 is", tidy_caption(third_person(part)))


def _announces_change(part: str) -> bool:
    """Whether a clause announces a change the registry knows ("just turned 42 yesterday",
    "moved to Lisbon last week"): kept although it names a time."""
    return any(facet.change for facet in read_facets(_caption(part)))


def _category(caption: str) -> str:
    for category in ("technical", "project", "preference"):
        if has_phrase(caption, f"category_{category}"):
            return category
    return Memory.Category.PERSONAL


def read_statements(messages: Iterable[dict]) -> list[Candidate]:
    """The candidates the user stated in `messages`, in their own words, in order."""
    found: list[Candidate] = []
    seen: set[str] = set()
    person = ""
    for clause in user_statements(messages):
        for part in _parts(clause):
            part = _in_first_person(_resolved(_opening(part), person))
            person = _last_person(part, person)
            if not part or (has_phrase(part, "temporary") and not _announces_change(part)):
                continue
            caption = _caption(part)
            if (
                len(caption) > CAPTION_MAX_LENGTH
                or not states_a_fact(caption)
                or has_phrase(caption, "not_durable")
                or has_phrase(caption, "passing_states")
                or len(words_of(caption)) < 2
                or has_phrase(caption, "vague")
            ):
                continue
            if caption.lower() in seen:
                continue
            seen.add(caption.lower())
            found.append(
                Candidate(
                    caption=caption,
                    full_text=f"{caption}.",
                    category=_category(caption),
                    confidence=CONFIDENCE,
                )
            )
    return found


def _content(caption: str) -> set[str]:
    """What a caption says, without the person it is about ("User's grandad has Parkinson's"
    and "User's grandad lives with their aunt" are two facts)."""
    return set(words_of(caption)) - lexicon("generic_words") - lexicon("people")


def statements_missed(candidates: list[Candidate], messages: Iterable[dict]) -> list[Candidate]:
    """What the user stated about themselves that no candidate covers: the LLM path's safety
    net, since a small model often writes one fact where the user gave three. A statement
    covers a candidate's ground when they share half the content words of the shorter."""
    covered = [_content(candidate.caption) for candidate in candidates]
    missed = []
    for statement in read_statements(messages):
        words = _content(statement.caption)
        if words and not any(
            theirs and len(words & theirs) * 2 >= min(len(words), len(theirs)) for theirs in covered
        ):
            missed.append(statement)
            covered.append(words)
    return missed


def offline_candidates(messages: list[dict]) -> list[Candidate]:
    """What the offline path stores candidates for (`pipeline.candidates_extract` without an
    LLM): the user's own statements, no message that instructs the extractor read."""
    return read_statements(without_instructions(messages))


def without_instructions(messages: Iterable[dict]) -> list[dict]:
    """The messages, less those that instruct the extractor or the assistant ("ignore
    previous instructions", "SYSTEM:"): data for the model, never facts to read."""
    return [m for m in messages if not instructs(str(m.get("content", "")))]
