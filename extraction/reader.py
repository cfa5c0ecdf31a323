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

import logging
import re
from collections.abc import Iterable
from functools import cache

from core.lexicon import lexicon
from core.metrics import READER_CLAUSES_SKIPPED
from extraction.candidates import Candidate
from extraction.grounding import (
    has_phrase,
    instructs,
    opens_without_i,
    user_clauses,
    words_of,
)
from extraction.wording import passing, third_person, tidy_caption
from memories.attributes import PRACTICE, attribute
from memories.facets import category_of, kind_of
from memories.facets import read as read_facets
from memories.models import Memory
from memories.text import CAPTION_MAX_LENGTH, states_a_fact
from memories.values import lacks_value

logger = logging.getLogger(__name__)

CONFIDENCE = 0.7
# A clause goes on with another subject after "and" / "but" ("I'm vegan and my partner is a
# nurse"): each is its own statement.
_SUBJECT_BREAK = re.compile(
    r"\s*(?:\s(?:and|but|while|plus)|&|\+)(?:\s+(?:now|then|also|so|since))?\s+"
    r"(?=(?:i|i'm|im|i've|ive|my|our|we|we're|it|it's|its|she|she's|he|he's|they|they're)\b)",
    re.I,
)
# "hiking's my favourite thing": what the user's favourite is, said first.
_FAVOURITE = re.compile(
    r"^(?P<value>\S+(?: \S+){0,3}?)(?:'s| is) (?P<noun>my (?:favou?rite|fave?)\b.*)$", re.I
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
            said = words_of(piece)
            if not said:
                continue  # a dangling "and" ("I work at Siemens and "): nothing follows it
            if (opens_without_i(said) or _their_person(said)) and len(words_of(parts[-1])) > 1:
                parts.append(piece)
            else:
                parts[-1] = f"{parts[-1]} and {piece}"
    return [_undangled(part) for part in parts if _undangled(part)]


# The words that join statements (`_SUBJECT_BREAK`): one left at a part's end joins nothing.
_JOINERS = frozenset({"and", "but", "while", "plus", "&", "+"})


def _undangled(part: str) -> str:
    """The part without the joining words it ends on ("I'm vegan and and" is "I'm vegan")."""
    words = part.split()
    while words and words[-1].lower().strip(",;") in _JOINERS:
        words.pop()
    return " ".join(words)


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
    chat clause leaves out put back ("moved to Lisbon!" is "I moved to Lisbon!", "night owl"
    is "I'm night owl")."""
    words = words_of(part)
    if not words:
        return ""
    favourite = _FAVOURITE.match(part.strip(" ,.!"))
    if favourite:  # "hiking's my favourite thing" is "my favourite thing is hiking"
        return f"{favourite['noun']} is {favourite['value']}"
    if words[0] in lexicon("first_person") and words[0] not in {"me", "us"}:
        return part
    if _their_person(words):  # "mum's a GP", chat leaving out the "my"
        return f"my {part}"
    if opens_without_i(words):
        negated = words[0] in {"not", "never"} and words[1:2] != ["been"]
        part = part[:1].lower() + part[1:] if words[0] in lexicon("negators") else part
        return f"I'm {part}" if negated else f"I {part}"
    return _fragment(part)


# What a fragment about the user may state: an attribute the registry closes by its values or
# phrases. An open reading (a practice of some verb, a stray number read as an age, a noun's
# "about") is no evidence that a fragment without a subject is about the user.
_OPEN_READINGS = frozenset({"age", "likes", "about", "name"})


def _fragment(part: str) -> str:
    """A subjectless fragment the registry recognises, as the user's own clause ("backend dev
    at Acme" is "I'm a backend dev at Acme", "no kids" is "I have no kids", "peanut allergy
    here" is "I have peanut allergy"); "" for any other fragment."""
    words = part.split()
    while words:
        if " ".join(words[-2:]).lower().strip(",.!") in lexicon("fragment_tails"):
            words = words[:-2]
        elif words[-1].lower().strip(",.!") in lexicon("fragment_tails"):
            words = words[:-1]
        else:
            break
    if not words or len(words) > 8:
        return ""
    text = " ".join(words).strip(" ,.!;:")
    said = words_of(text)
    if (
        not said
        or said[0] in lexicon("value_breaks")
        or set(said)
        & (
            lexicon("negators")
            | lexicon("auxiliaries")
            | lexicon("first_person")
            | {"is", "are", "was", "were", "am"}
        )
    ):
        # A clause of its own ("one guest is vegan", "light mode hurts my eyes") or a place
        # ("at sea level"), not a fragment about the user.
        return ""
    # "no kids" is "I have no kids"; else what the user is ("night owl") or has ("a peanut
    # allergy"), an open "has" (anything at all) aside.
    article = "" if said[0] in {"a", "an", "the"} else "an " if text[0] in "aeiouAEIOU" else "a "
    openings = ("I have ",) if said[0] == "no" else ("I'm ", f"I'm {article}", "I have ")
    for opening in openings:
        for facet in read_facets(_caption(f"{opening}{text}")):
            name = facet.attribute.split(":")[0]
            if facet.subject != "user" or name in _OPEN_READINGS:
                continue
            stated = {f"is {text}".lower(), f"is {article}{text}".lower()}
            if name == PRACTICE and not stated & set(attribute(name).fixed):
                continue  # a practice only from a state the registry lists ("teetotal")
            if name == "owns" and (facet.positive or not _kind_of_person(facet.value)):
                continue  # "has" anything at all; "no kids", "no pets" but not "no pork"
            if attribute(name).article and not opening.endswith(f" {article}"):
                opening = f"I'm {article}"
            return f"{opening}{text}"
    return ""


@cache
def _openers() -> tuple[tuple[list[str], str], ...]:
    """The fragment openings and the clause each stands for, longest first."""
    found = []
    for entry in lexicon("fragment_openers"):
        opening, _, clause = entry.partition("=")
        found.append((opening.split(), clause.strip()))
    return tuple(sorted(found, key=lambda item: -len(item[0])))


@cache
def _value_stops() -> frozenset[str]:
    """Where the value after a fragment opening ends: a new clause, a break, the user, or an
    auxiliary that opens a question ("as a diabetic should i ...")."""
    return (
        lexicon("value_ends")
        | lexicon("value_breaks")
        | lexicon("first_person")
        | lexicon("auxiliaries")
    )


def _opened(clause: str) -> str:
    """A clause that opens the way chat states a fact without a subject ("greetings from
    Berlin!", "as a paralegal what's the best way ..."), as the user's own clause, with the
    value the registry reads after it ("I'm a paralegal"); "" for any other."""
    words = clause.split()
    said = words_of(_opening(clause))
    for opening, stands_for in _openers():
        if said[: len(opening)] != opening:
            continue
        value: list[str] = []
        for word in said[len(opening) :][:4]:
            if word in _value_stops():
                break
            value.append(word)
        if not value:
            return ""
        # The value as the user wrote it ("Lisbon"), from the clause's own words.
        start = len(words) - len(said) + len(opening)
        text = " ".join(w.strip(",.!?:;") for w in words[start : start + len(value)])
        stated = f"{stands_for} {text}"
        facets = read_facets(_caption(stated))
        if any(f.attribute.split(":")[0] not in {"practice", "about"} for f in facets):
            return stated
    return ""


def _their_person(words: list[str]) -> bool:
    """Whether a clause opens with one of the user's people and states a closed fact of
    them, the "my" left out ("mum's a GP", "hubby is vegan", "sister has coeliac"): the
    registry must read a closed attribute, so "dad jokes are the best" is not one."""
    if not words:
        return False
    person = words[0].removesuffix("'s")
    if person not in lexicon("people") or person in lexicon("generic_people"):
        return False
    if not (words[0].endswith("'s") or words[1:2] in (["is"], ["has"], ["was"])):
        return False
    caption = _caption(f"my {' '.join(words)}")
    return any(
        facet.subject != "user" and facet.attribute.split(":")[0] not in {PRACTICE, "about"}
        for facet in read_facets(caption)
    )


def _kind_of_person(value: str) -> bool:
    """Whether a value names people or pets ("kids", "pets", "a cat")."""
    return any(word in lexicon("people") or kind_of(word) != word for word in value.split())


# "she", "he", "they" at the start of a clause: the person the user named last ("my mum has
# dementia, she lives with us now").
_PRONOUN = re.compile(r"^(?:she|he|they)(?:'s|'re| is| are|\b)", re.I)


def _last_person(clause: str, current: str) -> str:
    """The relation the clause names last ("my mum", "our new puppy"), else `current`."""
    words = words_of(clause)
    for at in range(len(words) - 1, -1, -1):
        if words[at] in {"my", "our"}:
            # One word may describe the person first ("my older brother", "our new puppy").
            for start in (at + 1, at + 2):
                for size in (3, 2, 1):
                    relation = " ".join(words[start : start + size]).removesuffix("'s")
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
    caption = tidy_caption(third_person(part))
    match = _IS.match(caption)
    # "my partner's parents live in Cork": the 's before one of the user's people is theirs.
    after = words_of(caption[match.end() :])[:1] if match else []
    if not match or (after and after[0].removesuffix("'s") in lexicon("people")):
        return caption
    return _IS.sub(r"\1 is", caption)


def _announces_change(part: str) -> bool:
    """Whether a clause announces a change the registry knows ("just turned 42 yesterday",
    "moved to Lisbon last week"): kept although it names a time."""
    return any(facet.change for facet in read_facets(_caption(part)))


def category(caption: str) -> str:
    """The registry's category for the fact (`facets.category_of`), else the one whose
    lexicon the caption names ("category_technical"), else personal."""
    found = category_of(caption)
    if found:
        return found
    for name in ("technical", "project", "preference"):
        if has_phrase(caption, f"category_{name}"):
            return name
    return Memory.Category.PERSONAL


def read_statements(
    messages: Iterable[dict], *, skipped: list[str] | None = None
) -> list[Candidate]:
    """The candidates the user stated in `messages`, in their own words, in order.

    It never raises: a clause it cannot read is left out, logged, counted in the metric
    `memory_reader_clauses_skipped` and added to `skipped` (the job counts it), and the rest of
    the conversation is still read.
    """
    messages = list(messages)
    found: list[Candidate] = []
    seen: set[str] = set()
    person = ""
    for clause, statement in _clauses_read(messages, skipped):
        try:
            captions, person = _captions(clause, statement, person)
            read = [(caption, category(caption)) for caption in captions]
        except Exception:  # one unreadable clause must not lose the others
            _skip(clause, skipped, unit="clause")
            continue
        for caption, kind in read:
            if caption.lower() in seen:
                continue
            seen.add(caption.lower())
            found.append(
                Candidate(
                    caption=caption,
                    full_text=f"{caption}.",
                    category=kind,
                    confidence=CONFIDENCE,
                )
            )
    return found


def _clauses_read(messages: list[dict], skipped: list[str] | None) -> list[tuple[str, str]]:
    """The user's clauses (`user_clauses`); if the conversation cannot be split as a whole,
    each message on its own, and a message that still cannot is skipped."""
    try:
        return user_clauses(messages)
    except Exception:  # degrade to one message at a time
        logger.exception("reader: the conversation could not be split; reading each message")
    clauses = []
    for message in messages:
        try:
            clauses += user_clauses([message])
        except Exception:
            _skip(str(message.get("content", "")), skipped, unit="message")
    return clauses


def _skip(text: str, skipped: list[str] | None, *, unit: str) -> None:
    logger.exception("reader: skipped a %s it could not read (%d characters)", unit, len(text))
    READER_CLAUSES_SKIPPED.labels(unit).inc()
    if skipped is not None:
        skipped.append(text)


def _captions(clause: str, statement: str, person: str) -> tuple[list[str], str]:
    """The captions one clause states, and the person a later "she" or "he" means."""
    captions = []
    opened = _opened(clause)
    if not statement and not opened:
        return [], _last_person(clause, person)
    for part in [opened] if opened else _parts(statement):
        part = _in_first_person(_resolved(_opening(part), person))
        person = _last_person(part, person)
        if not part or (has_phrase(part, "temporary") and not _announces_change(part)):
            continue
        caption = _caption(part)
        if (
            len(caption) > CAPTION_MAX_LENGTH
            or not states_a_fact(caption)
            or lacks_value(caption)
            or has_phrase(caption, "not_durable")
            or passing(caption)
            or len(words_of(caption)) < 2
            or has_phrase(caption, "vague")
        ):
            continue
        captions.append(caption)
    return captions, person


def _content(caption: str) -> set[str]:
    """What a caption says, without the person it is about ("User's grandad has Parkinson's"
    and "User's grandad lives with their aunt" are two facts)."""
    return set(words_of(caption)) - lexicon("generic_words") - lexicon("people")


def statements_missed(
    candidates: list[Candidate], messages: Iterable[dict], *, skipped: list[str] | None = None
) -> list[Candidate]:
    """What the user stated about themselves that no candidate covers: the LLM path's safety
    net, since a small model often writes one fact where the user gave three. A statement
    covers a candidate's ground when they share half the content words of the shorter."""
    covered = [_content(candidate.caption) for candidate in candidates]
    missed = []
    for statement in read_statements(messages, skipped=skipped):
        words = _content(statement.caption)
        if words and not any(
            theirs and len(words & theirs) * 2 >= min(len(words), len(theirs)) for theirs in covered
        ):
            missed.append(statement)
            covered.append(words)
    return missed


def offline_candidates(
    messages: list[dict], *, skipped: list[str] | None = None
) -> list[Candidate]:
    """What the offline path stores candidates for (`pipeline.candidates_extract` without an
    LLM): the user's own statements, no message that instructs the extractor read; the
    clauses it could not read are added to `skipped`."""
    return read_statements(without_instructions(messages), skipped=skipped)


def without_instructions(messages: Iterable[dict]) -> list[dict]:
    """The messages, less those that instruct the extractor or the assistant ("ignore
    previous instructions", "SYSTEM:"): data for the model, never facts to read."""
    return [m for m in messages if not instructs(str(m.get("content", "")))]
